// The simulation of the core (src/sim/simulate.ts) for a bounded time in every test run
// (SIM_SECONDS, default 15, split between the demo and keys mode, each at least 4,000 steps; CI
// runs `npm run sim` longer): random commands of every kind, faults injected into units of work,
// every invariant after every step, refusals and failed units leaving nothing behind. Keys mode
// issues every command as a random principal's key (some wrong, revoked or expired) and holds every
// answer to its tenant; it rolls keys with random callers (a weaker key of the same principal
// refused, D-75) and feeds event streams opened with keys, none of which may be sent an event once
// its key is dead (D-76). A quarter of its commands are made by people of every role through their
// console sessions (D-62), who sign in and out, are locked out, given roles, disabled and enabled,
// and whose sessions must stand exactly while the model says so. Every proposal the gate refuses
// must leave one record and one event and nothing else, anything else no record (D-61), and each
// episode's summaries and lists must add up to the records and the deals' activity. Keys mode's
// Seller keys carry policies (D-68): advances and sells through them are aimed at their limits and
// held or refused (D-69), and the approvals are decided by random deciders, raced, denied, left to
// expire or made stale (D-70); the test asks that each of those outcomes happened. The books (D-79
// to D-82): refunds of won deals (some past what is left, refused), releases past each episode's
// short hold, payout runs and clawbacks happen in either mode, and after every step the ledger sums
// to zero, equals every settlement, replays to every balance and holds nothing twice; a refused
// refund or a failed unit leaves it as it was. A failure names the seed that replays it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeApprovals, type SimulationReport, simulate } from '../../src/sim/simulate.ts';

const SECONDS = Number(process.env.SIM_SECONDS ?? 15);
const SEED = Number(process.env.SIM_SEED ?? Math.floor(Math.random() * 2 ** 31));
// Each mode runs at least this many steps, past its time if need be: what the tests ask to have
// seen (a payout, a release, a clawback) takes a chain of steps, and a loaded machine's 7.5 s
// once gave keys mode 3,270 steps and no payout (seed 1443354907; in 4,000 it makes two).
const MIN_STEPS = 4_000;

const KINDS = [
  'create',
  'sell',
  'advance',
  'claim',
  'gig-advance',
  'revive',
  'deescalate',
  'reengage',
  'clock',
  'refund',
  'payout-run',
];

/** Keys mode's steps of keys' policies and approvals (D-68..D-70). */
const POLICY_KINDS = [
  'policy-set',
  'policy-advance',
  'policy-sell',
  'approval-move',
  'approve',
  'deny',
  'approve-race',
];

/** D-61's refusals the generators aim at: a close below the floor, a skip, a closed deal, an unclaimed gig, a revival by no nurturer. */
const AIMED = ['GATE_BELOW_FLOOR', 'GATE_ILLEGAL_MOVE', 'DEAL_TERMINAL', 'GIG_NOT_CLAIMED', 'GIG_NOT_NURTURER'];

function held(report: SimulationReport, t: { diagnostic(message: string): void }, kinds: readonly string[]) {
  const left = report.final;
  t.diagnostic(
    `simulation (${report.mode}): seed ${SEED}, ${report.steps} steps in ${report.episodes} episodes, ` +
      `${report.faults} injected faults; left ${left?.deals} deals ` +
      `(${left?.won} won), ${left?.fulfilled} gigs fulfilled, ${left?.payouts} ledger lines; books: ` +
      `${left?.transfers} transfers, ${left?.refunds} refunds (${report.kinds.refund?.refused} refused), ` +
      `${left?.releases} releases, ${left?.clawbacks} reversals from available, ${left?.paid} payouts` +
      `; refused proposals: ${JSON.stringify(report.proposals)}` +
      (report.keys ? `; keys: ${JSON.stringify(report.keys)}; ${describeApprovals(report)}` : ''),
  );
  assert.equal(report.failure, undefined, `seed ${SEED} (${report.mode}): ${JSON.stringify(report.failure, null, 1)}`);
  assert.ok(report.steps > 100, `only ${report.steps} steps`);
  assert.ok(report.faults > 0, 'no fault was injected');
  // Money moved: gigs were fulfilled and paid, so the ledger's invariants had lines to check.
  assert.ok((left?.fulfilled ?? 0) > 0 && (left?.payouts ?? 0) > 0, `no gig paid: ${JSON.stringify(left)}`);
  for (const kind of kinds) assert.ok((report.kinds[kind]?.run ?? 0) > 0, `no ${kind} ran`);
  // D-80, D-81: the books saw refunds made and refused, earnings released past their hold, and
  // closers paid, so that their invariants had each kind of transfer to check.
  assert.ok((report.kinds.refund?.refused ?? 0) > 0, 'no refund was refused');
  for (const what of ['refunds', 'releases', 'paid'] as const)
    assert.ok((left?.[what] ?? 0) > 0, `the books saw no ${what}: ${JSON.stringify(left)}`);
  // D-61: refusals of each kind of proposal were provoked and recorded, and the summaries checked.
  const { proposals } = report;
  assert.ok(proposals.refused > 0, 'no refused proposal was recorded');
  for (const kind of ['advance', 'gig-advance', 'revive']) {
    const recorded = Object.values(proposals.byKind[kind] ?? {}).reduce((a, b) => a + b, 0);
    assert.ok(recorded > 0, `no refused ${kind} recorded: ${JSON.stringify(proposals.byKind)}`);
  }
  assert.ok(proposals.checked > 0, 'no summary of refused proposals checked');
}

describe('the simulation of the core', () => {
  it('keeps every invariant through random commands and injected faults', async (t) => {
    const report = await simulate({ seed: SEED, seconds: SECONDS / 2, minSteps: MIN_STEPS });
    held(report, t, KINDS);
    // A refund met a released commission: the closer's available account gave it back (D-81).
    assert.ok((report.final?.clawbacks ?? 0) > 0, `no reversal from available: ${JSON.stringify(report.final)}`);
  });

  it('keys mode: every command as a principal, no answer crossing tenants, every key dead when it should be', async (t) => {
    const report = await simulate({ seed: SEED, seconds: SECONDS / 2, minSteps: MIN_STEPS, keys: true });
    held(report, t, [...KINDS, 'read', 'auth', 'key-create', 'key-revoke', 'key-roll', 'stream-open', ...POLICY_KINDS]);
    const keys = report.keys;
    assert.ok(keys, 'keys mode reports on its keys');
    // Each wall was put to the test: keys refused, scopes refused, another tenant's records
    // asked for, tokens that are no key, revoked keys, answers held to their tenant, keys rolled
    // and weaker rolls refused, streams fed and ended with their keys.
    for (const [what, count] of Object.entries(keys)) assert.ok(count > 0, `keys mode: no ${what}`);
    // D-68..D-70: proposals were held, and their approvals ended every way a person or time ends
    // them; the proposing key was refused its own approval, and a bounded key a looser policy.
    const a = report.approvals;
    assert.ok(a, 'keys mode reports on its approvals');
    const seen = describeApprovals(report);
    assert.ok(a.held > 0, `no proposal held: ${seen}`);
    assert.ok(a.ended.approved > 0 && a.ended.denied > 0, `none approved or none denied: ${seen}`);
    assert.ok(a.ended.expired + a.ended.superseded > 0, `none expired or superseded: ${seen}`);
    assert.ok(a.races > 0 && a.raceCommits > 0, `no race committed: ${seen}`);
    assert.ok((a.refusedDecisions.SELF_APPROVAL ?? 0) > 0, `no self-approval refused: ${seen}`);
    assert.ok(a.widening > 0, `no looser policy refused: ${seen}`);
  });

  // A closer's key (gigs:work) releases only a gig it claimed (D-53). Seed 728049790 sent
  // closer_0003's key to release gig_0001 (open, of seller_0002's deal_0002) at step 42, which
  // the service once answered 200, withdrawing the Seller's gig for good. Without the ledger's
  // commands (added since), the seed draws that run again.
  it('keys mode: a closer releases only a gig it claimed', async () => {
    const report = await simulate({
      seed: 728049790,
      steps: 400,
      keys: true,
      closerReleasesOpenGigs: true,
      ledger: false,
    });
    assert.equal(report.failure, undefined, JSON.stringify(report.failure, null, 1));
  });

  // D-61: each refusal the generators aim at is recorded in either mode, and none of what must
  // record nothing did (dry runs, stale If-Match, unknown ids, replays under a key). A seed per
  // mode that meets each of them in 1,200 steps (a close below the floor is rare in keys mode,
  // where steps are also spent on keys and streams).
  it('records every kind of refused proposal, and nothing for a dry run, a 404, a 412 or a replay', async () => {
    for (const [keys, seed] of [
      [false, 1],
      [true, 3],
    ] as const) {
      const report = await simulate({ seed, steps: 1200, episodeSteps: 600, keys });
      assert.equal(report.failure, undefined, JSON.stringify(report.failure, null, 1));
      const { byCode, unrecorded, replays, checked } = report.proposals;
      for (const code of AIMED) assert.ok((byCode[code] ?? 0) > 0, `${report.mode}: no ${code} recorded`);
      for (const why of ['dry', 'PRECONDITION_FAILED', 'DEAL_NOT_FOUND', 'GIG_NOT_FOUND'])
        assert.ok((unrecorded[why] ?? 0) > 0, `${report.mode}: no ${why} refusal that records nothing`);
      assert.ok(replays > 0 && checked > 0, `${report.mode}: ${replays} replays, ${checked} summaries checked`);
    }
  });

  it('a seed replays the same run, episodes and all, in either mode', async () => {
    for (const keys of [false, true]) {
      const run = () => simulate({ seed: 7, steps: 300, episodeSteps: 120, keys });
      const [a, b] = [await run(), await run()];
      assert.equal(a.episodes, 3);
      assert.deepEqual(a, b);
    }
  });
});
