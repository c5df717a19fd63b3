// The ledger part of the store port (D-79 to D-82): transfers, never updated or deleted, each
// keyed so that it is written once; refunds and payouts, the records that caused some of them.
// Every adapter implements it; the store contract holds them to it.
import type { Payout } from '../domain/ledger/payouts.ts';
import type { Refund } from '../domain/ledger/refunds.ts';
import type { Transfer, TransferDraft } from '../domain/ledger/transfers.ts';

/** A page of transfers in id order; every filter optional, `afterId` exclusive. */
export interface TransferFilter {
  /** Transfers into or out of any of these accounts. */
  accounts?: readonly string[];
  dealId?: string;
  /** Platform time: at or after `from`, before `to`. */
  from?: number;
  to?: number;
  /** D-54: the lines of this Seller, or of this closer, only. */
  sellerId?: string;
  closerId?: string;
  afterId?: string;
  limit: number;
}

export interface PayoutFilter {
  closerId?: string;
  afterId?: string;
  limit: number;
}

export interface LedgerReader {
  getTransfer(id: string): Promise<Transfer | undefined>;
  transfers(filter: TransferFilter): Promise<Transfer[]>;
  /** Every transfer of a deal, in id order. */
  transfersOfDeal(dealId: string): Promise<Transfer[]>;
  /** Each account's balance at `asOf` (its transfers at or before), 0 for one without any. */
  balances(accounts: readonly string[], asOf: number): Promise<Map<string, bigint>>;
  /**
   * Earnings (a closer's commission or fee) booked at or before `bookedBy` that are still held:
   * not released, and not wholly taken back by refunds while held. Oldest first.
   */
  heldEarnings(bookedBy: number, limit: number): Promise<Transfer[]>;
  /** Every closer whose available balance is above zero, with that balance, in closer id order. */
  payable(): Promise<{ closerId: string; availableCents: bigint }[]>;
  refundsOfDeal(dealId: string): Promise<Refund[]>;
  /** Payouts, newest first (highest id first), `afterId` exclusive. */
  payouts(filter: PayoutFilter): Promise<Payout[]>;
}

export interface LedgerUnit extends LedgerReader {
  /**
   * Books transfers with the unit's write, numbered as they are written, unanswered: a close's
   * settlement costs its unit no statement of its own. A key already booked fails the unit.
   */
  book(drafts: readonly TransferDraft[]): Promise<void>;
  /** Writes transfers now and answers them numbered; a key already booked throws DuplicateTransferError. */
  post(drafts: readonly TransferDraft[]): Promise<Transfer[]>;
  /** The next refund's id (`rfd_NNNN`), taken now. */
  takeRefundId(): Promise<string>;
  putRefund(refund: Refund): Promise<void>;
  /** The next payout's id (`po_NNNN`), taken now. */
  takePayoutId(): Promise<string>;
  putPayout(payout: Payout): Promise<void>;
}

/** A transfer's key was already booked (D-79: a line is never written twice). */
export class DuplicateTransferError extends Error {
  constructor(readonly key: string) {
    super(`A transfer keyed ${key} is already in the ledger.`);
    this.name = 'DuplicateTransferError';
  }
}
