// D-80: a payout run pays every closer whose available balance is above zero, the whole of it,
// moving it to the closer's paid account. A closer whose available balance is at or below zero
// (a clawback not yet netted) is paid nothing. Moving the real money is outside the service: the
// payout's `reference` records what the operator did.
import type { Cents } from '../money.ts';
import { closerAccount } from './accounts.ts';
import type { Transfer, TransferDraft } from './transfers.ts';

export interface Payout {
  /** `po_NNNN`. */
  readonly id: string;
  readonly closerId: string;
  readonly amountCents: Cents;
  readonly status: 'paid';
  readonly paidAt: number;
  readonly reference: string | null;
  readonly transfers: readonly Transfer[];
}

/** The transfer that pays a closer's available balance (`payoutId`: the payout it makes). */
export function payoutTransfer(closerId: string, availableCents: Cents, payoutId: string, now: number): TransferDraft {
  return {
    key: `payout:${payoutId}`,
    at: now,
    debit: closerAccount(closerId, 'available'),
    credit: closerAccount(closerId, 'paid'),
    amountCents: availableCents,
    kind: 'payout',
    payoutId,
    closerId,
  };
}
