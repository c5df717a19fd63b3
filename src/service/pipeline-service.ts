// The application service: for each request, one unit of work that loads what the decision
// needs, asks the pure decider, and stores what it decided. No HTTP here, no rules either.
import type { DecisionContext, PipelineCommand, ProposalInput } from '../domain/commands.ts';
import { decide, MAY_FULFIL } from '../domain/decide.ts';
import { multiplyHalfUp } from '../domain/decimal.ts';
import { type PipelineEvent, WRITES, writtenId } from '../domain/events.ts';
import { compareIds, couldBeId, formatId, type IdKind } from '../domain/ids.ts';
import { type Match, rankClosers } from '../domain/matching.ts';
import { publicEvents } from '../domain/public-events.ts';
import type { Account, Closer, Deal, Gig, PayoutLine } from '../domain/records.ts';
import { isRefusal, type Refusal, refuse } from '../domain/refusal.ts';
import { type Settlement, settle } from '../domain/settlement.ts';
import type { Role } from '../domain/stages.ts';
import { evolveAll, initialState, type PipelineState } from '../domain/state.ts';
import { versionMismatch } from '../domain/version.ts';
import type {
  DealFilter,
  EventFilter,
  GigFilter,
  Store,
  StoredEvent,
  StoreReader,
  UnitOfWork,
} from '../store/store.ts';
import { NO_TELEMETRY, type Telemetry } from '../telemetry.ts';
import { type DryRun, isDryRun, runDry } from './dry-run.ts';
import type { KeyedRequest, RenderedAnswer } from './idempotency.ts';
import { type Clock, PlatformClock } from './platform-clock.ts';
import { runTimers, type TimerHost } from './timers.ts';
import {
  fail,
  type KeyedOutcome,
  keyedWrite,
  ok,
  RefusedError,
  type Result,
  runKeyed,
  runUnit,
  type WriteOptions,
} from './unit.ts';
import { WebhookService } from './webhook-service.ts';

export type { KeyedOutcome, Result, WriteOptions } from './unit.ts';

/** What a dry run (D-48) answers: the write's value as it would be, and what it would publish and settle. */
export interface DryRunOutcome<T> extends DryRun {
  value: T;
}

export type { Clock } from './platform-clock.ts';

export interface ServiceConfig {
  claimTtlHours: number;
  /** D-41: how long (real time) the feed keeps an event; 72 hours unless set. */
  eventRetentionHours?: number;
  /** D-42: webhooks may point at loopback and private addresses (local development, tests). */
  webhookAllowPrivate?: boolean;
  /** Where the gate's decisions and the timers' runs are reported (GET /metrics); none unless set. */
  telemetry?: Telemetry;
}

export interface CloserWithLedger {
  closer: Closer;
  payouts: PayoutLine[];
}

export interface Escalation {
  escalated: true;
  role: Role;
  gig: Gig;
  deal: Deal;
  suggestedClosers: (Omit<Match, 'closer'> & { closer: CloserWithLedger })[];
}

export type AdvanceOutcome = { kind: 'deal'; deal: Deal } | { kind: 'escalation'; escalation: Escalation };

export interface GigOutcome {
  gig: Gig;
  deal: Deal;
  closer?: CloserWithLedger;
}

export const SEED_CLOSERS = [
  { name: 'Ada Brightwater (fictional)', industries: ['saas', 'fintech'] },
  { name: 'Milo Fenwick (fictional)', industries: ['healthcare', 'logistics'] },
] as const;

const HOUR_MS = 60 * 60 * 1000;

const PLACEHOLDER_IDS: Record<IdKind, string> = { deal: 'deal_pending', gig: 'gig_pending', closer: 'closer_pending' };

/** The kinds of record a decision creates, each needing a fresh id. */
function createdKinds(events: readonly PipelineEvent[]): IdKind[] {
  const kinds: IdKind[] = [];
  for (const event of events) {
    const { kind, creates } = WRITES[event.type];
    if (creates && kind !== 'ledger' && !kinds.includes(kind)) kinds.push(kind);
  }
  return kinds;
}

/** D-47: refuses (412, rolling the unit back) when the caller's If-Match names another version. */
function expectVersion(state: PipelineState, dealId: string, options: WriteOptions | undefined): void {
  if (options?.ifMatch === undefined) return;
  const refusal = versionMismatch(state.deals.get(dealId) as Deal, options.ifMatch);
  if (refusal) throw new RefusedError(refusal);
}

function addOnce(ids: string[], id: string): void {
  if (!ids.includes(id)) ids.push(id);
}

const MAX_SELL_STEPS = 10;
/** D-25: how many closers a match answers unless asked for fewer or more (1 to 1000). */
export const MATCH_LIMIT = 100;
export const MAX_MATCH_LIMIT = 1000;

export type DealInput = { account: Account; listValueUsd: number; mandate?: unknown };
export type Ranked = Escalation['suggestedClosers'];

/** When the deal was last acted on (0 for none): no decision on it may be timed earlier (D-19). */
const latestActivityAt = (deal: Deal | undefined) => deal?.activity[deal.activity.length - 1]?.at ?? 0;

/**
 * A timer's time on a deal: the run's, unless the deal was acted on later meanwhile (by a
 * request, or by another instance whose clock had moved on), then that later time (D-19). A
 * stall measured from the later act is then not due, and is refused as such.
 */
const notBeforeLatest = (deal: Deal | undefined, now: number) => Math.max(now, latestActivityAt(deal));

export class PipelineService {
  /** Called after every unit of work that committed (the feed may have grown). */
  private readonly commitListeners = new Set<() => void>();
  /** Subscriptions to the events (D-42); their deliveries are the worker's. */
  readonly webhooks: WebhookService;

  /** The platform's time: the machine clock and the demo clock's offset, kept (platform-clock.ts). */
  private readonly platform: PlatformClock;
  private readonly stopWatchingClock: () => void;
  private readonly telemetry: Telemetry;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: ServiceConfig,
  ) {
    this.telemetry = config.telemetry ?? NO_TELEMETRY;
    this.webhooks = new WebhookService(store, clock, config.webhookAllowPrivate === true, (work, options) =>
      this.unit(work, options),
    );
    this.platform = new PlatformClock(clock, () =>
      store.read((reader) => reader.clockOffsetMs(), { oneStatement: true }),
    );
    // Another instance's move of the demo clock (PostgreSQL): learned when it commits.
    this.stopWatchingClock = store.watchClockOffset((offsetMs, reset) =>
      reset ? this.platform.replace(offsetMs) : this.platform.learn(offsetMs),
    );
  }

  /** Stops listening to the store (the service is closing). */
  close(): void {
    this.stopWatchingClock();
  }

  /**
   * The time a decision on this deal is made at: the platform's time, read behind the unit's
   * locks, and never before the deal's latest activity (D-19). Should the deal have been acted
   * on later (another instance moved the demo clock a moment ago and acted), the offset is read
   * again first.
   */
  private async nowFor(uow: UnitOfWork, deal: Deal | undefined): Promise<number> {
    const now = await this.platform.now(uow);
    const latest = latestActivityAt(deal);
    if (latest <= now) return now;
    return Math.max(latest, await this.platform.refresh(() => uow.clockOffsetMs()));
  }

  /** Runs work in one unit of work (a keyed one under options.keyed); a refusal rolls it back. */
  private async unit<T>(work: (uow: UnitOfWork) => Promise<T>, options?: WriteOptions): Promise<Result<T>> {
    // A dry run commits nothing: no listener is told, and a key is neither looked up nor stored.
    if (options?.dryRun) return runDry(this.store, work, options.dryRun);
    const result = await (options?.keyed
      ? runKeyed(this.store, this.clock, work, options.keyed)
      : runUnit(this.store, work));
    if (result.ok) for (const listener of this.commitListeners) listener();
    return result;
  }

  /**
   * Listens for committed units of work (each may have published events: the stream reads the
   * feed when told, instead of polling it fast). Returns the way to stop listening.
   */
  onCommit(listener: () => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /**
   * Runs a write under an idempotency key: `call` is the write, given the options that key it;
   * `render` is how the calling door answers its result (stored as bytes, replayed as bytes).
   */
  keyed<T>(
    request: KeyedRequest,
    call: (options: WriteOptions) => Promise<Result<T>>,
    render: (result: Result<T>) => RenderedAnswer,
  ): Promise<KeyedOutcome> {
    return keyedWrite(request, call, render);
  }

  /**
   * Runs a write as a dry run (D-48): `call` is the write, given the options that make it one.
   * The answer is its value as it would be, the events it would publish and, for a close won,
   * the settlement; or the very refusal the real call would get.
   */
  async dryRun<T>(call: (options: WriteOptions) => Promise<Result<T>>): Promise<Result<DryRunOutcome<T>>> {
    const run: DryRun = { events: [] };
    const result = await call({ dryRun: run });
    return result.ok ? ok({ ...run, value: result.value }) : result;
  }

  /**
   * Decides one command against the loaded state and returns the state after it; `apply` also
   * stores the outcome. Ids are taken only once the gate has accepted (D-28: a refusal takes
   * none, and on PostgreSQL a number once taken is never given back): the command is decided
   * with placeholder ids, the kinds its events create are taken, and it is decided again,
   * deterministically, with them.
   */
  private async decideStep(uow: UnitOfWork, state: PipelineState, command: PipelineCommand, now: number) {
    const claimTtlMs = this.config.claimTtlHours * HOUR_MS;
    const context = (nextIds: Record<IdKind, string>): DecisionContext => ({ now, claimTtlMs, nextIds });
    let decision = decide(state, command, context(PLACEHOLDER_IDS));
    this.telemetry.decided(command.type, decision.ok ? undefined : decision.refusal.code, isDryRun(uow));
    if (!decision.ok) throw new RefusedError(decision.refusal);
    const needed = createdKinds(decision.events);
    if (needed.length > 0) {
      const ids = { ...PLACEHOLDER_IDS };
      // A store that can take the numbers with its write reserves the ids (store.ts); a dry run
      // shows real ids, so it takes them.
      if (uow.reserveId && !isDryRun(uow)) {
        for (const kind of needed) ids[kind] = uow.reserveId(kind);
      } else {
        const numbers = await Promise.all(needed.map((kind) => uow.takeNumber(kind)));
        needed.forEach((kind, i) => {
          ids[kind] = formatId(kind, numbers[i]);
        });
      }
      decision = decide(state, command, context(ids));
      if (!decision.ok) throw new Error(`decision changed with its ids: ${decision.refusal.message}`);
    }
    return { state: evolveAll(state, decision.events), events: decision.events, escalation: decision.escalation };
  }

  private async apply(uow: UnitOfWork, state: PipelineState, command: PipelineCommand, now: number) {
    const step = await this.decideStep(uow, state, command, now);
    await this.persist(uow, state, step.state, step.events, now);
    return step;
  }

  /**
   * Writes what a decision changed (`state` is the state after it, `before` the one it was
   * made on) and publishes its public events (D-40) in the same unit of work.
   */
  private async persist(
    uow: UnitOfWork,
    before: PipelineState,
    state: PipelineState,
    events: PipelineEvent[],
    now: number,
  ) {
    // Lists, not sets: a unit of work touches a record or two of each kind.
    const deals: string[] = [];
    const gigs: string[] = [];
    const closers: string[] = [];
    const lists = { deal: deals, gig: gigs, closer: closers };
    for (const event of events) {
      const { kind } = WRITES[event.type];
      if (kind === 'ledger') continue;
      addOnce(lists[kind], writtenId(event) as string);
      // A fulfilment also updates the claimant's Register.
      if (event.type === 'GigFulfilled') {
        const closerId = state.gigs.get(event.gigId)?.closerId;
        if (closerId) addOnce(closers, closerId);
      }
    }
    for (const id of deals) await uow.putDeal(state.deals.get(id) as Deal);
    for (const id of gigs) await uow.putGig(state.gigs.get(id) as Gig);
    for (const id of closers) await uow.putCloser(state.closers.get(id) as Closer);
    // Appended in event order, sent together (one round trip on a database).
    await Promise.all([
      ...events.flatMap((event) => (event.type === 'PayoutPosted' ? [uow.appendPayout(event.line)] : [])),
      uow.publish(publicEvents(before, events, now), this.clock.now()),
    ]);
  }

  /**
   * The deal and its gigs (asked for together, the deal first: the lock order), then the closers
   * named by them or by the caller, all at once and in id order (D-46: two units that lock the
   * same closers lock them in one order, so they cannot deadlock): one round trip each on a
   * database. `lockClosers`: only for a command that may write them (MAY_FULFIL, P-92).
   */
  private async loadDeal(uow: UnitOfWork, dealId: string, closerIds: (string | undefined)[] = [], lockClosers = false) {
    if (!couldBeId('deal', dealId)) throw new RefusedError(refuse.notFound('DEAL_NOT_FOUND', `No deal ${dealId}.`));
    const [deal, gigs] = await Promise.all([uow.getDeal(dealId), uow.gigsOfDeal(dealId)]);
    if (!deal) throw new RefusedError(refuse.notFound('DEAL_NOT_FOUND', `No deal ${dealId}.`));
    // A closer id that could name no closer is left out: the decider finds it unknown.
    const ids = [...new Set([...gigs.map((g) => g.closerId), ...closerIds])]
      .filter((id): id is string => id !== undefined && couldBeId('closer', id))
      .sort(compareIds);
    // Locked (in id order, after the deal and its gigs: D-46) only by a command that may write
    // them; the others read them as committed, so that units of one closer do not queue.
    const found = await Promise.all(ids.map((id) => (lockClosers ? uow.getCloser(id) : uow.readCloser(id))));
    const closers = new Map<string, Closer>();
    found.forEach((closer, i) => {
      if (closer) closers.set(ids[i], closer);
    });
    return {
      ...initialState(),
      deals: new Map([[deal.id, deal]]),
      gigs: new Map(gigs.map((g) => [g.id, g])),
      closers,
    } satisfies PipelineState;
  }

  private async loadGig(uow: UnitOfWork, gigId: string, closerId?: string, lockClosers = false) {
    // A closer read without a lock is sent with the gig's (one round trip on a database).
    const named =
      !lockClosers && closerId !== undefined && couldBeId('closer', closerId) ? uow.readCloser(closerId) : undefined;
    const [gig] = await Promise.all([couldBeId('gig', gigId) ? uow.getGig(gigId) : undefined, named]);
    if (!gig) throw new RefusedError(refuse.notFound('GIG_NOT_FOUND', `No gig ${gigId}.`));
    return { state: await this.loadDeal(uow, gig.dealId, [closerId], lockClosers), dealId: gig.dealId };
  }

  /** loadDeal, and the time behind its locks: what a command on a deal is decided with. */
  private async loadDealNow(uow: UnitOfWork, dealId: string) {
    const state = await this.loadDeal(uow, dealId);
    return { state, now: await this.nowFor(uow, state.deals.get(dealId)) };
  }

  /** loadGig, and the time behind its locks. */
  private async loadGigNow(uow: UnitOfWork, gigId: string, closerId: string | undefined, lockClosers: boolean) {
    const { state, dealId } = await this.loadGig(uow, gigId, closerId, lockClosers);
    return { state, now: await this.nowFor(uow, state.deals.get(dealId)) };
  }

  private async withLedger(reader: StoreReader, closer: Closer): Promise<CloserWithLedger> {
    return { closer, payouts: await reader.payoutsOfCloser(closer.id) };
  }

  /** Every closer with its ledger, read at once (one query on a database, not one per closer). */
  private async withLedgers(reader: StoreReader, closers: readonly Closer[]): Promise<CloserWithLedger[]> {
    const ledgers = await reader.payoutsOfClosers(closers.map((c) => c.id));
    return closers.map((closer) => ({ closer, payouts: ledgers.get(closer.id) ?? [] }));
  }

  /** The ranking (D-25), the first `limit` with their ledgers (read for those only). */
  private async rankedWithLedgers(reader: StoreReader, industry: string | undefined, limit = MATCH_LIMIT) {
    const ranked = rankClosers(await reader.listClosers(), industry).slice(0, limit);
    const closers = await this.withLedgers(
      reader,
      ranked.map((m) => m.closer),
    );
    return ranked.map((match, i) => ({ ...match, closer: closers[i] }));
  }

  private async escalation(reader: StoreReader, state: PipelineState, dealId: string, role: Role, gigId: string) {
    const deal = state.deals.get(dealId) as Deal;
    const suggestedClosers = await this.rankedWithLedgers(reader, deal.account.industry);
    return { escalated: true, role, gig: state.gigs.get(gigId) as Gig, deal, suggestedClosers } satisfies Escalation;
  }

  // ── deals ────────────────────────────────────────────────────────────────────────────────

  createDeal(input: DealInput, options?: WriteOptions): Promise<Result<Deal>> {
    return this.unit(async (uow) => {
      const now = await this.platform.now(uow);
      const created = await this.apply(uow, initialState(), { type: 'CreateDeal', ...input }, now);
      return [...created.state.deals.values()][0] as Deal;
    }, options);
  }

  /**
   * Creates a deal and lets the agent advance it until it closes or escalates: one unit of
   * work, its records written once at the end.
   */
  sell(input: DealInput, options?: WriteOptions): Promise<Result<AdvanceOutcome>> {
    return this.unit(async (uow) => {
      const now = await this.platform.now(uow);
      const created = await this.decideStep(uow, initialState(), { type: 'CreateDeal', ...input }, now);
      let state = created.state;
      const events = [...created.events];
      const dealId = [...state.deals.keys()][0] as string;
      let escalation: { role: Role; gigId: string } | undefined;
      for (let step = 0; step < MAX_SELL_STEPS && !escalation; step++) {
        const deal = state.deals.get(dealId) as Deal;
        if (deal.stage === 'closed_won' || deal.stage === 'closed_lost') break;
        const advanced = await this.decideStep(uow, state, { type: 'AdvanceDeal', dealId, proposal: {} }, now);
        state = advanced.state;
        events.push(...advanced.events);
        escalation = advanced.escalation;
      }
      await this.persist(uow, initialState(), state, events, now);
      if (escalation) {
        const { role, gigId } = escalation;
        return { kind: 'escalation', escalation: await this.escalation(uow, state, dealId, role, gigId) } as const;
      }
      return { kind: 'deal', deal: state.deals.get(dealId) as Deal } as const;
    }, options);
  }

  getDeal(dealId: string): Promise<Result<Deal>> {
    if (!couldBeId('deal', dealId))
      return Promise.resolve(fail(refuse.notFound('DEAL_NOT_FOUND', `No deal ${dealId}.`)));
    return this.store.read(
      async (reader) => {
        const deal = await reader.getDeal(dealId);
        return deal ? ok(deal) : fail(refuse.notFound('DEAL_NOT_FOUND', `No deal ${dealId}.`));
      },
      { oneStatement: true },
    );
  }

  private async readDeal<T>(dealId: string, then: (deal: Deal, reader: StoreReader) => Promise<T | Refusal>) {
    return this.store.read(async (reader): Promise<Result<T>> => {
      const deal = couldBeId('deal', dealId) ? await reader.getDeal(dealId) : undefined;
      if (!deal) return fail(refuse.notFound('DEAL_NOT_FOUND', `No deal ${dealId}.`));
      const value = await then(deal, reader);
      return isRefusal(value) ? fail(value) : ok(value);
    });
  }

  advanceDeal(dealId: string, proposal: ProposalInput, options?: WriteOptions): Promise<Result<AdvanceOutcome>> {
    return this.unit(async (uow) => {
      const { state, now } = await this.loadDealNow(uow, dealId);
      expectVersion(state, dealId, options);
      const advanced = await this.apply(uow, state, { type: 'AdvanceDeal', dealId, proposal }, now);
      if (advanced.escalation) {
        const { role, gigId } = advanced.escalation;
        return {
          kind: 'escalation',
          escalation: await this.escalation(uow, advanced.state, dealId, role, gigId),
        } as const;
      }
      return { kind: 'deal', deal: advanced.state.deals.get(dealId) as Deal } as const;
    }, options);
  }

  private dealCommand(dealId: string, command: PipelineCommand, options?: WriteOptions): Promise<Result<Deal>> {
    return this.unit(async (uow) => {
      const { state, now } = await this.loadDealNow(uow, dealId);
      expectVersion(state, dealId, options);
      const applied = await this.apply(uow, state, command, now);
      return applied.state.deals.get(dealId) as Deal;
    }, options);
  }

  reportSignals(dealId: string, signals: readonly string[], options?: WriteOptions): Promise<Result<Deal>> {
    return this.dealCommand(dealId, { type: 'ReportSignals', dealId, signals }, options);
  }

  deescalate(dealId: string, options?: WriteOptions): Promise<Result<Deal>> {
    return this.dealCommand(dealId, { type: 'Deescalate', dealId }, options);
  }

  reengage(dealId: string, options?: WriteOptions): Promise<Result<Deal>> {
    return this.unit(async (uow) => {
      const { state, now } = await this.loadDealNow(uow, dealId);
      expectVersion(state, dealId, options);
      const applied = await this.apply(uow, state, { type: 'Reengage', dealId }, now);
      const created = applied.events.find((e) => e.type === 'DealCreated');
      return (created as Extract<PipelineEvent, { type: 'DealCreated' }>).deal;
    }, options);
  }

  settlement(dealId: string): Promise<Result<Settlement>> {
    return this.readDeal(dealId, async (deal, reader) => settle(deal, await reader.payoutsOfDeal(deal.id)));
  }

  // ── marketplace ──────────────────────────────────────────────────────────────────────────

  enrolCloser(
    input: { name: string; industries: readonly string[] },
    options?: WriteOptions,
  ): Promise<Result<CloserWithLedger>> {
    return this.unit(async (uow) => {
      const now = await this.platform.now(uow);
      const applied = await this.apply(uow, initialState(), { type: 'EnrolCloser', ...input }, now);
      return { closer: [...applied.state.closers.values()][0] as Closer, payouts: [] };
    }, options);
  }

  /** A page of closers with their ledgers (the ledgers of that page only). */
  listClosers(page: { afterId?: string; limit?: number } = {}): Promise<CloserWithLedger[]> {
    return this.store.read(async (reader) => this.withLedgers(reader, await reader.listClosers(page)));
  }

  getCloser(closerId: string): Promise<Result<CloserWithLedger>> {
    return this.store.read(async (reader) => {
      const closer = couldBeId('closer', closerId) ? await reader.getCloser(closerId) : undefined;
      if (!closer) return fail(refuse.notFound('CLOSER_NOT_FOUND', `No closer ${closerId}.`));
      return ok(await this.withLedger(reader, closer));
    });
  }

  /**
   * D-25: the first `limit` of the ranking. valueUsd and role are part of the request but do not
   * change the ranking. A read; a keyed one runs as a unit of work so that its answer is stored.
   */
  async match(industry: string, limit = MATCH_LIMIT, options?: WriteOptions): Promise<Result<Ranked>> {
    if (options?.keyed) return this.unit((uow) => this.rankedWithLedgers(uow, industry, limit), options);
    return ok(await this.store.read((reader) => this.rankedWithLedgers(reader, industry, limit)));
  }

  /** A page of gigs (D-39); a dealId or closerId that could name nothing matches nothing. */
  async listGigs(filter: GigFilter = {}): Promise<Gig[]> {
    if (filter.dealId !== undefined && !couldBeId('deal', filter.dealId)) return [];
    if (filter.closerId !== undefined && !couldBeId('closer', filter.closerId)) return [];
    return this.store.read((reader) => reader.listGigs(filter), { oneStatement: true });
  }

  getGig(gigId: string): Promise<Result<Gig>> {
    return this.store.read(
      async (reader) => {
        const gig = couldBeId('gig', gigId) ? await reader.getGig(gigId) : undefined;
        return gig ? ok(gig) : fail(refuse.notFound('GIG_NOT_FOUND', `No gig ${gigId}.`));
      },
      { oneStatement: true },
    );
  }

  /** A page of deals (D-39); a closerId that could name nothing matches nothing. */
  async listDeals(filter: DealFilter): Promise<Deal[]> {
    if (filter.closerId !== undefined && !couldBeId('closer', filter.closerId)) return [];
    return this.store.read((reader) => reader.listDeals(filter), { oneStatement: true });
  }

  private gigCommand(
    gigId: string,
    closerId: string | undefined,
    command: PipelineCommand,
    options: WriteOptions | undefined,
  ): Promise<Result<GigOutcome>> {
    return this.unit(async (uow) => {
      const lockClosers = MAY_FULFIL.has(command.type);
      const { state, now } = await this.loadGigNow(uow, gigId, closerId, lockClosers);
      expectVersion(state, (state.gigs.get(gigId) as Gig).dealId, options);
      const applied = await this.apply(uow, state, command, now);
      if (!lockClosers && applied.events.some((e) => e.type === 'GigFulfilled')) {
        throw new Error(`${command.type} fulfilled a gig, whose claimant it did not lock`);
      }
      const gig = applied.state.gigs.get(gigId) as Gig;
      const outcome: GigOutcome = { gig, deal: applied.state.deals.get(gig.dealId) as Deal };
      if (applied.events.some((e) => e.type === 'GigFulfilled') && gig.closerId) {
        outcome.closer = await this.withLedger(uow, applied.state.closers.get(gig.closerId) as Closer);
      }
      return outcome;
    }, options);
  }

  claimGig(gigId: string, closerId: string, options?: WriteOptions) {
    return this.gigCommand(gigId, closerId, { type: 'ClaimGig', gigId, closerId }, options);
  }

  advanceGig(
    gigId: string,
    input: { closerId?: string; advanceTo: string; valueUsd?: number; note?: string },
    options?: WriteOptions,
  ) {
    return this.gigCommand(gigId, input.closerId, { type: 'AdvanceGig', gigId, ...input }, options);
  }

  reviveGig(gigId: string, input: { closerId?: string; note?: string }, options?: WriteOptions) {
    return this.gigCommand(gigId, input.closerId, { type: 'ReviveGig', gigId, ...input }, options);
  }

  releaseGig(gigId: string, closerId?: string, options?: WriteOptions) {
    return this.gigCommand(gigId, closerId, { type: 'ReleaseGig', gigId, closerId }, options);
  }

  expireGig(gigId: string, options?: WriteOptions) {
    return this.gigCommand(gigId, undefined, { type: 'ExpireClaim', gigId, platform: false }, options);
  }

  // ── events ───────────────────────────────────────────────────────────────────────────────

  /** A page of the feed (D-41); a dealId that could name no deal matches nothing. */
  async events(filter: EventFilter): Promise<StoredEvent[]> {
    if (filter.dealId !== undefined && !couldBeId('deal', filter.dealId)) return [];
    return this.store.events(filter);
  }

  /** The highest seq in the feed so far. */
  lastSeq(): Promise<number> {
    return this.store.lastSeq();
  }

  // ── platform ─────────────────────────────────────────────────────────────────────────────

  health(): Promise<{ deals: number; closers: number }> {
    return this.store.read((reader) => reader.counts(), { oneStatement: true });
  }

  /** D-27: wipe everything (stored idempotency answers too) and seed the two fictional closers. */
  async reset(options?: WriteOptions): Promise<Result<string[]>> {
    let wiped = false;
    const result = await this.unit(async (uow) => {
      await uow.wipe();
      wiped = true;
      // D-41: the first event after a reset says so; the seeded closers' enrolments follow. The
      // demo clock is back at the machine's.
      const now = this.clock.now();
      await uow.publish([{ type: 'demo.reset', at: now, data: {} }], now);
      return this.seed(uow, now);
    }, options);
    // Not when the answer was a replay (the reset it stands for is long done).
    if (result.ok && wiped) this.platform.replace(0);
    return result;
  }

  /** D-27: a service that starts on an empty store seeds the two closers; it never wipes. */
  async seedIfEmpty(): Promise<void> {
    await this.unit(async (uow) => {
      // Two instances starting at once on one empty database must not both seed.
      await uow.lock('seed');
      const counts = await uow.counts();
      if (counts.deals === 0 && counts.closers === 0) await this.seed(uow, await this.platform.now(uow));
    });
  }

  private async seed(uow: UnitOfWork, now: number): Promise<string[]> {
    const ids: string[] = [];
    for (const closer of SEED_CLOSERS) {
      const applied = await this.apply(uow, initialState(), { type: 'EnrolCloser', ...closer }, now);
      ids.push(...applied.state.closers.keys());
    }
    return ids;
  }

  /**
   * D-19: moves the demo clock forward (whole milliseconds, rounded half-up) and runs the
   * platform timers at once. Answers the demo time the move reached.
   */
  async advanceClock(hours: number, options?: WriteOptions): Promise<Result<number>> {
    // From the decimal the caller wrote: hours × HOUR_MS in binary floating point would make an
    // exact half (0.00000875 h = 31.5 ms) 31.499999999999996 and round it down.
    const deltaMs = multiplyHalfUp(HOUR_MS, hours);
    let offsetMs: number | undefined;
    const moved = await this.unit(async (uow) => {
      offsetMs = await uow.advanceClockOffsetMs(deltaMs);
      return this.clock.now() + offsetMs;
    }, options);
    // Not when the answer was a replay: the offset it read may have moved on since.
    if (moved.ok && offsetMs !== undefined) this.platform.learn(offsetMs);
    await this.runTimers();
    return moved;
  }

  /** D-16, D-17: fires every timer due now (src/service/timers.ts). Returns how many fired. */
  async runTimers(): Promise<number> {
    const started = performance.now();
    try {
      const fired = await runTimers(this.timerHost);
      this.telemetry.timersRan((performance.now() - started) / 1000, fired);
      return fired;
    } catch (error) {
      this.telemetry.timersRan((performance.now() - started) / 1000, 'failed');
      throw error;
    }
  }

  /** What the platform timers need of the service: each timer fires in its own unit of work. */
  private readonly timerHost: TimerHost = {
    machineNow: () => this.clock.now(),
    // Read again on every run: should a notice of another instance's move have been lost, the
    // timers still see it within one interval.
    platformNow: () => this.platform.refresh(),
    // Both purges in one unit of work, sent together (one round trip and a COMMIT on a database).
    forget: async (answersBefore, eventsBefore) => {
      await this.store.transaction((uow) =>
        Promise.all([uow.purgeAnswers(answersBefore), uow.purgeEvents(eventsBefore)]),
      );
    },
    eventRetentionMs: () => (this.config.eventRetentionHours ?? 72) * HOUR_MS,
    // One statement each: no transaction around them (a timers' run with nothing due is its reads).
    dueGigs: (now, limit) =>
      this.store.read(async (reader) => (await reader.dueGigs(now, limit)).map((g) => g.id), { oneStatement: true }),
    dueDeals: (now, limit) =>
      this.store.read(async (reader) => (await reader.dueDeals(now, limit)).map((d) => d.id), { oneStatement: true }),
    fireGig: async (gigId, now) => {
      const result = await this.unit(async (uow) => {
        const gig = await uow.getGig(gigId);
        const command: PipelineCommand | undefined =
          gig?.status === 'claimed'
            ? { type: 'ExpireClaim', gigId, platform: true }
            : gig?.status === 'open'
              ? { type: 'LapseGig', gigId }
              : undefined;
        if (!command) return;
        const { state, dealId } = await this.loadGig(uow, gigId);
        await this.apply(uow, state, command, notBeforeLatest(state.deals.get(dealId), now));
      });
      return result.ok;
    },
    fireStall: async (dealId, now) => {
      const result = await this.unit(async (uow) => {
        const state = await this.loadDeal(uow, dealId);
        await this.apply(uow, state, { type: 'StallDeal', dealId }, notBeforeLatest(state.deals.get(dealId), now));
      });
      return result.ok;
    },
  };
}
