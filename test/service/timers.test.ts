// The platform timers' run (src/service/timers.ts) against a host whose units of work each hold
// the CPU for a while, as the memory store's do: the run gives the event loop its turn often
// enough that it is never held for more than 10 ms, however much is due, fires every
// due timer once, and a record a batch names again is not tried twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runTimers, type TimerHost } from '../../src/service/timers.ts';

/** Holds the CPU for `ms`, as a unit of work that never waits for I/O does. */
function spin(ms: number) {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

function hostWith(dueDeals: string[], unitMs: number) {
  const fired: string[] = [];
  const pending = new Set(dueDeals);
  const host: TimerHost = {
    machineNow: () => 1_000_000,
    platformNow: async () => 1_000_000,
    forget: async () => undefined,
    eventRetentionMs: () => 3_600_000,
    dueGigs: async () => [],
    // The first `limit` still due, as the stores answer.
    dueDeals: async (_now, limit) => [...pending].slice(0, limit),
    fireGig: async () => false,
    dueApprovals: async () => [],
    endApproval: async () => false,
    dueReleases: async () => [],
    release: async () => false,
    fireStall: async (id) => {
      spin(unitMs);
      fired.push(id);
      pending.delete(id);
      return true;
    },
  };
  return { host, fired };
}

describe('the platform timers run', () => {
  it('fires every due timer once and never holds the event loop for 10 ms', async () => {
    const due = Array.from({ length: 2000 }, (_, i) => `deal_${String(i + 1).padStart(4, '0')}`);
    const { host, fired } = hostWith(due, 0.25);
    // Counted in units of work, not milliseconds: a loaded machine that deschedules this process
    // stretches the wall-clock gaps, but never the work done between two turns.
    let sinceTurn = 0;
    let most = 0;
    const counting: TimerHost = {
      ...host,
      fireStall: async (id, now) => {
        sinceTurn++;
        most = Math.max(most, sinceTurn);
        return host.fireStall(id, now);
      },
    };
    let turning = true;
    let turns = 0;
    const turn = () => {
      sinceTurn = 0;
      turns++;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    const count = await runTimers(counting);
    turning = false;
    assert.equal(count, 2000);
    assert.deepEqual(fired, due, 'each once, in the order due');
    // 2000 units of 0.25 ms: 500 ms of work, in turns of about 2 ms (8 units).
    assert.ok(most * 0.25 <= 10, `${most} units (${most * 0.25} ms) ran between two turns of the event loop`);
    assert.ok(turns >= 50, `only ${turns} turns`);
  });
});
