// The records the service keeps. Money is in integer cents, time in epoch milliseconds;
// the HTTP layer turns them into USD and ISO 8601 text. Records are never mutated in place:
// evolve() returns new objects, so a store may hand out references safely.
import type { Cents } from './money.ts';
import type { Role, Stage } from './stages.ts';

export const ACTORS = ['B2B', 'B2C', 'B2D', 'B2A'] as const;
export type Actor = (typeof ACTORS)[number];

export interface Account {
  readonly name: string;
  readonly industry?: string;
  readonly actor: Actor;
}

export type StaffingRule =
  | 'agent'
  | 'human'
  | { readonly humanIf: { readonly minDealSizeCents?: Cents; readonly signals?: readonly string[] } };

export interface Mandate {
  readonly staffing: Readonly<Record<Role, StaffingRule>>;
  readonly commissionPct: number;
  readonly maxCommissionPct: number;
  readonly floorPct: number;
  readonly fees: { readonly setterCents: Cents; readonly nurturerCents: Cents };
  readonly stallTimeoutDays: number;
}

export type Actorship = 'service' | 'agent' | 'human';

/**
 * D-56, D-65: who did it (keys mode), as entries and events carry it: the principal and the key of
 * the request, or the principal and the person (its id and name) whose console session made it.
 */
export interface ActorRef {
  readonly principal: string;
  /** The key of the request (a key's, or a console session signed in with a key). */
  readonly keyId?: string;
  /** The person (D-65), with the name it had when it acted. */
  readonly userId?: string;
  readonly name?: string;
  /** D-70: a held proposal that committed names who approved it. */
  readonly approvedBy?: readonly Approver[];
}

/** D-70: who approved a held proposal: a person (userId) or a key (keyId), by its name then. */
export interface Approver {
  readonly userId?: string;
  readonly keyId?: string;
  readonly name: string;
}

export interface ActivityEntry {
  readonly at: number;
  readonly by: Actorship;
  readonly stage: Stage;
  /** In words: it names no id (D-272); the records it is about are in the fields below. */
  readonly note: string;
  /** D-272: the gig the entry is about, when it is about one. */
  readonly gigId?: string;
  /** D-272: the closer the entry is about (a claim, a closer's move, a revival, a claim expired). */
  readonly closerId?: string;
  /** D-56: the principal and key of the request that wrote it (keys mode; timers write none). */
  readonly actor?: ActorRef;
}

export interface Deal {
  readonly id: string;
  /** D-51, D-57: the Seller that owns it (keys mode); absent in the demo. */
  readonly sellerId?: string;
  /**
   * D-47: 1 when created, one more with every accepted decision that changed the deal or one of
   * its gigs (evolveAll counts them), so a client's If-Match names the state it last read.
   */
  readonly version: number;
  readonly account: Account;
  readonly listValueCents: Cents;
  readonly stage: Stage;
  readonly signals: readonly string[];
  readonly mandate: Mandate;
  readonly activity: readonly ActivityEntry[];
  readonly humanTrack?: boolean;
  readonly finalValueCents?: Cents;
  readonly closedBy?: 'agent' | 'human';
  readonly lineage?: { readonly revivedFrom: string };
  /** Last time a person, agent or Seller acted on the deal; platform timers do not count (D-17). */
  readonly lastActedAt: number;
  /** When the platform will report gone_dark (D-17); absent when terminal or already dark. */
  readonly stallDueAt?: number;
}

export const GIG_STATUSES = ['open', 'claimed', 'fulfilled', 'released', 'expired'] as const;
export type GigStatus = (typeof GIG_STATUSES)[number];

export interface Brief {
  readonly account: Account;
  readonly listValueCents: Cents;
  readonly stage: Stage;
  readonly signals: readonly string[];
  readonly floorCents: Cents;
  readonly activity: readonly ActivityEntry[];
}

export type GigPricing =
  | { readonly kind: 'commission'; readonly pct: number }
  | { readonly kind: 'fee'; readonly amountCents: Cents };

export type GigOutcome = 'closed_won' | 'closed_lost' | 'meeting' | 'revived';

export interface Gig {
  readonly id: string;
  /** D-57: the Seller that owns its deal (keys mode), kept on the gig so that a page is filtered by it. */
  readonly sellerId?: string;
  readonly status: GigStatus;
  readonly dealId: string;
  readonly role: Role;
  readonly brief: Brief;
  readonly pricing: GigPricing;
  readonly closerId?: string;
  readonly postedAt: number;
  /** When the gig last became open (posted, or reopened after an expired claim). */
  readonly openedAt: number;
  readonly claimedAt?: number;
  /** D-73: when it was first claimed; kept when a claim that expired reopens it. */
  readonly firstClaimedAt?: number;
  /** Last claim or move by the claimant; the claim timer runs from here (D-16). */
  readonly lastMoveAt?: number;
  readonly outcome?: GigOutcome;
  readonly finalValueCents?: Cents;
  readonly endedAt?: number;
  /** When a platform timer falls due: claim expiry when claimed, lapse when open (D-16). */
  readonly timerDueAt?: number;
}

export function isActiveGig(gig: Gig): boolean {
  return gig.status === 'open' || gig.status === 'claimed';
}

export interface Register {
  readonly gigs: number;
  readonly wins: number;
  /**
   * The sum of the closer's wins' final values: a sum without bound, so a bigint, exact to the
   * cent past 2^53 cents (D-24), where a number would lose cents.
   */
  readonly grossClosedCents: bigint;
}

export interface Closer {
  readonly id: string;
  readonly name: string;
  readonly industries: readonly string[];
  readonly record: Register;
  readonly enrolledAt: number;
}

/** One append-only payout ledger line; a gig pays at most once, so gigId is its key. */
export interface PayoutLine {
  readonly at: number;
  readonly closerId: string;
  readonly gigId: string;
  readonly dealId: string;
  readonly role: Role;
  readonly kind: 'commission' | 'fee';
  readonly amountCents: Cents;
}

/** D-51: a Seller, the tenant that owns deals (keys mode). */
export interface Seller {
  readonly id: string;
  readonly name: string;
  readonly createdAt: number;
}
