// D-69, D-70: a held proposal waits for people. The approval is its record: what was proposed,
// the limits it went over, the deal's version it was held at, and the approvals given. Pure
// rules of who may decide and what each decision makes of it; the service runs them in a unit
// of work that holds the approval's lock, so racing decisions meet one at a time.
import type { ProposedMove } from './proposals.ts';
import type { ActorRef, Approver } from './records.ts';

export type { Approver } from './records.ts';

import type { LimitCheck } from './policy.ts';

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'superseded', 'refused'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export interface ApprovalVote {
  readonly by: Approver;
  /** Platform time. */
  readonly at: number;
  readonly note?: string;
}

export interface Approval {
  /** `apr_NNNN`. */
  readonly id: string;
  readonly dealId: string;
  readonly gigId?: string;
  /** The key that proposed, and its name then (a decider without keys:manage reads no key list). */
  readonly keyId: string;
  readonly keyName?: string;
  /** The key's principal (the deal's Seller). */
  readonly principal: string;
  /** The person who made the proposing key (D-66), who may not decide it (SELF_APPROVAL). */
  readonly keyCreatedBy?: string;
  /** The proposing request's actor (D-56), which what commits carries. */
  readonly actor: ActorRef;
  readonly proposal: ProposedMove;
  /** The limits the proposal went over (D-69). */
  readonly limits: readonly LimitCheck[];
  /** The deal's version when held: only at that version may it commit (D-70). */
  readonly dealVersion: number;
  readonly approvalsRequired: number;
  readonly approvals: readonly ApprovalVote[];
  readonly status: ApprovalStatus;
  /** Platform times, epoch ms. */
  readonly requestedAt: number;
  readonly expiresAt: number;
  readonly decidedAt?: number;
  /** A denial's reason, or why it ended otherwise (expired, superseded, refused). */
  readonly reason?: string;
  /** D-57: the deal's Seller, for row-level security (the same as `principal`). */
  readonly sellerId: string;
}

export type ApprovalDraft = Omit<Approval, 'id'>;

export const HOUR_MS = 3_600_000;

/** Whether `by` is the proposing key or the person who made it (D-70: no self-approval). */
export function isSelfApproval(approval: Approval, by: Approver): boolean {
  if (by.keyId !== undefined && by.keyId === approval.keyId) return true;
  return by.userId !== undefined && by.userId === approval.keyCreatedBy;
}

/** Whether `by` approved it already (a person by id, a key by id). */
export function hasApproved(approval: Approval, by: Approver): boolean {
  return approval.approvals.some(
    (vote) =>
      (by.userId !== undefined && vote.by.userId === by.userId) ||
      (by.keyId !== undefined && vote.by.keyId === by.keyId),
  );
}

/** The approval with one more vote. */
export const withVote = (approval: Approval, vote: ApprovalVote): Approval => ({
  ...approval,
  approvals: [...approval.approvals, vote],
});

/** Whether this vote is the last one required. */
export const isFinalVote = (approval: Approval): boolean => approval.approvals.length + 1 >= approval.approvalsRequired;

/** The approval ended: a decided approval never changes again. */
export const decided = (
  approval: Approval,
  status: Exclude<ApprovalStatus, 'pending'>,
  at: number,
  reason?: string,
) => ({
  ...approval,
  status,
  decidedAt: at,
  ...(reason !== undefined ? { reason } : {}),
});

/** Still pending, but past its time (platform clock): the sweep makes it expired. */
export const isPastDue = (approval: Approval, now: number): boolean =>
  approval.status === 'pending' && now >= approval.expiresAt;

/** Who approved a proposal that commits, as its activity entry and events name them (D-70). */
export const approvedBy = (approval: Approval): readonly Approver[] => approval.approvals.map((vote) => vote.by);
