// The demo clock kept in each instance (D-19, D-187): two services over one store stand for
// two instances whose notices of each other's moves have not arrived (the memory store sends
// none). A deal acted on at a later time by one is never acted on earlier by the other.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPipelineService } from '../../src/service/pipeline-service.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { Store } from '../../src/store/store.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2030-03-04T09:00:00.000Z');
const account = { name: 'Fictional Clock Co', actor: 'B2B' as const, industry: 'saas' };

function pair() {
  let machine = T0;
  const clock = { now: () => machine };
  const store = new MemoryStore();
  const config = { claimTtlHours: 72 };
  return {
    a: createPipelineService(store, clock, config),
    b: createPipelineService(store, clock, config),
    tick: (ms: number) => {
      machine += ms;
    },
  };
}

const value = <T>(result: { ok: true; value: T } | { ok: false }) => {
  assert.ok(result.ok);
  return (result as { value: T }).value;
};

describe('the platform clock kept in each instance', () => {
  it('reads the stored offset once, then keeps it: time is the machine clock plus the offset', async () => {
    const { a, b, tick } = pair();
    const moved = value(await b.run(b.platform.advanceClock(10)));
    assert.equal(moved.now, T0 + 10 * HOUR);
    tick(5);
    // a never read the offset before: its first unit of work reads it.
    const deal = value(await a.run(a.deals.createDeal({ account, listValueUsd: 1000 })));
    assert.equal(deal.activity[0].at, T0 + 10 * HOUR + 5);
  });

  it('a deal acted on later by another instance is not acted on earlier: the offset is read again', async () => {
    const { a, b, tick } = pair();
    const deal = value(await a.run(a.deals.createDeal({ account, listValueUsd: 1000 })));
    // b moves the clock a day on and acts; a has not heard of the move.
    value(await b.run(b.platform.advanceClock(24)));
    value(await b.run(b.deals.advanceDeal(deal.id, {})));
    tick(1);
    const after = value(await a.run(a.deals.advanceDeal(deal.id, {})));
    assert.equal(after.kind, 'deal');
    assert.ok(after.kind === 'deal');
    const times = after.deal.activity.map((e) => e.at);
    assert.deepEqual(times, [T0, T0 + 24 * HOUR, T0 + 24 * HOUR + 1]);
    // And a now knows the offset for what follows.
    const next = value(await a.run(a.deals.createDeal({ account, listValueUsd: 1000 })));
    assert.equal(next.activity[0].at, T0 + 24 * HOUR + 1);
  });

  it("an instance learns another's move at its next timer run, and a reset sets it back", async () => {
    const { a, b } = pair();
    value(await a.run(a.deals.createDeal({ account, listValueUsd: 1000 })));
    value(await b.run(b.platform.advanceClock(5)));
    await a.platform.runTimers();
    assert.equal(value(await a.run(a.deals.createDeal({ account, listValueUsd: 1000 }))).activity[0].at, T0 + 5 * HOUR);
    value(await a.run(a.platform.reset()));
    assert.equal(value(await a.run(a.deals.createDeal({ account, listValueUsd: 1000 }))).activity[0].at, T0);
  });

  it('a timer run that took its time before another instance acted writes no earlier activity (D-19)', async () => {
    let machine = T0;
    const clock = { now: () => machine };
    const store = new MemoryStore();
    // a's store can hold one read: the run's read of the due gigs, after it has taken its time.
    let holdRead: number | undefined;
    let release = () => {};
    let reached = () => {};
    const atHold = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holding = new Proxy(store, {
      get(target, name) {
        if (name === 'read') {
          return async (...args: Parameters<Store['read']>) => {
            if (holdRead !== undefined && --holdRead === 0) {
              reached();
              await held;
            }
            return (target as Store).read(...args);
          };
        }
        const member = Reflect.get(target, name);
        return typeof member === 'function' ? member.bind(target) : member;
      },
    }) as Store;
    const a = createPipelineService(holding, clock, { claimTtlHours: 72 });
    const b = createPipelineService(store, clock, { claimTtlHours: 72 });
    const [closerId] = value(await b.run(b.platform.reset()));
    const sold = value(
      await b.run(b.deals.sell({ account, listValueUsd: 1000, mandate: { staffing: { closer: 'human' } } })),
    );
    assert.ok(sold.kind === 'escalation', sold.kind);
    const gigId = sold.escalation.gig.id;
    const dealId = sold.escalation.deal.id;
    value(await b.run(b.gigs.claimGig(gigId, closerId)));
    // The claim is due to expire; a's run reads the offset, takes its time, and is held before
    // it reads the due gigs.
    machine = T0 + 72 * HOUR + 1;
    holdRead = 2;
    const run = a.platform.runTimers();
    await atHold;
    // Meanwhile, an hour later, b acts on the deal.
    machine += HOUR;
    value(await b.run(b.deals.reportSignals(dealId, ['budget_confirmed'])));
    release();
    assert.equal(await run, 1);
    const deal = value(await b.queries.getDeal(dealId));
    const times = deal.activity.map((entry) => entry.at);
    assert.deepEqual(
      times,
      [...times].sort((x, y) => x - y),
      `activity times decrease: ${deal.activity.map((e) => `${new Date(e.at).toISOString()} ${e.note}`).join('\n')}`,
    );
    assert.match(deal.activity[deal.activity.length - 1].note, /expired/);
    assert.equal(deal.activity[deal.activity.length - 1].at, T0 + 73 * HOUR + 1);
  });
});
