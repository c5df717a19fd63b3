// What a decision is (events, or a refusal) and what every part of the rulebook shares to make
// one: finding the deal or gig a command names, the activity entries it writes, and the events
// of a committed move (an agent's advance and a closer's gig move alike).
import type { PipelineEvent } from './events.ts';
import { formatUsd } from './money.ts';
import type { Actorship, Deal, Gig } from './records.ts';
import { isActiveGig } from './records.ts';
import { isRefusal, type Refusal, refuse } from './refusal.ts';
import { isTerminal, type Role, STAGES, type Stage } from './stages.ts';
import type { PipelineState } from './state.ts';

export type Decision =
  | {
      ok: true;
      events: PipelineEvent[];
      /** Set when the answer is the escalation shape (D-11): the role and its active gig. */
      escalation?: { role: Role; gigId: string };
    }
  | { ok: false; refusal: Refusal };

export const accept = (events: PipelineEvent[], escalation?: { role: Role; gigId: string }): Decision =>
  escalation ? { ok: true, events, escalation } : { ok: true, events };
export const reject = (refusal: Refusal): Decision => ({ ok: false, refusal });

// ── lookups ────────────────────────────────────────────────────────────────────────────────

export function withDeal(state: PipelineState, dealId: string, then: (deal: Deal) => Decision): Decision {
  const deal = state.deals.get(dealId);
  return deal ? then(deal) : reject(refuse.noDeal(dealId));
}

/** D-7: any move, signal or advance on a terminal deal is 409. */
export function withLiveDeal(state: PipelineState, dealId: string, then: (deal: Deal) => Decision): Decision {
  return withDeal(state, dealId, (deal) => (isTerminal(deal.stage) ? reject(refuse.terminal(deal)) : then(deal)));
}

export function findGig(state: PipelineState, gigId: string): Gig | Refusal {
  return state.gigs.get(gigId) ?? refuse.noGig(gigId);
}

export function checkCloser(state: PipelineState, closerId: string | undefined): Refusal | undefined {
  if (closerId === undefined || state.closers.has(closerId)) return undefined;
  return refuse.noCloser(closerId);
}

/** D-14, D-15: gig moves need a claimed gig, proposed by its claimant if a closerId is named. */
export function withClaimedGig(
  state: PipelineState,
  gigId: string,
  closerId: string | undefined,
  then: (gig: Gig, deal: Deal) => Decision,
): Decision {
  const gig = findGig(state, gigId);
  if (isRefusal(gig)) return reject(gig);
  const unknownCloser = checkCloser(state, closerId);
  if (unknownCloser) return reject(unknownCloser);
  if (gig.status !== 'claimed') {
    return reject(refuse.conflict('GIG_NOT_CLAIMED', `Gig ${gig.id} is ${gig.status}, not claimed.`));
  }
  if (closerId !== undefined && closerId !== gig.closerId) {
    return reject(refuse.conflict('NOT_CLAIMANT', `Gig ${gig.id} is claimed by ${gig.closerId}, not ${closerId}.`));
  }
  return withLiveDeal(state, gig.dealId, (deal) => then(gig, deal));
}

// ── activity ───────────────────────────────────────────────────────────────────────────────

/**
 * D-272: what an entry is about besides its deal. Ids go here, never into a note's words: a gig
 * posted in the same unit of work is still called by its provisional id, and only fields are
 * given the real one (numbering.ts).
 */
export interface About {
  gigId?: string;
  closerId?: string;
}

export function entry(
  deal: Deal,
  by: Actorship,
  note: string,
  at: number,
  acted: boolean,
  stage = deal.stage,
  about?: About,
): PipelineEvent {
  if (about === undefined) return { type: 'ActivityRecorded', dealId: deal.id, entry: { at, by, stage, note }, acted };
  const written: { at: number; by: Actorship; stage: Deal['stage']; note: string; gigId?: string; closerId?: string } =
    { at, by, stage, note };
  if (about.gigId !== undefined) written.gigId = about.gigId;
  if (about.closerId !== undefined) written.closerId = about.closerId;
  return { type: 'ActivityRecorded', dealId: deal.id, entry: written, acted };
}

/**
 * A note with the caller's words after it. Joined, not concatenated: a `+` or a template makes a
 * rope of pieces that the deal keeps as long as it lives (docs/performance.md: what a sell keeps);
 * a join makes one flat string.
 */
export function withNote(text: string, note: string | undefined): string {
  return note ? [text, ': ', note].join('') : text;
}

type Mover = 'agent' | 'human';

/**
 * The words of every plain advance, made once: each (from, to, by) has one string that every
 * entry shares, where one made per move would be a new string that the deal keeps (a sell
 * advances five times).
 */
const ADVANCED = (() => {
  const table = {} as Record<Stage, Record<Stage, Record<Mover, string>>>;
  for (const from of STAGES) {
    table[from] = {} as Record<Stage, Record<Mover, string>>;
    for (const to of STAGES)
      table[from][to] = {
        agent: `Advanced ${from} to ${to} by the agent`,
        human: `Advanced ${from} to ${to} by the human`,
      };
  }
  return table;
})();

/** The deal's active (open or claimed) gig, if it has one. */
export function activeGigOf(state: PipelineState, dealId: string): Gig | undefined {
  for (const gig of state.gigs.values()) if (gig.dealId === dealId && isActiveGig(gig)) return gig;
  return undefined;
}

/** The events of a committed move: the stage change and its activity entry (`about`: a closer's gig). */
export function moveEvents(
  deal: Deal,
  to: Deal['stage'],
  valueCents: number | undefined,
  by: Mover,
  note: string | undefined,
  at: number,
  about?: About,
): PipelineEvent[] {
  const closing = to === 'closed_won' || to === 'closed_lost';
  const text =
    to === 'closed_won'
      ? ['Closed won at ', formatUsd(valueCents ?? 0), ' by the ', by].join('')
      : ADVANCED[deal.stage][to][by];
  // Optional fields assigned, not spread in: this runs for every move of every sell.
  const moved: Extract<PipelineEvent, { type: 'DealMoved' }> = { type: 'DealMoved', dealId: deal.id, to };
  if (to === 'closed_won') moved.finalValueCents = valueCents;
  if (closing) moved.closedBy = by;
  return [moved, entry(deal, by, withNote(text, note), at, true, to, about)];
}
