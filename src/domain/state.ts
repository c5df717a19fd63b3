// The part of the world one decision looks at, and evolve(): the only way records change.
import { edited } from './deal-changes.ts';
import type { PipelineEvent } from './events.ts';
import type { Closer, Deal, Gig, PayoutLine } from './records.ts';
import { GONE_DARK, isTerminal } from './stages.ts';

export interface PipelineState {
  readonly deals: ReadonlyMap<string, Deal>;
  readonly gigs: ReadonlyMap<string, Gig>;
  readonly closers: ReadonlyMap<string, Closer>;
  readonly payouts: readonly PayoutLine[];
}

export const initialState = (): PipelineState => ({
  deals: new Map(),
  gigs: new Map(),
  closers: new Map(),
  payouts: [],
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** D-17: the stall timer runs from the last act; it is off for terminal or already-dark deals. */
function stallDueOf(deal: Deal): number | undefined {
  const off = isTerminal(deal.stage) || deal.signals.includes(GONE_DARK);
  return off ? undefined : deal.lastActedAt + deal.mandate.stallTimeoutDays * DAY_MS;
}

export function daysToMs(days: number): number {
  return days * DAY_MS;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/**
 * A deal this evolve copied: changed in place by the later events of the same evolve. Its lists
 * are shared with the deal it copies until an event changes one, which then gets a new list of
 * exactly its length: a list copied with the deal and pushed to would keep a dozen empty slots
 * for as long as the deal lives, and the store keeps every deal (docs/performance.md: what an
 * in-memory sell keeps).
 */
type DealDraft = Mutable<Deal>;

/**
 * The maps of the state being built. Each is copied from the given state on its first write
 * (a create touches only deals); each deal is copied once, on the first event that changes it,
 * and later events of the same evolve change that private copy, so a decision that moves a deal
 * and records its activity copies the deal once, not once per event.
 */
class Draft {
  private dealMap?: Map<string, Deal>;
  private gigMap?: Map<string, Gig>;
  private closerMap?: Map<string, Closer>;
  private payoutList?: PayoutLine[];
  /** Usually one deal: a list searched by id costs less than a map made for each decision. */
  private readonly owned: DealDraft[] = [];

  constructor(private readonly base: PipelineState) {}

  get deals(): Map<string, Deal> {
    this.dealMap ??= new Map(this.base.deals);
    return this.dealMap;
  }
  get gigs(): Map<string, Gig> {
    this.gigMap ??= new Map(this.base.gigs);
    return this.gigMap;
  }
  get closers(): Map<string, Closer> {
    this.closerMap ??= new Map(this.base.closers);
    return this.closerMap;
  }
  get payouts(): PayoutLine[] {
    this.payoutList ??= [...this.base.payouts];
    return this.payoutList;
  }

  /** The private copy of a deal. */
  deal(id: string): DealDraft {
    for (const mine of this.owned) if (mine.id === id) return mine;
    const copy = copyDeal(must(this.deals, id, 'deal'));
    this.owned.push(copy);
    this.deals.set(id, copy as Deal);
    return copy;
  }

  /** The state: each deal this evolve changed gets its stall time (D-17) once. */
  finish(): PipelineState {
    for (const deal of this.owned) {
      const due = stallDueOf(deal as Deal);
      if (due !== undefined) deal.stallDueAt = due;
    }
    return {
      deals: this.dealMap ?? this.base.deals,
      gigs: this.gigMap ?? this.base.gigs,
      closers: this.closerMap ?? this.base.closers,
      payouts: this.payoutList ?? this.base.payouts,
    };
  }
}

/**
 * A deal's fields in one order, optional ones only when set: few object shapes, so reading a
 * deal stays fast (a spread of deals of many shapes is a slow, generic copy). The stall time is
 * left out: the evolve sets it when it ends.
 */
function copyDeal(deal: Deal): DealDraft {
  const copy: DealDraft = {
    id: deal.id,
    version: deal.version,
    account: deal.account,
    listValueCents: deal.listValueCents,
    stage: deal.stage,
    signals: deal.signals,
    mandate: deal.mandate,
    activity: deal.activity,
    lastActedAt: deal.lastActedAt,
  };
  if (deal.humanTrack !== undefined) copy.humanTrack = deal.humanTrack;
  if (deal.finalValueCents !== undefined) copy.finalValueCents = deal.finalValueCents;
  if (deal.closedBy !== undefined) copy.closedBy = deal.closedBy;
  if (deal.lineage !== undefined) copy.lineage = deal.lineage;
  if (deal.sellerId !== undefined) copy.sellerId = deal.sellerId;
  return copy;
}

function must<V>(map: ReadonlyMap<string, V>, key: string, what: string): V {
  const value = map.get(key);
  if (value === undefined) throw new Error(`evolve: ${what} ${key} is not in the state`);
  return value;
}

function omit<T extends object, K extends keyof T>(record: T, ...keys: K[]): Omit<T, K> {
  const copy = { ...record };
  for (const key of keys) delete copy[key];
  return copy;
}

function updateGig(draft: Draft, id: string, change: (gig: Gig) => Gig): void {
  draft.gigs.set(id, change(must(draft.gigs, id, 'gig')));
}

/** Applies one event to a draft: new record objects, in maps private to this evolve. */
function apply(draft: Draft, event: PipelineEvent) {
  switch (event.type) {
    case 'DealCreated': {
      draft.deals.set(event.deal.id, event.deal);
      draft.deal(event.deal.id); // owned from here: its stall time is set when the evolve ends
      return;
    }
    case 'DealMoved': {
      const deal = draft.deal(event.dealId);
      deal.stage = event.to;
      if (event.finalValueCents !== undefined) deal.finalValueCents = event.finalValueCents;
      if (event.closedBy !== undefined) deal.closedBy = event.closedBy;
      return;
    }
    case 'ActivityRecorded': {
      const deal = draft.deal(event.dealId);
      deal.activity = deal.activity.concat(event.entry);
      if (event.acted) deal.lastActedAt = event.entry.at;
      return;
    }
    case 'SignalsAdded': {
      const deal = draft.deal(event.dealId);
      const added = event.signals.filter((s) => !deal.signals.includes(s));
      if (added.length > 0) deal.signals = deal.signals.concat(added);
      return;
    }
    case 'SignalsCleared': {
      const deal = draft.deal(event.dealId);
      deal.signals = deal.signals.filter((s) => !event.signals.includes(s));
      return;
    }
    case 'HumanTrackSet':
      draft.deal(event.dealId).humanTrack = event.humanTrack;
      return;
    case 'DealEdited': {
      const deal = draft.deal(event.dealId);
      const after = edited(deal, event.changes);
      deal.account = after.account;
      deal.listValueCents = after.listValueCents;
      return;
    }
    case 'DealVersioned':
      draft.deal(event.dealId).version = event.version;
      return;
    case 'GigPosted':
      draft.gigs.set(event.gig.id, event.gig);
      return;
    case 'GigClaimed':
      return updateGig(draft, event.gigId, (gig) => ({
        ...gig,
        status: 'claimed',
        closerId: event.closerId,
        claimedAt: event.at,
        firstClaimedAt: gig.firstClaimedAt ?? event.at,
        lastMoveAt: event.at,
        timerDueAt: event.dueAt,
      }));
    case 'GigMoved':
      return updateGig(draft, event.gigId, (gig) => ({ ...gig, lastMoveAt: event.at, timerDueAt: event.dueAt }));
    case 'GigReopened':
      return updateGig(draft, event.gigId, (gig) => ({
        ...omit(gig, 'closerId', 'claimedAt', 'lastMoveAt'),
        status: 'open',
        openedAt: event.at,
        timerDueAt: event.dueAt,
      }));
    case 'GigReleased':
      return updateGig(draft, event.gigId, (gig) => ({
        ...omit(gig, 'timerDueAt'),
        status: 'released',
        endedAt: event.at,
      }));
    case 'GigExpired':
      return updateGig(draft, event.gigId, (gig) => ({
        ...omit(gig, 'timerDueAt'),
        status: 'expired',
        endedAt: event.at,
      }));
    case 'GigFulfilled': {
      const gig = must(draft.gigs, event.gigId, 'gig');
      const closerId = gig.closerId ?? '';
      const closer = must(draft.closers, closerId, 'closer');
      const won = event.outcome === 'closed_won';
      const record = {
        gigs: closer.record.gigs + 1,
        wins: closer.record.wins + (won ? 1 : 0),
        grossClosedCents: closer.record.grossClosedCents + BigInt(won ? (event.finalValueCents ?? 0) : 0),
      };
      draft.gigs.set(gig.id, {
        ...omit(gig, 'timerDueAt'),
        status: 'fulfilled',
        outcome: event.outcome,
        ...(event.finalValueCents !== undefined ? { finalValueCents: event.finalValueCents } : {}),
        endedAt: event.at,
      });
      draft.closers.set(closerId, { ...closer, record });
      return;
    }
    case 'PayoutPosted':
      draft.payouts.push(event.line);
      return;
    case 'CloserEnrolled':
      draft.closers.set(event.closer.id, event.closer);
      return;
  }
}

/** The state after the events. The given state and its records are left as they were. */
export function evolveAll(state: PipelineState, events: readonly PipelineEvent[]): PipelineState {
  const draft = new Draft(state);
  for (const event of events) apply(draft, event);
  return draft.finish();
}

export function evolve(state: PipelineState, event: PipelineEvent): PipelineState {
  return evolveAll(state, [event]);
}
