// The refused proposals' words (D-61, D-247): why the gate refused, by its code; who proposes;
// what a proposal proposed; the refusal rate.
import { money, percent, stageLabel } from './words.ts';

/** Why the gate refused, by its code, in a few words (the code itself is shown beside them). */
const REFUSAL_CODE_WORDS: Record<string, string> = {
  GATE_BELOW_FLOOR: 'Below the floor',
  GATE_ILLEGAL_MOVE: 'A move the stages do not allow',
  GATE_VALUE_REQUIRED: 'A close without a value',
  GATE_COMMISSION_CAP: 'Above the commission cap',
  DEAL_TERMINAL: 'The deal was already closed',
  DEAL_STALLED: 'The deal had gone dark',
  NOT_HUMAN_TRACK: 'The deal was not on the human track',
  GIG_NOT_CLAIMED: 'The gig was not claimed',
  GIG_NOT_OPEN: 'The gig was not open',
  GIG_NOT_ACTIVE: 'The gig was no longer active',
  GIG_CLAIMED: 'The gig was already claimed',
  GIG_NOT_NURTURER: 'Not a nurturer’s gig',
  NOT_CLAIMANT: 'Not the gig’s claimant',
};

/** A refusal code in words: `GATE_BELOW_FLOOR` → `Below the floor`; an unknown one made readable. */
export function refusalCodeWords(code: string): string {
  const known = REFUSAL_CODE_WORDS[code];
  if (known) return known;
  const words = code.toLowerCase().replaceAll('_', ' ');
  return words[0].toUpperCase() + words.slice(1);
}

/** Who proposes: the agent, or a person (a closer through a gig, or the Seller's own). */
// D-65: humans are the closers and, in keys mode, the Seller's own people.
export const EXECUTOR_WORDS = { agent: 'The agent', human: 'People' } as const;

/** What a proposal proposed, in words: `Close won at $70,000`, `Move to Qualified`, `Revive the deal`. */
export function proposedWords(proposal: { advanceTo?: string; valueUsd?: number }): string {
  const { advanceTo, valueUsd } = proposal;
  const at = valueUsd === undefined ? '' : ` at ${money(valueUsd)}`;
  if (advanceTo === undefined) return valueUsd === undefined ? 'Revive the deal' : `Move it on${at}`;
  if (advanceTo === 'closed_won') return `Close won${valueUsd === undefined ? ' (no value given)' : at}`;
  if (advanceTo === 'closed_lost') return `Close lost${at}`;
  return `Move to ${stageLabel(advanceTo)}${at}`;
}

/** The share of proposals the gate refused: `25%`, or `—` when nothing was proposed. */
export function refusalRate(accepted: number, refused: number): string {
  const all = accepted + refused;
  return all === 0 ? '—' : percent(Math.round((refused / all) * 1000) / 1000);
}
