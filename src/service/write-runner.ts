// How a write runs: one unit of work (keyed, dry or plain), its commands decided at the platform's
// time behind the unit's locks (D-19) and stored with their events, and the listeners told when
// it commits. The writes themselves are pipeline-service.ts's; the reads are queries.ts's.
import type { PipelineCommand } from '../domain/commands.ts';
import type { Deal } from '../domain/records.ts';
import type { PipelineState } from '../domain/state.ts';
import type { Store, UnitOfWork } from '../store/store.ts';
import { NO_TELEMETRY, type Telemetry } from '../telemetry.ts';
import { type DryRun, runDry } from './dry-run.ts';
import type { KeyedRequest, RenderedAnswer } from './idempotency.ts';
import { loadDeal, loadGig } from './load.ts';
import type { DryRunOutcome } from './outcomes.ts';
import { type Clock, PlatformClock } from './platform-clock.ts';
import { PipelineQueries } from './queries.ts';
import { decideStep, persist, type StepSettings } from './step.ts';
import { type KeyedOutcome, keyedWrite, ok, type Result, runKeyed, runUnit, type WriteOptions } from './unit.ts';

export interface ServiceConfig {
  claimTtlHours: number;
  /** D-41: how long (real time) the feed keeps an event; 72 hours unless set. */
  eventRetentionHours?: number;
  /** D-42: webhooks may point at loopback and private addresses (local development, tests). */
  webhookAllowPrivate?: boolean;
  /** Where the gate's decisions and the timers' runs are reported (GET /metrics); none unless set. */
  telemetry?: Telemetry;
}

export const HOUR_MS = 60 * 60 * 1000;

/** When the deal was last acted on (0 for none): no decision on it may be timed earlier (D-19). */
const latestActivityAt = (deal: Deal | undefined) => deal?.activity[deal.activity.length - 1]?.at ?? 0;

/**
 * A timer's time on a deal: the run's, unless the deal was acted on later meanwhile (by a
 * request, or by another instance whose clock had moved on), then that later time (D-19). A
 * stall measured from the later act is then not due, and is refused as such.
 */
export const notBeforeLatest = (deal: Deal | undefined, now: number) => Math.max(now, latestActivityAt(deal));

export class WriteRunner extends PipelineQueries {
  /** Called after every unit of work that committed (the feed may have grown). */
  private readonly commitListeners = new Set<() => void>();

  /** The platform's time: the machine clock and the demo clock's offset, kept (platform-clock.ts). */
  protected readonly platform: PlatformClock;
  private readonly stopWatchingClock: () => void;
  protected readonly telemetry: Telemetry;
  /** What each decision is made with (step.ts). */
  protected readonly step: StepSettings;

  constructor(
    store: Store,
    protected readonly clock: Clock,
    protected readonly config: ServiceConfig,
  ) {
    super(store);
    this.telemetry = config.telemetry ?? NO_TELEMETRY;
    this.step = { claimTtlMs: config.claimTtlHours * HOUR_MS, telemetry: this.telemetry };
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
  protected async unit<T>(work: (uow: UnitOfWork) => Promise<T>, options?: WriteOptions): Promise<Result<T>> {
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

  /** One command decided on the loaded state and stored with its events (step.ts). */
  protected async apply(uow: UnitOfWork, state: PipelineState, command: PipelineCommand, now: number) {
    const step = await decideStep(uow, state, command, now, this.step);
    await persist(uow, state, step.state, step.events, now, this.clock.now());
    return step;
  }

  /** loadDeal, and the time behind its locks: what a command on a deal is decided with. */
  protected async loadDealNow(uow: UnitOfWork, dealId: string) {
    const state = await loadDeal(uow, dealId);
    return { state, now: await this.nowFor(uow, state.deals.get(dealId)) };
  }

  /** loadGig, and the time behind its locks. */
  protected async loadGigNow(uow: UnitOfWork, gigId: string, closerId: string | undefined, lockClosers: boolean) {
    const { state, dealId } = await loadGig(uow, gigId, closerId, lockClosers);
    return { state, now: await this.nowFor(uow, state.deals.get(dealId)) };
  }
}
