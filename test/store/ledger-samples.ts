// The transfers, refunds and payouts the ledger's part of the store contract writes
// (ledger-contract.ts, ledger-read-contract.ts): each as the service makes it, in few words.
import type { Payout } from '../../src/domain/ledger/payouts.ts';
import type { Refund } from '../../src/domain/ledger/refunds.ts';
import type { Transfer, TransferDraft } from '../../src/domain/ledger/transfers.ts';

export const T0 = Date.parse('2026-01-05T09:00:00.000Z');
export const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);
export const txn = (n: number) => `txn_${String(n).padStart(4, '0')}`;

/** An earning of a closer on a deal: seller:none → closer:<id>:pending. */
export const earning = (key: string, amountCents: number, overrides: Partial<TransferDraft> = {}): TransferDraft => ({
  key,
  at: T0,
  debit: 'seller:none',
  credit: 'closer:closer_0001:pending',
  amountCents,
  kind: 'commission',
  dealId: 'deal_0001',
  gigId: 'gig_0001',
  closerId: 'closer_0001',
  ...overrides,
});

export const platformFee = (dealId: string, amountCents: number, at = T0): TransferDraft => ({
  key: `platform_fee:${dealId}`,
  at,
  debit: 'seller:none',
  credit: 'platform:fees',
  amountCents,
  kind: 'platform_fee',
  dealId,
});

/** Every field a transfer may hold. */
export const fullDraft: TransferDraft = {
  key: 'refund:rfd_0001:txn_0001:pending',
  at: T0 + 1,
  debit: 'closer:closer_0002:pending',
  credit: 'seller:seller_0003',
  amountCents: 12_345,
  kind: 'reversal',
  dealId: 'deal_0004',
  gigId: 'gig_0005',
  payoutId: 'po_0006',
  refundId: 'rfd_0001',
  reverses: 'txn_0001',
  releases: 'txn_0002',
  sellerId: 'seller_0003',
  closerId: 'closer_0002',
};

/** A release of the earning numbered `n`, pending → available. */
export const release = (n: number, amountCents: number, closerId = 'closer_0001', at = T0): TransferDraft => ({
  key: `release:${txn(n)}`,
  at,
  debit: `closer:${closerId}:pending`,
  credit: `closer:${closerId}:available`,
  amountCents,
  kind: 'release',
  releases: txn(n),
  closerId,
  dealId: 'deal_0001',
});

/** A refund's reversal of the earning numbered `n` from the closer's pending or available account. */
export const reversal = (
  refundId: string,
  n: number,
  from: 'pending' | 'available',
  amountCents: number,
): TransferDraft => ({
  key: `refund:${refundId}:${txn(n)}:${from}`,
  at: T0,
  debit: `closer:closer_0001:${from}`,
  credit: 'seller:none',
  amountCents,
  kind: 'reversal',
  dealId: 'deal_0001',
  refundId,
  reverses: txn(n),
  closerId: 'closer_0001',
});

export const payoutOf = (closerId: string, n: number, amountCents: number, at = T0): TransferDraft => ({
  key: `payout:po_${String(n).padStart(4, '0')}`,
  at,
  debit: `closer:${closerId}:available`,
  credit: `closer:${closerId}:paid`,
  amountCents,
  kind: 'payout',
  payoutId: `po_${String(n).padStart(4, '0')}`,
  closerId,
});

export function refundOf(id: string, transfers: readonly Transfer[]): Refund {
  return { id, dealId: 'deal_0001', amountCents: 10_000, reason: 'Returned in part', at: T0, transfers };
}

export function paidOut(id: string, closerId: string, amountCents: number, transfers: readonly Transfer[]): Payout {
  return { id, closerId, amountCents, status: 'paid', paidAt: T0, reference: null, transfers };
}
