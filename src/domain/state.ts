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
export function withStallDue(deal: Deal): Deal {
  const off = isTerminal(deal.stage) || deal.signals.includes(GONE_DARK);
  const stallDueAt = off ? undefined : deal.lastActedAt + deal.mandate.stallTimeoutDays * DAY_MS;
  if (stallDueAt === deal.stallDueAt) return deal;
  const { stallDueAt: _old, ...rest } = deal;
  return stallDueAt === undefined ? rest : { ...rest, stallDueAt };
}

export function daysToMs(days: number): number {
  return days * DAY_MS;
}

function put<V>(map: ReadonlyMap<string, V>, key: string, value: V): ReadonlyMap<string, V> {
  const next = new Map(map);
  next.set(key, value);
  return next;
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

export function evolve(state: PipelineState, event: PipelineEvent): PipelineState {
  const updateDeal = (id: string, change: (deal: Deal) => Deal): PipelineState => ({
    ...state,
    deals: put(state.deals, id, withStallDue(change(must(state.deals, id, 'deal')))),
  });
  const updateGig = (id: string, change: (gig: Gig) => Gig): PipelineState => ({
    ...state,
    gigs: put(state.gigs, id, change(must(state.gigs, id, 'gig'))),
  });

  switch (event.type) {
    case 'DealCreated':
      return { ...state, deals: put(state.deals, event.deal.id, withStallDue(event.deal)) };
    case 'DealMoved':
      return updateDeal(event.dealId, (deal) => ({
        ...deal,
        stage: event.to,
        ...(event.finalValueCents !== undefined ? { finalValueCents: event.finalValueCents } : {}),
        ...(event.closedBy !== undefined ? { closedBy: event.closedBy } : {}),
      }));
    case 'ActivityRecorded':
      return updateDeal(event.dealId, (deal) => ({
        ...deal,
        activity: [...deal.activity, event.entry],
        lastActedAt: event.acted ? event.entry.at : deal.lastActedAt,
      }));
    case 'SignalsAdded':
      return updateDeal(event.dealId, (deal) => ({
        ...deal,
        signals: [...deal.signals, ...event.signals.filter((s) => !deal.signals.includes(s))],
      }));
    case 'SignalsCleared':
      return updateDeal(event.dealId, (deal) => ({
        ...deal,
        signals: deal.signals.filter((s) => !event.signals.includes(s)),
      }));
    case 'HumanTrackSet':
      return updateDeal(event.dealId, (deal) => ({ ...deal, humanTrack: event.humanTrack }));
    case 'GigPosted':
      return { ...state, gigs: put(state.gigs, event.gig.id, event.gig) };
    case 'GigClaimed':
      return updateGig(event.gigId, (gig) => ({
        ...gig,
        status: 'claimed',
        closerId: event.closerId,
        claimedAt: event.at,
        lastMoveAt: event.at,
        timerDueAt: event.dueAt,
      }));
    case 'GigMoved':
      return updateGig(event.gigId, (gig) => ({ ...gig, lastMoveAt: event.at, timerDueAt: event.dueAt }));
    case 'GigReopened':
      return updateGig(event.gigId, (gig) => ({
        ...omit(gig, 'closerId', 'claimedAt', 'lastMoveAt'),
        status: 'open',
        openedAt: event.at,
        timerDueAt: event.dueAt,
      }));
    case 'GigReleased':
      return updateGig(event.gigId, (gig) => ({ ...omit(gig, 'timerDueAt'), status: 'released', endedAt: event.at }));
    case 'GigLapsed':
      return updateGig(event.gigId, (gig) => ({ ...omit(gig, 'timerDueAt'), status: 'expired', endedAt: event.at }));
    case 'GigFulfilled': {
      const gig = must(state.gigs, event.gigId, 'gig');
      const closerId = gig.closerId ?? '';
      const closer = must(state.closers, closerId, 'closer');
      const won = event.outcome === 'closed_won';
      const record = {
        gigs: closer.record.gigs + 1,
        wins: closer.record.wins + (won ? 1 : 0),
        grossClosedCents: closer.record.grossClosedCents + (won ? (event.finalValueCents ?? 0) : 0),
      };
      return {
        ...state,
        gigs: put(state.gigs, gig.id, {
          ...omit(gig, 'timerDueAt'),
          status: 'fulfilled',
          outcome: event.outcome,
          ...(event.finalValueCents !== undefined ? { finalValueCents: event.finalValueCents } : {}),
          endedAt: event.at,
        }),
        closers: put(state.closers, closerId, { ...closer, record }),
      };
    }
    case 'PayoutPosted':
      return { ...state, payouts: [...state.payouts, event.line] };
    case 'CloserEnrolled':
      return { ...state, closers: put(state.closers, event.closer.id, event.closer) };
  }
}

export function evolveAll(state: PipelineState, events: readonly PipelineEvent[]): PipelineState {
  return events.reduce(evolve, state);
}
