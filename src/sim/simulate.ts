// The simulation of the core (issue 15): random sequences of every command, seeded, against the
// service on the memory store behind a store that fails on purpose now and then. After every
// step every invariant (src/domain/invariants.ts) must hold; a refusal, and a unit of work that
// failed, must have changed nothing. A seed reproduces a run exactly: the clock is the
// simulation's own and every choice comes from the seeded generator.
//
// A run is a series of episodes, each on a fresh service: every step snapshots and checks the
// whole state, so a step costs more the more records there are (1,000 steps took 1.3 s, 2,000
// 5.4 s, 4,000 25 s); episodes of 1,000 steps keep the rate steady and the early life of a
// pipeline, where most gigs are opened and paid, recurring.
import { checkInvariants, type Snapshot, type Violation } from '../domain/invariants.ts';
import { nextStage } from '../domain/stages.ts';
import { createPipelineService } from '../service/pipeline-service.ts';
import { MemoryStore } from '../store/memory/memory-store.ts';
import { faultyStore, InjectedFault } from './faulty-store.ts';
import { seededRandom } from './random.ts';

const HOUR = 3_600_000;

export interface SimulationReport {
  seed: number;
  steps: number;
  /** How many fresh services the steps ran on. */
  episodes: number;
  /** Steps per command kind, and how many of them were refused. */
  kinds: Record<string, { run: number; refused: number }>;
  faults: number;
  /** What the episodes left, added up: records, won deals and ledger lines (that money really moved). */
  final?: { deals: number; won: number; gigs: number; fulfilled: number; closers: number; payouts: number };
  /** The first failure, with the steps that led to it (the seed replays them). */
  failure?: { step: number; command: string; problem: string; violations?: Violation[]; trail: string[] };
}

export interface SimulationOptions {
  seed: number;
  /** Stop after this many steps, or when the time is up, whichever comes first. */
  steps?: number;
  seconds?: number;
  /** Chance that a step's unit of work is made to fail (default 0.05). */
  faultRate?: number;
  /** Steps before the run starts again on a fresh service (default 1,000). */
  episodeSteps?: number;
}

export async function simulate(options: SimulationOptions): Promise<SimulationReport> {
  const random = seededRandom(options.seed);
  const chance = (p: number) => random() < p;
  const pick = <T>(items: readonly T[]): T | undefined =>
    items.length === 0 ? undefined : items[Math.floor(random() * items.length)];
  let machine = Date.parse('2030-01-07T09:00:00.000Z');
  // One episode's world: a fresh memory store behind the fault injector, and the service on it.
  const fresh = async () => {
    const store = faultyStore(new MemoryStore());
    const service = createPipelineService(store, { now: () => machine }, { claimTtlHours: 72 });
    await service.run(service.platform.reset());
    return { store, service };
  };
  let { store, service } = await fresh();

  const snapshot = async (): Promise<Snapshot & { lastSeq: number }> => {
    const [deals, gigs, closers] = await store.read((r) =>
      Promise.all([r.listDeals({ limit: Number.MAX_SAFE_INTEGER }), r.listGigs({}), r.listClosers({})]),
    );
    const ledger = await store.read((r) => r.payoutsOfClosers(closers.map((c) => c.id)));
    return { deals, gigs, closers, payouts: [...ledger.values()].flat(), lastSeq: await store.lastSeq() };
  };
  // Equal states serialize alike (bigints as their digits).
  const same = (a: unknown, b: unknown) =>
    JSON.stringify(a, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)) ===
    JSON.stringify(b, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

  const signals = ['budget_approved', 'champion_found', 'gone_dark', 'legal_review', 'Bad Signal'];
  const ids = (s: Snapshot) => ({
    /** Mostly a deal the command suits (so that it runs, not only refuses), else any deal. */
    deal: (suits?: (deal: Snapshot['deals'][number]) => boolean) =>
      (suits && chance(0.7) ? pick(s.deals.filter(suits).map((d) => d.id)) : undefined) ??
      pick(s.deals.map((d) => d.id)) ??
      'deal_0001',
    gig: (status?: string) =>
      pick(s.gigs.filter((g) => status === undefined || g.status === status).map((g) => g.id)) ??
      pick(s.gigs.map((g) => g.id)) ??
      'gig_0001',
    closer: () => pick(s.closers.map((c) => c.id)) ?? 'closer_0001',
  });
  const anyStage = () =>
    pick(['qualified', 'meeting', 'proposal', 'negotiation', 'closed_won', 'closed_lost', 'sideways']);
  const value = () => pick([1_000, 25_000.55, 80_000, 0.004, 1e12, -5]) as number;
  const dealInput = () => ({
    account: {
      name: `Fictional ${Math.floor(random() * 1e6)}`,
      industry: pick(['saas', 'fintech', 'retail']),
      actor: 'B2B' as const,
    },
    listValueUsd: chance(0.9) ? 1_000 + Math.floor(random() * 200_000) : (value() as number),
    ...(chance(0.6)
      ? {
          mandate: {
            staffing: { setter: pick(['agent', 'human']), closer: pick(['agent', 'human']), nurturer: 'human' },
          },
        }
      : {}),
  });

  const commands: [string, number, (s: Snapshot) => Promise<{ ok: boolean } | unknown>][] = [
    ['create', 8, () => service.run(service.deals.createDeal(dealInput()))],
    ['sell', 8, () => service.run(service.deals.sell(dealInput()))],
    [
      'advance',
      14,
      (s) => {
        const to = chance(0.5) ? {} : { advanceTo: anyStage(), ...(chance(0.5) ? { valueUsd: value() } : {}) };
        return service.run(service.deals.advanceDeal(ids(s).deal(), to));
      },
    ],
    ['signals', 6, (s) => service.run(service.deals.reportSignals(ids(s).deal(), [pick(signals) as string]))],
    ['deescalate', 4, (s) => service.run(service.deals.deescalate(ids(s).deal((d) => d.humanTrack === true)))],
    ['reengage', 3, (s) => service.run(service.deals.reengage(ids(s).deal((d) => d.stage === 'closed_lost')))],
    [
      'enrol',
      2,
      () =>
        service.run(service.gigs.enrolCloser({ name: `Closer ${Math.floor(random() * 1e4)}`, industries: ['saas'] })),
    ],
    ['claim', 10, (s) => service.run(service.gigs.claimGig(ids(s).gig('open'), ids(s).closer()))],
    [
      'gig-advance',
      14,
      (s) => {
        const gig = s.gigs.find((g) => g.id === ids(s).gig('claimed'));
        const deal = gig && s.deals.find((d) => d.id === gig.dealId);
        // Mostly what the gig's role may propose next (its deal's next stage, or a nurturer's
        // closed_lost), so that gigs are fulfilled and paid; else any stage, mostly refused.
        const sensible = gig && deal && (gig.role === 'nurturer' ? 'closed_lost' : nextStage(deal.stage));
        const to = chance(0.7) && sensible ? sensible : anyStage();
        return service.run(
          service.gigs.advanceGig(gig?.id ?? ids(s).gig(), {
            closerId: chance(0.9) ? gig?.closerId : ids(s).closer(),
            advanceTo: to as string,
            ...(to === 'closed_won' ? { valueUsd: chance(0.8) && deal ? deal.listValueCents / 100 : value() } : {}),
          }),
        );
      },
    ],
    [
      'revive',
      3,
      (s) => {
        const nurturing = pick(s.gigs.filter((g) => g.role === 'nurturer' && g.status === 'claimed'));
        const gig = nurturing && chance(0.7) ? nurturing : s.gigs.find((g) => g.id === ids(s).gig('claimed'));
        return service.run(
          service.gigs.clearGoneDark(gig?.id ?? 'gig_0001', {
            closerId: chance(0.9) ? gig?.closerId : ids(s).closer(),
          }),
        );
      },
    ],
    [
      'release',
      3,
      (s) => service.run(service.gigs.releaseGig(ids(s).gig('claimed'), chance(0.8) ? undefined : ids(s).closer())),
    ],
    ['expire', 2, (s) => service.run(service.gigs.reopenGig(ids(s).gig('claimed')))],
    [
      'clock',
      3,
      async () => {
        machine += Math.floor(random() * 30 * HOUR);
        return service.run(service.platform.advanceClock(chance(0.5) ? 0 : Math.floor(random() * 100)));
      },
    ],
    ['timers', 2, async () => ({ ok: true, fired: await service.platform.runTimers() })],
  ];
  const total = commands.reduce((sum, [, weight]) => sum + weight, 0);
  const choose = () => {
    let roll = random() * total;
    for (const command of commands) {
      roll -= command[1];
      if (roll < 0) return command;
    }
    return commands[0];
  };

  const report: SimulationReport = { seed: options.seed, steps: 0, episodes: 1, kinds: {}, faults: 0 };
  const final = { deals: 0, won: 0, gigs: 0, fulfilled: 0, closers: 0, payouts: 0 };
  const tally = (s: Snapshot) => {
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
  let before = await snapshot();
  while (report.steps < maxSteps && performance.now() < deadline) {
    if (report.steps > 0 && report.steps % episodeSteps === 0) {
      tally(before);
      await service.close();
      ({ store, service } = await fresh());
      before = await snapshot();
      report.episodes++;
      trail.push(`(episode ${report.episodes} begins on a fresh service)`);
    }
    const step = ++report.steps;
    const [kind, , run] = choose();
    report.kinds[kind] ??= { run: 0, refused: 0 };
    const counts = report.kinds[kind];
    counts.run++;
    machine += Math.floor(random() * 60_000);
    const fault = chance(options.faultRate ?? 0.05);
    if (fault) store.armFault(Math.floor(random() * 4));
    trail.push(`${step} ${kind}${fault ? ' (faulty)' : ''}`);
    if (trail.length > 30) trail.shift();
    let outcome: unknown;
    let thrown: unknown;
    try {
      outcome = await run(before);
    } catch (error) {
      thrown = error;
    }
    const faulted = fault && store.faulted;
    store.disarm(); // if it did not fire (the command wrote nothing)
    const after = await snapshot();
    const refused = (outcome as { ok?: boolean } | undefined)?.ok === false;
    const fail = (problem: string, violations?: Violation[]) => {
      report.failure = { step, command: kind, problem, violations, trail: [...trail] };
    };
    if (thrown !== undefined && !(thrown instanceof InjectedFault)) {
      fail(`threw ${String((thrown as Error)?.stack ?? thrown)}`);
      break;
    }
    if (faulted) report.faults++;
    if ((refused || faulted) && kind !== 'timers' && kind !== 'clock' && !same(before, after)) {
      fail(faulted ? 'a unit of work that failed left changes behind' : 'a refusal changed the state');
      break;
    }
    if (refused) counts.refused++;
    const violations = [...checkInvariants(after), ...checkStep(before, after, kind)];
    if (violations.length > 0) {
      fail('an invariant broke', violations);
      break;
    }
    before = after;
  }
  tally(before);
  report.final = final;
  await service.close();
  return report;
}

/**
 * What only a step shows, not a snapshot: a terminal deal stays as it was (D-7), and a deal
 * leaves the human track only by a de-escalation (D-12).
 */
function checkStep(before: Snapshot, after: Snapshot, kind: string): Violation[] {
  const out: Violation[] = [];
  const now = new Map(after.deals.map((d) => [d.id, d]));
  for (const deal of before.deals) {
    const later = now.get(deal.id);
    if (!later) {
      out.push({ invariant: 'stages', message: `${deal.id} disappeared (${kind})`, ids: [deal.id] });
      continue;
    }
    if ((deal.stage === 'closed_won' || deal.stage === 'closed_lost') && later.stage !== deal.stage) {
      out.push({ invariant: 'stages', message: `${deal.id} left ${deal.stage} (${kind})`, ids: [deal.id] });
    }
    if (deal.humanTrack === true && later.humanTrack !== true && kind !== 'deescalate') {
      out.push({ invariant: 'stages', message: `${deal.id} left the human track by a ${kind}`, ids: [deal.id] });
    }
  }
  return out;
}
