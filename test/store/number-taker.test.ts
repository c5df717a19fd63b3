// The numbers of units that commit in a group (D-281) and those taken ahead under load (D-283),
// against a fake session whose counters answer take_number as the sequences do, and a clock the
// test moves: what is taken ahead, when, and that no number is handed out twice, late or out of
// its order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NUMBER_TAKER_DEFAULTS, NumberTaker } from '../../src/store/postgres/number-taker.ts';

function setup() {
  const counters = new Map<string, number>();
  const statements: string[][] = [];
  let clock = 0;
  let failNext: Error | undefined;
  /** Answers held until released: a statement in flight. */
  let gate: Promise<void> | undefined;
  const taker = new NumberTaker(
    async (work) =>
      work(async <R>(_text: string, params: readonly unknown[] = []) => {
        statements.push(params as string[]);
        // The server takes the numbers as the statement arrives; its answer may come later.
        const row: Record<string, number> = {};
        for (const [i, kind] of (params as string[]).entries()) {
          counters.set(kind, (counters.get(kind) ?? 0) + 1);
          row[`n${i}`] = counters.get(kind) as number;
        }
        await gate;
        if (failNext !== undefined) {
          const error = failNext;
          failNext = undefined;
          throw error;
        }
        return [row] as R[];
      }),
    { ...NUMBER_TAKER_DEFAULTS, now: () => clock },
  );
  return {
    taker,
    statements,
    counters,
    tick(ms: number) {
      clock += ms;
    },
    failNextWith(error: Error) {
      failNext = error;
    },
    /** Holds every statement's answer until the function returned is called. */
    hold(): () => void {
      let release: () => void = () => undefined;
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

/** The number of an id (`deal_0012` → 12). */
const number = (id: string) => Number(id.slice(id.indexOf('_') + 1));

/** Lets the fake's answers and the taker's next statement run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A taker under a load that lasts, whose units were served from what it held until a refill went,
 * and stays in flight until `release` is called.
 */
async function refillInFlight() {
  const numbers = setup();
  const { taker, statements, tick, hold } = numbers;
  for (let i = 0; i < 60; i++) {
    await taker.take(['deal']);
    tick(0.5);
  }
  await settle();
  const release = hold();
  const before = statements.length;
  for (let i = 0; i < 16 && statements.length === before; i++) {
    await taker.take(['deal']);
    tick(0.5);
  }
  assert.equal(statements.length, before + 1, 'a refill in flight');
  return { ...numbers, release };
}

describe('numbers taken for units that commit in a group', () => {
  it('takes no number ahead for a service used one request at a time: no gaps', async () => {
    const { taker, statements, tick } = setup();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push(...(await taker.take(['deal', 'gig'])));
      tick(5);
    }
    assert.deepEqual(
      ids.filter((id) => id.startsWith('deal_')).map(number),
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    assert.ok(
      statements.every((params) => params.length === 2),
      'each statement takes only what its unit asked',
    );
  });

  it('takes nothing ahead for a burst shorter than a period: no gaps after it', async () => {
    const { taker, tick } = setup();
    const burst = await Promise.all(Array.from({ length: 50 }, () => taker.take(['deal'])));
    const after: string[][] = [];
    for (let i = 0; i < 5; i++) {
      tick(NUMBER_TAKER_DEFAULTS.holdMs / 2 + 1);
      after.push(await taker.take(['deal']));
    }
    assert.deepEqual(
      [...burst, ...after].map(([deal]) => number(deal)),
      Array.from({ length: 55 }, (_, i) => i + 1),
    );
  });

  it('under a load that lasts takes a few ahead, so that most units are numbered without a statement', async () => {
    const { taker, statements, tick } = setup();
    const handedOut: string[] = [];
    let firstPeriod = 0;
    // 2,000 units a second for 100 ms: the first period's 40 go one statement each.
    for (let i = 0; i < 200; i++) {
      if (i === 40) firstPeriod = statements.length;
      handedOut.push(...(await taker.take(['deal', 'gig', 'gig'])));
      tick(0.5);
    }
    await settle();
    assert.equal(firstPeriod, 40, 'nothing ahead before the load has lasted a period');
    const later = statements.length - firstPeriod;
    assert.ok(later < 160 / 3, `statements for the 160 units after: ${later}`);
    assert.ok(
      statements.every((params) => params.length <= 64),
      'no statement takes more than 64',
    );
    for (const kind of ['deal_', 'gig_']) {
      const numbers = handedOut.filter((id) => id.startsWith(kind)).map(number);
      assert.equal(new Set(numbers).size, numbers.length, `${kind} never twice`);
      assert.deepEqual(
        numbers,
        [...numbers].sort((a, b) => a - b),
        `${kind} in the order handed out`,
      );
    }
    const ahead = Math.max(...statements.map((params) => params.filter((kind) => kind === 'deal').length));
    assert.ok(ahead <= 1 + NUMBER_TAKER_DEFAULTS.mostAhead, `at most 16 deals ahead: ${ahead}`);
  });

  it('drops a number held longer than the hold: a gap, never a late or a lower number', async () => {
    const { taker, tick } = setup();
    const deals: number[] = [];
    for (let i = 0; i < 80; i++) {
      deals.push(number((await taker.take(['deal']))[0]));
      tick(0.5);
    }
    await settle();
    tick(NUMBER_TAKER_DEFAULTS.holdMs + 1);
    const after = number((await taker.take(['deal']))[0]);
    assert.ok(
      after > Math.max(...deals) + 1,
      `a gap after the held were dropped: ${after} after ${Math.max(...deals)}`,
    );
  });

  it('units that wait while a statement is in flight go together in the next, in the order they came', async () => {
    const { taker, statements, hold } = setup();
    const release = hold();
    const first = taker.take(['deal']);
    const waiting = Array.from({ length: 30 }, () => taker.take(['deal', 'gig']));
    await settle();
    assert.equal(statements.length, 1, 'one statement in flight at a time');
    release();
    const ids = await Promise.all([first, ...waiting]);
    assert.equal(statements.length, 2, 'the 30 that waited went in one statement');
    assert.equal(statements[1].length, 60, 'a burst takes nothing ahead');
    assert.deepEqual(
      ids.map(([deal]) => number(deal)),
      Array.from({ length: 31 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      ids.slice(1).map(([, gig]) => number(gig)),
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
  });

  it('forgets what it holds when the demo is reset', async () => {
    const { taker, counters, tick } = setup();
    for (let i = 0; i < 80; i++) {
      await taker.take(['deal']);
      tick(0.5);
    }
    await settle();
    counters.clear();
    taker.forget();
    assert.equal((await taker.take(['deal']))[0], 'deal_0001');
  });

  it('keeps none of the numbers a statement in flight at the reset takes ahead', async () => {
    const { taker, counters, release } = await refillInFlight();
    counters.clear();
    taker.forget();
    release();
    await settle();
    const after = (await taker.take(['deal']))[0];
    assert.ok(number(after) <= 16, `a number the counter gave after the reset: ${after}`);
  });

  it('a reset waits for the statement in flight and takes nothing ahead until it is done: its first number is 1', async () => {
    const { taker, counters, statements, release } = await refillInFlight();
    let quiet = false;
    const quiescing = taker.quiesce().then(() => {
      quiet = true;
    });
    await settle();
    assert.equal(quiet, false, 'the reset waits for the statement in flight');
    release();
    await quiescing;
    // A unit numbered while the reset runs takes only its own number, nothing ahead.
    const during = statements.length;
    await taker.take(['deal']);
    assert.deepEqual(statements.slice(during), [['deal']], 'nothing taken ahead during the reset');
    counters.clear();
    taker.forget();
    assert.equal((await taker.take(['deal']))[0], 'deal_0001');
  });

  it('a failed statement fails the units it numbered, and the next unit is numbered', async () => {
    const { taker, failNextWith } = setup();
    failNextWith(new Error('connection lost'));
    await assert.rejects(taker.take(['deal']), /connection lost/);
    // The server took a number for the lost answer: a gap (D-28), never that number again.
    assert.equal((await taker.take(['deal']))[0], 'deal_0002');
  });
});
