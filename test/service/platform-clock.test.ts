// The demo clock kept in each instance (issue 14, D-19): two services over one store stand for
// two instances whose notices of each other's moves have not arrived (the memory store sends
// none). A deal acted on at a later time by one is never acted on earlier by the other.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PipelineService } from '../../src/service/pipeline-service.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2030-03-04T09:00:00.000Z');
const account = { name: 'Fictional Clock Co', actor: 'B2B' as const, industry: 'saas' };

function pair() {
  let machine = T0;
  const clock = { now: () => machine };
  const store = new MemoryStore();
  const config = { claimTtlHours: 72 };
  return {
    a: new PipelineService(store, clock, config),
    b: new PipelineService(store, clock, config),
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
    const moved = value(await b.advanceClock(10));
    assert.equal(moved, T0 + 10 * HOUR);
    tick(5);
    // a never read the offset before: its first unit of work reads it.
    const deal = value(await a.createDeal({ account, listValueUsd: 1000 }));
    assert.equal(deal.activity[0].at, T0 + 10 * HOUR + 5);
  });

  it('a deal acted on later by another instance is not acted on earlier: the offset is read again', async () => {
    const { a, b, tick } = pair();
    const deal = value(await a.createDeal({ account, listValueUsd: 1000 }));
    // b moves the clock a day on and acts; a has not heard of the move.
    value(await b.advanceClock(24));
    value(await b.advanceDeal(deal.id, {}));
    tick(1);
    const after = value(await a.advanceDeal(deal.id, {}));
    assert.equal(after.kind, 'deal');
    assert.ok(after.kind === 'deal');
    const times = after.deal.activity.map((e) => e.at);
    assert.deepEqual(times, [T0, T0 + 24 * HOUR, T0 + 24 * HOUR + 1]);
    // And a now knows the offset for what follows.
    const next = value(await a.createDeal({ account, listValueUsd: 1000 }));
    assert.equal(next.activity[0].at, T0 + 24 * HOUR + 1);
  });

  it("an instance learns another's move at its next timer run, and a reset sets it back", async () => {
    const { a, b } = pair();
    value(await a.createDeal({ account, listValueUsd: 1000 }));
    value(await b.advanceClock(5));
    await a.runTimers();
    assert.equal(value(await a.createDeal({ account, listValueUsd: 1000 })).activity[0].at, T0 + 5 * HOUR);
    value(await a.reset());
    assert.equal(value(await a.createDeal({ account, listValueUsd: 1000 })).activity[0].at, T0);
  });
});
