// Outcome billing (D-23): a settlement exists only for a deal that closed won.
import { platformFeeCents } from './gate.ts';
import type { Cents } from './money.ts';
import type { Deal, PayoutLine } from './records.ts';
import { type Refusal, refuse } from './refusal.ts';
import type { Role } from './stages.ts';

export interface Settlement {
  readonly dealId: string;
  readonly finalValueCents: Cents;
  readonly closedBy: 'agent' | 'human';
  readonly closerCommissionCents: Cents;
  readonly platformFeeCents: Cents;
  readonly feesSettledCents: Cents;
  readonly netToSellerCents: Cents;
  readonly fees: readonly { gigId: string; role: Role; closerId: string; amountCents: Cents }[];
  /** D-81: the deal's refunds in all, once it has one (absent before: the spec's shape until then). */
  readonly refundedCents?: Cents;
}

/**
 * payouts: the ledger lines of this deal. Commission is the line actually paid (0 for an agent
 * close). refunds: the deal's refunds (D-81), which add `refundedCents` and change nothing else.
 */
export function settle(
  deal: Deal,
  payouts: readonly PayoutLine[],
  refunds: readonly { amountCents: Cents }[] = [],
): Settlement | Refusal {
  if (deal.stage !== 'closed_won' || deal.finalValueCents === undefined) {
    return refuse.conflict(
      'DEAL_NOT_CLOSED_WON',
      `Deal ${deal.id} is ${deal.stage}; a settlement exists only for closed_won.`,
    );
  }
  const finalValueCents = deal.finalValueCents;
  const closerCommissionCents = payouts
    .filter((line) => line.kind === 'commission')
    .reduce((sum, line) => sum + line.amountCents, 0);
  const fees = payouts
    .filter((line) => line.kind === 'fee')
    .map((line) => ({ gigId: line.gigId, role: line.role, closerId: line.closerId, amountCents: line.amountCents }));
  const feesSettledCents = fees.reduce((sum, fee) => sum + fee.amountCents, 0);
  const platform = platformFeeCents(finalValueCents);
  return {
    dealId: deal.id,
    finalValueCents,
    closedBy: deal.closedBy ?? 'agent',
    closerCommissionCents,
    platformFeeCents: platform,
    feesSettledCents,
    netToSellerCents: finalValueCents - closerCommissionCents - platform - feesSettledCents,
    fees,
    ...(refunds.length > 0 ? { refundedCents: refunds.reduce((sum, r) => sum + r.amountCents, 0) } : {}),
  };
}
