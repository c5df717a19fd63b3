// D-82: monthly statements that add up to the cent: opening + the month's movements = closing.
// A closer's statement is of what the platform owes it (pending and available together: a
// release moves money between the two and is no movement of the statement); a Seller's of its
// one account, below zero by what it owes. Movements are given as positive amounts and each
// line as its signed effect, so the lines too add up to closing − opening.
import { closerAccount, sellerAccount } from './accounts.ts';
import { effectOn, type Transfer } from './transfers.ts';

/** A month of platform time (UTC) as [from, to) in epoch ms, from `YYYY-MM`. */
export function monthRange(month: string): { from: number; to: number } {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return { from: Date.UTC(year, m - 1, 1), to: Date.UTC(year, m, 1) };
}

export interface StatementLine {
  readonly transfer: Transfer;
  /** What it did to the statement's balance. */
  readonly effectCents: bigint;
}

export interface CloserStatement {
  readonly closerId: string;
  readonly month: string;
  readonly openingCents: bigint;
  readonly earnedCents: bigint;
  readonly clawedBackCents: bigint;
  readonly paidCents: bigint;
  readonly closingCents: bigint;
  readonly lines: readonly StatementLine[];
}

/** The accounts a closer's statement is of: what the platform owes it. */
export const owedAccounts = (closerId: string): string[] => [
  closerAccount(closerId, 'pending'),
  closerAccount(closerId, 'available'),
];

/** `opening`: the owed balance before the month; `transfers`: the month's transfers of the closer. */
export function closerStatement(
  closerId: string,
  month: string,
  opening: bigint,
  transfers: readonly Transfer[],
): CloserStatement {
  const accounts = owedAccounts(closerId);
  let earned = 0n;
  let clawedBack = 0n;
  let paid = 0n;
  const lines: StatementLine[] = [];
  for (const transfer of transfers) {
    const effect = effectOn(transfer, accounts);
    if (effect === 0n) continue;
    lines.push({ transfer, effectCents: effect });
    if (transfer.kind === 'payout') paid -= effect;
    else if (transfer.kind === 'reversal') clawedBack -= effect;
    else earned += effect;
  }
  return {
    closerId,
    month,
    openingCents: opening,
    earnedCents: earned,
    clawedBackCents: clawedBack,
    paidCents: paid,
    closingCents: opening + earned - clawedBack - paid,
    lines,
  };
}

export interface SellerStatement {
  readonly sellerId: string;
  readonly month: string;
  readonly openingCents: bigint;
  readonly commissionsCents: bigint;
  readonly platformFeesCents: bigint;
  readonly feesCents: bigint;
  readonly refundsCents: bigint;
  readonly closingCents: bigint;
  readonly lines: readonly StatementLine[];
}

/** `sellerId`: `none` for the demo's deals. `opening`: the account's balance before the month. */
export function sellerStatement(
  sellerId: string,
  month: string,
  opening: bigint,
  transfers: readonly Transfer[],
): SellerStatement {
  const accounts = [sellerAccount(sellerId)];
  const sums = { commission: 0n, platform_fee: 0n, fee: 0n, reversal: 0n };
  const lines: StatementLine[] = [];
  for (const transfer of transfers) {
    const effect = effectOn(transfer, accounts);
    if (effect === 0n) continue;
    lines.push({ transfer, effectCents: effect });
    if (transfer.kind in sums) sums[transfer.kind as keyof typeof sums] += effect < 0n ? -effect : effect;
  }
  return {
    sellerId,
    month,
    openingCents: opening,
    commissionsCents: sums.commission,
    platformFeesCents: sums.platform_fee,
    feesCents: sums.fee,
    refundsCents: sums.reversal,
    closingCents: opening - sums.commission - sums.platform_fee - sums.fee + sums.reversal,
    lines,
  };
}
