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
import { type Access, type ActorRef, actorOf, allows, type Caller, OPERATOR } from '../domain/access.ts';
import { formatId } from '../domain/ids.ts';
import { checkInvariants, type Snapshot } from '../domain/invariants.ts';
import type { Refusal } from '../domain/refusal.ts';
import { refuse } from '../domain/refusal.ts';
import { nextStage, STAGES, type Stage } from '../domain/stages.ts';
import { actingCloser, claimant } from '../operations/closer-of.ts';
import { OPERATIONS } from '../operations/table.ts';
import { createPipelineService } from '../service/pipeline-service.ts';
import { fail, ok, RefusedError, type Result } from '../service/result.ts';
import { MemoryStore } from '../store/memory/memory-store.ts';
import { faultyStore, InjectedFault } from './faulty-store.ts';
import { Cast, forgedKey, type SimKey } from './principals.ts';
import { seededRandom } from './random.ts';
import { checkActors, checkOwners, foreignDeal, foreignGig, leaks, type SimViolation } from './tenancy.ts';

const HOUR = 3_600_000;

export interface SimulationReport {
  seed: number;
  mode: 'demo' | 'keys';
  steps: number;
  /** How many fresh services the steps ran on. */
  episodes: number;
  /** Steps per command kind, and how many of them were refused. */
  kinds: Record<string, { run: number; refused: number }>;
  faults: number;
  /** What the episodes left, added up: records, won deals and ledger lines (that money really moved). */
  final?: { deals: number; won: number; gigs: number; fulfilled: number; closers: number; payouts: number };
  /** The first failure, with the steps that led to it (the seed replays them). */
  failure?: { step: number; command: string; problem: string; violations?: SimViolation[]; trail: string[] };
  /** Keys mode: what the keys and the tenants' walls were put to. */
  keys?: {
    /** Commands refused at the door: the key (401) or its scopes (403). */
    refusedKeys: number;
    refusedScopes: number;
    /** Commands and reads on another tenant's record, each answered as an unknown id was. */
    crossTenant: number;
    /** Tokens the key ring was asked about in an `auth` step, and how many it rightly refused. */
    tokens: number;
    tokensRefused: number;
    /** Keys revoked, and made, during the steps. */
    revoked: number;
    issued: number;
    /** Successful answers held to their caller's tenancy. */
    answersChecked: number;
  };
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
  /** Keys mode (D-50): principals, keys and tenants; every command as a principal's caller. */
  keys?: boolean;
  /**
   * Keys mode: whether a closer's key is also sent to release an open gig it never claimed
   * (D-53: refused; a closer releases only a gig it claimed). On unless false.
   */
  closerReleasesOpenGigs?: boolean;
}

/** What the operations table asks of a caller for each operation (D-53). */
const SCOPES = new Map<string, Access>(OPERATIONS.map((op) => [op.id, op.scope]));
const scopeOf = (op: string): Access => {
  const scope = SCOPES.get(op);
  if (scope === undefined) throw new Error(`no operation ${op} in the table`);
  return scope;
};

/** The steps that are the platform's own: what they write carries no actor (D-56). */
const PLATFORM_KINDS = new Set(['clock', 'timers']);
/** Keys mode's steps that touch no pipeline record. */
const KEY_KINDS = new Set(['auth', 'key-create', 'key-revoke', 'read']);

type Target = { kind: 'deal' | 'gig' | 'seller' | 'principal' | 'key'; id: string };
const UNKNOWN: Record<Target['kind'], string> = {
  deal: formatId('deal', 99_991),
  gig: formatId('gig', 99_992),
  seller: formatId('seller', 99_993),
  principal: formatId('seller', 99_994),
  key: formatId('key', 99_995),
};

export async function simulate(options: SimulationOptions): Promise<SimulationReport> {
  const random = seededRandom(options.seed);
  const chance = (p: number) => random() < p;
  const pick = <T>(items: readonly T[]): T | undefined =>
    items.length === 0 ? undefined : items[Math.floor(random() * items.length)];
  const keysMode = options.keys === true;
  let machine = Date.parse('2030-01-07T09:00:00.000Z');
  // One episode's world: a fresh memory store behind the fault injector, and the service on it;
  // in keys mode its cast of principals and their keys.
  const fresh = async () => {
    const store = faultyStore(new MemoryStore());
    const service = createPipelineService(
      store,
      { now: () => machine },
      { claimTtlHours: 72, ...(keysMode ? { auth: 'keys' as const } : {}) },
    );
    const seeded = await service.run(service.platform.reset());
    const cast = keysMode ? await Cast.start(service, () => machine, random, seeded.ok ? seeded.value : []) : undefined;
    return { store, service, cast };
  };
  let { store, service, cast } = await fresh();

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

  const report: SimulationReport = {
    seed: options.seed,
    mode: keysMode ? 'keys' : 'demo',
    steps: 0,
    episodes: 1,
    kinds: {},
    faults: 0,
  };
  if (keysMode) {
    report.keys = {
      refusedKeys: 0,
      refusedScopes: 0,
      crossTenant: 0,
      tokens: 0,
      tokensRefused: 0,
      revoked: 0,
      issued: 0,
      answersChecked: 0,
    };
  }
  const tally = report.keys;

  // What the step under way learned, checked once its state is read: violations found on the
  // way, the caller its command ran as, and the successful answer to hold to its tenancy.
  let found: SimViolation[] = [];
  let stepCaller: Caller | undefined;
  /** For the trail: the operation and the key a step's command was sent with. */
  let sent = '';
  let answered: { op: string; value: unknown; caller: Caller; complete?: 'deals' | 'gigs' } | undefined;
  let before: Snapshot & { lastSeq: number };

  /** A principal's key for a command: mostly one that fits it and is live, now and then any. */
  const chooseKey = (prefer: readonly string[], only: boolean): SimKey => {
    const all = cast as Cast;
    const principal = (only || chance(0.8) ? pick(prefer) : undefined) ?? (pick(all.principals()) as string);
    const keys = all.keysOf(principal);
    const live = keys.filter((k) => all.isLive(k));
    return ((chance(0.88) ? pick(live) : undefined) ?? pick(keys)) as SimKey;
  };
  const foreign = (caller: Caller, target: Target, s: Snapshot): boolean => {
    if (caller.kind === 'operator') return false;
    switch (target.kind) {
      case 'deal':
        return foreignDeal(caller, target.id, s);
      case 'gig':
        return foreignGig(caller, target.id, s);
      case 'seller':
        return (cast as Cast).sellers.includes(target.id) && target.id !== caller.principal;
      case 'principal':
        return (cast as Cast).principals().includes(target.id) && target.id !== caller.principal;
      case 'key': {
        const key = (cast as Cast).keys.find((k) => k.id === target.id);
        return key !== undefined && key.principal !== caller.principal;
      }
    }
  };

  /**
   * A command or read as the door runs it. In the demo: `call` with no caller. In keys mode: a
   * key of one of `prefer` (now and then anyone's) authenticated by the key ring, the
   * operation's scope asked of it, then `call` as its caller; on another tenant's record the
   * same call on an unknown id must answer the same, the id aside.
   */
  const act = async (
    op: string,
    prefer: readonly (string | undefined)[],
    target: Target | undefined,
    call: (caller: Caller | undefined, id: string) => Promise<unknown>,
    { complete, only = false }: { complete?: 'deals' | 'gigs'; only?: boolean } = {},
  ): Promise<unknown> => {
    if (!cast) return call(undefined, target?.id ?? '');
    const key = chooseKey(
      prefer.filter((p): p is string => p !== undefined),
      only,
    );
    sent = ` ${op} with ${key.id} of ${key.principal}`;
    const caller = await cast.callerOf(key);
    if ((caller !== undefined) !== cast.isLive(key)) {
      found.push({
        invariant: 'keys',
        message: `${key.id} of ${key.principal} (${key.revoked ? 'revoked' : key.expiresAt !== undefined ? `expiring ${new Date(key.expiresAt).toISOString()}` : 'live'}) was ${caller ? 'accepted' : 'refused'} at ${new Date(machine).toISOString()}`,
        ids: [key.id],
      });
    }
    if (!caller) {
      (tally as NonNullable<typeof tally>).refusedKeys++;
      // The door's 401 INVALID_KEY (no refusal of the service's: the request never reaches it).
      return fail({ kind: 'denied', code: 'INVALID_KEY', message: `${key.id} refused` } as unknown as Refusal);
    }
    if (caller.principal !== key.principal || caller.keyId !== key.id || !same([...caller.scopes], key.scopes)) {
      found.push({
        invariant: 'keys',
        message: `${key.id} of ${key.principal} authenticated as ${caller.keyId} of ${caller.principal} (${[...caller.scopes]})`,
        ids: [key.id],
      });
    }
    const allowed = allows(scopeOf(op), caller);
    if (!allowed.ok) {
      (tally as NonNullable<typeof tally>).refusedScopes++;
      return fail(refuse.denied('INSUFFICIENT_SCOPE', `${op} needs ${allowed.requiredScope}`, allowed.requiredScope));
    }
    stepCaller = caller;
    // A refusal thrown before any unit of work (closer-of's rule) answers as the door does.
    const run = (id: string) =>
      Promise.resolve()
        .then(() => call(caller, id))
        .catch((error) => {
          if (error instanceof RefusedError) return fail(error.refusal);
          throw error;
        });
    const outcome = (await run(target?.id ?? '')) as Result<unknown>;
    if (target && foreign(caller, target, before)) {
      (tally as NonNullable<typeof tally>).crossTenant++;
      store.disarm();
      const unknown = UNKNOWN[target.kind];
      const probe = (await run(unknown)) as Result<unknown>;
      const expected = probe.ok ? probe : { ok: false, refusal: withId(probe.refusal, unknown, target.id) };
      if (!same(outcome, expected)) {
        found.push({
          invariant: 'tenancy',
          message:
            `${op} as ${caller.principal} on ${target.kind} ${target.id}, another tenant's, answered ` +
            `${JSON.stringify(outcome.ok ? 'a success' : outcome.refusal)}; on an unknown one ${JSON.stringify(probe.ok ? 'a success' : probe.refusal)}`,
          ids: [target.id],
        });
      }
    }
    if (outcome.ok) answered = { op, value: outcome.value, caller, ...(complete ? { complete } : {}) };
    return outcome;
  };

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
  // Who a command fits (keys mode): the deal's Seller, a gig's claimant or its deal's Seller.
  const sellers = () => cast?.sellers ?? [];
  const closers = () => cast?.closers ?? [];
  const ownerOf = (s: Snapshot, dealId: string) => [s.deals.find((d) => d.id === dealId)?.sellerId];
  const gigOwners = (s: Snapshot, gigId: string) => {
    const gig = s.gigs.find((g) => g.id === gigId);
    return [gig?.closerId, ...(gig ? ownerOf(s, gig.dealId) : [])];
  };
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
  /**
   * The closerId a closer's move names (keys mode): mostly none (the key's own closer), else the
   * one the demo would name, which closer-of refuses unless it is the key's.
   */
  const closerIdFor = (roll: number, caller: Caller | undefined, demo: string | undefined) =>
    caller === undefined || roll >= 0.5 ? demo : roll < 0.4 ? undefined : caller.principal;

  const reads: [string, (s: Snapshot) => Promise<unknown>][] = [
    [
      'getDeal',
      (s) => act('getDeal', [], { kind: 'deal', id: ids(s).deal() }, (c, id) => service.queries.getDeal(id, c)),
    ],
    [
      'getSettlement',
      (s) =>
        act('getSettlement', [], { kind: 'deal', id: ids(s).deal((d) => d.stage === 'closed_won') }, (c, id) =>
          service.queries.settlement(id, c),
        ),
    ],
    [
      'listDeals',
      () => {
        // The door lets only a stage through (the query's schema).
        const filter = chance(0.3) ? { stage: pick(STAGES) as Stage } : {};
        return act(
          'listDeals',
          [],
          undefined,
          async (c) => ok(await service.queries.listDeals({ limit: Number.MAX_SAFE_INTEGER, ...filter }, c)),
          { complete: 'stage' in filter ? undefined : 'deals' },
        );
      },
    ],
    ['getGig', (s) => act('getGig', [], { kind: 'gig', id: ids(s).gig() }, (c, id) => service.queries.getGig(id, c))],
    [
      'listGigs',
      () => {
        const filter = chance(0.3) ? { status: pick(['open', 'claimed', 'fulfilled']) as never } : {};
        return act('listGigs', [], undefined, async (c) => ok(await service.queries.listGigs(filter, c)), {
          complete: 'status' in filter ? undefined : 'gigs',
        });
      },
    ],
    [
      'getCloser',
      (s) => {
        const closerId = ids(s).closer();
        return act('getCloser', [], undefined, (c) => service.queries.getCloser(closerId, c));
      },
    ],
    ['listClosers', () => act('listClosers', [], undefined, async (c) => ok(await service.queries.listClosers({}, c)))],
    [
      'listEvents',
      () =>
        act('listEvents', [], undefined, async (c) => ok(await service.queries.events({ after: 0, limit: 1000 }, c))),
    ],
    ['listSellers', () => act('listSellers', [], undefined, async (c) => ok(await service.queries.listSellers({}, c)))],
    [
      'getSeller',
      () =>
        act('getSeller', [], { kind: 'seller', id: pick(sellers()) ?? 'seller_0001' }, (c, id) =>
          service.queries.getSeller(id, c),
        ),
    ],
  ];

  /** What the key ring makes of a token: a live key its own caller, anything else nothing. */
  const authenticate = async () => {
    const all = cast as Cast;
    const t = tally as NonNullable<typeof tally>;
    const live = all.keys.filter((k) => all.isLive(k));
    const dead = all.keys.filter((k) => !all.isLive(k));
    const roll = random();
    let token: string;
    let expect: SimKey | undefined;
    const some = pick(live) as SimKey;
    if (roll < 0.35) {
      expect = some;
      token = some.text;
    } else if (roll < 0.6 && dead.length > 0) {
      token = (pick(dead) as SimKey).text;
    } else if (roll < 0.75) {
      token = forgedKey(random);
    } else if (roll < 0.9) {
      // One character changed.
      const at = Math.floor(random() * some.text.length);
      const swap = some.text[at] === 'x' ? 'y' : 'x';
      token = some.text.slice(0, at) + swap + some.text.slice(at + 1);
    } else {
      token = pick([
        '',
        'short',
        `${all.operator.text}x`,
        all.operator.text.slice(1),
        ` ${some.text}`,
        'sp_sk_',
      ]) as string;
    }
    t.tokens++;
    const got = await service.keyRing?.authenticate(token);
    if (!got?.ok) t.tokensRefused++;
    if (expect) {
      if (!got?.ok || got.caller.keyId !== expect.id || got.caller.principal !== expect.principal)
        found.push({
          invariant: 'keys',
          message: `live ${expect.id} of ${expect.principal} authenticated as ${got?.ok ? got.caller.keyId : 'nothing'}`,
          ids: [expect.id],
        });
    } else if (got?.ok) {
      found.push({
        invariant: 'keys',
        message: `${JSON.stringify(token.slice(0, 14))}… (not a live key) authenticated as ${got.caller.keyId} of ${got.caller.principal}`,
        ids: [got.caller.keyId],
      });
    }
    return { ok: true };
  };

  const commands: [string, number, (s: Snapshot) => Promise<unknown>][] = [
    [
      'create',
      8,
      () => act('createDeal', sellers(), undefined, (c) => service.run(service.deals.createDeal(dealInput(), c))),
    ],
    ['sell', 8, () => act('sell', sellers(), undefined, (c) => service.run(service.deals.sell(dealInput(), c)))],
    [
      'advance',
      14,
      (s) => {
        const to = chance(0.5) ? {} : { advanceTo: anyStage(), ...(chance(0.5) ? { valueUsd: value() } : {}) };
        const id = ids(s).deal();
        return act('advanceDeal', ownerOf(s, id), { kind: 'deal', id }, (c, id) =>
          service.run(service.deals.advanceDeal(id, to, undefined, c)),
        );
      },
    ],
    [
      'signals',
      6,
      (s) => {
        const id = ids(s).deal();
        const signal = pick(signals) as string;
        return act('reportSignals', ownerOf(s, id), { kind: 'deal', id }, (c, id) =>
          service.run(service.deals.reportSignals(id, [signal], undefined, c)),
        );
      },
    ],
    [
      'deescalate',
      4,
      (s) => {
        const id = ids(s).deal((d) => d.humanTrack === true);
        return act('deescalateDeal', ownerOf(s, id), { kind: 'deal', id }, (c, id) =>
          service.run(service.deals.deescalate(id, undefined, c)),
        );
      },
    ],
    [
      'reengage',
      3,
      (s) => {
        const id = ids(s).deal((d) => d.stage === 'closed_lost');
        return act('reengageDeal', ownerOf(s, id), { kind: 'deal', id }, (c, id) =>
          service.run(service.deals.reengage(id, undefined, c)),
        );
      },
    ],
    [
      'enrol',
      2,
      () => {
        const input = { name: `Closer ${Math.floor(random() * 1e4)}`, industries: ['saas'] };
        const keyed = chance(0.7);
        return act('enrolCloser', [OPERATOR], undefined, async (c) => {
          const enrolled = await service.run(service.gigs.enrolCloser(input, c));
          // Most new closers get a key from the operator, and work from then on.
          if (enrolled.ok && cast && keyed) await cast.enrolled(enrolled.value.closer.id);
          return enrolled;
        });
      },
    ],
    [
      'claim',
      10,
      (s) => {
        const id = ids(s).gig('open');
        const named = ids(s).closer();
        const roll = random();
        return act('claimGig', closers(), { kind: 'gig', id }, (c, id) =>
          service.run(service.gigs.claimGig(id, actingCloser(c, closerIdFor(roll, c, named)), undefined, c)),
        );
      },
    ],
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
        const named = chance(0.9) ? gig?.closerId : ids(s).closer();
        const valueUsd = to === 'closed_won' ? (chance(0.8) && deal ? deal.listValueCents / 100 : value()) : undefined;
        const roll = random();
        const id = gig?.id ?? ids(s).gig();
        return act('advanceGig', [gig?.closerId], { kind: 'gig', id }, (c, id) =>
          service.run(
            service.gigs.advanceGig(
              id,
              {
                ...claimant(c, closerIdFor(roll, c, named)),
                advanceTo: to as string,
                ...(valueUsd !== undefined ? { valueUsd } : {}),
              },
              undefined,
              c,
            ),
          ),
        );
      },
    ],
    [
      'revive',
      3,
      (s) => {
        const nurturing = pick(s.gigs.filter((g) => g.role === 'nurturer' && g.status === 'claimed'));
        const gig = nurturing && chance(0.7) ? nurturing : s.gigs.find((g) => g.id === ids(s).gig('claimed'));
        const named = chance(0.9) ? gig?.closerId : ids(s).closer();
        const roll = random();
        return act('reviveGig', [gig?.closerId], { kind: 'gig', id: gig?.id ?? 'gig_0001' }, (c, id) =>
          service.run(service.gigs.clearGoneDark(id, claimant(c, closerIdFor(roll, c, named)), undefined, c)),
        );
      },
    ],
    [
      'release',
      3,
      (s) => {
        const id = ids(s).gig('claimed');
        const named = chance(0.8) ? undefined : ids(s).closer();
        // An open gig only its Seller may release: a closer's key is refused (D-53).
        const open = s.gigs.find((g) => g.id === id)?.status === 'open';
        const only = open && options.closerReleasesOpenGigs === false;
        return act(
          'releaseGig',
          only ? ownerOf(s, s.gigs.find((g) => g.id === id)?.dealId ?? '') : gigOwners(s, id),
          { kind: 'gig', id },
          (c, id) => service.run(service.gigs.releaseGig(id, claimant(c, named).closerId, undefined, c)),
          { only },
        );
      },
    ],
    [
      'expire',
      2,
      (s) =>
        act('expireGig', [OPERATOR], { kind: 'gig', id: ids(s).gig('claimed') }, (c, id) =>
          service.run(service.gigs.reopenGig(id, undefined, c)),
        ),
    ],
    [
      'clock',
      3,
      async () => {
        machine += Math.floor(random() * 30 * HOUR);
        const hours = chance(0.5) ? 0 : Math.floor(random() * 100);
        return act('advanceDemoClock', [OPERATOR], undefined, () => service.run(service.platform.advanceClock(hours)));
      },
    ],
    ['timers', 2, async () => ({ ok: true, fired: await service.platform.runTimers() })],
  ];
  if (keysMode) {
    commands.push(
      ['read', 12, (s) => (pick(reads) as (typeof reads)[number])[1](s)],
      ['auth', 4, authenticate],
      [
        'key-create',
        2,
        () => {
          const all = cast as Cast;
          const principal = pick(all.principals()) as string;
          const own = all.keysOf(principal)[0]?.scopes ?? [];
          const scopes = chance(0.3) ? own.filter(() => chance(0.6)) : undefined;
          const expiresAt = chance(0.4) ? machine + Math.floor(random() * 48 * HOUR) : undefined;
          return act('createKey', [principal, OPERATOR], { kind: 'principal', id: principal }, async (c, id) => {
            const made = await service.run(
              service.accounts.createKey(
                {
                  name: `more for ${id}`,
                  principal: id,
                  ...(scopes ? { scopes } : {}),
                  ...(expiresAt ? { expiresAt } : {}),
                },
                c as Caller,
              ),
            );
            if (made.ok && id === principal) {
              all.learn(made.value.key, made.value.text as string);
              (tally as NonNullable<typeof tally>).issued++;
            }
            return made;
          });
        },
      ],
      [
        'key-revoke',
        2,
        () => {
          const all = cast as Cast;
          const key = pick(all.keys.filter((k) => !k.main));
          const target = key?.id ?? UNKNOWN.key;
          return act('revokeKey', [key?.principal, OPERATOR], { kind: 'key', id: target }, async (c, id) => {
            const revoked = await service.run(service.accounts.revokeKey(id, c as Caller));
            if (revoked.ok && key && id === key.id) {
              key.revoked = true;
              (tally as NonNullable<typeof tally>).revoked++;
              // Refused at once by the instance that revoked it.
              const again = await service.keyRing?.authenticate(key.text);
              if (again?.ok)
                found.push({ invariant: 'keys', message: `${key.id} authenticated once revoked`, ids: [key.id] });
            }
            return revoked;
          });
        },
      ],
    );
  }
  const total = commands.reduce((sum, [, weight]) => sum + weight, 0);
  const choose = () => {
    let roll = random() * total;
    for (const command of commands) {
      roll -= command[1];
      if (roll < 0) return command;
    }
    return commands[0];
  };

  const final = { deals: 0, won: 0, gigs: 0, fulfilled: 0, closers: 0, payouts: 0 };
  const add = (s: Snapshot) => {
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
  before = await snapshot();
  while (report.steps < maxSteps && performance.now() < deadline) {
    if (report.steps > 0 && report.steps % episodeSteps === 0) {
      add(before);
      await service.close();
      ({ store, service, cast } = await fresh());
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
    found = [];
    stepCaller = undefined as Caller | undefined;
    sent = '';
    answered = undefined as typeof answered;
    let outcome: unknown;
    let thrown: unknown;
    try {
      outcome = await run(before);
    } catch (error) {
      thrown = error;
    }
    const refusal = (outcome as { ok?: boolean; refusal?: Refusal } | undefined)?.refusal;
    trail.push(`${step} ${kind}${sent}${fault ? ' (faulty)' : ''}` + `${refusal ? `: ${refusal.code}` : ''}`);
    if (trail.length > 30) trail.shift();
    const faulted = fault && store.faulted;
    store.disarm(); // if it did not fire (the command wrote nothing)
    const after = await snapshot();
    const refused = (outcome as { ok?: boolean } | undefined)?.ok === false;
    const fail = (problem: string, violations?: SimViolation[]) => {
      report.failure = { step, command: kind, problem, violations, trail: [...trail] };
    };
    if (thrown !== undefined && !(thrown instanceof InjectedFault)) {
      fail(`threw ${String((thrown as Error)?.stack ?? thrown)}`);
      break;
    }
    if (faulted) report.faults++;
    if ((refused || faulted || KEY_KINDS.has(kind)) && !PLATFORM_KINDS.has(kind) && !same(before, after)) {
      fail(
        faulted
          ? 'a unit of work that failed left changes behind'
          : refused
            ? 'a refusal changed the state'
            : `${kind} changed the pipeline`,
      );
      break;
    }
    if (refused) counts.refused++;
    const violations: SimViolation[] = [...found, ...checkInvariants(after), ...checkStep(before, after, kind)];
    if (!refused && !faulted && thrown === undefined) {
      // D-56: what the step wrote carries its caller, the platform's steps none.
      const events =
        after.lastSeq > before.lastSeq ? await store.events({ after: before.lastSeq, limit: 1_000_000 }) : [];
      const actor: ActorRef | undefined = PLATFORM_KINDS.has(kind) ? undefined : actorOf(stepCaller);
      violations.push(...checkActors(before, after, events, actor, kind));
    }
    if (cast) {
      violations.push(...checkOwners(after, cast.sellerSet()));
      if (answered) {
        (tally as NonNullable<typeof tally>).answersChecked++;
        violations.push(...leaks(answered.value, answered.caller, after, answered.op));
        if (answered.complete) violations.push(...completeness(answered, after));
      }
    }
    if (violations.length > 0) {
      fail('an invariant broke', violations);
      break;
    }
    before = after;
  }
  add(before);
  report.final = final;
  await service.close();
  return report;
}

/** A refusal as it would name `to` where it named `from`. */
function withId(refusal: Refusal, from: string, to: string): Refusal {
  return JSON.parse(JSON.stringify(refusal).split(from).join(to)) as Refusal;
}

/** D-54: an unfiltered list holds every record its caller may see, and only those. */
function completeness(
  answered: { op: string; value: unknown; caller: Caller; complete?: 'deals' | 'gigs' },
  s: Snapshot,
): SimViolation[] {
  const { caller } = answered;
  const me = caller.principal;
  const hasGig = (dealId: string) => s.gigs.some((g) => g.dealId === dealId && g.closerId === me);
  const sellerOf = (dealId: string) => s.deals.find((d) => d.id === dealId)?.sellerId;
  const expected =
    answered.complete === 'deals'
      ? s.deals
          .filter((d) => caller.kind === 'operator' || (caller.kind === 'seller' ? d.sellerId === me : hasGig(d.id)))
          .map((d) => d.id)
      : s.gigs
          .filter(
            (g) =>
              caller.kind === 'operator' ||
              (caller.kind === 'seller' ? sellerOf(g.dealId) === me : g.status === 'open' || g.closerId === me),
          )
          .map((g) => g.id);
  const got = (answered.value as { id: string }[]).map((r) => r.id);
  const missing = expected.filter((id) => !got.includes(id));
  const extra = got.filter((id) => !expected.includes(id));
  if (missing.length === 0 && extra.length === 0) return [];
  return [
    {
      invariant: 'tenancy',
      message: `${answered.op} as ${me} left out ${missing.join(', ') || 'nothing'} and held ${extra.join(', ') || 'nothing more'}`,
      ids: [...missing, ...extra],
    },
  ];
}

/**
 * What only a step shows, not a snapshot: a terminal deal stays as it was (D-7), and a deal
 * leaves the human track only by a de-escalation (D-12).
 */
function checkStep(before: Snapshot, after: Snapshot, kind: string): SimViolation[] {
  const out: SimViolation[] = [];
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
