// The simulation of the core (src/sim/simulate.ts) for a bounded time in every test run
// (SIM_SECONDS, default 15; CI runs `npm run sim` longer): random commands of every kind, faults
// injected into units of work, every invariant after every step, refusals and failed units
// leaving nothing behind. A failure names the seed that replays it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { simulate } from '../../src/sim/simulate.ts';

const SECONDS = Number(process.env.SIM_SECONDS ?? 15);
const SEED = Number(process.env.SIM_SEED ?? Math.floor(Math.random() * 2 ** 31));

describe('the simulation of the core', () => {
  it('keeps every invariant through random commands and injected faults', async (t) => {
    const report = await simulate({ seed: SEED, seconds: SECONDS });
    const left = report.final;
    t.diagnostic(
      `simulation: seed ${SEED}, ${report.steps} steps in ${report.episodes} episodes, ${report.faults} injected faults; ` +
        `left ${left?.deals} deals ` +
        `(${left?.won} won), ${left?.fulfilled} gigs fulfilled, ${left?.payouts} ledger lines`,
    );
    assert.equal(report.failure, undefined, `seed ${SEED}: ${JSON.stringify(report.failure, null, 1)}`);
    assert.ok(report.steps > 100, `only ${report.steps} steps`);
    assert.ok(report.faults > 0, 'no fault was injected');
    // Money moved: gigs were fulfilled and paid, so the ledger's invariants had lines to check.
    assert.ok((left?.fulfilled ?? 0) > 0 && (left?.payouts ?? 0) > 0, `no gig paid: ${JSON.stringify(left)}`);
    for (const kind of [
      'create',
      'sell',
      'advance',
      'claim',
      'gig-advance',
      'revive',
      'deescalate',
      'reengage',
      'clock',
    ]) {
      assert.ok((report.kinds[kind]?.run ?? 0) > 0, `no ${kind} ran`);
    }
  });

  it('a seed replays the same run, episodes and all', async () => {
    const run = () => simulate({ seed: 7, steps: 300, episodeSteps: 120 });
    const [a, b] = [await run(), await run()];
    assert.equal(a.episodes, 3);
    assert.deepEqual(a, b);
  });
});
