// The application service: for each request, one unit of work that loads what the decision
// needs, asks the pure decider, and stores what it decided. No HTTP here, no rules either.
// This file holds the writes, by surface; how a unit of work runs is write-runner.ts, the reads
// are queries.ts, what a command is decided on is load.ts, and a decision with its writes step.ts.
import type { PipelineCommand, ProposalInput } from '../domain/commands.ts';
import { MAY_FULFIL } from '../domain/decide.ts';
import { multiplyHalfUp } from '../domain/decimal.ts';
import type { PipelineEvent } from '../domain/events.ts';
import type { Closer, Deal, Gig } from '../domain/records.ts';
import type { Role } from '../domain/stages.ts';
import { initialState } from '../domain/state.ts';
import type { Store, UnitOfWork } from '../store/store.ts';
import { escalationOf, MATCH_LIMIT, rankedWithLedgers, withLedger } from './closers.ts';
import { loadDeal, loadGig } from './load.ts';
import type { AdvanceOutcome, CloserWithLedger, DealInput, GigOutcome, Ranked } from './outcomes.ts';
import type { Clock } from './platform-clock.ts';
import { decideStep, expectVersion, persist } from './step.ts';
import { runTimers, type TimerHost } from './timers.ts';
import { ok, type Result, type WriteOptions } from './unit.ts';
import { WebhookService } from './webhook-service.ts';
import { HOUR_MS, notBeforeLatest, type ServiceConfig, WriteRunner } from './write-runner.ts';

export type { Clock } from './platform-clock.ts';
export type { KeyedOutcome, Result, WriteOptions } from './unit.ts';
export type { ServiceConfig } from './write-runner.ts';

export const SEED_CLOSERS = [
  { name: 'Ada Brightwater (fictional)', industries: ['saas', 'fintech'] },
  { name: 'Milo Fenwick (fictional)', industries: ['healthcare', 'logistics'] },
] as const;

const MAX_SELL_STEPS = 10;

/** The writes: each one unit of work (write-runner.ts), over the reads of queries.ts. */
export class PipelineService extends WriteRunner {
  /** Subscriptions to the events (D-42); their deliveries are the worker's. */
  readonly webhooks: WebhookService;

  constructor(store: Store, clock: Clock, config: ServiceConfig) {
    super(store, clock, config);
    this.webhooks = new WebhookService(store, clock, config.webhookAllowPrivate === true, (work, options) =>
      this.unit(work, options),
    );
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
      const created = await decideStep(uow, initialState(), { type: 'CreateDeal', ...input }, now, this.step);
      let state = created.state;
      const events = [...created.events];
      const dealId = [...state.deals.keys()][0] as string;
      let escalation: { role: Role; gigId: string } | undefined;
      for (let step = 0; step < MAX_SELL_STEPS && !escalation; step++) {
        const deal = state.deals.get(dealId) as Deal;
        if (deal.stage === 'closed_won' || deal.stage === 'closed_lost') break;
        const advanced = await decideStep(uow, state, { type: 'AdvanceDeal', dealId, proposal: {} }, now, this.step);
        state = advanced.state;
        events.push(...advanced.events);
        escalation = advanced.escalation;
      }
      await persist(uow, initialState(), state, events, now, this.clock.now());
      if (escalation) {
        const { role, gigId } = escalation;
        return { kind: 'escalation', escalation: await escalationOf(uow, state, dealId, role, gigId) } as const;
      }
      return { kind: 'deal', deal: state.deals.get(dealId) as Deal } as const;
    }, options);
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
          escalation: await escalationOf(uow, advanced.state, dealId, role, gigId),
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

  /**
   * D-25: the first `limit` of the ranking. valueUsd and role are part of the request but do not
   * change the ranking. A read; a keyed one runs as a unit of work so that its answer is stored.
   */
  async match(industry: string, limit = MATCH_LIMIT, options?: WriteOptions): Promise<Result<Ranked>> {
    if (options?.keyed) return this.unit((uow) => rankedWithLedgers(uow, industry, limit), options);
    return ok(await this.store.read((reader) => rankedWithLedgers(reader, industry, limit)));
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
        outcome.closer = await withLedger(uow, applied.state.closers.get(gig.closerId) as Closer);
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

  clearGoneDark(gigId: string, input: { closerId?: string; note?: string }, options?: WriteOptions) {
    return this.gigCommand(gigId, input.closerId, { type: 'ClearGoneDark', gigId, ...input }, options);
  }

  releaseGig(gigId: string, closerId?: string, options?: WriteOptions) {
    return this.gigCommand(gigId, closerId, { type: 'ReleaseGig', gigId, closerId }, options);
  }

  reopenGig(gigId: string, options?: WriteOptions) {
    return this.gigCommand(gigId, undefined, { type: 'ReopenGig', gigId, platform: false }, options);
  }

  // ── platform ─────────────────────────────────────────────────────────────────────────────

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
            ? { type: 'ReopenGig', gigId, platform: true }
            : gig?.status === 'open'
              ? { type: 'ExpireGig', gigId }
              : undefined;
        if (!command) return;
        const { state, dealId } = await loadGig(uow, gigId);
        await this.apply(uow, state, command, notBeforeLatest(state.deals.get(dealId), now));
      });
      return result.ok;
    },
    fireStall: async (dealId, now) => {
      const result = await this.unit(async (uow) => {
        const state = await loadDeal(uow, dealId);
        await this.apply(uow, state, { type: 'StallDeal', dealId }, notBeforeLatest(state.deals.get(dealId), now));
      });
      return result.ok;
    },
  };
}
