// What a decision of an approval must answer (D-70), written again from the decisions: who may
// decide it at all (its Seller's people and keys with approvals:decide, the operator; another
// tenant finds no such approval), what refuses a decision (the proposing key or the person who
// made it: SELF_APPROVAL; an approver counting twice: ALREADY_APPROVED; an approval decided, or
// past its time: APPROVAL_DECIDED; one superseded, or whose deal moved since the hold:
// APPROVAL_STALE, D-275), and what an allowed one does: a vote short of the last, a denial, or at
// the last vote the proposal run again. The order of several refusals is the service's own.
import type { Caller } from '../domain/access.ts';
import type { Approval } from '../domain/approvals.ts';
import type { Refusal } from '../domain/refusal.ts';
import type { Decision } from '../service/approvals.ts';
import type { Result } from '../service/result.ts';
import type { Cast } from './principals.ts';
import type { ApprovalTally } from './report.ts';
import type { SimSnapshot, World } from './world.ts';

/** What a decision may be answered, as the state before it says. */
export interface Expected {
  /** The refusals any one of which may answer it (none: it is allowed). */
  may: Set<string>;
  /** An approval's last vote: the proposal runs again. */
  final: boolean;
  /** The last vote on a deal that moved since the hold: APPROVAL_STALE. */
  stale: boolean;
}

/** Whether `caller` is the proposing key, or the person who made it (D-70). */
export function isSelf(cast: Cast, approval: Approval, caller: Caller): boolean {
  if (caller.userId !== undefined) return caller.userId === cast.keys.find((k) => k.id === approval.keyId)?.createdBy;
  return caller.keyId === approval.keyId;
}

/** Whether `caller` approved it already (a person by id, a key by id). */
export const hasVoted = (approval: Approval, caller: Caller) =>
  approval.approvals.some((vote) =>
    caller.userId !== undefined ? vote.by.userId === caller.userId : vote.by.keyId === caller.keyId,
  );

/** When a decision on the deal is made: the platform's time, never before its latest activity (D-19). */
export function decisionTime(s: SimSnapshot, approval: Approval | undefined, platformNow: number): number {
  const deal = s.deals.find((d) => d.id === approval?.dealId);
  return Math.max(platformNow, deal?.activity.at(-1)?.at ?? 0);
}

export function expectDecision(
  cast: Cast,
  s: SimSnapshot,
  approval: Approval | undefined,
  caller: Caller,
  action: 'approve' | 'deny',
  at: number,
): Expected {
  if (approval === undefined || (caller.kind !== 'operator' && caller.principal !== approval.sellerId))
    return { may: new Set(['APPROVAL_NOT_FOUND']), final: false, stale: false };
  const may = new Set<string>();
  const moved = s.deals.find((d) => d.id === approval.dealId)?.version !== approval.dealVersion;
  if (isSelf(cast, approval, caller)) may.add('SELF_APPROVAL');
  if (approval.status === 'superseded') may.add('APPROVAL_STALE');
  else if (approval.status !== 'pending') may.add('APPROVAL_DECIDED');
  else if (at >= approval.expiresAt) {
    // Past its time: expired as far as a decision goes (D-70), or stale first if its deal moved.
    may.add('APPROVAL_DECIDED');
    if (moved) may.add('APPROVAL_STALE');
  } else if (moved) may.add('APPROVAL_STALE'); // D-275: any decision finds it stale at once
  if (action === 'approve' && hasVoted(approval, caller)) may.add('ALREADY_APPROVED');
  const final = action === 'approve' && approval.approvals.length + 1 >= approval.approvalsRequired;
  return { may, final, stale: final && moved };
}

/** The refusals a last vote may meet when the proposal runs again: the gate's and the policy's. */
export const atTheLastVote = (refusal: Refusal) =>
  refusal.kind === 'gate' ||
  refusal.kind === 'policy' ||
  (refusal.kind === 'conflict' && !refusal.code.startsWith('APPROVAL_') && refusal.code !== 'ALREADY_APPROVED');

/**
 * Holds a decision's answer to what was expected of it; counts it. Answers what it was, in a
 * word: `committed`, `vote`, `denied`, or the refusal's code.
 */
export function judgeDecision(
  world: World,
  approval: Approval | undefined,
  caller: Caller,
  action: 'approve' | 'deny',
  expected: Expected,
  answer: Result<Decision>,
): string {
  const tally = world.report.approvals as ApprovalTally;
  const got = answer.ok
    ? answer.value.kind === 'committed'
      ? 'committed'
      : action === 'deny'
        ? 'denied'
        : 'vote'
    : answer.refusal.code;
  const who = `${action} of ${approval?.id ?? 'no approval'} by ${caller.keyId ?? caller.userId} of ${caller.principal}`;
  const wrong = (wanted: string) =>
    world.found.push({
      invariant: 'approvals',
      message: `${who} answered ${got}; expected ${wanted}`,
      ids: approval ? [approval.id] : [],
    });
  if (!answer.ok) tally.refusedDecisions[got] = (tally.refusedDecisions[got] ?? 0) + 1;
  else if (got === 'vote') tally.votes++;
  if (expected.may.size > 0) {
    if (answer.ok || !expected.may.has(got)) wrong([...expected.may].join(' or '));
    return got;
  }
  if (action === 'deny') {
    if (!answer.ok || answer.value.kind !== 'approval' || answer.value.approval.status !== 'denied') wrong('a denial');
  } else if (!expected.final) {
    const voted = answer.ok && answer.value.kind === 'approval' ? answer.value.approval : undefined;
    if (voted?.status !== 'pending' || voted.approvals.length !== (approval?.approvals.length ?? 0) + 1)
      wrong('a vote, the approval still pending');
  } else if (expected.stale) {
    if (got !== 'APPROVAL_STALE') wrong('APPROVAL_STALE (the deal moved since the hold)');
  } else if (!answer.ok ? !atTheLastVote(answer.refusal) : answer.value.kind !== 'committed') {
    wrong('the proposal committed, or refused by the gate or the policy as it runs again');
  }
  return got;
}
