// The approvals part of the store port (D-69, D-70): the records of held proposals and their
// decisions. Every adapter implements it; the store contract holds them to it. A key's daily
// usage (D-68), which the same rules count, is the accounts part's (accounts.ts).
import type { Approval, ApprovalDraft, ApprovalStatus } from '../domain/approvals.ts';

/** A page of approvals, newest first; every filter optional, `beforeId` exclusive. */
export interface ApprovalFilter {
  status?: ApprovalStatus;
  dealId?: string;
  keyId?: string;
  /** D-54: approvals of this Seller's deals only. */
  sellerId?: string;
  beforeId?: string;
  limit: number;
}

export interface ApprovalReader {
  get(id: string): Promise<Approval | undefined>;
  /** Newest first (highest id first), filtered, at most `limit`. */
  list(filter: ApprovalFilter): Promise<Approval[]>;
  /** The deal's pending approval, if it has one (at most one is ever pending per deal). */
  pendingOfDeal(dealId: string): Promise<Approval | undefined>;
  /**
   * Pending approvals the sweep must end (timers.ts), oldest first: past their `expiresAt` at
   * `now`, or whose deal moved since they were held (its version is no longer theirs).
   */
  due(now: number, limit: number): Promise<Approval[]>;
}

export interface ApprovalUnit extends ApprovalReader {
  /** Numbers an approval (`apr_NNNN`, taken now, as a created record's is) and keeps it. */
  create(draft: ApprovalDraft): Promise<Approval>;
  /** Replaces the stored approval of that id (its votes, its status once decided). */
  put(approval: Approval): Promise<void>;
}
