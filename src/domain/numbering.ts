// D-273: a unit's decided events with the real ids in place of the provisional ones (D-193),
// once the store has numbered them. Ids are only ever in id fields (no activity note names one,
// D-272), so these are renamed field by field, and nothing else is looked at: no text is
// searched, and what holds no provisional id is kept as it is, not copied.
import type { PipelineEvent } from './events.ts';
import type { ActivityEntry, Closer, Deal, Gig, PayoutLine } from './records.ts';
import type { Role } from './stages.ts';
import type { PipelineState } from './state.ts';

/** The real id of each provisional id the store numbered. */
export type Renames = ReadonlyMap<string, string>;

// Loops and functions of the module, no closure made per call: this runs for every create and
// sell.

/** The events, each with its id fields renamed (the same object when it names no provisional id). */
export function numberedEvents(events: readonly PipelineEvent[], renames: Renames): PipelineEvent[] {
  const out: PipelineEvent[] = new Array(events.length);
  for (let i = 0; i < events.length; i++) out[i] = numberedEvent(events[i], renames);
  return out;
}

/** An escalation (D-11) naming the gig it posted by its real id. */
export function numberedEscalation(escalation: { role: Role; gigId: string }, renames: Renames) {
  const gigId = renames.get(escalation.gigId);
  return gigId === undefined ? escalation : { ...escalation, gigId };
}

/**
 * The state after the unit's decisions with its records under their real ids: what evolving the
 * numbered events would give, without evolving them again (a sell's half dozen).
 */
export function numberedState(state: PipelineState, renames: Renames): PipelineState {
  const payouts = numberedList(state.payouts, renames, numberedLine);
  return {
    deals: numberedMap(state.deals, renames, numberedDeal),
    gigs: numberedMap(state.gigs, renames, numberedGig),
    closers: numberedMap(state.closers, renames, numberedCloser),
    payouts,
  };
}

/**
 * A map of records with each renamed, keyed by its real id: the same map when no record changed
 * (a sell's state holds every closer it ranked, none of which a sell renames).
 */
function numberedMap<T extends { id: string }>(
  records: ReadonlyMap<string, T>,
  renames: Renames,
  numbered: (record: T, renames: Renames) => T,
): Map<string, T> {
  let out: Map<string, T> | undefined;
  for (const record of records.values()) {
    const renamed = numbered(record, renames);
    if (renamed === record && out === undefined) continue;
    if (out === undefined) {
      // The first record that changed: the ones before it are kept as they were, in their order.
      out = new Map();
      for (const kept of records.values()) {
        if (kept === record) break;
        out.set(kept.id, kept);
      }
    }
    out.set(renamed.id, renamed);
  }
  return out ?? (records as Map<string, T>);
}

/** A list with each item renamed: the same list when none changed. */
function numberedList<T>(
  items: readonly T[],
  renames: Renames,
  numbered: (item: T, renames: Renames) => T,
): readonly T[] {
  let out: T[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = numbered(items[i], renames);
    if (item === items[i]) continue;
    out ??= [...items];
    out[i] = item;
  }
  return out ?? items;
}

/** The real id of `value` if it is a provisional id the store numbered, else `value`. */
function real(value: string, renames: Renames): string {
  return renames.get(value) ?? value;
}

function numberedEvent(event: PipelineEvent, renames: Renames): PipelineEvent {
  switch (event.type) {
    case 'DealCreated': {
      const deal = numberedDeal(event.deal, renames);
      return deal === event.deal ? event : { ...event, deal };
    }
    case 'GigPosted': {
      const gig = numberedGig(event.gig, renames);
      return gig === event.gig ? event : { ...event, gig };
    }
    case 'CloserEnrolled': {
      const closer = numberedCloser(event.closer, renames);
      return closer === event.closer ? event : { ...event, closer };
    }
    case 'PayoutPosted': {
      const line = numberedLine(event.line, renames);
      return line === event.line ? event : { ...event, line };
    }
    case 'ActivityRecorded': {
      const entry = numberedEntry(event.entry, renames);
      const dealId = real(event.dealId, renames);
      return entry === event.entry && dealId === event.dealId ? event : { ...event, dealId, entry };
    }
    case 'GigClaimed': {
      const gigId = real(event.gigId, renames);
      const closerId = real(event.closerId, renames);
      return gigId === event.gigId && closerId === event.closerId ? event : { ...event, gigId, closerId };
    }
    case 'DealMoved':
    case 'SignalsAdded':
    case 'SignalsCleared':
    case 'HumanTrackSet':
    case 'DealEdited':
    case 'DealVersioned': {
      const dealId = real(event.dealId, renames);
      return dealId === event.dealId ? event : { ...event, dealId };
    }
    case 'GigMoved':
    case 'GigReleased':
    case 'GigReopened':
    case 'GigExpired':
    case 'GigFulfilled': {
      const gigId = real(event.gigId, renames);
      return gigId === event.gigId ? event : { ...event, gigId };
    }
    default:
      return event satisfies never;
  }
}

function numberedEntry(entry: ActivityEntry, renames: Renames): ActivityEntry {
  const gigId = entry.gigId === undefined ? undefined : renames.get(entry.gigId);
  const closerId = entry.closerId === undefined ? undefined : renames.get(entry.closerId);
  if (gigId === undefined && closerId === undefined) return entry;
  return { ...entry, ...(gigId !== undefined ? { gigId } : {}), ...(closerId !== undefined ? { closerId } : {}) };
}

function numberedDeal(deal: Deal, renames: Renames): Deal {
  const id = renames.get(deal.id);
  const activity = numberedList(deal.activity, renames, numberedEntry);
  // A lineage names a deal that was lost before this unit: never a provisional id.
  if (id === undefined && activity === deal.activity) return deal;
  return { ...deal, id: id ?? deal.id, activity };
}

function numberedGig(gig: Gig, renames: Renames): Gig {
  const id = renames.get(gig.id);
  const dealId = renames.get(gig.dealId);
  const closerId = gig.closerId === undefined ? undefined : renames.get(gig.closerId);
  const activity = numberedList(gig.brief.activity, renames, numberedEntry);
  if (id === undefined && dealId === undefined && closerId === undefined && activity === gig.brief.activity) return gig;
  return {
    ...gig,
    id: id ?? gig.id,
    dealId: dealId ?? gig.dealId,
    ...(closerId !== undefined ? { closerId } : {}),
    brief: activity === gig.brief.activity ? gig.brief : { ...gig.brief, activity },
  };
}

function numberedCloser(closer: Closer, renames: Renames): Closer {
  const id = renames.get(closer.id);
  return id === undefined ? closer : { ...closer, id };
}

function numberedLine(line: PayoutLine, renames: Renames): PayoutLine {
  const gigId = renames.get(line.gigId);
  const closerId = renames.get(line.closerId);
  const dealId = renames.get(line.dealId);
  if (gigId === undefined && closerId === undefined && dealId === undefined) return line;
  return { ...line, gigId: gigId ?? line.gigId, closerId: closerId ?? line.closerId, dealId: dealId ?? line.dealId };
}
