// What the service answers for a write or a read beyond a bare record: a closer with its ledger,
// an escalation (D-11) with the suggested closers, the outcome of a gig move, a dry run (D-48).
// The views (src/views/) turn these into JSON for every door.
import type { Approval } from '../domain/approvals.ts';
import type { Match } from '../domain/matching.ts';
import type { PolicyVerdict } from '../domain/policy.ts';
import type { PublicEventDraft } from '../domain/public-events.ts';
import type { Account, Closer, Deal, Gig, PayoutLine } from '../domain/records.ts';
import type { Settlement } from '../domain/settlement.ts';
import type { Role } from '../domain/stages.ts';

/** What a dry run (D-48) answers: the write's value as it would be, and what it would publish and settle. */
export interface DryRunOutcome<T> {
  value: T;
  /** The public events the real call would publish, in order (D-40). */
  events: PublicEventDraft[];
  /** The settlement the real call would make, when it would close the deal won. */
  settlement?: Settlement;
}

export interface CloserWithLedger {
  closer: Closer;
  /** Absent when the caller may not see it (D-54): the closer itself and the operator may. */
  payouts?: PayoutLine[];
}

export interface Escalation {
  escalated: true;
  role: Role;
  gig: Gig;
  deal: Deal;
  suggestedClosers: (Omit<Match, 'closer'> & { closer: CloserWithLedger })[];
}

/**
 * D-69: `held`: the move went over its key's policy; nothing moved and the approval waits (`deal`
 * as it is). D-71: a dry run through a key with a policy carries the policy's verdict
 * (`policy`); the real call never does.
 */
export type AdvanceOutcome =
  | { kind: 'deal'; deal: Deal; policy?: PolicyVerdict }
  | { kind: 'escalation'; escalation: Escalation; policy?: PolicyVerdict }
  | { kind: 'held'; approval: Approval; deal: Deal };

export interface GigOutcome {
  gig: Gig;
  deal: Deal;
  closer?: CloserWithLedger;
}

export type DealInput = { account: Account; listValueUsd: number; mandate?: unknown };
export type Ranked = Escalation['suggestedClosers'];
