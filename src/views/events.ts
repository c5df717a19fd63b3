// Public events (D-40) → the JSON of the feed, the stream, the webhooks and the MCP tool: the
// domain's cents and epoch milliseconds become USD and ISO 8601, records their API views.
import type { DealChange } from '../domain/deal-changes.ts';
import { centsToUsd } from '../domain/money.ts';
import type { EventFilter, StoredEvent } from '../store/store.ts';
import { approvalView } from './approvals.ts';
import { payoutView, refundView } from './ledger.ts';
import { proposalView } from './proposals.ts';
import { actorView, closerView, dealView, gigView, iso } from './records.ts';

export function eventData(event: StoredEvent['event']): Record<string, unknown> {
  switch (event.type) {
    case 'deal.created':
      return { deal: dealView(event.data.deal) };
    case 'deal.closed': {
      const { finalValueCents, ...rest } = event.data;
      return finalValueCents === undefined ? rest : { ...rest, finalValueUsd: centsToUsd(finalValueCents) };
    }
    case 'deal.updated':
      return { dealId: event.data.dealId, changes: changesView(event.data.changes) };
    case 'gig.posted':
      return { gig: gigView(event.data.gig) };
    case 'payout.posted': {
      const { line } = event.data;
      return {
        closerId: line.closerId,
        gigId: line.gigId,
        dealId: line.dealId,
        kind: line.kind,
        amountUsd: centsToUsd(line.amountCents),
      };
    }
    case 'deal.refunded':
      return {
        dealId: event.data.dealId,
        refund: refundView(event.data.refund),
        refundedUsd: centsToUsd(event.data.refundedCents),
      };
    case 'payout.paid':
      return { payout: payoutView(event.data.payout) };
    case 'closer.enrolled':
      return { closer: closerView({ closer: event.data.closer, payouts: [] }) };
    case 'proposal.refused':
      return proposalView(event.data);
    case 'approval.requested':
    case 'approval.approved':
    case 'approval.denied':
    case 'approval.expired':
    case 'approval.superseded':
      return approvalView(event.data);
    default:
      return event.data;
  }
}

/** D-67: each change under the API's name for its field, money in USD. */
export function changesView(changes: readonly DealChange[]): Record<string, { from: unknown; to: unknown }> {
  const view: Record<string, { from: unknown; to: unknown }> = {};
  for (const change of changes) {
    if (change.field === 'listValue') view.listValueUsd = { from: centsToUsd(change.from), to: centsToUsd(change.to) };
    else view[change.field] = { from: change.from, to: change.to };
  }
  return view;
}

export function eventView({ seq, event }: StoredEvent) {
  const view: {
    id: string;
    seq: number;
    type: string;
    at: string;
    data: Record<string, unknown>;
    actor?: ReturnType<typeof actorView>;
  } = { id: `evt_${seq}`, seq, type: event.type, at: iso(event.at), data: eventData(event) };
  // D-56 (keys mode): added, not spread, so that the demo's events are made as before.
  const { actor } = event;
  if (actor !== undefined) view.actor = actorView(actor);
  return view;
}

export type EventView = ReturnType<typeof eventView>;

/**
 * A page of the feed as GET /events and the list_events tool answer it: `{events, nextAfter,
 * lastSeq}`. `lastSeq` is read first: a reader that reads the records after this page and then
 * follows the stream from `lastSeq` misses no change (everything at or below it came before).
 *
 * `nextAfter` (D-76, D-255): a full page ends at its last event. A page that is not full holds
 * every event the reader may see up to `lastSeq`, so it moves on to `lastSeq` (or past its last
 * event, or stays at `after` if that is further): a reader that sees none of the newest events
 * (another tenant's) starts its next page after them, not before them again. No event at or
 * below `lastSeq` can enter the feed after `lastSeq` was read: in memory the log's last seq is
 * its last event's; on PostgreSQL the sequencer gives seqs and moves `last_seq` in one
 * statement, under the feed row's lock, and the page is read after, in a later snapshot (D-166).
 */
export async function eventPage(
  read: (filter: EventFilter) => Promise<StoredEvent[]>,
  query: { after?: number; limit?: number; type?: EventFilter['type']; dealId?: string },
  newest: () => Promise<number>,
): Promise<{ events: EventView[]; nextAfter: number; lastSeq: number }> {
  const { after = 0, limit = 100, type, dealId } = query;
  const lastSeq = await newest();
  const events = await read({ after, limit, type, dealId });
  const last = events.at(-1)?.seq ?? 0;
  return {
    events: events.map(eventView),
    nextAfter: events.length >= limit ? last : Math.max(after, lastSeq, last),
    lastSeq: Math.max(lastSeq, last),
  };
}
