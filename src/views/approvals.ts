// Approvals (D-69, D-70) → JSON: the record as its answers, lists, events and MCP show it.
import type { Approval } from '../domain/approvals.ts';
import { type LimitView, limitView } from './limits.ts';
import { actorView, approverView, iso } from './records.ts';

export function approvalView(approval: Approval) {
  const view: Record<string, unknown> = { id: approval.id, dealId: approval.dealId };
  if (approval.gigId !== undefined) view.gigId = approval.gigId;
  view.keyId = approval.keyId;
  if (approval.keyName !== undefined) view.keyName = approval.keyName;
  view.principal = approval.principal;
  view.actor = actorView(approval.actor);
  view.proposal = approval.proposal;
  view.limits = approval.limits.map((check): LimitView => limitView(check, false));
  view.dealVersion = approval.dealVersion;
  view.approvalsRequired = approval.approvalsRequired;
  view.approvals = approval.approvals.map((vote) => ({
    by: approverView(vote.by),
    at: iso(vote.at),
    ...(vote.note !== undefined ? { note: vote.note } : {}),
  }));
  view.status = approval.status;
  view.requestedAt = iso(approval.requestedAt);
  view.expiresAt = iso(approval.expiresAt);
  if (approval.decidedAt !== undefined) view.decidedAt = iso(approval.decidedAt);
  if (approval.reason !== undefined) view.reason = approval.reason;
  return view;
}

/** D-69: the answer of a held proposal (202). */
export const heldView = (approval: Approval) => ({ status: 'held' as const, approval: approvalView(approval) });
