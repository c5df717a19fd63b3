// The part of the world one decision looks at, and evolve(): the only way records change.
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

export function withStallDue(deal: Deal): Deal {
  const stallDueAt = stallDueOf(deal);
  if (stallDueAt === deal.stallDueAt) return deal;
  if (stallDueAt !== undefined) return { ...deal, stallDueAt };
  const { stallDueAt: _old, ...rest } = deal;
  return rest;
}

export function daysToMs(days: number): number {
  return days * DAY_MS;
}

interface Draft {
  deals: Map<string, Deal>;
  gigs: Map<string, Gig>;
  closers: Map<string, Closer>;
  payouts: PayoutLine[];
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

function updateDeal(draft: Draft, id: string, change: (deal: Deal) => Deal): void {
  draft.deals.set(id, withStallDue(change(must(draft.deals, id, 'deal'))));
}

function updateGig(draft: Draft, id: string, change: (gig: Gig) => Gig): void {
  draft.gigs.set(id, change(must(draft.gigs, id, 'gig')));
}

/** Applies one event to a draft: new record objects, in maps private to this evolve. */
function apply(draft: Draft, event: PipelineEvent) {
  switch (event.type) {
    case 'DealCreated':
      draft.deals.set(event.deal.id, withStallDue(event.deal));
      return;
    case 'DealMoved':
      return updateDeal(draft, event.dealId, (deal) => ({
        ...deal,
        stage: event.to,
        ...(event.finalValueCents !== undefined ? { finalValueCents: event.finalValueCents } : {}),
        ...(event.closedBy !== undefined ? { closedBy: event.closedBy } : {}),
      }));
    case 'ActivityRecorded':
      return updateDeal(draft, event.dealId, (deal) => ({
        ...deal,
        activity: [...deal.activity, event.entry],
        lastActedAt: event.acted ? event.entry.at : deal.lastActedAt,
      }));
    case 'SignalsAdded':
      return updateDeal(draft, event.dealId, (deal) => ({
        ...deal,
        signals: [...deal.signals, ...event.signals.filter((s) => !deal.signals.includes(s))],
      }));
    case 'SignalsCleared':
      return updateDeal(draft, event.dealId, (deal) => ({
        ...deal,
        signals: deal.signals.filter((s) => !event.signals.includes(s)),
      }));
    case 'HumanTrackSet':
      return updateDeal(draft, event.dealId, (deal) => ({ ...deal, humanTrack: event.humanTrack }));
    case 'GigPosted':
      draft.gigs.set(event.gig.id, event.gig);
      return;
    case 'GigClaimed':
      return updateGig(draft, event.gigId, (gig) => ({
        ...gig,
        status: 'claimed',
        closerId: event.closerId,
        claimedAt: event.at,
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
    case 'GigLapsed':
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
        grossClosedCents: closer.record.grossClosedCents + (won ? (event.finalValueCents ?? 0) : 0),
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

/** The state after the events. The given state is left as it was (the maps are copied once). */
export function evolveAll(state: PipelineState, events: readonly PipelineEvent[]): PipelineState {
  const draft: Draft = {
    deals: new Map(state.deals),
    gigs: new Map(state.gigs),
    closers: new Map(state.closers),
    payouts: [...state.payouts],
  };
  for (const event of events) apply(draft, event);
  return draft;
}

export function evolve(state: PipelineState, event: PipelineEvent): PipelineState {
  return evolveAll(state, [event]);
}
