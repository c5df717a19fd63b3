// What keys mode adds to the simulation's checks (D-51, D-54, D-56): every deal owned by a Seller
// and every gig by its deal's, no answer to a Seller or a closer holding what it may not see,
// and every activity entry and event a request wrote carrying who made it (the timers' none).
// The rules are written here again from the decisions, not taken from src/domain/access.ts, so
// that the simulation checks the service's rules rather than repeating them.
import { type ActorRef, type Caller, OFFER_EVENTS, PLATFORM_EVENTS } from '../domain/access.ts';
import type { Approval } from '../domain/approvals.ts';
import type { Violation } from '../domain/invariants.ts';
import type { PublicEventType } from '../domain/public-events.ts';
import type { Deal, Gig } from '../domain/records.ts';
import type { StoredEvent } from '../store/store.ts';

export interface SimViolation {
  invariant: Violation['invariant'] | 'tenancy' | 'actor' | 'keys' | 'proposals' | 'people' | 'approvals';
  message: string;
  ids: string[];
}

export interface Tenancy {
  deals: readonly Deal[];
  gigs: readonly Gig[];
}

const DEAL_ID = /^deal_\d{4,}$/;
const SELLER_ID = /^seller_\d{4,}$/;
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;
const isDeal = (x: Record<string, unknown>) =>
  typeof x.id === 'string' && DEAL_ID.test(x.id) && 'stage' in x && 'mandate' in x;
const isGig = (x: Record<string, unknown>) =>
  typeof x.id === 'string' && x.id.startsWith('gig_') && 'brief' in x && 'role' in x;

/** D-51: every deal has a Seller of the episode's, and every gig the Seller of its deal. */
export function checkOwners(s: Tenancy, sellers: ReadonlySet<string>): SimViolation[] {
  const out: SimViolation[] = [];
  const deals = new Map(s.deals.map((d) => [d.id, d]));
  for (const deal of s.deals) {
    if (deal.sellerId === undefined || !sellers.has(deal.sellerId))
      out.push({ invariant: 'tenancy', message: `${deal.id} has no Seller (${deal.sellerId})`, ids: [deal.id] });
  }
  for (const gig of s.gigs) {
    const owner = deals.get(gig.dealId)?.sellerId;
    if (gig.sellerId !== owner)
      out.push({
        invariant: 'tenancy',
        message: `${gig.id}'s Seller ${gig.sellerId} is not its deal ${gig.dealId}'s (${owner})`,
        ids: [gig.id, gig.dealId],
      });
  }
  return out;
}

/** Whether a deal is another tenant's for this caller (D-54); an unknown deal is not. */
export function foreignDeal(caller: Caller, dealId: string, s: Tenancy): boolean {
  const deal = s.deals.find((d) => d.id === dealId);
  if (!deal || caller.kind === 'operator') return false;
  if (caller.kind === 'seller') return deal.sellerId !== caller.principal;
  return !s.gigs.some((g) => g.dealId === dealId && g.closerId === caller.principal);
}

/** Whether a gig is another tenant's for this caller: a Seller's deal's, or open or its own for a closer. */
export function foreignGig(caller: Caller, gigId: string, s: Tenancy): boolean {
  const gig = s.gigs.find((g) => g.id === gigId);
  if (!gig || caller.kind === 'operator') return false;
  if (caller.kind === 'seller') return s.deals.find((d) => d.id === gig.dealId)?.sellerId !== caller.principal;
  return gig.status !== 'open' && gig.closerId !== caller.principal;
}

/**
 * No cross-tenant answer: everything a successful answer to a Seller names is its own (its
 * deals, their gigs, no other Seller, no closer's payouts); a closer's answer holds only deals
 * it has a gig of, gigs open or its own, its own payouts and the events about it.
 */
export function leaks(value: unknown, caller: Caller, s: Tenancy, what: string): SimViolation[] {
  if (caller.kind === 'operator') return [];
  const out: SimViolation[] = [];
  const me = caller.principal;
  const leak = (message: string, ...ids: string[]) =>
    out.push({ invariant: 'tenancy', message: `${what} answered ${me} ${message}`, ids });
  const deals = new Map(s.deals.map((d) => [d.id, d]));
  const hasGig = (dealId: string) => s.gigs.some((g) => g.dealId === dealId && g.closerId === me);
  const seen = new Set<unknown>();
  const walk = (x: unknown, key: string | undefined): void => {
    if (typeof x === 'string') {
      if (caller.kind === 'seller') {
        if (SELLER_ID.test(x) && x !== me) leak(`another Seller's id ${x} (at ${key})`, x);
        if (DEAL_ID.test(x) && deals.get(x)?.sellerId !== me) leak(`a deal not its own: ${x} (at ${key})`, x);
      }
      return;
    }
    if (!isObject(x) || seen.has(x)) return;
    seen.add(x);
    if (Array.isArray(x)) {
      for (const item of x) walk(item, key);
      return;
    }
    if (caller.kind === 'closer') {
      if (isDeal(x) && !hasGig(x.id as string)) leak(`deal ${x.id}, of which it has no gig`, x.id as string);
      if (isGig(x) && x.status !== 'open' && x.closerId !== me)
        leak(`gig ${x.id}, ${x.status} and not its own`, x.id as string);
      if ('event' in x && isObject(x.event) && 'seq' in x) {
        // D-58, D-237: its own, the postings, and the platform's (a reset, an enrolment).
        const event = x.event as { type: PublicEventType; closerId?: string };
        if (event.closerId !== me && !OFFER_EVENTS.includes(event.type) && !PLATFORM_EVENTS.includes(event.type))
          leak(`event ${x.seq} (${event.type}) about ${event.closerId ?? 'no closer'}`, String(x.seq));
      }
    }
    if ('closer' in x && 'payouts' in x && isObject(x.closer) && x.closer.id !== me)
      leak(`the payouts of ${x.closer.id}`, x.closer.id as string);
    for (const [k, item] of Object.entries(x)) walk(item, k);
  };
  walk(value, undefined);
  return out;
}

// D-65: a key's actor names the key; a person's the person, by id and name.
const sameActor = (a: ActorRef | undefined, b: ActorRef | undefined) =>
  a?.principal === b?.principal && a?.keyId === b?.keyId && a?.userId === b?.userId && a?.name === b?.name;
const named = (a: ActorRef | undefined) =>
  a === undefined ? 'none' : `${a.principal}/${a.keyId ?? `${a.userId} (${a.name})`}`;

/**
 * D-56: the activity entries and events a step wrote carry the actor of its request (`actor`),
 * none for the platform's timers (and in the demo).
 */
export function checkActors(
  before: Tenancy,
  after: Tenancy,
  events: readonly StoredEvent[],
  actor: ActorRef | undefined,
  kind: string,
): SimViolation[] {
  const out: SimViolation[] = [];
  const earlier = new Map(before.deals.map((d) => [d.id, d.activity.length]));
  for (const deal of after.deals) {
    for (const entry of deal.activity.slice(earlier.get(deal.id) ?? 0)) {
      if (!sameActor(entry.actor, actor))
        out.push({
          invariant: 'actor',
          message: `${kind} wrote an entry on ${deal.id} (${entry.note}) by ${named(entry.actor)}, not ${named(actor)}`,
          ids: [deal.id],
        });
    }
  }
  for (const { seq, event } of events) {
    if (!sameActor(event.actor, actor))
      out.push({
        invariant: 'actor',
        message: `${kind} published ${event.type} (${seq}) by ${named(event.actor)}, not ${named(actor)}`,
        ids: [String(seq)],
      });
  }
  return out;
}

/**
 * D-56 and D-70 for a decision of an approval: its approval's events (approved, denied,
 * superseded) carry the decider's actor, as every event of a request does; what the last vote
 * committed carries the proposing key's, naming who approved it (every vote's approver). A
 * refused proposal's event carries its record's actor (refusal-records.ts holds it to that).
 */
export function checkDecisionActors(
  before: Tenancy,
  after: Tenancy,
  events: readonly StoredEvent[],
  deciders: readonly ActorRef[],
  approved: Approval | undefined,
  kind: string,
): SimViolation[] {
  const out: SimViolation[] = [];
  const voters = (approved?.approvals ?? []).map((v) => v.by.keyId ?? v.by.userId).sort();
  const proposer = (a: ActorRef | undefined) =>
    approved !== undefined &&
    a?.principal === approved.actor.principal &&
    a.keyId === approved.actor.keyId &&
    a.userId === undefined &&
    same((a.approvedBy ?? []).map((by) => by.keyId ?? by.userId).sort(), voters);
  const earlier = new Map(before.deals.map((d) => [d.id, d.activity.length]));
  for (const deal of after.deals) {
    for (const entry of deal.activity.slice(earlier.get(deal.id) ?? 0)) {
      if (!proposer(entry.actor))
        out.push({
          invariant: 'actor',
          message: `${kind} wrote an entry on ${deal.id} (${entry.note}) by ${JSON.stringify(entry.actor)}, not the approved proposer's`,
          ids: [deal.id],
        });
    }
  }
  for (const { seq, event } of events) {
    if (event.type === 'proposal.refused') continue;
    const own = event.type.startsWith('approval.')
      ? deciders.some((d) => sameActor(d, event.actor))
      : proposer(event.actor);
    if (!own)
      out.push({
        invariant: 'actor',
        message: `${kind} published ${event.type} (${seq}) by ${named(event.actor)}, not ${event.type.startsWith('approval.') ? `the decider (${deciders.map(named)})` : "the approved proposer's"}`,
        ids: [String(seq)],
      });
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
