// D-70: deciding what a key's policy held. Approve and deny by the Seller's people and keys with
// `approvals:decide` (or the operator), never by the proposing key or the person who made it.
// Every decision takes the approval's lock first, so racing decisions meet one at a time and a
// decided approval never changes again. At the last approval the proposal runs again, through
// the gate and the policy's other limits, against the deal as it is, only at the version it was
// held at; what commits carries the proposing key's actor and who approved it.
import { actorOf, type Caller, seesAll } from '../domain/access.ts';
import {
  type Approval,
  type Approver,
  approvedBy,
  decided,
  hasApproved,
  isFinalVote,
  isPastDue,
  isSelfApproval,
  withVote,
} from '../domain/approvals.ts';
import type { ProposalInput } from '../domain/commands.ts';
import { couldBeId } from '../domain/ids.ts';
import type { ProposedMove } from '../domain/proposals.ts';
import { refusedProposal } from '../domain/proposals.ts';
import type { Deal } from '../domain/records.ts';
import { type Refusal, refuse } from '../domain/refusal.ts';
import type { PipelineState } from '../domain/state.ts';
import type { ApprovalFilter } from '../store/approvals.ts';
import type { Store, UnitOfWork } from '../store/store.ts';
import { escalationOf } from './closers.ts';
import { approvalEvent, supersede } from './holds.ts';
import { countClose, keyBounds, policyGuard, type Stop, stoppedUnread } from './key-bounds.ts';
import type { AdvanceOutcome } from './outcomes.ts';
import { recordRefusal } from './refusals.ts';
import { fail, KeptRefusalError, ok, RefusedError, RefusedProposalError, type Result } from './result.ts';
import type { MoveGuard } from './step.ts';
import type { Steps } from './steps.ts';
import type { UnitCommand } from './unit-command.ts';

/** What an approval answers: the approval (not the last vote, or a denial), or what the proposal committed. */
export type Decision = { kind: 'approval'; approval: Approval } | { kind: 'committed'; outcome: AdvanceOutcome };

const as = (caller: Caller | undefined) => (caller === undefined ? {} : { principal: caller.principal });

/** D-54: a Seller's approvals are its own; the operator (and the demo) sees all. */
const sees = (caller: Caller | undefined, approval: Approval) =>
  seesAll(caller) || caller?.principal === approval.sellerId;

/** Who decides, by name: a person, or a key. */
function approverOf(caller: Caller): Approver {
  if (caller.userId !== undefined) return { userId: caller.userId, name: caller.name ?? '' };
  return { keyId: caller.keyId ?? '', name: caller.keyName ?? caller.keyId ?? '' };
}

const conflict = (code: 'APPROVAL_DECIDED' | 'APPROVAL_STALE' | 'ALREADY_APPROVED', message: string) =>
  new RefusedError(refuse.conflict(code, message));

export class ApprovalCommands {
  constructor(
    private readonly store: Store,
    private readonly steps: Steps,
  ) {}

  async get(id: string, caller?: Caller): Promise<Result<Approval>> {
    const found = couldBeId('apr', id)
      ? await this.store.read((reader) => reader.approvals.get(id), { oneStatement: true, ...as(caller) })
      : undefined;
    return found && sees(caller, found) ? ok(found) : fail(refuse.noApproval(id));
  }

  list(filter: Omit<ApprovalFilter, 'sellerId' | 'beforeId'> & { afterId?: string }, caller?: Caller) {
    if (filter.dealId !== undefined && !couldBeId('deal', filter.dealId)) return Promise.resolve([]);
    if (filter.keyId !== undefined && !couldBeId('key', filter.keyId)) return Promise.resolve([]);
    const { afterId, ...rest } = filter;
    const visible: ApprovalFilter = { ...rest, ...(afterId !== undefined ? { beforeId: afterId } : {}) };
    if (!seesAll(caller)) visible.sellerId = caller?.principal;
    return this.store.read((reader) => reader.approvals.list(visible), { oneStatement: true, ...as(caller) });
  }

  approve(id: string, note: string | undefined, caller: Caller): UnitCommand<Decision> {
    return {
      work: async (uow) => {
        const { approval, now, state } = await this.pending(uow, id, caller);
        const by = approverOf(caller);
        if (hasApproved(approval, by))
          throw conflict('ALREADY_APPROVED', `${by.name} approved ${id} already: each approver counts once.`);
        const vote = { by, at: now, ...(note !== undefined ? { note } : {}) };
        if (!isFinalVote(approval)) {
          const voted = withVote(approval, vote);
          await uow.approvals.put(voted);
          return { kind: 'approval', approval: voted };
        }
        return this.commit(uow, withVote(approval, vote), caller, now, state);
      },
    };
  }

  deny(id: string, reason: string, caller: Caller): UnitCommand<Decision> {
    return {
      work: async (uow) => {
        const { approval, now, deal } = await this.pending(uow, id, caller);
        const denied = decided(approval, 'denied', now, reason);
        await uow.approvals.put(denied);
        const recordedAt = this.steps.recordedAt();
        await uow.publish([approvalEvent('approval.denied', denied, now, actorOf(caller))], recordedAt);
        const refusal: Refusal = { kind: 'policy', code: 'APPROVAL_DENIED', message: reason };
        await this.keepRefused(uow, approval, deal, refusal, now);
        return { kind: 'approval', approval: denied };
      },
    };
  }

  /**
   * The sweep's (timers.ts): ends a pending approval past its time (expired, with its refused
   * proposal) or whose deal moved (superseded). False when it was no longer pending.
   */
  end(id: string, now: number): UnitCommand<boolean> {
    return {
      work: async (uow) => {
        await uow.lock(`approval:${id}`);
        const approval = await uow.approvals.get(id);
        if (approval?.status !== 'pending') return false;
        const deal = await uow.getDeal(approval.dealId);
        const recordedAt = this.steps.recordedAt();
        if (deal === undefined || deal.version !== approval.dealVersion) {
          await supersede(uow, approval, now, recordedAt, undefined);
          return true;
        }
        if (!isPastDue(approval, now)) return false;
        const reason = 'Nobody decided the approval before it expired.';
        const expired = decided(approval, 'expired', now, reason);
        await uow.approvals.put(expired);
        await uow.publish([approvalEvent('approval.expired', expired, now, undefined)], recordedAt);
        await this.keepRefused(uow, approval, deal, { kind: 'policy', code: 'APPROVAL_EXPIRED', message: reason }, now);
        return true;
      },
    };
  }

  /** The pending approval the caller may decide, under its lock, with the deal and the time. */
  private async pending(uow: UnitOfWork, id: string, caller: Caller) {
    // An id of no approval's shape takes no lock: it names nothing.
    if (!couldBeId('apr', id)) throw new RefusedError(refuse.noApproval(id));
    await uow.lock(`approval:${id}`);
    const approval = await uow.approvals.get(id);
    if (approval === undefined || !sees(caller, approval)) throw new RefusedError(refuse.noApproval(id));
    if (isSelfApproval(approval, approverOf(caller)))
      throw new RefusedError(
        refuse.denied(
          'SELF_APPROVAL',
          `${id} was proposed through ${approval.keyId}: neither that key nor the person who made it may decide it.`,
        ),
      );
    const { state, now } = await this.steps.onDeal(uow, approval.dealId);
    const deal = state.deals.get(approval.dealId) as Deal;
    if (approval.status === 'superseded')
      throw conflict('APPROVAL_STALE', `Deal ${deal.id} moved since ${id} was held: propose again.`);
    if (approval.status !== 'pending') throw conflict('APPROVAL_DECIDED', `${id} is ${approval.status} already.`);
    if (isPastDue(approval, now)) throw conflict('APPROVAL_DECIDED', `${id} expired before it was decided.`);
    // D-275: whatever the decision, a deal that moved since the hold makes the approval stale at
    // once (superseded, with no vote of this caller's on it).
    if (deal.version !== approval.dealVersion) {
      const recordedAt = this.steps.recordedAt();
      throw new KeptRefusalError(
        refuse.conflict('APPROVAL_STALE', `Deal ${deal.id} moved since ${id} was held: propose again.`),
        async (kept) => {
          await supersede(kept, approval, now, recordedAt, actorOf(caller));
        },
      );
    }
    return { approval, deal, state, now };
  }

  /**
   * The last approval: the proposal runs again against the deal as it is, at the version it was
   * held at only (else superseded), through the gate and the key's policy but for the limits
   * the people approved. It commits once: the approval's lock is held to the end of the unit.
   */
  private async commit(
    uow: UnitOfWork,
    approval: Approval,
    caller: Caller,
    now: number,
    state: PipelineState,
  ): Promise<Decision> {
    // pending() found the deal at the approval's version, under the approval's lock.
    const deal = state.deals.get(approval.dealId) as Deal;
    const recordedAt = this.steps.recordedAt();
    const key = await uow.accounts.getKey(approval.keyId);
    const proposer: Caller = {
      principal: approval.principal,
      kind: 'seller',
      keyId: approval.keyId,
      scopes: new Set(),
    };
    const bounds = await keyBounds(uow, proposer, now, key?.policy);
    const waived = approval.limits.map((check) => check.limit);
    const guard: MoveGuard<Stop> = (bounds && policyGuard(bounds, waived)) ?? (() => undefined);
    const actor = { ...approval.actor, approvedBy: approvedBy(approval) };
    const command = {
      type: 'AdvanceDeal' as const,
      dealId: deal.id,
      proposal: proposalInput(approval.proposal),
      executor: 'agent' as const,
    };
    let weighed: Awaited<ReturnType<Steps['weighEach']>> & { stopped: Stop | undefined };
    try {
      weighed = await this.steps.weighEach(uow, state, now, (_, first) => (first ? command : undefined), actor, guard);
    } catch (error) {
      // The gate refuses it now: refused, with its refused proposal (D-61).
      if (!(error instanceof RefusedProposalError)) throw error;
      throw this.refusedNow(approval, error.refusal, deal, now, recordedAt, error);
    }
    stoppedUnread(bounds, weighed.stopped);
    if (weighed.stopped !== undefined) {
      const over = weighed.stopped.verdict.limits.filter((check) => !check.within);
      const refusal = refuse.policy(
        `At its approval the move went over other limits of the key's policy: ${over.map((c) => c.limit).join(', ')}.`,
        over,
      );
      throw this.refusedNow(approval, refusal, deal, now, recordedAt);
    }
    await weighed.persist(recordedAt);
    const after = weighed.state.deals.get(deal.id) as Deal;
    await countClose(uow, bounds, deal, after, waived);
    const approved = decided(approval, 'approved', now);
    await uow.approvals.put(approved);
    await uow.publish([approvalEvent('approval.approved', approved, now, actorOf(caller))], recordedAt);
    if (!weighed.escalation) return { kind: 'committed', outcome: { kind: 'deal', deal: after } };
    const { role, gigId } = weighed.escalation;
    const escalation = await escalationOf(uow, weighed.state, deal.id, role, gigId, caller);
    return { kind: 'committed', outcome: { kind: 'escalation', escalation } };
  }

  /** Refused at its last approval: the approval says so and the refusal is on the record. */
  private refusedNow(
    approval: Approval,
    refusal: Refusal,
    deal: Deal,
    now: number,
    recordedAt: number,
    kept?: RefusedProposalError,
  ): KeptRefusalError {
    return new KeptRefusalError(refusal, async (uow) => {
      await uow.approvals.put(decided(approval, 'refused', now, refusal.message));
      if (kept) await recordRefusal(uow, kept, recordedAt);
      else await this.keepRefused(uow, approval, deal, refusal, now);
    });
  }

  /** A refused proposal (D-61) of what the approval held, by the proposing key. */
  private async keepRefused(uow: UnitOfWork, approval: Approval, deal: Deal, refusal: Refusal, now: number) {
    const command = { type: 'AdvanceDeal' as const, dealId: deal.id, proposal: proposalInput(approval.proposal) };
    const record = refusedProposal(command, refusal, deal, now, approval.actor);
    if (record) await recordRefusal(uow, new RefusedProposalError(refusal, record), this.steps.recordedAt());
  }
}

/** The proposal as the command takes it (the record keeps what the proposer wrote). */
const proposalInput = (move: ProposedMove): ProposalInput => move;
