// The step of every write: decide its commands on the loaded state (taking ids only once the gate
// has accepted, D-28), then write what the decisions changed and publish their events (D-40).
import type { ActorRef } from '../domain/access.ts';
import type { PipelineCommand } from '../domain/commands.ts';
import { decide } from '../domain/decide.ts';
import { type PipelineEvent, WRITES, writtenId } from '../domain/events.ts';
import { type IdKind, isProvisionalId } from '../domain/ids.ts';
import { bookedTransfers } from '../domain/ledger/transfers.ts';
import { numberedEscalation, numberedEvents, numberedState } from '../domain/numbering.ts';
import { refusedProposal } from '../domain/proposals.ts';
import { eventDealId, type PublicEventDraft, publicEvents } from '../domain/public-events.ts';
import type { ActivityEntry, Closer, Deal, Gig } from '../domain/records.ts';
import type { Refusal } from '../domain/refusal.ts';
import type { Role } from '../domain/stages.ts';
import { evolveAll, type PipelineState } from '../domain/state.ts';
import { type IfMatch, versionMismatch } from '../domain/version.ts';
import type { UnitOfWork } from '../store/store.ts';
import type { Telemetry } from '../telemetry.ts';
import { isDryRun } from './dry-run.ts';
import { provisionalIds } from './provisional-ids.ts';
import { RefusedError, RefusedProposalError } from './result.ts';

/** What a decision needs of the service's configuration. */
export interface StepSettings {
  claimTtlMs: number;
  /** Where the gate's decisions are reported. */
  telemetry: Telemetry;
}

/**
 * D-56: every activity entry a request's decision writes carries who made the request (keys
 * mode), whichever entry it is (a gig's posting that a Seller's advance caused too); the
 * platform's timers write none.
 */
function attributed(events: PipelineEvent[], actor: ActorRef | undefined): PipelineEvent[] {
  if (actor === undefined) return events;
  // The decision was made for this step just now and no one else holds its entries: each is
  // stamped where it is, not copied with its deal (copies cost keys mode's sell about 3% more
  // CPU than the demo's; docs/performance.md).
  for (const event of events) {
    if (event.type === 'ActivityRecorded') stamp(event.entry, actor);
    else if (event.type === 'DealCreated') for (const entry of event.deal.activity) stamp(entry, actor);
  }
  return events;
}

function stamp(entry: ActivityEntry, actor: ActorRef): void {
  (entry as { actor?: ActorRef }).actor = actor;
}

/** The Seller and closer each public event concerns (D-57), and its actor (D-56). */
function withAudience(drafts: PublicEventDraft[], state: PipelineState, actor: ActorRef | undefined) {
  for (const draft of drafts) {
    const dealId = eventDealId(draft);
    const sellerId = dealId === undefined ? undefined : state.deals.get(dealId)?.sellerId;
    if (sellerId !== undefined) draft.sellerId = sellerId;
    const closerId = closerOf(draft, state);
    if (closerId !== undefined) draft.closerId = closerId;
    if (actor !== undefined) draft.actor = actor;
  }
  return drafts;
}

function closerOf(draft: PublicEventDraft, state: PipelineState): string | undefined {
  switch (draft.type) {
    case 'payout.posted':
      return draft.data.line.closerId;
    case 'gig.posted':
      return undefined;
    case 'gig.claimed':
      return draft.data.closerId;
    case 'gig.fulfilled':
      return draft.data.closerId ?? state.gigs.get(draft.data.gigId)?.closerId;
    case 'gig.released':
    case 'gig.reopened':
    case 'gig.expired':
      return state.gigs.get(draft.data.gigId)?.closerId;
    default:
      return undefined;
  }
}

/** A record the unit created, by the provisional id its decision called it. */
type Created = { kind: IdKind; id: string };

/** Adds the records a decision creates to `created`, each kind once (a decision takes one id of each). */
function addCreated(events: readonly PipelineEvent[], provisional: Record<IdKind, string>, created: Created[]): void {
  for (const event of events) {
    const { kind, creates } = WRITES[event.type];
    if (!creates || kind === 'ledger') continue;
    const id = provisional[kind];
    if (!created.some((c) => c.id === id)) created.push({ kind, id });
  }
}

/** D-47: refuses (412, rolling the unit back) when the caller's If-Match names another version. */
export function expectVersion(state: PipelineState, dealId: string, ifMatch: IfMatch | undefined): void {
  if (ifMatch === undefined) return;
  const refusal = versionMismatch(state.deals.get(dealId) as Deal, ifMatch);
  if (refusal) throw new RefusedError(refusal);
}

function addOnce(ids: string[], id: string): void {
  if (!ids.includes(id)) ids.push(id);
}

/**
 * What a refused decision throws: a refused proposal of a deal that exists (D-61) is kept (the
 * runner records it); any other refusal only answers.
 */
function refusalOf(
  state: PipelineState,
  command: PipelineCommand,
  refusal: Refusal,
  now: number,
  actor: ActorRef | undefined,
): RefusedError {
  const dealId =
    command.type === 'AdvanceDeal'
      ? command.dealId
      : command.type === 'AdvanceGig' || command.type === 'ClearGoneDark'
        ? state.gigs.get(command.gigId)?.dealId
        : undefined;
  const deal = dealId === undefined ? undefined : state.deals.get(dealId);
  // A sell's own advances are on a deal not yet numbered: they are the Seller's, not a proposal.
  if (deal === undefined || isProvisionalId(deal.id)) return new RefusedError(refusal);
  const record = refusedProposal(command, refusal, deal, now, actor);
  return record ? new RefusedProposalError(refusal, record) : new RefusedError(refusal);
}

/**
 * Decides one command against the loaded state, once, calling the records it creates by
 * provisional ids (added to `created`, numbered by decideEach), and answers the state after it.
 */
function decideStep(
  uow: UnitOfWork,
  state: PipelineState,
  command: PipelineCommand,
  now: number,
  { claimTtlMs, telemetry }: StepSettings,
  actor: ActorRef | undefined,
) {
  const provisional = provisionalIds();
  const decision = decide(state, command, { now, claimTtlMs, nextIds: provisional });
  telemetry.decided(command.type, decision.ok ? undefined : decision.refusal.code, isDryRun(uow));
  if (!decision.ok) throw refusalOf(state, command, decision.refusal, now, actor);
  const events = attributed(decision.events, actor);
  return { state: evolveAll(state, events), events, escalation: decision.escalation, provisional };
}

/**
 * D-69: what weighs each move the gate accepted before it counts (the proposing key's policy).
 * A move it stops is not taken, and the decisions end there: `stopped` says which and why.
 */
export type MoveGuard<S> = (before: PipelineState, after: PipelineState, command: PipelineCommand) => S | undefined;

/**
 * Decides commands one after the other (`next` names each, given the state so far; it is asked
 * until it answers undefined or a decision escalates), and answers the state after them, their
 * events, and `persist`, which stores them all in one go.
 */
export async function decideEach<S = never>(
  uow: UnitOfWork,
  before: PipelineState,
  now: number,
  settings: StepSettings,
  next: (state: PipelineState, first: boolean) => PipelineCommand | undefined,
  actor?: ActorRef,
  guard?: MoveGuard<S>,
) {
  let state = before;
  let events: PipelineEvent[] = [];
  let escalation: { role: Role; gigId: string } | undefined;
  let stopped: S | undefined;
  const created: Created[] = [];
  for (let command = next(state, true); command && !escalation; command = next(state, false)) {
    const step = decideStep(uow, state, command, now, settings, actor);
    stopped = guard?.(state, step.state, command);
    if (stopped !== undefined) break;
    addCreated(step.events, step.provisional, created);
    state = step.state;
    events.push(...step.events);
    escalation = step.escalation;
  }
  if (created.length > 0) {
    // D-28, D-273: the store gives the new records their numbers once every decision of the unit
    // was accepted (a refused one takes none), all at once, and the events get the real ids in
    // their id fields, so that everything written and answered carries them. A dry run's store
    // numbers nothing: its records keep their provisional ids.
    const renames = await uow.numberIds(created);
    if (renames.size > 0) {
      events = numberedEvents(events, renames);
      if (escalation) escalation = numberedEscalation(escalation, renames);
      state = numberedState(state, renames);
    }
  }
  return {
    state,
    events,
    escalation,
    stopped,
    persist: (recordedAt: number) => persist(uow, before, state, events, now, recordedAt, actor),
  };
}

/**
 * Writes what a decision changed (`state` is the state after it, `before` the one it was
 * made on) and publishes its public events (D-40) in the same unit of work, recorded at
 * `recordedAt` (machine time, which retention counts; `now` is the platform's, the events' own).
 */
async function persist(
  uow: UnitOfWork,
  before: PipelineState,
  state: PipelineState,
  events: PipelineEvent[],
  now: number,
  recordedAt: number,
  actor: ActorRef | undefined,
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
  // D-79: the settlement's transfers (and a fulfilment's fee) are booked in this same unit.
  const transfers = bookedTransfers(events, state, now);
  // Appended in event order, sent together (one round trip on a database).
  await Promise.all([
    ...events.flatMap((event) => (event.type === 'PayoutPosted' ? [uow.appendPayout(event.line)] : [])),
    ...(transfers.length > 0 ? [uow.ledger.book(transfers)] : []),
    uow.publish(withAudience(publicEvents(before, events, now), state, actor), recordedAt),
  ]);
}
