// D-73: what the insights read of a deal: its stage history (when it entered each stage, from its
// activity: every move writes an entry at the stage it moved to, at the move's platform time), how
// it closed and who closed it, and the moves people and agents made (accepted proposals). Pure: the
// same facts a reader rebuilds from the feed (deal.created, deal.stage_changed, deal.closed).
import type { Cents } from '../money.ts';
import type { Deal } from '../records.ts';
import { isTerminal, type Stage } from '../stages.ts';

/** An accepted move: a stage change an agent or a person proposed. */
export interface MoveFact {
  readonly at: number;
  readonly to: Stage;
  readonly by: 'agent' | 'human';
  readonly principal?: string;
  readonly keyId?: string;
  /** The closer that made it, through its gig. */
  readonly closerId?: string;
}

export interface DealFacts {
  readonly id: string;
  readonly sellerId?: string;
  readonly createdAt: number;
  readonly listValueCents: Cents;
  readonly industry?: string;
  readonly stage: Stage;
  /** When the deal entered each stage it reached (a stage is entered at most once, D-7). */
  readonly enteredAt: Partial<Record<Stage, number>>;
  /** The move that closed it, when it is closed. */
  readonly close?: MoveFact;
  readonly finalValueCents?: Cents;
  /** Every accepted move, oldest first (its close included). */
  readonly moves: readonly MoveFact[];
}

/** The facts of a deal, from its record. */
export function dealFacts(deal: Deal): DealFacts {
  const [first] = deal.activity;
  const createdAt = first?.at ?? deal.lastActedAt;
  const enteredAt: Partial<Record<Stage, number>> = { [first?.stage ?? deal.stage]: createdAt };
  const moves: MoveFact[] = [];
  let stage = first?.stage ?? deal.stage;
  for (const entry of deal.activity) {
    if (entry.stage === stage) continue;
    // The first entry at a new stage is its move's (decision.ts moveEvents).
    stage = entry.stage;
    enteredAt[stage] = entry.at;
    if (entry.by === 'service') continue;
    const move: { -readonly [K in keyof MoveFact]: MoveFact[K] } = { at: entry.at, to: stage, by: entry.by };
    if (entry.actor?.principal !== undefined) move.principal = entry.actor.principal;
    if (entry.actor?.keyId !== undefined) move.keyId = entry.actor.keyId;
    if (entry.closerId !== undefined) move.closerId = entry.closerId;
    moves.push(move);
  }
  const last = moves.at(-1);
  return {
    id: deal.id,
    ...(deal.sellerId !== undefined ? { sellerId: deal.sellerId } : {}),
    createdAt,
    listValueCents: deal.listValueCents,
    ...(deal.account.industry !== undefined ? { industry: deal.account.industry } : {}),
    stage: deal.stage,
    enteredAt,
    ...(isTerminal(deal.stage) && last !== undefined && last.to === deal.stage ? { close: last } : {}),
    ...(deal.finalValueCents !== undefined ? { finalValueCents: deal.finalValueCents } : {}),
    moves,
  };
}

/** When the deal closed, if it did. */
export const closedAt = (facts: DealFacts): number | undefined =>
  facts.enteredAt.closed_won ?? facts.enteredAt.closed_lost;
