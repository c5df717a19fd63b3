// D-79: the books. Every amount owed through the platform is a transfer from one account to
// another, in integer cents, never updated or deleted; a correction is a transfer that reverses
// another. A balance is a sum of transfers, so the sum over all accounts is always zero. Model:
// TigerBeetle's immutable transfers, each keyed so that it can never be written twice.
import type { PipelineEvent } from '../events.ts';
import { platformFeeCents } from '../gate.ts';
import type { Cents } from '../money.ts';
import type { PipelineState } from '../state.ts';
import { closerAccount, PLATFORM_FEES, sellerAccount } from './accounts.ts';

/**
 * What a transfer is for: an earning of a closer (`commission`, a setter's or nurturer's `fee`),
 * the platform's fee, an earning's `release` from its hold, a `payout`, and a refund's
 * `reversal` of an earning or a fee.
 */
export type TransferKind = 'commission' | 'fee' | 'platform_fee' | 'release' | 'payout' | 'reversal';

export const TRANSFER_KINDS: readonly TransferKind[] = [
  'commission',
  'fee',
  'platform_fee',
  'release',
  'payout',
  'reversal',
];

export interface TransferDraft {
  /**
   * What makes the line once (`commission:gig_0001`, `release:txn_0004`…): no two transfers share
   * a key, so a racing or repeated writer can never book a line twice. Never answered.
   */
  readonly key: string;
  /** Platform time, epoch ms. */
  readonly at: number;
  /** The account whose balance goes down by the amount. */
  readonly debit: string;
  /** The account whose balance goes up by it. */
  readonly credit: string;
  /** Above zero, always. */
  readonly amountCents: Cents;
  readonly kind: TransferKind;
  readonly dealId?: string;
  readonly gigId?: string;
  readonly payoutId?: string;
  readonly refundId?: string;
  /** The transfer this one corrects (a refund's reversal). */
  readonly reverses?: string;
  /** The earning this one moves from pending to available. */
  readonly releases?: string;
  /** Whose line it is (D-54, D-77): the Seller of its deal, the closer it pays. */
  readonly sellerId?: string;
  readonly closerId?: string;
}

export interface Transfer extends TransferDraft {
  /** `txn_NNNN`, numbered as it is written. */
  readonly id: string;
}

/** An earning held for its closer: what a release or a refund's reversal works from. */
export const isEarning = (transfer: Pick<Transfer, 'kind'>): boolean =>
  transfer.kind === 'commission' || transfer.kind === 'fee';

/**
 * The transfers a decision's events book (D-79), written in the same unit of work: a deal won
 * books the platform's fee (seller → platform:fees); every payout line books its earning to its
 * closer's pending account (seller → closer:pending), a commission at the close, a fee at its
 * gig's fulfilment. Nothing of zero is booked (no line of $0 is written either, D-24).
 */
export function bookedTransfers(events: readonly PipelineEvent[], state: PipelineState, now: number): TransferDraft[] {
  const drafts: TransferDraft[] = [];
  for (const event of events) {
    if (event.type === 'DealMoved' && event.to === 'closed_won' && event.finalValueCents !== undefined) {
      const fee = platformFeeCents(event.finalValueCents);
      if (fee <= 0) continue;
      const sellerId = state.deals.get(event.dealId)?.sellerId;
      drafts.push({
        key: `platform_fee:${event.dealId}`,
        at: now,
        debit: sellerAccount(sellerId),
        credit: PLATFORM_FEES,
        amountCents: fee,
        kind: 'platform_fee',
        dealId: event.dealId,
        ...(sellerId !== undefined ? { sellerId } : {}),
      });
    } else if (event.type === 'PayoutPosted' && event.line.amountCents > 0) {
      const { line } = event;
      const sellerId = state.deals.get(line.dealId)?.sellerId;
      drafts.push({
        key: `${line.kind}:${line.gigId}`,
        at: line.at,
        debit: sellerAccount(sellerId),
        credit: closerAccount(line.closerId, 'pending'),
        amountCents: line.amountCents,
        kind: line.kind,
        dealId: line.dealId,
        gigId: line.gigId,
        closerId: line.closerId,
        ...(sellerId !== undefined ? { sellerId } : {}),
      });
    }
  }
  return drafts;
}

/** What a transfer does to the balance of these accounts together: up, down, or nothing (a move between them). */
export function effectOn(
  transfer: Pick<Transfer, 'debit' | 'credit' | 'amountCents'>,
  accounts: readonly string[],
): bigint {
  const credited = accounts.includes(transfer.credit);
  const debited = accounts.includes(transfer.debit);
  if (credited === debited) return 0n;
  return credited ? BigInt(transfer.amountCents) : -BigInt(transfer.amountCents);
}

/** The balance of accounts together: the sum of their transfers at or before `asOf` (exact past 2^53). */
export function balanceOf(transfers: Iterable<Transfer>, accounts: readonly string[], asOf = Infinity): bigint {
  let sum = 0n;
  for (const transfer of transfers) if (transfer.at <= asOf) sum += effectOn(transfer, accounts);
  return sum;
}

/** Every account's balance, replayed from the transfers (what audit and the simulation check against). */
export function replay(transfers: Iterable<Transfer>): Map<string, bigint> {
  const balances = new Map<string, bigint>();
  for (const t of transfers) {
    balances.set(t.debit, (balances.get(t.debit) ?? 0n) - BigInt(t.amountCents));
    balances.set(t.credit, (balances.get(t.credit) ?? 0n) + BigInt(t.amountCents));
  }
  return balances;
}
