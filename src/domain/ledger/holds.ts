// D-80: an earning is held in its closer's pending account for PAYOUT_HOLD_DAYS of platform time
// after its transfer, then moved to available by the platform's timers (the move is a transfer).
import type { Cents } from '../money.ts';
import { closerAccount } from './accounts.ts';
import { reversedFromPending } from './refunds.ts';
import type { Transfer, TransferDraft } from './transfers.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_PAYOUT_HOLD_DAYS = 14;

/** When an earning's hold ends. */
export const releaseDueAt = (earning: Pick<Transfer, 'at'>, holdMs: number): number => earning.at + holdMs;

/**
 * The release of a held earning, or undefined when nothing of it is left to move (a refund took
 * it all while held). It moves what the earning still holds: its amount less what refunds took
 * of it from pending (`dealTransfers`: every transfer of its deal).
 */
export function releaseOf(
  earning: Transfer,
  dealTransfers: readonly Transfer[],
  now: number,
): TransferDraft | undefined {
  const held: Cents = earning.amountCents - reversedFromPending(earning, dealTransfers);
  if (held <= 0 || dealTransfers.some((t) => t.releases === earning.id)) return undefined;
  const closerId = earning.closerId as string;
  return {
    key: `release:${earning.id}`,
    at: now,
    debit: closerAccount(closerId, 'pending'),
    credit: closerAccount(closerId, 'available'),
    amountCents: held,
    kind: 'release',
    releases: earning.id,
    closerId,
    ...(earning.dealId !== undefined ? { dealId: earning.dealId } : {}),
    ...(earning.gigId !== undefined ? { gigId: earning.gigId } : {}),
    ...(earning.sellerId !== undefined ? { sellerId: earning.sellerId } : {}),
  };
}
