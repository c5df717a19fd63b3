// D-73 `money`: the settlements of the deals closed won within the range (D-23), added up. A
// Seller's commissions are its settlements' (never closers' ledgers it may not read); a closer
// sees its own earnings: the settlements that pay it, and only its own lines of them.
import { platformFeeCents } from '../gate.ts';
import type { Cents } from '../money.ts';
import type { PayoutLine } from '../records.ts';
import type { Range } from './cohort.ts';
import type { DealFacts } from './deal-facts.ts';

export interface MoneyInsight {
  readonly closedWon: { readonly deals: number; readonly valueCents: Cents };
  readonly commissionsCents: Cents;
  readonly feesSettledCents: Cents;
  /** Null for a closer: the platform's fee and the Seller's net are not its figures. */
  readonly platformFeesCents: Cents | null;
  readonly netToSellerCents: Cents | null;
}

export const closedWonWithin = (range: Range) => (deal: DealFacts) => {
  const won = deal.enteredAt.closed_won;
  return won !== undefined && won >= range.from && won < range.to;
};

/** `won`: the deals closed won within the range; `lines`: payout lines of any deals. */
export function moneyInsight(won: readonly DealFacts[], lines: Iterable<PayoutLine>, closerId?: string): MoneyInsight {
  const ids = new Set(won.map((deal) => deal.id));
  const paying = new Set<string>();
  let commissionsCents = 0;
  let feesSettledCents = 0;
  for (const line of lines) {
    if (!ids.has(line.dealId)) continue;
    if (closerId !== undefined && line.closerId !== closerId) continue;
    paying.add(line.dealId);
    if (line.kind === 'commission') commissionsCents += line.amountCents;
    else feesSettledCents += line.amountCents;
  }
  const counted = closerId === undefined ? won : won.filter((deal) => paying.has(deal.id));
  const valueCents = counted.reduce((sum, deal) => sum + (deal.finalValueCents ?? 0), 0);
  if (closerId !== undefined)
    return {
      closedWon: { deals: counted.length, valueCents },
      commissionsCents,
      feesSettledCents,
      platformFeesCents: null,
      netToSellerCents: null,
    };
  const platformFeesCents = won.reduce((sum, deal) => sum + platformFeeCents(deal.finalValueCents ?? 0), 0);
  return {
    closedWon: { deals: won.length, valueCents },
    commissionsCents,
    feesSettledCents,
    platformFeesCents,
    netToSellerCents: valueCents - commissionsCents - platformFeesCents - feesSettledCents,
  };
}
