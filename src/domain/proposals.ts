// D-61: every proposal the gate refuses is kept. An executor (the agent on a deal, a human
// closer on a gig) only proposes; what the gate refused is a record of its own, beside the deal,
// so that a Seller can ask how its agents behave. Pure: the service writes the record in the
// unit of work that answers the refusal, and the stores keep a deal's newest KEPT_PER_DEAL.
import type { PipelineCommand } from './commands.ts';
import type { ActorRef, Deal } from './records.ts';
import { REFUSAL_KINDS, type Refusal, type RefusalCode } from './refusal.ts';
import type { Stage } from './stages.ts';

/** How many refused proposals a deal keeps (D-61): older ones are dropped, the counts stay exact. */
export const KEPT_PER_DEAL = 1000;

export type Executor = 'agent' | 'human';
export const EXECUTORS: readonly Executor[] = ['agent', 'human'];

/** What was proposed, as the proposer wrote it (valueUsd as sent: the gate may have refused it). */
export interface ProposedMove {
  readonly advanceTo?: string;
  readonly valueUsd?: number;
  readonly note?: string;
}

export interface RefusedProposal {
  /** `prop_NNNN`, numbered across all deals. */
  readonly id: string;
  readonly dealId: string;
  /** The gig a closer proposed through. */
  readonly gigId?: string;
  readonly by: Executor;
  /** D-56: the principal and key of the request (keys mode). */
  readonly actor?: ActorRef;
  readonly proposal: ProposedMove;
  /** The deal's stage when the gate refused. */
  readonly stage: Stage;
  readonly code: RefusalCode;
  /** The gate's message, word for word. */
  readonly reason: string;
  /** Platform time of the refusal, epoch ms. */
  readonly at: number;
  /** D-57: the Seller owning the deal (keys mode), never in the record's JSON. */
  readonly sellerId?: string;
}

/** A record before the store numbers it. */
export type RefusedProposalDraft = Omit<RefusedProposal, 'id'>;

/**
 * The refusals of the gate that are kept: a 409 or 422 of the decider on a proposal (below the
 * floor, an illegal move, a terminal deal, a gig not claimed or not the proposer's), and a move the
 * proposing key's policy refuses, or a held one denied or expired (D-69, D-70). An unknown
 * id (404), a bad body (400), a stale If-Match (412) and a key's refusal (401, 403) are not the
 * gate's and record nothing.
 */
export function isKeptRefusal(refusal: Refusal): boolean {
  return isKeptKind(refusal.kind, refusal.code);
}

/**
 * D-69, D-70: the conflicts of approvals answer a proposal or a decision, but no rule refused a
 * move (one waits on people, or was decided already): nothing is kept of them.
 */
const APPROVAL_CONFLICTS: ReadonlySet<string> = new Set([
  'APPROVAL_PENDING',
  'ALREADY_APPROVED',
  'APPROVAL_DECIDED',
  'APPROVAL_STALE',
]);

const isKeptKind = (kind: string, code: string) =>
  (kind === 'gate' || kind === 'conflict' || kind === 'policy') && !APPROVAL_CONFLICTS.has(code);

/** Every code a kept refusal can carry: those of the gate's kinds (the `code` filter's values). */
export const KEPT_CODES = (Object.keys(REFUSAL_KINDS) as RefusalCode[]).filter((code) =>
  isKeptKind(REFUSAL_KINDS[code], code),
);

/** What a proposal command proposes, and by whom; undefined for every other command. */
export function proposalOf(
  command: PipelineCommand,
): { by: Executor; gigId?: string; proposal: ProposedMove } | undefined {
  switch (command.type) {
    case 'AdvanceDeal':
      return { by: command.executor ?? 'agent', proposal: moveOf(command.proposal) };
    case 'AdvanceGig':
      return { by: 'human', gigId: command.gigId, proposal: moveOf(command) };
    case 'ClearGoneDark':
      // A revival proposes no stage: the deal stays where it is, woken.
      return { by: 'human', gigId: command.gigId, proposal: moveOf({ note: command.note }) };
    default:
      return undefined;
  }
}

/** Only the fields the proposer wrote: an absent one stays absent. */
function moveOf(input: ProposedMove): ProposedMove {
  const move: { advanceTo?: string; valueUsd?: number; note?: string } = {};
  if (input.advanceTo !== undefined) move.advanceTo = input.advanceTo;
  if (input.valueUsd !== undefined) move.valueUsd = input.valueUsd;
  if (input.note !== undefined) move.note = input.note;
  return move;
}

/** The record of a refusal of `command` on `deal`, or undefined when it is not one D-61 keeps. */
export function refusedProposal(
  command: PipelineCommand,
  refusal: Refusal,
  deal: Deal,
  at: number,
  actor: ActorRef | undefined,
): RefusedProposalDraft | undefined {
  const proposed = proposalOf(command);
  if (proposed === undefined || !isKeptRefusal(refusal)) return undefined;
  const record: {
    -readonly [K in keyof RefusedProposalDraft]: RefusedProposalDraft[K];
  } = {
    dealId: deal.id,
    by: proposed.by,
    proposal: proposed.proposal,
    stage: deal.stage,
    code: refusal.code,
    reason: refusal.message,
    at,
  };
  if (proposed.gigId !== undefined) record.gigId = proposed.gigId;
  if (actor !== undefined) record.actor = actor;
  if (deal.sellerId !== undefined) record.sellerId = deal.sellerId;
  return record;
}

// ── the summary ──────────────────────────────────────────────────────────────────────────────

/** D-61's summary: moves the gate committed and refused, per executor, and refusals by code. */
export interface ProposalSummary {
  accepted: Record<Executor, number>;
  refused: Record<Executor, number>;
  byCode: Partial<Record<RefusalCode, number>>;
}

export const emptySummary = (): ProposalSummary => ({
  accepted: { agent: 0, human: 0 },
  refused: { agent: 0, human: 0 },
  byCode: {},
});

/**
 * One count of a tally: refusals (or, with code undefined, accepted moves) of one executor
 * through one key. A tally of these is what a store keeps exact while records are dropped.
 */
export interface TallyLine {
  readonly by: Executor;
  /** The refusal's code; absent for an accepted move. */
  readonly code?: RefusalCode;
  readonly principal?: string;
  readonly keyId?: string;
  readonly n: number;
}

/** Adds tally lines into a summary, only those of `keyId` (and `principal`) when given. */
export function summarize(
  lines: Iterable<TallyLine>,
  only: { keyId?: string; principal?: string } = {},
  into = emptySummary(),
): ProposalSummary {
  for (const line of lines) {
    if (only.keyId !== undefined && line.keyId !== only.keyId) continue;
    if (only.principal !== undefined && line.principal !== only.principal) continue;
    if (line.code === undefined) {
      into.accepted[line.by] += line.n;
      continue;
    }
    into.refused[line.by] += line.n;
    into.byCode[line.code] = (into.byCode[line.code] ?? 0) + line.n;
  }
  return into;
}

/**
 * The accepted moves of a deal: every activity entry an executor wrote is one move the gate
 * committed for it (an advance, a close, a revival). Counted from the deal itself, so an accepted
 * move writes nothing more than it did before D-61.
 */
export function acceptedMoves(deal: Deal): TallyLine[] {
  const lines: TallyLine[] = [];
  for (const entry of deal.activity) {
    if (entry.by !== 'agent' && entry.by !== 'human') continue;
    const line: { by: Executor; principal?: string; keyId?: string; n: number } = { by: entry.by, n: 1 };
    if (entry.actor !== undefined) {
      line.principal = entry.actor.principal;
      line.keyId = entry.actor.keyId;
    }
    lines.push(line);
  }
  return lines;
}
