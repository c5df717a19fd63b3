// The event lists the domain tests expect again and again, written once: a move and its activity
// entry, an escalation's posted gig, what going dark does, a claim, a release, a claim expired, a
// lapse. A test still states every value it is about (the stage, the role, the price, the time,
// the ids); a builder writes them as the decider does, with the words of each note here once, so
// that a change of those words is made in one place. The gig and the closer an entry is about are
// fields, never words (D-272).
import type { PipelineEvent } from '../../src/domain/events.ts';
import type { ActivityEntry, Deal, GigPricing } from '../../src/domain/records.ts';
import type { Role, Stage } from '../../src/domain/stages.ts';
import { DAY, HOUR, T0 } from '../support/given-when-then.ts';

/** A closer's gig and the closer on it: what an entry about a claimed gig names. */
export interface OnGig {
  gigId: string;
  closerId: string;
}

/** Who moved a deal: the agent, or a human closer on its claimed gig. */
export type Mover = 'agent' | OnGig;

export interface EntryOptions {
  /** Default T0. */
  at?: number;
  /** Whether the entry is an act (restarts the stall clock, D-17); the platform's are not. Default true. */
  acted?: boolean;
  gigId?: string;
  closerId?: string;
}

/** One activity entry of the deal. */
export function entry(
  dealId: string,
  by: ActivityEntry['by'],
  stage: Stage,
  note: string,
  { at = T0, acted = true, gigId, closerId }: EntryOptions = {},
): PipelineEvent {
  const written: {
    at: number;
    by: ActivityEntry['by'];
    stage: Stage;
    note: string;
    gigId?: string;
    closerId?: string;
  } = { at, by, stage, note };
  if (gigId !== undefined) written.gigId = gigId;
  if (closerId !== undefined) written.closerId = closerId;
  return { type: 'ActivityRecorded', dealId, entry: written, acted };
}

const byWhom = (mover: Mover) => (mover === 'agent' ? 'agent' : 'human');
const about = (mover: Mover) => (mover === 'agent' ? {} : { gigId: mover.gigId, closerId: mover.closerId });

/**
 * A deal moved from one stage to the next, or closed lost, by the agent or by a closer on its gig
 * (D-9, D-14); `note` is the proposal's, kept after the move's words.
 */
export function moved(
  dealId: string,
  from: Stage,
  to: Stage,
  mover: Mover = 'agent',
  { at = T0, note }: { at?: number; note?: string } = {},
): PipelineEvent[] {
  const by = byWhom(mover);
  const words = `Advanced ${from} to ${to} by the ${by}${note ? `: ${note}` : ''}`;
  return [
    { type: 'DealMoved', dealId, to, ...(to === 'closed_lost' ? { closedBy: by } : {}) },
    entry(dealId, by, to, words, { at, ...about(mover) }),
  ];
}

/** A deal closed won at `valueCents`, its note writing the value as `usd` says (`$80,000.00`). */
export function closedWon(
  dealId: string,
  valueCents: number,
  usd: string,
  mover: Mover = 'agent',
  { at = T0 }: { at?: number } = {},
): PipelineEvent[] {
  const by = byWhom(mover);
  return [
    { type: 'DealMoved', dealId, to: 'closed_won', finalValueCents: valueCents, closedBy: by },
    entry(dealId, by, 'closed_won', `Closed won at ${usd} by the ${by}`, { at, ...about(mover) }),
  ];
}

export interface Posting {
  gigId: string;
  role: Role;
  /** The stage the deal is at, and so the brief's. */
  stage: Stage;
  pricing: GigPricing;
  /** Whether the escalation puts the deal on the human track: a HumanTrackSet first (D-11). */
  setsTrack: boolean;
  /** The brief's signals; default none. */
  signals?: string[];
  /** The brief's values; default the World's deal: 100,000 USD, floor 80%. */
  listValueCents?: number;
  floorCents?: number;
  /** Default T0. */
  at?: number;
  /** When the open gig lapses; default 14 days after `at`. */
  timerDueAt?: number;
}

/**
 * An escalation (D-11, D-35): the gig posted open with a brief of the deal as it was before (its
 * account and activity), and the service's entry naming the role. The decision's escalation
 * shape is the test's to state beside it.
 */
export function escalated(deal: Pick<Deal, 'id' | 'account' | 'activity'>, posting: Posting): PipelineEvent[] {
  const { gigId, role, stage, pricing, at = T0 } = posting;
  return [
    ...(posting.setsTrack ? [{ type: 'HumanTrackSet' as const, dealId: deal.id, humanTrack: true }] : []),
    {
      type: 'GigPosted',
      gig: {
        id: gigId,
        status: 'open',
        dealId: deal.id,
        role,
        brief: {
          account: deal.account,
          listValueCents: posting.listValueCents ?? 10_000_000,
          stage,
          signals: posting.signals ?? [],
          floorCents: posting.floorCents ?? 8_000_000,
          activity: deal.activity,
        },
        pricing,
        postedAt: at,
        openedAt: at,
        timerDueAt: posting.timerDueAt ?? at + 14 * DAY,
      },
    },
    entry(deal.id, 'service', stage, `The ${role} role needs a human: a gig posted to the closer marketplace.`, {
      at,
      gigId,
    }),
  ];
}

/** A Seller's report of signals (D-13): the ones new to the deal, and the service's entry (an act). */
export function signalsReported(
  dealId: string,
  stage: Stage,
  signals: string[],
  { at = T0 }: { at?: number } = {},
): PipelineEvent[] {
  return [
    { type: 'SignalsAdded', dealId, signals },
    entry(dealId, 'service', stage, `Signals reported: ${signals.join(', ')}.`, { at }),
  ];
}

/** The platform's stall (D-17): gone_dark added for a deal quiet for `days`, in an entry that is no act. */
export function stallReported(
  dealId: string,
  stage: Stage,
  { at, days = 14 }: { at: number; days?: number },
): PipelineEvent[] {
  return [
    { type: 'SignalsAdded', dealId, signals: ['gone_dark'] },
    entry(dealId, 'service', stage, `No activity for ${days} days: the platform reported gone_dark.`, {
      at,
      acted: false,
    }),
  ];
}

/**
 * What a new gone_dark does after its report (D-13, D-17): the deal's active gig released, or the
 * deal put on the human track when it was not; then the stall's entry. The platform's (a stall)
 * are no acts.
 */
export function wentDark(
  dealId: string,
  stage: Stage,
  {
    at = T0,
    acted = true,
    released,
    setsTrack = false,
  }: { at?: number; acted?: boolean; released?: { gigId: string; role: Role }; setsTrack?: boolean } = {},
): PipelineEvent[] {
  return [
    ...(setsTrack ? [{ type: 'HumanTrackSet' as const, dealId, humanTrack: true }] : []),
    ...(released === undefined
      ? []
      : [
          { type: 'GigReleased' as const, gigId: released.gigId, at },
          entry(dealId, 'service', stage, `The ${released.role} gig was released: the deal went dark.`, {
            at,
            acted,
            gigId: released.gigId,
          }),
        ]),
    entry(
      dealId,
      'service',
      stage,
      'Deal stalled: human track, nurturer role; it returns to matching under the nurturer.',
      {
        at,
        acted,
      },
    ),
  ];
}

/** A gig claimed (D-14): its claim timer runs `claimTtl` (default 72 hours), and the service's entry. */
export function gigClaimed(
  dealId: string,
  stage: Stage,
  { gigId, closerId }: OnGig,
  { at = T0, role = 'closer', dueAt = at + 72 * HOUR }: { at?: number; role?: Role; dueAt?: number } = {},
): PipelineEvent[] {
  return [
    { type: 'GigClaimed', gigId, closerId, at, dueAt },
    entry(dealId, 'service', stage, `The ${role} gig was claimed.`, { at, gigId, closerId }),
  ];
}

/** A gig released by its claimant or withdrawn (D-14): the deal returns to matching. */
export function gigReleased(
  dealId: string,
  stage: Stage,
  gigId: string,
  { at = T0, role = 'closer' }: { at?: number; role?: Role } = {},
): PipelineEvent[] {
  return [
    { type: 'GigReleased', gigId, at },
    entry(dealId, 'service', stage, `The ${role} gig was released; the deal returns to matching.`, { at, gigId }),
  ];
}

/**
 * A claim expired, by the platform's timer or by hand (D-16): the same gig open again, to lapse
 * `dueAt` (default 14 days on) if no one claims it, in an entry that is no act.
 */
export function claimExpired(
  dealId: string,
  stage: Stage,
  { gigId, closerId }: OnGig,
  { at = T0, dueAt = at + 14 * DAY, role = 'closer' }: { at?: number; dueAt?: number; role?: Role } = {},
): PipelineEvent[] {
  return [
    { type: 'GigReopened', gigId, at, dueAt },
    entry(dealId, 'service', stage, `The claim on the ${role} gig expired; the gig is open again.`, {
      at,
      acted: false,
      gigId,
      closerId,
    }),
  ];
}
