// D-81: refunds and clawbacks. A refund of part of a won deal's final value reverses the same
// share of the commission and of the platform's fee (fees for setter and nurturer work stay
// earned). Shares are taken of the running total, so partial refunds reverse to the cent what
// one refund of their sum would: after refunds totalling R of a final value V, an original A
// is reversed by round-half-up(A × R / V) in all, and each refund books what that adds.
import { divideHalfUp } from '../decimal.ts';
import type { Cents } from '../money.ts';
import { formatUsd } from '../money.ts';
import type { Deal } from '../records.ts';
import { type Refusal, refuse } from '../refusal.ts';
import { closerAccount, sellerAccount } from './accounts.ts';
import type { Transfer, TransferDraft } from './transfers.ts';

export interface Refund {
  /** `rfd_NNNN`. */
  readonly id: string;
  readonly dealId: string;
  readonly sellerId?: string;
  readonly amountCents: Cents;
  readonly reason: string;
  readonly at: number;
  readonly transfers: readonly Transfer[];
}

/** How much of `original` refunds totalling `refunded` of `finalValue` reverse in all (exact, bigint inside). */
export function reversedShare(original: Cents, refunded: Cents, finalValue: Cents): Cents {
  if (finalValue <= 0) return 0;
  return Number(divideHalfUp(BigInt(original) * BigInt(refunded), BigInt(finalValue)));
}

/** What the refunds so far took of an earning while it was held: a release moves only the rest. */
export function reversedFromPending(earning: Transfer, dealTransfers: readonly Transfer[]): Cents {
  let sum = 0;
  for (const t of dealTransfers) if (t.reverses === earning.id && t.debit === earning.credit) sum += t.amountCents;
  return sum;
}

export interface RefundRequest {
  readonly deal: Deal;
  /** The refund's id, as its transfers are keyed by it. */
  readonly refundId: string;
  readonly amountCents: Cents;
  /** Every transfer of the deal so far. */
  readonly dealTransfers: readonly Transfer[];
  /** The deal's refunds so far, in total. */
  readonly refundedCents: Cents;
  readonly now: number;
}

/**
 * The transfers a refund books, or its refusal: only a won deal is refunded, and never past its
 * final value in all (422 REFUND_EXCEEDS_VALUE). A commission's reversal takes first what the
 * earning still holds in its closer's pending account, then from its available one, which may
 * go below zero: a clawback, netted against the closer's next earnings (D-81).
 */
export function refundTransfers(request: RefundRequest): TransferDraft[] | Refusal {
  const { deal, refundId, amountCents, dealTransfers, refundedCents, now } = request;
  if (deal.stage !== 'closed_won' || deal.finalValueCents === undefined)
    return refuse.conflict(
      'DEAL_NOT_CLOSED_WON',
      `Deal ${deal.id} is ${deal.stage}; only a closed_won deal is refunded.`,
    );
  if (amountCents <= 0)
    return refuse.invalid('INVALID_BODY', 'A refund is at least one cent.', ['amountUsd: must be at least 0.01']);
  const finalValue = deal.finalValueCents;
  const total = refundedCents + amountCents;
  if (total > finalValue)
    return refuse.rule('REFUND_EXCEEDS_VALUE', "Refunds together may not pass the deal's final value.", [
      `amountUsd: at most ${formatUsd(finalValue - refundedCents)} is left to refund of ${formatUsd(finalValue)} (${formatUsd(refundedCents)} refunded)`,
    ]);
  const seller = sellerAccount(deal.sellerId);
  const owner = deal.sellerId !== undefined ? { sellerId: deal.sellerId } : {};
  const drafts: TransferDraft[] = [];
  const line = (original: Transfer, debit: string, amount: Cents, part: string): TransferDraft => ({
    key: `refund:${refundId}:${original.id}:${part}`,
    at: now,
    debit,
    credit: seller,
    amountCents: amount,
    kind: 'reversal',
    dealId: deal.id,
    refundId,
    reverses: original.id,
    ...owner,
    ...(original.closerId !== undefined ? { closerId: original.closerId } : {}),
  });
  for (const original of dealTransfers) {
    if (original.kind !== 'commission' && original.kind !== 'platform_fee') continue;
    let already = 0;
    for (const t of dealTransfers) if (t.reverses === original.id) already += t.amountCents;
    const due = reversedShare(original.amountCents, total, finalValue) - already;
    if (due <= 0) continue;
    if (original.kind === 'platform_fee') {
      drafts.push(line(original, original.credit, due, 'fee'));
      continue;
    }
    const released = dealTransfers.some((t) => t.releases === original.id);
    const held = released ? 0 : original.amountCents - reversedFromPending(original, dealTransfers);
    const fromPending = Math.min(due, Math.max(0, held));
    if (fromPending > 0) drafts.push(line(original, original.credit, fromPending, 'pending'));
    if (due > fromPending)
      drafts.push(
        line(original, closerAccount(original.closerId as string, 'available'), due - fromPending, 'available'),
      );
  }
  return drafts;
}
