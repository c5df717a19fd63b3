// The public events of D-40, derived in one place from the decider's own events (the outbox of
// the store writes what this derives, in the unit of work of the change). Pure: the records in
// `data` are domain records (cents, epoch ms); the views render them as the API's JSON.

import type { Approval } from './approvals.ts';
import type { DealChange } from './deal-changes.ts';
import type { PipelineEvent } from './events.ts';
import type { Payout } from './ledger/payouts.ts';
import type { Refund } from './ledger/refunds.ts';
import type { RefusedProposal } from './proposals.ts';
import type { ActorRef, Closer, Deal, Gig, GigOutcome, PayoutLine } from './records.ts';
import type { Role, Stage } from './stages.ts';
import type { PipelineState } from './state.ts';

/** D-41: how long (real time) the feed keeps an event unless EVENT_RETENTION_HOURS says. */
export const DEFAULT_EVENT_RETENTION_HOURS = 72;

/**
 * Who an event concerns and who caused it, beside its data (never in the JSON of the event
 * itself): the Seller owning its deal and the closer it is about (D-57: stored with the event,
 * so that a reader sees only its own), and D-56's actor of the request that wrote it.
 */
export interface EventAudience {
  sellerId?: string;
  closerId?: string;
  actor?: ActorRef;
}

export type PublicEventDraft = EventAudience & PublicEventBody;

type PublicEventBody =
  | { type: 'deal.created'; at: number; data: { deal: Deal } }
  /** D-67: the fields an edit changed (rendered as `{<field>: {from, to}}`). */
  | { type: 'deal.updated'; at: number; data: { dealId: string; changes: readonly DealChange[] } }
  | { type: 'deal.stage_changed'; at: number; data: { dealId: string; from: Stage; to: Stage; by: Actor } }
  | { type: 'deal.escalated'; at: number; data: { dealId: string; role: Role; gigId: string } }
  | { type: 'deal.signals_reported'; at: number; data: { dealId: string; signals: readonly string[]; by: Reporter } }
  | { type: 'deal.stalled'; at: number; data: { dealId: string } }
  | { type: 'deal.deescalated'; at: number; data: { dealId: string } }
  | {
      type: 'deal.closed';
      at: number;
      data: {
        dealId: string;
        outcome: 'closed_won' | 'closed_lost';
        finalValueCents?: number;
        closedBy: 'agent' | 'human';
      };
    }
  | { type: 'deal.reengaged'; at: number; data: { dealId: string; revivedFrom: string } }
  | { type: 'gig.posted'; at: number; data: { gig: Gig } }
  | { type: 'gig.claimed'; at: number; data: { gigId: string; dealId: string; closerId: string } }
  | { type: 'gig.released' | 'gig.reopened' | 'gig.expired'; at: number; data: { gigId: string; dealId: string } }
  | {
      type: 'gig.fulfilled';
      at: number;
      data: { gigId: string; dealId: string; closerId?: string; outcome: GigOutcome };
    }
  | { type: 'payout.posted'; at: number; data: { line: PayoutLine } }
  /** D-81: a won deal refunded, in part or whole; the data is the refund with its transfers. */
  | { type: 'deal.refunded'; at: number; data: { dealId: string; refund: Refund; refundedCents: number } }
  /** D-80: a payout run paid a closer its available balance. */
  | { type: 'payout.paid'; at: number; data: { payout: Payout } }
  | { type: 'closer.enrolled'; at: number; data: { closer: Closer } }
  | { type: 'demo.reset'; at: number; data: Record<string, never> }
  /** D-61: a proposal the gate refused; its data is the record (its Seller kept apart). */
  | { type: 'proposal.refused'; at: number; data: RefusedProposal }
  /** D-69, D-70: a held proposal's approval, requested and ended; the data is the approval. */
  | {
      type: 'approval.requested' | 'approval.approved' | 'approval.denied' | 'approval.expired' | 'approval.superseded';
      at: number;
      data: Approval;
    };

export type PublicEventType = PublicEventDraft['type'];

/** Every public event type (D-40), in the order the docs list them. */
export const PUBLIC_EVENT_TYPES = [
  'deal.created',
  'deal.updated',
  'deal.stage_changed',
  'deal.escalated',
  'deal.signals_reported',
  'deal.stalled',
  'deal.deescalated',
  'deal.closed',
  'deal.reengaged',
  'gig.posted',
  'gig.claimed',
  'gig.released',
  'gig.reopened',
  'gig.expired',
  'gig.fulfilled',
  'payout.posted',
  'deal.refunded',
  'payout.paid',
  'closer.enrolled',
  'demo.reset',
  'proposal.refused',
  'approval.requested',
  'approval.approved',
  'approval.denied',
  'approval.expired',
  'approval.superseded',
] as const satisfies readonly PublicEventType[];

// Every type is listed: a type missing from PUBLIC_EVENT_TYPES fails to typecheck here.
type Unlisted = Exclude<PublicEventType, (typeof PUBLIC_EVENT_TYPES)[number]>;
const everyTypeListed: Unlisted extends never ? true : false = true;
void everyTypeListed;

/** The deal an event is about, if any (the feed's `dealId` filter). */
export function eventDealId(draft: PublicEventDraft): string | undefined {
  switch (draft.type) {
    case 'deal.created':
      return draft.data.deal.id;
    case 'gig.posted':
      return draft.data.gig.dealId;
    case 'payout.posted':
      return draft.data.line.dealId;
    case 'closer.enrolled':
    case 'demo.reset':
    case 'payout.paid':
      return undefined;
    default:
      return draft.data.dealId;
  }
}

/** Who moved a deal: the agent, a human (a closer, or a Seller's own person: D-65), or the platform's service. */
type Actor = 'agent' | 'human' | 'service';
/** Who reported signals: the Seller, or the platform (a stall). */
type Reporter = 'seller' | 'platform';

/** A gig's deal and claimant, as a decision leaves them. */
interface GigLink {
  dealId: string;
  closerId?: string;
}

/** The activity entry that follows event i for the same deal (the decider records one per change). */
function entryAfter(events: readonly PipelineEvent[], i: number, dealId: string) {
  for (let j = i + 1; j < events.length; j++) {
    const next = events[j];
    if (next.type === 'ActivityRecorded' && next.dealId === dealId) return next;
  }
  return undefined;
}

/**
 * The public events of one decision, in order: `state` is the state the decision was made on,
 * `events` what it decided, `now` the platform time of the change. A refused decision has no
 * events, so publishes nothing. One pass over the events, tracking only what an event's data
 * needs from before it (a deal's stage, a gig's deal and claimant): no second evolve.
 */
export function publicEvents(state: PipelineState, events: readonly PipelineEvent[], now: number): PublicEventDraft[] {
  const published: PublicEventDraft[] = [];
  // What this decision changed so far, over what the state says.
  const stages = new Map<string, Stage>();
  const gigs = new Map<string, GigLink>();
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    switch (event.type) {
      case 'DealCreated': {
        // The decider's record, complete with its first activity entry; never changed after.
        stages.set(event.deal.id, event.deal.stage);
        published.push({ type: 'deal.created', at: now, data: { deal: event.deal } });
        const lineage = event.deal.lineage;
        if (lineage) {
          published.push({
            type: 'deal.reengaged',
            at: now,
            data: { dealId: event.deal.id, revivedFrom: lineage.revivedFrom },
          });
        }
        continue;
      }
      case 'DealMoved': {
        const from = stages.get(event.dealId) ?? (state.deals.get(event.dealId) as Deal).stage;
        stages.set(event.dealId, event.to);
        const by = entryAfter(events, i, event.dealId)?.entry.by ?? 'service';
        published.push({ type: 'deal.stage_changed', at: now, data: { dealId: event.dealId, from, to: event.to, by } });
        if (event.to === 'closed_won' || event.to === 'closed_lost') {
          const { dealId, to: outcome, finalValueCents } = event;
          const closedBy = event.closedBy ?? (by === 'human' ? 'human' : 'agent');
          // One literal each, not a field added after: the feed keeps this object, and a field
          // added later would cost it a second one (docs/performance.md: what an in-memory sell keeps).
          const data: Extract<PublicEventDraft, { type: 'deal.closed' }>['data'] =
            finalValueCents === undefined
              ? { dealId, outcome, closedBy }
              : { dealId, outcome, closedBy, finalValueCents };
          published.push({ type: 'deal.closed', at: now, data });
        }
        continue;
      }
      case 'SignalsAdded': {
        const acted = entryAfter(events, i, event.dealId)?.acted ?? true;
        const by: Reporter = acted ? 'seller' : 'platform';
        published.push({
          type: 'deal.signals_reported',
          at: now,
          data: { dealId: event.dealId, signals: event.signals, by },
        });
        if (event.signals.includes('gone_dark')) {
          published.push({ type: 'deal.stalled', at: now, data: { dealId: event.dealId } });
        }
        continue;
      }
      case 'DealEdited':
        published.push({ type: 'deal.updated', at: now, data: { dealId: event.dealId, changes: event.changes } });
        continue;
      case 'HumanTrackSet':
        if (!event.humanTrack) published.push({ type: 'deal.deescalated', at: now, data: { dealId: event.dealId } });
        continue;
      case 'GigPosted':
        gigs.set(event.gig.id, { dealId: event.gig.dealId });
        published.push(
          {
            type: 'deal.escalated',
            at: now,
            data: { dealId: event.gig.dealId, role: event.gig.role, gigId: event.gig.id },
          },
          { type: 'gig.posted', at: now, data: { gig: event.gig } },
        );
        continue;
      case 'GigClaimed': {
        const { dealId } = gigs.get(event.gigId) ?? (state.gigs.get(event.gigId) as Gig);
        gigs.set(event.gigId, { dealId, closerId: event.closerId });
        published.push({
          type: 'gig.claimed',
          at: now,
          data: { gigId: event.gigId, dealId, closerId: event.closerId },
        });
        continue;
      }
      case 'GigReleased':
      case 'GigReopened':
      case 'GigExpired': {
        const { dealId } = gigs.get(event.gigId) ?? (state.gigs.get(event.gigId) as Gig);
        // A reopened gig has no claimant any more (evolve drops it); a released one keeps it.
        if (event.type === 'GigReopened') gigs.set(event.gigId, { dealId });
        const type =
          event.type === 'GigReleased' ? 'gig.released' : event.type === 'GigReopened' ? 'gig.reopened' : 'gig.expired';
        published.push({ type, at: now, data: { gigId: event.gigId, dealId } });
        continue;
      }
      case 'GigFulfilled': {
        const gig = gigs.get(event.gigId) ?? (state.gigs.get(event.gigId) as Gig);
        const data: Extract<PublicEventDraft, { type: 'gig.fulfilled' }>['data'] = {
          gigId: event.gigId,
          dealId: gig.dealId,
          outcome: event.outcome,
        };
        if (gig.closerId !== undefined) data.closerId = gig.closerId;
        published.push({ type: 'gig.fulfilled', at: now, data });
        continue;
      }
      case 'PayoutPosted':
        published.push({ type: 'payout.posted', at: now, data: { line: event.line } });
        continue;
      case 'CloserEnrolled':
        published.push({ type: 'closer.enrolled', at: now, data: { closer: event.closer } });
        continue;
      // Changes that are part of one published above: a deal's activity entry, a revival's
      // cleared signal (its gig.fulfilled says it), a gig's move within its claim.
      case 'ActivityRecorded':
      case 'SignalsCleared':
      case 'GigMoved':
        break;
    }
  }
  return published;
}
