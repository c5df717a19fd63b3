// The rules every state of the service must keep, written once as functions over the records:
// the crash tests and `audit` (which rebuilds the records from a live deployment's public JSON)
// check them. Each check answers the violations it finds, each naming the invariant, saying what
// is wrong and listing the ids involved; none throws. Inputs the caller cannot give (the
// settlements, the events) are optional, and their checks are then skipped.
import { commissionCents } from './gate.ts';
import { compareIds } from './ids.ts';
import { type Books, checkBooks } from './ledger/ledger-invariants.ts';
import type { Closer, Deal, Gig, PayoutLine } from './records.ts';
import { type Settlement, settle } from './settlement.ts';
import { isLegalMove, isTerminal } from './stages.ts';

export interface Violation {
  /** `ledger`: D-24's payout lines; `books`: the double-entry ledger beneath them (D-79 to D-82). */
  invariant: 'money' | 'ledger' | 'books' | 'register' | 'stages' | 'time' | 'gigs' | 'ids' | 'events';
  message: string;
  ids: string[];
}

/** What an event says, whatever its form (a stored record or the API's JSON). */
export interface EventFact {
  seq: number;
  type: string;
  dealId?: string;
  gigId?: string;
  /** deal.stage_changed: the stage moved to. */
  to?: string;
}

export interface Snapshot {
  deals: readonly Deal[];
  gigs: readonly Gig[];
  closers: readonly Closer[];
  payouts: readonly PayoutLine[];
  /** dealId → settlement as the service answers it; without it, money is checked as computed. */
  settlements?: ReadonlyMap<string, Settlement>;
  /** The feed, in the order it was read; without it the events are not checked. */
  events?: readonly EventFact[];
  /** The ledger's transfers and what they must agree with; without them the books are not checked. */
  books?: Books;
}

const v = (invariant: Violation['invariant'], message: string, ...ids: string[]): Violation => ({
  invariant,
  message,
  ids,
});

/** Money (D-23): final = commission + platform fee + fees settled + net, in cents, none negative but net. */
export function checkMoney(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  const linesOf = groupBy(s.payouts, (line) => line.dealId);
  for (const deal of s.deals) {
    if (deal.stage !== 'closed_won') continue;
    const given = s.settlements?.get(deal.id);
    const computed = settle(deal, linesOf.get(deal.id) ?? []);
    if ('code' in computed) {
      out.push(v('money', `${deal.id} is closed_won without a final value`, deal.id));
      continue;
    }
    const m = given ?? computed;
    const parts = [m.closerCommissionCents, m.platformFeeCents, m.feesSettledCents, m.netToSellerCents];
    if (!parts.every(Number.isSafeInteger) || !Number.isSafeInteger(m.finalValueCents)) {
      out.push(v('money', `${deal.id}'s settlement is not in whole cents`, deal.id));
    }
    if (m.finalValueCents !== parts.reduce((a, b) => a + b, 0)) {
      out.push(v('money', `${deal.id}: final ${m.finalValueCents} ≠ commission + platform fee + fees + net`, deal.id));
    }
    if (m.closerCommissionCents < 0 || m.platformFeeCents < 0 || m.feesSettledCents < 0) {
      out.push(v('money', `${deal.id}: a negative commission, platform fee or fee`, deal.id));
    }
    if (m.closedBy === 'agent' && m.closerCommissionCents !== 0) {
      out.push(v('money', `${deal.id} was closed by the agent but pays a commission`, deal.id));
    }
    if (
      given &&
      (given.finalValueCents !== computed.finalValueCents ||
        given.closerCommissionCents !== computed.closerCommissionCents ||
        given.feesSettledCents !== computed.feesSettledCents)
    ) {
      out.push(v('money', `${deal.id}'s settlement disagrees with its deal and ledger lines`, deal.id));
    }
  }
  return out;
}

/** The ledger (D-24): one line per paid gig, never two; each line a fulfilled gig of its closer's. */
export function checkLedger(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  const gigs = new Map(s.gigs.map((g) => [g.id, g]));
  const seen = new Set<string>();
  for (const line of s.payouts) {
    if (seen.has(line.gigId)) out.push(v('ledger', `gig ${line.gigId} is paid twice`, line.gigId, line.closerId));
    seen.add(line.gigId);
    const gig = gigs.get(line.gigId);
    if (!gig) out.push(v('ledger', `a payout names gig ${line.gigId}, which does not exist`, line.gigId));
    else if (gig.status !== 'fulfilled' || gig.closerId !== line.closerId || gig.dealId !== line.dealId) {
      out.push(
        v('ledger', `gig ${gig.id} is paid to ${line.closerId} but is ${gig.status} for ${gig.closerId}`, gig.id),
      );
    }
    if (!Number.isSafeInteger(line.amountCents) || line.amountCents <= 0) {
      out.push(v('ledger', `the payout of gig ${line.gigId} is ${line.amountCents} cents`, line.gigId));
    }
  }
  // Every fulfilled gig that earns money has its line, of exactly what it earns; one that earns
  // nothing has none.
  const lineOf = new Map(s.payouts.map((line) => [line.gigId, line]));
  for (const gig of s.gigs) {
    if (gig.status !== 'fulfilled') continue;
    const owed = earned(gig);
    const line = lineOf.get(gig.id);
    if (owed > 0 && !line) out.push(v('ledger', `gig ${gig.id} earned ${owed} cents but is unpaid`, gig.id));
    else if (line && line.amountCents !== owed) {
      out.push(v('ledger', `gig ${gig.id} earned ${owed} cents but is paid ${line.amountCents}`, gig.id));
    }
  }
  return out;
}

/**
 * What a fulfilled gig earns (D-14, D-24): a closer's commission on a close won; a setter's fee
 * for reaching meeting; a nurturer's fee for a revival or a confirmed loss. Nothing otherwise.
 */
function earned(gig: Gig): number {
  if (gig.pricing.kind === 'commission') {
    return gig.outcome === 'closed_won' ? commissionCents(gig.finalValueCents ?? 0, gig.pricing.pct) : 0;
  }
  return gig.role === 'nurturer' || gig.outcome === 'meeting' ? gig.pricing.amountCents : 0;
}

/** The Register (D-24): what a closer's fulfilled gigs imply. */
export function checkRegisters(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  const byCloser = groupBy(
    s.gigs.filter((g) => g.status === 'fulfilled' && g.closerId !== undefined),
    (g) => g.closerId as string,
  );
  for (const closer of s.closers) {
    const fulfilled = byCloser.get(closer.id) ?? [];
    const wins = fulfilled.filter((g) => g.outcome === 'closed_won');
    const gross = wins.reduce((sum, g) => sum + BigInt(g.finalValueCents ?? 0), 0n);
    const r = closer.record;
    if (r.gigs !== fulfilled.length || r.wins !== wins.length || r.grossClosedCents !== gross) {
      out.push(
        v(
          'register',
          `${closer.id}'s Register is {gigs ${r.gigs}, wins ${r.wins}, gross ${r.grossClosedCents}} but its gigs make {${fulfilled.length}, ${wins.length}, ${gross}}`,
          closer.id,
        ),
      );
    }
  }
  return out;
}

/** Stages (D-7) and time (D-19): each move legal, terminal forever, the stage its last entry's, times never back. */
export function checkStages(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  for (const deal of s.deals) {
    const entries = deal.activity;
    if (entries.length === 0) {
      out.push(v('stages', `${deal.id} has no activity`, deal.id));
      continue;
    }
    if (entries[entries.length - 1].stage !== deal.stage) {
      out.push(v('stages', `${deal.id} is ${deal.stage} but its last entry says ${entries.at(-1)?.stage}`, deal.id));
    }
    for (let i = 1; i < entries.length; i++) {
      const [from, to] = [entries[i - 1].stage, entries[i].stage];
      if (from !== to && !isLegalMove(from, to)) {
        out.push(v('stages', `${deal.id} moved ${from} → ${to}${isTerminal(from) ? ' after terminal' : ''}`, deal.id));
      }
      if (entries[i].at < entries[i - 1].at) {
        out.push(v('time', `${deal.id}'s activity goes back in time at entry ${i + 1}`, deal.id));
      }
    }
  }
  return out;
}

/** Gigs (D-14, D-15): one active gig per deal and role, a claimant for every claim, outcomes as the deal ended. */
export function checkGigs(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  const deals = new Map(s.deals.map((d) => [d.id, d]));
  const active = new Map<string, string>();
  for (const gig of s.gigs) {
    const deal = deals.get(gig.dealId);
    if (!deal) {
      out.push(v('gigs', `gig ${gig.id} names deal ${gig.dealId}, which does not exist`, gig.id));
      continue;
    }
    if (gig.status === 'open' || gig.status === 'claimed') {
      const key = `${gig.dealId} ${gig.role}`;
      const other = active.get(key);
      if (other) out.push(v('gigs', `${gig.dealId} has two active ${gig.role} gigs`, other, gig.id));
      active.set(key, gig.id);
    }
    if (gig.status === 'claimed' && gig.closerId === undefined) {
      out.push(v('gigs', `gig ${gig.id} is claimed by nobody`, gig.id));
    }
    if (gig.status === 'fulfilled' && (gig.outcome === 'closed_won' || gig.outcome === 'closed_lost')) {
      if (deal.stage !== gig.outcome) {
        out.push(v('gigs', `gig ${gig.id} ended ${gig.outcome} but ${deal.id} is ${deal.stage}`, gig.id, deal.id));
      } else if (gig.outcome === 'closed_won' && gig.finalValueCents !== deal.finalValueCents) {
        out.push(v('gigs', `gig ${gig.id} and ${deal.id} disagree on the final value`, gig.id, deal.id));
      }
    }
  }
  return out;
}

/**
 * How much earlier a record with a higher number may have been created. Creates that overlap
 * decide at their own times and take their numbers when they write (on PostgreSQL, after the
 * gate, in the unit's last statement), so of two concurrent creates the later number may carry a
 * time a few milliseconds earlier. Creation order is the causal one: a create that began after
 * another's answer has the higher number and no earlier time. A snapshot cannot tell overlapping
 * creates from causal ones, so it allows an inversion as long as one unit of work may take...
 */
export const OVERLAP_MS = 10_000;

/**
 * ...and only between records fewer than this many apart (in number order). Time alone cannot bound an
 * overlap: a move of the demo clock committed while a create is in flight dates the creates
 * decided after it hours later, and one of them may take its number first (the crash test's load
 * saw deal_0033 dated hours before deal_0032). What bounds it is how many creates can take a
 * number while one is in flight, at most the writes in flight at once; a counter that went back
 * shows against every record created since.
 */
export const OVERTAKERS = 100;

/** Ids (D-28): unique, and increasing in creation order. */
export function checkIds(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  const ordered = <T extends { id: string }>(kind: string, records: readonly T[], created: (r: T) => number) => {
    const sorted = [...records].sort((a, b) => compareIds(a.id, b.id));
    // The latest-created record among those at least OVERTAKERS numbers below the one checked.
    let latest: T | undefined;
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i].id === sorted[i - 1].id) out.push(v('ids', `two ${kind}s are ${sorted[i].id}`, sorted[i].id));
      const below = sorted[i - OVERTAKERS];
      if (below !== undefined && (latest === undefined || created(below) > created(latest))) latest = below;
      if (latest !== undefined && created(sorted[i]) < created(latest) - OVERLAP_MS) {
        out.push(v('ids', `${sorted[i].id} was created before ${latest.id}`, latest.id, sorted[i].id));
      }
    }
  };
  ordered('deal', s.deals, (d) => d.activity[0]?.at ?? 0);
  ordered('gig', s.gigs, (g) => g.postedAt);
  ordered('closer', s.closers, (c) => c.enrolledAt);
  return out;
}

/** Events (D-40, D-41): in seq order, once each, about records that exist and agree with them. */
export function checkEvents(s: Snapshot): Violation[] {
  if (!s.events) return [];
  const out: Violation[] = [];
  const deals = new Map(s.deals.map((d) => [d.id, d]));
  const gigs = new Set(s.gigs.map((g) => g.id));
  const paid = new Set(s.payouts.map((line) => line.gigId));
  const lastMove = new Map<string, string>();
  for (let i = 0; i < s.events.length; i++) {
    const event = s.events[i];
    if (i > 0 && event.seq <= s.events[i - 1].seq) {
      out.push(v('events', `event ${event.seq} follows ${s.events[i - 1].seq}`, `evt_${event.seq}`));
    }
    if (event.dealId !== undefined && !deals.has(event.dealId)) {
      out.push(v('events', `${event.type} ${event.seq} names ${event.dealId}, which does not exist`, event.dealId));
    }
    if (event.gigId !== undefined && !gigs.has(event.gigId)) {
      out.push(v('events', `${event.type} ${event.seq} names ${event.gigId}, which does not exist`, event.gigId));
    }
    if (event.type === 'payout.posted' && event.gigId !== undefined && !paid.has(event.gigId)) {
      out.push(v('events', `payout.posted ${event.seq} has no ledger line`, event.gigId));
    }
    if (event.type === 'deal.stage_changed' && event.dealId !== undefined && event.to !== undefined) {
      lastMove.set(event.dealId, event.to);
    }
  }
  for (const [dealId, to] of lastMove) {
    const deal = deals.get(dealId);
    if (deal && deal.stage !== to)
      out.push(v('events', `the feed last moved ${dealId} to ${to}; it is ${deal.stage}`, dealId));
  }
  return out;
}

/** Every invariant over the snapshot. */
export function checkInvariants(s: Snapshot): Violation[] {
  return [
    ...checkMoney(s),
    ...checkLedger(s),
    ...checkRegisters(s),
    ...checkStages(s),
    ...checkGigs(s),
    ...checkIds(s),
    ...checkEvents(s),
    // D-24's lines are the earnings the books must hold, unless the reader gave others.
    ...(s.books ? checkBooks({ lines: s.payouts, ...s.books }) : []),
  ];
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
