// What every command on the pipeline is decided with, inside its unit of work: the records it
// may touch (load.ts), the platform's time read behind their locks and never before the deal's
// latest activity (D-19), the caller's If-Match (D-47), and the step that decides and writes
// (step.ts). Deal, gig and platform commands all go through here.
import { type ActorRef, type Caller, seesDeal, seesGig } from '../domain/access.ts';
import type { PipelineCommand } from '../domain/commands.ts';
import type { Deal, Gig } from '../domain/records.ts';
import { refuse } from '../domain/refusal.ts';
import type { PipelineState } from '../domain/state.ts';
import type { IfMatch } from '../domain/version.ts';
import type { UnitOfWork } from '../store/store.ts';
import { loadDeal, loadGig } from './load.ts';
import type { Clock, PlatformClock } from './platform-clock.ts';
import { RefusedError } from './result.ts';
import { decideEach, expectVersion, type MoveGuard, type StepSettings } from './step.ts';

export const HOUR_MS = 60 * 60 * 1000;

/** When the deal was last acted on (0 for none): no decision on it may be timed earlier (D-19). */
const latestActivityAt = (deal: Deal | undefined) => deal?.activity[deal.activity.length - 1]?.at ?? 0;

/**
 * A timer's time on a deal: the run's, unless the deal was acted on later meanwhile (by a
 * request, or by another instance whose clock had moved on), then that later time (D-19). A
 * stall measured from the later act is then not due, and is refused as such.
 */
export const notBeforeLatest = (deal: Deal | undefined, now: number) => Math.max(now, latestActivityAt(deal));

export class Steps {
  constructor(
    /** The platform's time: the machine clock and the demo clock's offset (platform-clock.ts). */
    readonly platform: PlatformClock,
    /** Machine time, which the feed's retention counts. */
    private readonly clock: Clock,
    private readonly settings: StepSettings,
  ) {}

  /** The platform's time, for a command on no existing deal. */
  now(uow: UnitOfWork): Promise<number> {
    return this.platform.now(uow);
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

  /**
   * A deal with its gigs and closers, held to the caller's If-Match, and the time behind its
   * locks. A deal the caller may not see is unknown to it (D-54), checked before its version.
   */
  async onDeal(uow: UnitOfWork, dealId: string, ifMatch?: IfMatch, caller?: Caller) {
    const state = await loadDeal(uow, dealId);
    if (caller !== undefined && !seesDeal(caller, state.deals.get(dealId) as Deal, [...state.gigs.values()]))
      throw new RefusedError(refuse.noDeal(dealId));
    expectVersion(state, dealId, ifMatch);
    return { state, now: await this.nowFor(uow, state.deals.get(dealId)) };
  }

  /**
   * A gig and its deal's state (loadGig), held to the caller's If-Match, and the time behind
   * its locks. A gig the caller may not see is unknown to it (D-54).
   */
  async onGig(
    uow: UnitOfWork,
    gigId: string,
    closerId: string | undefined,
    lockClosers: boolean,
    ifMatch?: IfMatch,
    caller?: Caller,
  ) {
    const { state, dealId } = await loadGig(uow, gigId, closerId, lockClosers);
    if (caller !== undefined && !seesGig(caller, state.gigs.get(gigId) as Gig))
      throw new RefusedError(refuse.noGig(gigId));
    expectVersion(state, dealId, ifMatch);
    return { state, now: await this.nowFor(uow, state.deals.get(dealId)) };
  }

  /** One command decided on the loaded state and stored with its events; `actor` as D-56. */
  apply(uow: UnitOfWork, state: PipelineState, command: PipelineCommand, now: number, actor?: ActorRef) {
    return this.applyEach(uow, state, now, (_state, first) => (first ? command : undefined), actor);
  }

  /**
   * Commands decided one after the other, each on the state the one before left (`next` says
   * the next, or undefined to stop; it stops at an escalation too), then stored once with all
   * their events. A sell is a create and the agent's advances; every other write is one command.
   */
  async applyEach(
    uow: UnitOfWork,
    state: PipelineState,
    now: number,
    next: (state: PipelineState, first: boolean) => PipelineCommand | undefined,
    actor?: ActorRef,
  ) {
    const decided = await decideEach(uow, state, now, this.settings, next, actor);
    await decided.persist(this.clock.now());
    return decided;
  }

  /**
   * D-69: commands decided as applyEach decides them, each accepted move weighed by `guard`
   * (the proposing key's policy) before it counts, and not stored: the caller stores what was
   * decided (`persist`) once it knows what a stopped move becomes (held, or refused).
   */
  weighEach<S>(
    uow: UnitOfWork,
    state: PipelineState,
    now: number,
    next: (state: PipelineState, first: boolean) => PipelineCommand | undefined,
    actor: ActorRef | undefined,
    guard: MoveGuard<S>,
  ) {
    return decideEach(uow, state, now, this.settings, next, actor, guard);
  }

  /** Machine time, which the feed's retention counts (what a write is recorded at). */
  recordedAt(): number {
    return this.clock.now();
  }
}
