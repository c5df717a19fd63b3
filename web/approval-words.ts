// A held proposal's approval (D-69, D-70) in words: what was proposed ("Close won at
// $38,000.00", "Advance to Proposal"), its votes ("1 of 2 approvals"), how it ended, what a
// decision did ("Approved: the deal moved to Closed won at $38,000.00") and why one was refused
// (APPROVAL_STALE: the deal moved since). A held move made from the console says so: "Held for
// approval: …".
import { nextStage, type Stage } from '../src/domain/stages.ts';
import type { ApiError, Approval, Deal, Escalation } from './api.ts';
import type { Decision } from './approvals-api.ts';
import { errorWords } from './error-words.ts';
import { fieldsAsLabels, limitsWords } from './policy-words.ts';
import { gigName, humanize, plural, stageLabel, when } from './words.ts';

/** The stage a proposal asks for: its own, the one a limit names, or the next from the deal's stage. */
function stageAsked(approval: Approval, stage?: string): string | undefined {
  if (approval.proposal.advanceTo) return approval.proposal.advanceTo;
  const move = approval.limits.find((check) => check.limit === 'allowedMoves');
  if (move) return String(move.value);
  return stage ? nextStage(stage as Stage) : undefined;
}

const cents = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });

/** What the key proposed: `Close won at $38,000.00`, `Advance to Proposal`. `stage`: the deal's, when read. */
export function proposalWords(approval: Approval, stage?: string): string {
  const to = stageAsked(approval, stage);
  const value = approval.proposal.valueUsd;
  if (to === 'closed_won') return value === undefined ? 'Close won' : `Close won at ${cents.format(value)}`;
  if (to === 'closed_lost') return 'Close lost';
  return to ? `Advance to ${stageLabel(to)}` : 'Advance to the next stage';
}

/** The votes so far: `0 of 1 approvals`, `1 of 2 approvals (Ada Fictional)`. */
export function votesWords(approval: Approval): string {
  const given = approval.approvals.length;
  const names = approval.approvals.map((vote) => vote.by.name);
  const count = `${given} of ${plural(approval.approvalsRequired, 'approval')}`;
  return names.length > 0 ? `${count} (${names.join(', ')})` : count;
}

/** The statuses as the list's filter and each decided approval name them. */
export const STATUS_WORDS: Record<Approval['status'], string> = {
  pending: 'Waiting for a decision',
  approved: 'Approved',
  denied: 'Denied',
  expired: 'Expired',
  superseded: 'Superseded',
  refused: 'Refused',
};

/** How a decided approval ended, in a sentence. */
export function outcomeWords(approval: Approval): string {
  const at = approval.decidedAt ? ` on ${when(approval.decidedAt)}` : '';
  switch (approval.status) {
    case 'approved':
      return `Approved${at} by ${approval.approvals.map((vote) => vote.by.name).join(' and ')}: it committed.`;
    case 'denied':
      return `Denied${at}: “${approval.reason ?? ''}”`;
    case 'expired':
      return `Expired${at}: nobody decided it in time.`;
    case 'superseded':
      return `Superseded${at}: the deal moved before it was decided.`;
    case 'refused':
      // The gate's or the policy's own sentence, its ids and field names in words.
      return `Refused at its approval${at}: ${humanize(fieldsAsLabels(approval.reason ?? 'the gate refused it'))}`;
    default:
      return `Waiting for a decision until ${when(approval.expiresAt)}.`;
  }
}

/** A decision's answer (D-70): the deal the proposal moved, its escalation, or the approval with its votes. */
export function decisionWords(answer: Decision): string {
  if ('escalated' in answer) {
    const { gig } = answer as Escalation;
    return `Approved: the deal went to a human ${gig.role} (${gigName(gig.id)} is posted).`;
  }
  if ('stage' in answer) {
    const deal = answer as Deal;
    if (deal.stage === 'closed_won')
      return `Approved: the deal moved to Closed won at ${cents.format(deal.finalValueUsd ?? 0)}.`;
    return `Approved: the deal moved to ${stageLabel(deal.stage)}.`;
  }
  const approval = answer as Approval;
  if (approval.status === 'pending') return `Approved: ${votesWords(approval)}; it waits for the others.`;
  return outcomeWords(approval);
}

/** Why a decision was refused, in words (the service's own text stays in a title). */
export function decisionRefusalWords(error: ApiError): string {
  switch (error.code) {
    case 'APPROVAL_STALE':
      return 'Not approved: the deal moved since it was proposed, so the proposal no longer fits it (the approval is superseded). The key may propose again.';
    case 'SELF_APPROVAL':
      return 'You may not decide this one: it was proposed through your own key, or a key you made.';
    case 'ALREADY_APPROVED':
      return 'You approved this already: each approver counts once. It waits for the others.';
    case 'APPROVAL_DECIDED':
      return 'It is decided already (or expired): nothing changed. The list shows it as it is now.';
    case 'APPROVAL_NOT_FOUND':
      return 'There is no such approval among those you may see.';
    default:
      return `Refused: ${errorWords(error)}`;
  }
}

/** D-69: a move made from the console that the key's policy held, in words. */
export function heldWords(approval: Approval): string {
  const waits = plural(approval.approvalsRequired, 'approval');
  return `Held for approval: ${proposalWords(approval)} went over the key’s policy (${limitsWords(approval.limits)}). Nothing moved; it waits for ${waits} on the Approvals page until ${when(approval.expiresAt)}.`;
}
