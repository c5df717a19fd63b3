// The simulation of the core: random sequences of every command, seeded, against the
// service on the memory store behind a store that fails on purpose now and then. After every
// step every invariant (src/domain/invariants.ts) must hold; a refusal, and a unit of work that
// failed, must have changed nothing. A seed reproduces a run exactly: the clock is the
// simulation's own and every choice comes from the seeded generator.
//
// A run is a series of episodes, each on a fresh service: every step snapshots and checks the
// whole state, so a step costs more the more records there are (1,000 steps took 1.3 s, 2,000
// 5.4 s, 4,000 25 s); episodes of 1,000 steps keep the rate steady and the early life of a
// pipeline, where most gigs are opened and paid, recurring.
//
// Keys mode (`keys: true`, D-50..D-57): the service holds every request to a key. Each episode
// makes the operator's key, two or three Sellers and the closers' keys through the service's
// accounts, and every command is issued as the caller the key ring makes of a random
// principal's key, as the HTTP door would: the key authenticated (a revoked or expired one must
// be refused), the operation's scope asked of it (the operations table's), a closer's closerId
// held to closer-of's rule, then the service called with the caller. Sometimes the principal is
// the wrong one (a Seller on another's deal, a closer on a gig it did not claim): a record of
// another tenant must be refused exactly as an unknown id is. Besides every invariant: every
// deal has a Seller and every gig its deal's, no successful answer holds another tenant's
// record (src/sim/tenancy.ts), the entries and events a request wrote carry its actor (the
// timers' none), and keys the simulation revoked, forged or let expire never authenticate.
// Keys are rolled by random callers, a weaker key of the same principal refused (D-75,
// key-rolls.ts), and the old key dead once its grace is over. Event streams opened with keys are
// fed the feed's new events after every step, as the pump writes them: none is delivered to a
// stream once its key is dead (D-76, streams.ts).
//
// Keys' policies and approvals (D-68..D-70): Seller keys carry random policies (at creation, and
// set now and then, by keys bound by a policy of their own too: none looser), the agent's advances
// through them are aimed at their limits and held or refused, and the approvals are decided by
// random deciders (self-approvals, repeats, races, denials among them), expire with the clock or
// go stale as their deal moves (policy-commands.ts, approval-commands.ts). Every step: no move
// committed through a key beyond its policy unless approved, each key's usage of the day its
// closes, each approval changed only as a step may change it and ended once, and the records of
// held proposals that ended refused (approval-checks.ts, usage-checks.ts, refusal-records.ts).
//
// Refused proposals (D-61): the agent's deal advances and the closers' gig advances and
// revivals are now and then aimed at the gate's refusals, and sent as a dry run, under an
// idempotency key and again, or with an If-Match current or stale (proposing.ts). A refusal of
// the gate must leave exactly one record matching it and one `proposal.refused` event, and
// nothing else; every other step no record (refusal-records.ts). At each episode's end every
// caller's summary (and each key's) and lists must add up to the records the steps saw and the
// deals' activity (proposal-summary.ts).
//
// The books (D-79 to D-82): refunds of random parts of won deals (some past what is left, to be
// refused) and payout runs are among the commands, and each episode holds earnings 0 to 2 days,
// which the clock steps move past (ledger-commands.ts). Every snapshot has the books; after every
// step they must sum to zero, equal every won deal's settlement, replay to every balance, hold no
// line twice and every record whole (src/domain/ledger/ledger-invariants.ts); a refused refund or
// run, or a failed unit, leaves them as they were; and a step only adds to them, publishes what it
// added, and a payout run leaves no closer anything available it had before (books.ts).
//
// The run loop is here; around it: the report and options (report.ts), the episode's world and
// the step's findings (world.ts), the pipeline's commands (commands.ts) and keys mode's own
// (key-commands.ts) with what they are sent (inputs.ts), the door a command passes in keys mode
// (door.ts), and what a step is held to beyond the invariants (step-checks.ts, tenancy.ts,
// refusal-records.ts).
import { type ActorRef, actorOf } from '../domain/access.ts';
import { checkInvariants } from '../domain/invariants.ts';
import type { Books } from '../domain/ledger/ledger-invariants.ts';
import type { Refusal } from '../domain/refusal.ts';
import { checkApprovals, DECISION_KINDS } from './approval-checks.ts';
import { approvalCommands } from './approval-commands.ts';
import { checkBooksStep } from './books.ts';
import { type Command, pipelineCommands } from './commands.ts';
import { InjectedFault } from './faulty-store.ts';
import { keyCommands } from './key-commands.ts';
import { ledgerCommands } from './ledger-commands.ts';
import { peopleCommands } from './people.ts';
import { policyCommands } from './policy-commands.ts';
import { checkSummaries } from './proposal-summary.ts';
import { seededDice } from './random.ts';
import { checkRecords, recordsRefusal, type StepFacts } from './refusal-records.ts';
import { newReport, type SimulationOptions, type SimulationReport } from './report.ts';
import { checkStep, completeness } from './step-checks.ts';
import { feedStreams } from './streams.ts';
import { checkActors, checkDecisionActors, checkOwners, leaks, type SimViolation } from './tenancy.ts';
import { checkCommits, checkUsage } from './usage-checks.ts';
import { type SimSnapshot, sameState, World } from './world.ts';

export type { SimulationOptions, SimulationReport } from './report.ts';
export { describeApprovals, describeProposals } from './report.ts';

/**
 * The books as a step's "changed nothing" compares them: how many transfers, refunds and payouts.
 * Every step is held to changing none of those there were (books.ts), so a new one is the only
 * change left to see, and serializing the whole ledger twice a step would cost the run its pace.
 */
const counted = ({ transfers, refunds, payouts }: Books) => [transfers.length, refunds?.length, payouts?.length];
/** The pipeline's records and books, without the feed's position and the refused proposals. */
const pipelineOf = ({ deals, gigs, closers, payouts, books }: SimSnapshot) => ({
  deals,
  gigs,
  closers,
  payouts,
  books: counted(books),
});
/** The whole state, its books counted. */
const wholeOf = (s: SimSnapshot) => ({ ...s, books: counted(s.books) });

/** The steps that are the platform's own: what they write carries no actor (D-56). */
const PLATFORM_KINDS = new Set(['clock', 'timers']);
/** Keys mode's steps that touch no pipeline record. */
const KEY_KINDS = new Set([
  'auth',
  'key-create',
  'key-revoke',
  'key-roll',
  'stream-open',
  'read',
  'policy-set',
  'approval-read',
]);

export async function simulate(options: SimulationOptions): Promise<SimulationReport> {
  const dice = seededDice(options.seed);
  const { random, chance } = dice;
  const report = newReport(options.seed, options.keys === true);
  const world = new World(dice, options, report);
  await world.fresh();

  const commands: Command[] = pipelineCommands(world);
  if (options.ledger !== false) commands.push(...ledgerCommands(world));
  if (world.keysMode)
    commands.push(
      ...keyCommands(world),
      ...peopleCommands(world),
      ...policyCommands(world),
      ...approvalCommands(world),
    );
  const total = commands.reduce((sum, [, weight]) => sum + weight, 0);
  const choose = () => {
    let roll = random() * total;
    for (const command of commands) {
      roll -= command[1];
      if (roll < 0) return command;
    }
    return commands[0];
  };

  const final = {
    deals: 0,
    won: 0,
    gigs: 0,
    fulfilled: 0,
    closers: 0,
    payouts: 0,
    transfers: 0,
    refunds: 0,
    releases: 0,
    clawbacks: 0,
    paid: 0,
  };
  const add = (s: SimSnapshot) => {
    const { transfers, refunds = [], payouts = [] } = s.books;
    final.transfers += transfers.length;
    final.refunds += refunds.length;
    final.releases += transfers.filter((t) => t.kind === 'release').length;
    // A reversal from a closer's available account: the earning was released, and may be paid.
    final.clawbacks += transfers.filter((t) => t.kind === 'reversal' && t.debit.endsWith(':available')).length;
    final.paid += payouts.length;
    final.deals += s.deals.length;
    final.won += s.deals.filter((d) => d.stage === 'closed_won').length;
    final.gigs += s.gigs.length;
    final.fulfilled += s.gigs.filter((g) => g.status === 'fulfilled').length;
    final.closers += s.closers.length;
    final.payouts += s.payouts.length;
  };
  const episodeSteps = options.episodeSteps ?? 1_000;
  const trail: string[] = [];
  const deadline =
    options.seconds === undefined ? Number.POSITIVE_INFINITY : performance.now() + options.seconds * 1000;
  const maxSteps = options.steps ?? Number.POSITIVE_INFINITY;
  /** D-61 at an episode's end: the summary and lists against the records and the deals' activity. */
  const summarized = async (): Promise<boolean> => {
    const violations = await checkSummaries(world, world.before);
    if (violations.length === 0) return true;
    report.failure = {
      step: report.steps,
      command: 'proposal summary',
      problem: 'the refused proposals do not add up',
      violations,
      trail: [...trail],
    };
    return false;
  };
  world.before = await world.snapshot();
  const minSteps = options.minSteps ?? 0;
  while (report.steps < maxSteps && (report.steps < minSteps || performance.now() < deadline)) {
    if (report.steps > 0 && report.steps % episodeSteps === 0) {
      if (!(await summarized())) break;
      add(world.before);
      await world.service.close();
      await world.fresh();
      world.before = await world.snapshot();
      report.episodes++;
      trail.push(`(episode ${report.episodes} begins on a fresh service)`);
    }
    const { store } = world;
    const before = world.before;
    const step = ++report.steps;
    const [kind, , run] = choose();
    report.kinds[kind] ??= { run: 0, refused: 0 };
    const counts = report.kinds[kind];
    counts.run++;
    world.machine += Math.floor(random() * 60_000);
    const fault = chance(options.faultRate ?? 0.05);
    if (fault) store.armFault(Math.floor(random() * 4));
    world.beginStep();
    let outcome: unknown;
    let thrown: unknown;
    try {
      outcome = await run(before);
    } catch (error) {
      thrown = error;
    }
    const refusal = (outcome as { ok?: boolean; refusal?: Refusal } | undefined)?.refusal;
    const mode = world.proposed && world.proposed.mode !== 'plain' ? ` (${world.proposed.mode})` : '';
    trail.push(
      `${step} ${kind}${world.sent}${mode}${fault ? ' (faulty)' : ''}` + `${refusal ? `: ${refusal.code}` : ''}`,
    );
    if (trail.length > 30) trail.shift();
    const faulted = fault && store.faulted;
    store.disarm(); // if it did not fire (the command wrote nothing)
    const after = await world.snapshot();
    // D-76: the open streams get what the step published, as the pump would write it.
    await feedStreams(world, after);
    const refused = (outcome as { ok?: boolean } | undefined)?.ok === false;
    const fail = (problem: string, violations?: SimViolation[]) => {
      report.failure = { step, command: kind, problem, violations, trail: [...trail] };
    };
    if (thrown !== undefined && !(thrown instanceof InjectedFault)) {
      fail(`threw ${String((thrown as Error)?.stack ?? thrown)}`);
      break;
    }
    if (faulted) report.faults++;
    // What the step published, and whose request it was (D-56: the platform's steps none).
    const events =
      after.lastSeq > before.lastSeq ? await store.events({ after: before.lastSeq, limit: 1_000_000 }) : [];
    const actor: ActorRef | undefined = PLATFORM_KINDS.has(kind) ? undefined : actorOf(world.stepCaller);
    const facts: StepFacts = {
      kind,
      before,
      after,
      events,
      refusal: refused ? refusal : undefined,
      proposed: world.proposed,
      failed: faulted || thrown !== undefined,
      actor,
    };
    // A refusal, a failed unit, a dry run and keys mode's own steps change nothing; a refused
    // proposal (D-61) only adds its record and its event, which checkRecords holds it to, and a
    // refused decision only what it does to its approval (approval-checks.ts).
    const still = refused || faulted || KEY_KINDS.has(kind) || world.proposed?.mode === 'dry';
    const pipelineOnly = !faulted && (recordsRefusal(facts) || DECISION_KINDS.has(kind));
    const unchanged = () =>
      pipelineOnly ? sameState(pipelineOf(before), pipelineOf(after)) : sameState(wholeOf(before), wholeOf(after));
    if (still && !PLATFORM_KINDS.has(kind) && !unchanged()) {
      fail(
        faulted
          ? 'a unit of work that failed left changes behind'
          : refused
            ? 'a refusal changed the state'
            : world.proposed?.mode === 'dry'
              ? 'a dry run changed the state'
              : `${kind} changed the pipeline`,
      );
      break;
    }
    if (refused) counts.refused++;
    const violations: SimViolation[] = [...world.found, ...checkInvariants(after), ...checkStep(before, after, kind)];
    // D-80: a payout run that committed is held to the balances before it.
    const ran = kind === 'payout-run' && !refused && !faulted && thrown === undefined;
    const payoutRun = ran ? (outcome as { value: Parameters<typeof checkBooksStep>[3] }).value : undefined;
    violations.push(...checkBooksStep(before.books, after.books, events, payoutRun));
    const records = checkRecords(facts, report.proposals);
    violations.push(...records.violations);
    world.recorded.push(...records.records);
    // D-56: what the step wrote carries its caller (a refused proposal's event, its record's actor).
    const deciding = world.deciding;
    if (DECISION_KINDS.has(kind) && deciding !== undefined && !faulted && thrown === undefined) {
      const approved = after.approvals.find((a) => a.id === deciding.approvalId && a.status === 'approved');
      const deciders = deciding.callers.map((c) => actorOf(c) as ActorRef);
      violations.push(...checkDecisionActors(before, after, events, deciders, approved, kind));
    } else if (!refused && !faulted && thrown === undefined) {
      const own = events.filter((e) => e.event.type !== 'proposal.refused');
      violations.push(...checkActors(before, after, own, actor, kind));
    }
    const { cast, answered } = world;
    if (cast) {
      // D-68..D-70: keys' policies, their days and the approvals of what they held.
      violations.push(...(await checkApprovals(world, facts)), ...checkCommits(world, before, after));
      violations.push(...(await checkUsage(world, after)));
      violations.push(...checkOwners(after, cast.sellerSet()));
      if (answered) {
        world.tally.answersChecked++;
        violations.push(...leaks(answered.value, answered.caller, after, answered.op));
        if (answered.complete) violations.push(...completeness(answered, after));
      }
    }
    if (violations.length > 0) {
      fail('an invariant broke', violations);
      break;
    }
    world.before = after;
  }
  if (!report.failure) await summarized();
  add(world.before);
  report.final = final;
  await world.service.close();
  return report;
}
