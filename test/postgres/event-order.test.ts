// The feed's order on PostgreSQL (D-41, migration 006, D-166): an event enters the feed as soon as
// its transaction has committed, and gets its seq then, so a reader can never read a seq and
// later find a lower one, and an open transaction holds nothing back. Shown with units of work
// held open on purpose, on two store instances (two connection pools, as two service instances
// would be) over one schema.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PublicEventDraft } from '../../src/domain/public-events.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { Store } from '../../src/store/store.ts';
import { sampleDeal } from '../store/contract.ts';
import { moved, T0 } from '../support/feed-events.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();
/** A promise and the function that resolves it. */
function latch(): [Promise<void>, () => void] {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return [promise, open];
}
const dealIdsOf = (events: { event: PublicEventDraft }[]) =>
  events.map(({ event }) => (event as { data: { dealId: string } }).data.dealId);

describe('the feed’s order across instances on PostgreSQL', { skip: server.skip }, () => {
  let schema: TestSchema;
  let one: Store;
  let two: Store;
  before(async () => {
    schema = await createTestSchema(server.url as string, 'feed_order');
    one = await createStore(schema.url, { ownerUrl: schema.ownerUrl });
    two = await createStore(schema.url, { ownerUrl: schema.ownerUrl });
  });
  after(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await schema?.drop();
  });

  it('an event committed beside an older open transaction enters at once; the older one follows it', async () => {
    const start = await one.lastSeq();
    const [held, release] = latch();
    const [hasBegun, begun] = latch();
    // The older transaction: it writes its outbox row first (a lower position), then stays open.
    const older = one.transaction(async (uow) => {
      await uow.takeNumber('deal');
      await uow.publish([moved('deal_older')], T0);
      begun();
      await held;
    });
    await hasBegun;
    // A younger one, on the other instance, commits meanwhile: it is readable at once, on both.
    await two.transaction((uow) => uow.publish([moved('deal_younger')], T0));
    const first = await two.events({ after: start, limit: 10 });
    assert.deepEqual(dealIdsOf(first), ['deal_younger']);
    assert.deepEqual(await one.events({ after: start, limit: 10 }), first);
    release();
    await older;
    // The older one gets the next seq: nothing appears below what a reader already read.
    const events = await one.events({ after: start, limit: 10 });
    assert.deepEqual(dealIdsOf(events), ['deal_younger', 'deal_older']);
    assert.deepEqual(
      events.map((e) => e.seq),
      [start + 1, start + 2],
    );
  });

  it('a unit that waited on another’s lock enters the feed after it (both usually move in one sequencer run)', async () => {
    const start = await one.lastSeq();
    const [held, release] = latch();
    const [hasBegun, begun] = latch();
    // The first holds a deal's row (a locked read) and stays open; the second begins and writes
    // elsewhere first, then waits on that row.
    await one.transaction((uow) => uow.putDeal(sampleDeal('deal_locked')));
    const first = one.transaction(async (uow) => {
      await uow.getDeal('deal_locked');
      begun();
      await held;
      await uow.publish([moved('deal_first')], T0);
    });
    await hasBegun;
    const second = two.transaction(async (uow) => {
      await uow.takeNumber('gig');
      await uow.getDeal('deal_locked');
      await uow.publish([moved('deal_second')], T0);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await Promise.all([first, second]);
    assert.deepEqual(dealIdsOf(await two.events({ after: start, limit: 10 })), ['deal_first', 'deal_second']);
  });

  it('a rolled-back unit leaves nothing, and does not hold the feed back once it has ended', async () => {
    const start = await one.lastSeq();
    await assert.rejects(
      one.transaction(async (uow) => {
        await uow.takeNumber('deal');
        await uow.publish([moved('deal_rolled_back')], T0);
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    await two.transaction((uow) => uow.publish([moved('deal_after')], T0));
    assert.deepEqual(dealIdsOf(await one.events({ after: start, limit: 10 })), ['deal_after']);
  });

  it('racing writers on both instances and a reader: every event once, in order, none skipped', async () => {
    const start = await one.lastSeq();
    const seen: number[] = [];
    const names: string[] = [];
    let writing = true;
    let expected = Number.POSITIVE_INFINITY;
    const reader = (async () => {
      let cursor = start;
      // Once the writers are done, read until all arrived (or 20 s, then the counts differ).
      const deadline = () => !writing && Date.now() > doneAt + 20_000;
      for (let i = 0; ; i++) {
        const wasWriting = writing;
        const page = await (i % 2 === 0 ? one : two).events({ after: cursor, limit: 5 });
        for (const { seq, event } of page) {
          seen.push(seq);
          names.push((event as { data: { dealId: string } }).data.dealId);
        }
        if (page.length > 0) cursor = page[page.length - 1].seq;
        if (!wasWriting && page.length === 0 && (seen.length >= expected || deadline())) return;
      }
    })();
    let doneAt = 0;
    const written: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        const store = w % 2 === 0 ? one : two;
        for (let k = 0; k < 25; k++) {
          const id = `deal_w${w}_${k}`;
          await store.transaction(async (uow) => {
            await uow.takeNumber('deal');
            // Some units take their time, so that commits interleave out of transaction-id order.
            if ((w + k) % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 3));
            await uow.publish([moved(id), moved(`${id}_b`)], T0);
          });
          written.push(id, `${id}_b`);
        }
      }),
    );
    expected = written.length;
    doneAt = Date.now();
    writing = false;
    await reader;
    assert.equal(seen.length, written.length);
    assert.deepEqual(
      seen,
      seen.map((_, i) => start + 1 + i),
      'contiguous and in order',
    );
    assert.deepEqual(new Set(names), new Set(written));
    // A unit's events stay together.
    for (let i = 0; i < names.length; i += 2) assert.equal(names[i + 1], `${names[i]}_b`);
  });
});
