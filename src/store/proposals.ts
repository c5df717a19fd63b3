// The refused proposals part of the store port (D-61): the records of what the gate refused, a
// deal's newest KEPT_PER_DEAL of them, and the tallies that keep the summary's counts exact when
// older records are dropped. Every adapter implements it; the store contract holds them to it.
import type { Executor, RefusedProposal, RefusedProposalDraft, TallyLine } from '../domain/proposals.ts';

/** A page of refused proposals, newest first; every filter optional, `beforeId` exclusive. */
export interface ProposalFilter {
  dealId?: string;
  by?: Executor;
  code?: string;
  keyId?: string;
  /** D-54: records on this Seller's deals only. */
  sellerId?: string;
  /** D-54: records this principal proposed (a closer's own). */
  principal?: string;
  beforeId?: string;
  limit: number;
}

/** Whose tallies a summary adds up (D-54): all, a Seller's deals, or a closer's own moves. */
export interface TallyScope {
  sellerId?: string;
  /** A closer: its refusals, and its accepted moves on the deals of its gigs. */
  closerId?: string;
}

export interface ProposalReader {
  /** Newest first (highest id first), filtered, at most `limit`. */
  list(filter: ProposalFilter): Promise<RefusedProposal[]>;
  /**
   * The counts behind the summary: one line per (executor, code, principal, key) of the
   * refusals ever recorded on the scope's deals (dropped records included), and the accepted
   * moves of those deals (acceptedMoves: the deals' executor entries, code absent).
   */
  tally(scope: TallyScope): Promise<TallyLine[]>;
}

export interface ProposalUnit extends ProposalReader {
  /**
   * Records a refusal: numbers it, keeps it, counts it, and drops the deal's oldest record when
   * it has more than KEPT_PER_DEAL. Answers the record, with its real id (its number is taken
   * now, as a created record's is: store.ts numberIds).
   */
  record(draft: RefusedProposalDraft): Promise<RefusedProposal>;
}
