// Who may do what (D-51, D-53, D-54): the principals, the scopes a key may carry, and what each
// principal may see. Pure rules: the doors ask them through src/domain/authorization.ts, the
// service and the stores apply them. In the demo mode there is no caller (undefined): everything is open
// to everyone, exactly as the specification's demo.

import type { KeyPolicy } from './policy.ts';
import type { EventAudience, PublicEventType } from './public-events.ts';
import type { ActorRef, Deal, Gig } from './records.ts';
import type { UserRole } from './roles.ts';

export type { ActorRef } from './records.ts';

/** The platform: one principal, whose keys carry `admin`. */
export const OPERATOR = 'operator';

export const SELLER_SCOPES = [
  'deals:read',
  'deals:write',
  'deals:propose',
  'events:read',
  'webhooks:manage',
  'keys:manage',
  // D-62: managing the Seller's people, and deciding the proposals a key's policy holds for a person.
  'users:manage',
  'approvals:decide',
] as const;
export const CLOSER_SCOPES = [
  'gigs:read',
  'gigs:work',
  'events:read',
  'webhooks:manage',
  'keys:manage',
  'users:manage',
] as const;
export const OPERATOR_SCOPES = ['admin'] as const;

export type KeyScope =
  | (typeof SELLER_SCOPES)[number]
  | (typeof CLOSER_SCOPES)[number]
  | (typeof OPERATOR_SCOPES)[number];

export const ALL_SCOPES: readonly KeyScope[] = [...new Set([...SELLER_SCOPES, ...CLOSER_SCOPES, ...OPERATOR_SCOPES])];

export type PrincipalKind = 'operator' | 'seller' | 'closer';

/** The kind of a principal id (`operator`, `seller_NNNN`, `closer_NNNN`), undefined for anything else. */
export function kindOf(principal: string): PrincipalKind | undefined {
  if (principal === OPERATOR) return 'operator';
  if (/^seller_\d{4,}$/.test(principal)) return 'seller';
  if (/^closer_\d{4,}$/.test(principal)) return 'closer';
  return undefined;
}

/** Every scope a key of this kind of principal may carry; a key's default. */
export function scopesOf(kind: PrincipalKind): readonly KeyScope[] {
  return kind === 'operator' ? OPERATOR_SCOPES : kind === 'seller' ? SELLER_SCOPES : CLOSER_SCOPES;
}

export function isKeyScope(scope: string): scope is KeyScope {
  return (ALL_SCOPES as readonly string[]).includes(scope);
}

/**
 * A request's caller in keys mode: the principal it acts as and its scopes, and who it is: a key
 * (`keyId`), or a person (`userId`, `name`, `role`; D-62) signed in to the console.
 */
export interface Caller {
  readonly principal: string;
  readonly kind: PrincipalKind;
  /** The key of the request, or the key a console session was signed in with; absent for a person. */
  readonly keyId?: string;
  readonly scopes: ReadonlySet<KeyScope>;
  /** The console session the request came with (D-63, D-76), when it came with one and not a key. */
  readonly sessionId?: string;
  /** D-62: the person, when a person's session made the request. */
  readonly userId?: string;
  readonly name?: string;
  readonly role?: UserRole;
  /** The key's name (a key that decides an approval is named by it, D-70). */
  readonly keyName?: string;
  /** D-66: the person who made the key (who may not approve what the key proposes, D-70). */
  readonly keyCreatedBy?: string;
  /** D-68: the key's policy, the bounds its proposals are held to. */
  readonly policy?: KeyPolicy;
}

/** D-56, D-65: who did it, as records and events carry it: the key, or the person by name. */
export function actorOf(caller: Caller | undefined): ActorRef | undefined {
  if (caller === undefined) return undefined;
  if (caller.userId !== undefined) return { principal: caller.principal, userId: caller.userId, name: caller.name };
  return { principal: caller.principal, keyId: caller.keyId };
}

/** D-65: whether a person (not a key) is acting: a Seller's person is a human executor. */
export const isPerson = (caller: Caller | undefined): boolean => caller?.userId !== undefined;

/**
 * What an operation asks of its caller (declared once per operation in the table): `open` to
 * anyone, even without a key (GET /health); `key` to any valid key; otherwise any one of the
 * listed scopes. There is no default: an operation without one cannot be served.
 */
export type Access = 'open' | 'key' | readonly [KeyScope, ...KeyScope[]];

/**
 * Whether a caller's scopes allow an operation; the scope it lacks when they do not, and whether
 * a key of the caller's kind could carry it at all (an operator's key never sells).
 */
export function allows(
  access: Access,
  caller: Caller,
): { ok: true } | { ok: false; requiredScope: KeyScope; ofOwnKind: boolean } {
  if (access === 'open' || access === 'key') return { ok: true };
  for (const scope of access) if (caller.scopes.has(scope)) return { ok: true };
  // The scope named is the first one a key of the caller's kind could carry, if any.
  const own = scopesOf(caller.kind);
  const fitting = access.find((scope) => own.includes(scope));
  return { ok: false, requiredScope: fitting ?? access[0], ofOwnKind: fitting !== undefined };
}

// ── who sees what (D-54) ─────────────────────────────────────────────────────────────────────
// Anything a caller may not see is answered exactly as an unknown id.

/** Whether the caller sees every record (the demo, or the operator). */
export const seesAll = (caller: Caller | undefined): boolean => caller === undefined || caller.kind === 'operator';

/** A Seller its own deals; a closer the deals of gigs it claimed (`gigs` are the deal's). */
export function seesDeal(caller: Caller | undefined, deal: Deal, gigs: readonly Gig[]): boolean {
  if (seesAll(caller)) return true;
  const who = caller as Caller;
  if (who.kind === 'seller') return deal.sellerId === who.principal;
  return gigs.some((gig) => gig.closerId === who.principal);
}

/** A Seller the gigs of its deals; a closer every open gig (the marketplace's offer) and its own. */
export function seesGig(caller: Caller | undefined, gig: Gig): boolean {
  if (seesAll(caller)) return true;
  const who = caller as Caller;
  if (who.kind === 'seller') return gig.sellerId === who.principal;
  return gig.status === 'open' || gig.closerId === who.principal;
}

/** A closer's payouts ledger: the closer itself and the operator (absent for everyone else). */
export const seesPayoutsOf = (caller: Caller | undefined, closerId: string): boolean =>
  seesAll(caller) || caller?.principal === closerId;

/** Only the operator acts on sellers, closers' enrolment and every key; a Seller sees itself. */
export const seesSeller = (caller: Caller | undefined, sellerId: string): boolean =>
  seesAll(caller) || caller?.principal === sellerId;

/** The filters a list adds for a caller, so that a page holds only what it may see. */
export interface Visibility {
  /** Deals (and their gigs) of this Seller only. */
  sellerId?: string;
  /** Closer lists: deals with a gig of this closer; gigs open or of this closer. */
  closerId?: string;
}

export function visibilityOf(caller: Caller | undefined): Visibility {
  if (seesAll(caller)) return {};
  const who = caller as Caller;
  return who.kind === 'seller' ? { sellerId: who.principal } : { closerId: who.principal };
}

/** The filters of a principal's own (a webhook's owner: D-58); none for the platform or the operator. */
export function visibilityOfPrincipal(principal: string | undefined): Visibility {
  const kind = principal === undefined ? undefined : kindOf(principal);
  if (kind === 'seller') return { sellerId: principal };
  if (kind === 'closer') return { closerId: principal };
  return {};
}

/**
 * Events that concern every principal (D-237): the platform's reset, and a closer's enrolment
 * (every key may list the closers, D-54). They name no Seller and no closer.
 */
export const PLATFORM_EVENTS: readonly PublicEventType[] = ['demo.reset', 'closer.enrolled'];

/** The marketplace's offers: every closer sees every posting (D-58), as it sees every open gig. */
export const OFFER_EVENTS: readonly PublicEventType[] = ['gig.posted'];

/**
 * Whether a reader with this visibility sees an event (D-58), in the feed, the stream and a
 * webhook alike: a Seller the events of its deals; a closer the postings of gigs and every
 * event about itself (its claims, its gigs' fulfilments, releases and expiries, its payouts);
 * everyone the platform's own events; the operator and the demo every event.
 */
export function seesEvent(visibility: Visibility, event: EventAudience & { type: PublicEventType }): boolean {
  const { sellerId, closerId } = visibility;
  if (sellerId !== undefined) return event.sellerId === sellerId || PLATFORM_EVENTS.includes(event.type);
  if (closerId !== undefined)
    return event.closerId === closerId || OFFER_EVENTS.includes(event.type) || PLATFORM_EVENTS.includes(event.type);
  return true;
}
