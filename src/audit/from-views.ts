// The public JSON back into the core's records, so that `audit` checks a live deployment with
// the very invariants the tests and the simulation use: USD to integer cents, ISO 8601 to epoch
// milliseconds. What the API does not show (a deal's stall time, a gig's timer, the internal
// times) is left out or taken from what it does show; the invariants that need only those are
// the ones a reader of the API cannot check. An amount may come as the text of its digits, when
// it has more than a double holds (parseJsonExactly, D-205): it is read to the cent.
import type { Payout } from '../domain/ledger/payouts.ts';
import type { Refund } from '../domain/ledger/refunds.ts';
import type { Transfer } from '../domain/ledger/transfers.ts';
import { resolveMandate } from '../domain/mandate.ts';
import { usdToCents } from '../domain/money.ts';
import type { ActivityEntry, Closer, Deal, Gig, PayoutLine } from '../domain/records.ts';
import type { Settlement } from '../domain/settlement.ts';
import type { Json } from './read-deployment.ts';

const ms = (text: string) => Date.parse(text);

/** USD as the text of a decimal number → integer cents, exactly (half-up past the cent). */
function centsOfText(text: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null) throw new Error(`not an amount: ${JSON.stringify(text)}`);
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  // The digits of whole and fraction, times 10^shift, are the cents.
  const shift = Number(exponent) + 2 - fraction.length;
  let cents = BigInt(whole + fraction);
  if (shift >= 0) cents *= 10n ** BigInt(shift);
  else {
    const unit = 10n ** BigInt(-shift);
    cents = (cents + unit / 2n) / unit;
  }
  return sign === '-' ? -cents : cents;
}

/** An amount bounded by one deal: a number, or (with more digits than a double holds) its text. */
const cents = (usd: number | string) => (typeof usd === 'string' ? Number(centsOfText(usd)) : usdToCents(usd));
/** An amount without bound (a closer's gross): exact, from its text past 2^53 cents (D-205). */
const bigCents = (usd: number | string) => (typeof usd === 'string' ? centsOfText(usd) : BigInt(usdToCents(usd)));

const activity = (entries: Json[]): ActivityEntry[] =>
  entries.map((e) => ({ at: ms(e.at), by: e.by, stage: e.stage, note: e.note }));

/** The mandate view is a mandate input fully given: resolved again, it is the record. */
function mandateFromView(view: Json, actor: string): Deal['mandate'] {
  const resolved = resolveMandate(view, actor as Deal['account']['actor']);
  return ('mandate' in resolved ? resolved.mandate : view) as Deal['mandate'];
}

export function dealFromView(view: Json): Deal {
  const entries = activity(view.activity ?? []);
  return {
    id: view.id,
    version: view.version,
    account: view.account,
    listValueCents: cents(view.listValueUsd),
    stage: view.stage,
    signals: view.signals ?? [],
    mandate: mandateFromView(view.mandate, view.account?.actor),
    activity: entries,
    ...(view.humanTrack !== undefined ? { humanTrack: view.humanTrack } : {}),
    ...(view.finalValueUsd !== undefined ? { finalValueCents: cents(view.finalValueUsd) } : {}),
    ...(view.closedBy !== undefined ? { closedBy: view.closedBy } : {}),
    ...(view.lineage !== undefined ? { lineage: { revivedFrom: view.lineage.revivedFrom } } : {}),
    lastActedAt: entries.at(-1)?.at ?? 0,
  } as Deal;
}

export function gigFromView(view: Json): Gig {
  const posted = ms(view.postedAt);
  return {
    id: view.id,
    status: view.status,
    dealId: view.dealId,
    role: view.role,
    brief: {
      account: view.brief.account,
      listValueCents: cents(view.brief.listValueUsd),
      stage: view.brief.stage,
      signals: view.brief.signals ?? [],
      floorCents: cents(view.brief.floorUsd),
      activity: activity(view.brief.activity ?? []),
    },
    pricing:
      view.pricing.kind === 'commission'
        ? { kind: 'commission', pct: view.pricing.pct }
        : { kind: 'fee', amountCents: cents(view.pricing.amountUsd) },
    ...(view.closerId !== undefined ? { closerId: view.closerId } : {}),
    postedAt: posted,
    openedAt: posted,
    ...(view.claimedAt !== undefined ? { claimedAt: ms(view.claimedAt) } : {}),
    ...(view.outcome !== undefined ? { outcome: view.outcome } : {}),
    ...(view.finalValueUsd !== undefined ? { finalValueCents: cents(view.finalValueUsd) } : {}),
  } as Gig;
}

export function closerFromView(view: Json): Closer {
  return {
    id: view.id,
    name: view.name,
    industries: view.industries ?? [],
    record: { gigs: view.record.gigs, wins: view.record.wins, grossClosedCents: bigCents(view.record.grossClosedUsd) },
    enrolledAt: 0,
  };
}

/** A closer's ledger lines as records (the view leaves out the closer and the role: both known here). */
export function payoutsFromView(view: Json, gigs: ReadonlyMap<string, Gig>): PayoutLine[] {
  return (view.payouts ?? []).map((line: Json) => ({
    at: ms(line.at),
    closerId: view.id,
    gigId: line.gigId,
    dealId: line.dealId,
    role: gigs.get(line.gigId)?.role ?? 'closer',
    kind: line.kind,
    amountCents: cents(line.amountUsd),
  }));
}

export function settlementFromView(view: Json): Settlement {
  return {
    dealId: view.dealId,
    finalValueCents: cents(view.finalValueUsd),
    closedBy: view.closedBy,
    closerCommissionCents: cents(view.closerCommissionUsd),
    platformFeeCents: cents(view.platformFeeUsd),
    feesSettledCents: cents(view.feesSettledUsd),
    netToSellerCents: cents(view.netToSellerUsd),
    fees: (view.fees ?? []).map((fee: Json) => ({
      gigId: fee.gigId,
      role: fee.role,
      closerId: fee.closerId,
      amountCents: cents(fee.amountUsd),
    })),
    ...(view.refundedUsd !== undefined ? { refundedCents: cents(view.refundedUsd) } : {}),
  };
}

/** D-79: a transfer as the API shows it. Its key is never answered: '' (the checks make it of its fields). */
export function transferFromView(view: Json): Transfer {
  return {
    id: view.id,
    key: '',
    at: ms(view.at),
    debit: view.debit,
    credit: view.credit,
    amountCents: cents(view.amountUsd),
    kind: view.kind,
    ...(['dealId', 'gigId', 'payoutId', 'refundId', 'reverses', 'releases'] as const)
      .filter((field) => view[field] !== undefined)
      .reduce((fields, field) => Object.assign(fields, { [field]: view[field] }), {}),
  };
}

/** D-82: a balance as answered, exact past 2^53 cents. */
export const balanceFromView = (view: Json): bigint => bigCents(view.balanceUsd);

/** D-81: a refund and the reversals it lists. */
export function refundFromView(view: Json): Refund {
  return {
    id: view.id,
    dealId: view.dealId,
    amountCents: cents(view.amountUsd),
    reason: view.reason,
    at: ms(view.at),
    transfers: (view.transfers ?? []).map(transferFromView),
  };
}

/** D-80: a payout and its transfer. */
export function closerPayoutFromView(view: Json): Payout {
  return {
    id: view.id,
    closerId: view.closerId,
    amountCents: cents(view.amountUsd),
    status: view.status,
    paidAt: ms(view.paidAt),
    reference: view.reference,
    transfers: (view.transfers ?? []).map(transferFromView),
  };
}
