// What the service answers for a write or a read beyond a bare record: a closer with its ledger,
// an escalation (D-11) with the suggested closers, the outcome of a gig move, a dry run (D-48).
// The views (src/views/) turn these into JSON for every door.
import type { Match } from '../domain/matching.ts';
import type { Account, Closer, Deal, Gig, PayoutLine } from '../domain/records.ts';
import type { Role } from '../domain/stages.ts';
import type { DryRun } from './dry-run.ts';

/** What a dry run (D-48) answers: the write's value as it would be, and what it would publish and settle. */
export interface DryRunOutcome<T> extends DryRun {
  value: T;
}

export interface CloserWithLedger {
  closer: Closer;
  payouts: PayoutLine[];
}

export interface Escalation {
  escalated: true;
  role: Role;
  gig: Gig;
  deal: Deal;
  suggestedClosers: (Omit<Match, 'closer'> & { closer: CloserWithLedger })[];
}

export type AdvanceOutcome = { kind: 'deal'; deal: Deal } | { kind: 'escalation'; escalation: Escalation };

export interface GigOutcome {
  gig: Gig;
  deal: Deal;
  closer?: CloserWithLedger;
}

export type DealInput = { account: Account; listValueUsd: number; mandate?: unknown };
export type Ranked = Escalation['suggestedClosers'];
