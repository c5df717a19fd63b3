// What callers may ask of the pipeline. Every command is ruled on by decide().
import type { DealEdit } from './deal-edit.ts';
import type { Account } from './records.ts';

export interface ProposalInput {
  readonly advanceTo?: string;
  readonly valueUsd?: number;
  readonly note?: string;
}

export type PipelineCommand =
  /** sellerId: the Seller that will own it (keys mode, D-51); absent in the demo. */
  | { type: 'CreateDeal'; account: Account; listValueUsd: number; mandate?: unknown; sellerId?: string }
  /** executor: `human` when a Seller's own person proposes it (D-65); the agent otherwise. */
  | { type: 'AdvanceDeal'; dealId: string; proposal: ProposalInput; executor?: 'agent' | 'human' }
  | { type: 'ReportSignals'; dealId: string; signals: readonly string[] }
  | { type: 'Deescalate'; dealId: string }
  /** D-67: a Seller corrects the account or the list value. */
  | { type: 'EditDeal'; dealId: string; edit: DealEdit }
  | { type: 'Reengage'; dealId: string }
  | { type: 'EnrolCloser'; name: string; industries: readonly string[] }
  | { type: 'ClaimGig'; gigId: string; closerId: string }
  | { type: 'AdvanceGig'; gigId: string; closerId?: string; advanceTo: string; valueUsd?: number; note?: string }
  | { type: 'ClearGoneDark'; gigId: string; closerId?: string; note?: string }
  | { type: 'ReleaseGig'; gigId: string; closerId?: string }
  /** platform: true for the timer, which only fires when due. */
  | { type: 'ReopenGig'; gigId: string; platform: boolean }
  | { type: 'ExpireGig'; gigId: string }
  | { type: 'StallDeal'; dealId: string }
  /** D-81: a won deal's refund, on its activity (the ledger books its reversals). */
  | { type: 'RecordRefund'; dealId: string; note: string };

/** What a decision may need beyond the state: the clock, the config and the next free ids. */
export interface DecisionContext {
  readonly now: number;
  readonly claimTtlMs: number;
  readonly nextIds: { readonly deal: string; readonly gig: string; readonly closer: string };
}
