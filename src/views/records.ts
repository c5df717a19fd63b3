// Records → the JSON the API answers: cents become USD, epoch milliseconds become ISO 8601,
// optional fields appear only when they mean something (D-34, D-35, D-36).
import { mandateView } from '../domain/mandate.ts';
import { centsToUsd } from '../domain/money.ts';
import type { Account, ActivityEntry, ActorRef, Approver, Deal, Gig, PayoutLine } from '../domain/records.ts';
import type { Settlement } from '../domain/settlement.ts';
import type { CloserWithLedger, Escalation, GigOutcome } from '../service/outcomes.ts';
import { usdOfBigCents } from './exact-json.ts';

// The last two answers are kept: a deal's entries often share an instant, and an answer that
// shows a gig and its deal alternates between two (when the gig was posted, and now).
let lastMs = Number.NaN;
let lastIso = '';
let otherMs = Number.NaN;
let otherIso = '';
/** Epoch ms → ISO 8601. */
export function iso(ms: number): string {
  if (ms === lastMs) return lastIso;
  if (ms === otherMs) {
    otherMs = lastMs;
    const found = otherIso;
    otherIso = lastIso;
    lastMs = ms;
    lastIso = found;
    return found;
  }
  otherMs = lastMs;
  otherIso = lastIso;
  lastMs = ms;
  lastIso = new Date(ms).toISOString();
  return lastIso;
}

const accountView = (account: Account) => ({
  name: account.name,
  ...(account.industry !== undefined ? { industry: account.industry } : {}),
  actor: account.actor,
});

interface EntryView {
  at: string;
  by: string;
  stage: string;
  note: string;
  gigId?: string;
  closerId?: string;
}

/** D-272: an entry about a gig (and its closer) names them in fields, after its words. */
function aboutView(entry: ActivityEntry): EntryView {
  const view: EntryView = { at: iso(entry.at), by: entry.by, stage: entry.stage, note: entry.note };
  if (entry.gigId !== undefined) view.gigId = entry.gigId;
  if (entry.closerId !== undefined) view.closerId = entry.closerId;
  return view;
}

/** A gig's brief is shown to every closer: its activity without who made it (D-54: no Seller's id leaks). */
const briefActivityView = (entry: ActivityEntry): EntryView =>
  entry.gigId === undefined && entry.closerId === undefined
    ? { at: iso(entry.at), by: entry.by, stage: entry.stage, note: entry.note }
    : aboutView(entry);

/** D-56, D-65: who did it, as every answer shows it: the principal and its key, or its person by name. */
export function actorView(
  actor: ActorRef,
):
  | { principal: string; keyId: string; approvedBy?: ApproverView[] }
  | { principal: string; userId: string; name: string } {
  if (actor.userId !== undefined) return { principal: actor.principal, userId: actor.userId, name: actor.name ?? '' };
  if (actor.approvedBy !== undefined)
    return { principal: actor.principal, keyId: actor.keyId ?? '', approvedBy: actor.approvedBy.map(approverView) };
  return { principal: actor.principal, keyId: actor.keyId ?? '' };
}

export interface ApproverView {
  userId?: string;
  keyId?: string;
  name: string;
}

/** D-70: who approved, a person or a key, by name. */
export function approverView(by: Approver): ApproverView {
  return by.userId !== undefined ? { userId: by.userId, name: by.name } : { keyId: by.keyId ?? '', name: by.name };
}

// With its actor (D-56, keys mode) or without, each a literal of its own: no spread, no property
// added later, for the several entries a deal answers (an entry about a gig, one of a few, aside).
const activityView = (entry: ActivityEntry) => {
  const { actor } = entry;
  if (actor === undefined) return briefActivityView(entry);
  if (entry.gigId !== undefined || entry.closerId !== undefined)
    return { ...aboutView(entry), actor: actorView(actor) };
  return {
    at: iso(entry.at),
    by: entry.by,
    stage: entry.stage,
    note: entry.note,
    actor: actorView(actor),
  };
};

export function dealView(deal: Deal) {
  return {
    id: deal.id,
    version: deal.version,
    account: accountView(deal.account),
    listValueUsd: centsToUsd(deal.listValueCents),
    stage: deal.stage,
    signals: [...deal.signals],
    mandate: mandateView(deal.mandate),
    activity: deal.activity.map(activityView),
    ...(deal.humanTrack !== undefined ? { humanTrack: deal.humanTrack } : {}),
    ...(deal.finalValueCents !== undefined ? { finalValueUsd: centsToUsd(deal.finalValueCents) } : {}),
    ...(deal.closedBy !== undefined ? { closedBy: deal.closedBy } : {}),
    ...(deal.lineage !== undefined ? { lineage: { revivedFrom: deal.lineage.revivedFrom } } : {}),
    // Keys mode (D-51); last, as the other fields that only some deals have.
    ...(deal.sellerId !== undefined ? { sellerId: deal.sellerId } : {}),
  };
}

export function gigView(gig: Gig) {
  const { brief, pricing } = gig;
  return {
    id: gig.id,
    status: gig.status,
    dealId: gig.dealId,
    role: gig.role,
    brief: {
      account: accountView(brief.account),
      listValueUsd: centsToUsd(brief.listValueCents),
      stage: brief.stage,
      signals: [...brief.signals],
      floorUsd: centsToUsd(brief.floorCents),
      activity: brief.activity.map(briefActivityView),
    },
    pricing:
      pricing.kind === 'commission'
        ? { kind: pricing.kind, pct: pricing.pct }
        : { kind: pricing.kind, amountUsd: centsToUsd(pricing.amountCents) },
    ...(gig.closerId !== undefined ? { closerId: gig.closerId } : {}),
    postedAt: iso(gig.postedAt),
    ...(gig.claimedAt !== undefined ? { claimedAt: iso(gig.claimedAt) } : {}),
    ...(gig.outcome !== undefined ? { outcome: gig.outcome } : {}),
    ...(gig.finalValueCents !== undefined ? { finalValueUsd: centsToUsd(gig.finalValueCents) } : {}),
  };
}

const payoutView = (line: PayoutLine) => ({
  at: iso(line.at),
  gigId: line.gigId,
  dealId: line.dealId,
  kind: line.kind,
  amountUsd: centsToUsd(line.amountCents),
});

export function closerView({ closer, payouts }: CloserWithLedger) {
  return {
    id: closer.id,
    name: closer.name,
    industries: [...closer.industries],
    record: {
      gigs: closer.record.gigs,
      wins: closer.record.wins,
      grossClosedUsd: usdOfBigCents(closer.record.grossClosedCents),
    },
    ...(payouts !== undefined ? { payouts: payouts.map(payoutView) } : {}),
  };
}

export function matchView(match: Escalation['suggestedClosers'][number]) {
  return { closer: closerView(match.closer), score: match.score, winRate: match.winRate };
}

export function escalationView(escalation: Escalation) {
  return {
    escalated: true as const,
    role: escalation.role,
    gig: gigView(escalation.gig),
    suggestedClosers: escalation.suggestedClosers.map(matchView),
    deal: dealView(escalation.deal),
  };
}

export function gigOutcomeView(outcome: GigOutcome) {
  return {
    gig: gigView(outcome.gig),
    deal: dealView(outcome.deal),
    ...(outcome.closer ? { closer: closerView(outcome.closer) } : {}),
  };
}

export function settlementView(s: Settlement) {
  return {
    dealId: s.dealId,
    finalValueUsd: centsToUsd(s.finalValueCents),
    closedBy: s.closedBy,
    closerCommissionUsd: centsToUsd(s.closerCommissionCents),
    platformFeeUsd: centsToUsd(s.platformFeeCents),
    feesSettledUsd: centsToUsd(s.feesSettledCents),
    netToSellerUsd: centsToUsd(s.netToSellerCents),
    fees: s.fees.map((fee) => ({
      gigId: fee.gigId,
      role: fee.role,
      closerId: fee.closerId,
      amountUsd: centsToUsd(fee.amountCents),
    })),
    ...(s.refundedCents !== undefined ? { refundedUsd: centsToUsd(s.refundedCents) } : {}),
  };
}

const DEAL_JSON_CACHE_SIZE = 10_000;
const dealJsonCache = new Map<string, { deal: Deal; json: string }>();

/**
 * The deal's JSON, reused while the record is the same object: records are immutable, so a
 * changed deal is a new object and misses. Bounded: the oldest entry goes past 10,000.
 */
export function dealJson(deal: Deal): string {
  const hit = dealJsonCache.get(deal.id);
  if (hit?.deal === deal) return hit.json;
  const json = JSON.stringify(dealView(deal));
  if (hit) dealJsonCache.delete(deal.id);
  else if (dealJsonCache.size >= DEAL_JSON_CACHE_SIZE)
    dealJsonCache.delete(dealJsonCache.keys().next().value as string);
  dealJsonCache.set(deal.id, { deal, json });
  return json;
}
