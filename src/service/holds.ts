// D-69: a move over its key's policy with `onLimit: hold` is held: nothing moves, and an
// approval is recorded with its event. At most one approval of a deal is pending: a second
// proposal that would be held meets the first (409 APPROVAL_PENDING) unless the deal moved since,
// which supersedes the first (D-70). Written in the unit of work of the proposal.
import { type ActorRef, actorOf, type Caller } from '../domain/access.ts';
import { type Approval, decided, HOUR_MS } from '../domain/approvals.ts';
import {
  DEFAULT_APPROVAL_TTL_HOURS,
  DEFAULT_APPROVALS_REQUIRED,
  type KeyPolicy,
  limitsOver,
} from '../domain/policy.ts';
import { proposalOf } from '../domain/proposals.ts';
import type { PublicEventDraft } from '../domain/public-events.ts';
import type { Deal } from '../domain/records.ts';
import type { UnitOfWork } from '../store/store.ts';
import type { Stop } from './key-bounds.ts';
import { RefusedError } from './result.ts';

type ApprovalEventType = Extract<PublicEventDraft['type'], `approval.${string}`>;

/**
 * An approval's event, seen by its Seller (D-57); `actor`: who caused it, none for the platform
 * timers' (D-56: an expiry, or a supersession the sweep found).
 */
export function approvalEvent(type: ApprovalEventType, approval: Approval, at: number, actor: ActorRef | undefined) {
  const event: PublicEventDraft = {
    type,
    at,
    data: approval,
    sellerId: approval.sellerId,
    ...(actor !== undefined ? { actor } : {}),
  };
  return event;
}

/** D-70: an approval whose deal moved since it was held: superseded, once; `actor` as approvalEvent's. */
export async function supersede(
  uow: UnitOfWork,
  approval: Approval,
  now: number,
  recordedAt: number,
  actor: ActorRef | undefined,
) {
  const ended = decided(approval, 'superseded', now, 'The deal moved since the proposal was held.');
  await uow.approvals.put(ended);
  await uow.publish([approvalEvent('approval.superseded', ended, now, actor)], recordedAt);
  return ended;
}

/**
 * Holds the stopped move of `deal` (as it is now: its version is the one the approval may
 * commit at) for the caller's key. The deal's approvals lock makes two holds of one deal meet.
 */
export async function hold(
  uow: UnitOfWork,
  stop: Stop,
  deal: Deal,
  caller: Caller,
  policy: KeyPolicy,
  now: number,
  recordedAt: number,
): Promise<Approval> {
  await uow.lock(`approvals-of:${deal.id}`);
  const pending = await uow.approvals.pendingOfDeal(deal.id);
  if (pending !== undefined) {
    if (pending.dealVersion === deal.version) {
      throw new RefusedError({
        kind: 'conflict',
        code: 'APPROVAL_PENDING',
        message: `Deal ${deal.id} already waits on approval ${pending.id}: wait for its outcome (get_approval) before proposing again.`,
        approvalId: pending.id,
      });
    }
    await supersede(uow, pending, now, recordedAt, actorOf(caller));
  }
  const ttlHours = policy.approvalTtlHours ?? DEFAULT_APPROVAL_TTL_HOURS;
  const draft = {
    dealId: deal.id,
    keyId: caller.keyId as string,
    ...(caller.keyName !== undefined ? { keyName: caller.keyName } : {}),
    principal: caller.principal,
    ...(caller.keyCreatedBy !== undefined ? { keyCreatedBy: caller.keyCreatedBy } : {}),
    actor: actorOf(caller) as NonNullable<ReturnType<typeof actorOf>>,
    proposal: proposalOf(stop.command)?.proposal ?? {},
    limits: limitsOver(stop.verdict),
    dealVersion: deal.version,
    approvalsRequired: policy.approvalsRequired ?? DEFAULT_APPROVALS_REQUIRED,
    approvals: [],
    status: 'pending' as const,
    requestedAt: now,
    expiresAt: now + ttlHours * HOUR_MS,
    sellerId: deal.sellerId ?? caller.principal,
  };
  const approval = await uow.approvals.create(draft);
  await uow.publish([approvalEvent('approval.requested', approval, now, approval.actor)], recordedAt);
  return approval;
}

/** The words of a policy's refusal or hold: each limit passed. */
export function overWords(stop: Stop): string {
  return limitsOver(stop.verdict)
    .map((check) => check.limit)
    .join(', ');
}
