// The moves a deal's page offers (D-48, D-229): which advances a person may propose from the
// deal's stage, what the gate would say of each (a dry run), and what a move did or why it was
// refused, in words. A move the proposing key's policy held (202, D-69) says so: nothing moved.
import { GONE_DARK, nextStage, owningRole, type Role, type Stage } from '../src/domain/stages.ts';
import { CONSOLE_NOTE } from './activity-words.ts';
import { type ApiError, api, type Deal, type DryRun, type Escalation, type Gig, type Held, ifMatch } from './api.ts';
import { heldWords } from './approval-words.ts';
import { type Verdict, verdictOf } from './dry-runs.ts';
import { errorWords } from './error-words.ts';
import { limitsWords } from './policy-words.ts';
import { gigName, humanize, money, stageLabel } from './words.ts';

export type Proposal = { advanceTo: Stage; valueUsd?: number; note?: string };
export type Move = { label: string; proposal: Proposal; needsValue?: boolean; asksReason?: boolean };

/** Whether the role that owns the deal now is a human's (staffing.ts's needsHuman, in USD). */
function needsHuman(deal: Deal): Role | undefined {
  const role = owningRole(deal);
  if (deal.humanTrack === true || role === 'nurturer') return role;
  const rule = deal.mandate.staffing[role];
  if (rule === 'human') return role;
  if (rule === 'agent') return undefined;
  const { minDealSizeUsd, signals } = rule.humanIf;
  if (minDealSizeUsd !== undefined && deal.listValueUsd >= minDealSizeUsd) return role;
  return signals?.some((s) => deal.signals.includes(s)) ? role : undefined;
}

/**
 * The advances a person may propose from a stage: the next one (a close needs a value), and
 * closed_lost. When the owning role is a human's, the advance posts (or names) a gig for that
 * role instead of moving the deal, and is labelled for that.
 */
export function possibleMoves(deal: Deal): Move[] {
  if (deal.stage === 'closed_won' || deal.stage === 'closed_lost') return [];
  const next = nextStage(deal.stage);
  const moves: Move[] = [];
  const human = needsHuman(deal);
  const note = CONSOLE_NOTE;
  if (human) {
    const label = deal.signals.includes(GONE_DARK)
      ? `Ask a human ${human} to revive it`
      : `Ask a human ${human} to take it`;
    moves.push({ label, proposal: next ? { advanceTo: next, note } : { advanceTo: 'closed_lost', note } });
  } else if (next === 'closed_won')
    moves.push({ label: 'Close won', proposal: { advanceTo: 'closed_won', note }, needsValue: true });
  else if (next) moves.push({ label: `Advance to ${stageLabel(next)}`, proposal: { advanceTo: next, note } });
  moves.push({ label: 'Close lost', proposal: { advanceTo: 'closed_lost', note }, asksReason: true });
  return moves;
}

const activeGig = (gigs: readonly Gig[]) => gigs.find((g) => g.status === 'open' || g.status === 'claimed');

/** What the gate would do with a proposal on the deal as the page shows it (a dry run). */
export async function dryRunMove(
  deal: Deal,
  proposal: Proposal,
  gigs: readonly Gig[],
  closer: (id: string) => string,
): Promise<Verdict> {
  const closingLost = proposal.advanceTo === 'closed_lost';
  const answer = await api.POST('/pipeline/deals/{id}/advance', {
    params: { path: { id: deal.id }, query: { dryRun: true }, header: ifMatch(deal) },
    body: proposal,
  });
  const dry = answer.data as DryRun | undefined;
  // D-71: through a key with a policy, a move the policy would hold stays offered (made, it is held
  // and the page says so), and one it would refuse is not. Either way the dry run's deal is the
  // deal as it is, which below would read as the human track's sign.
  if (dry?.policy?.outcome === 'hold') return { ok: true };
  if (dry?.policy?.outcome === 'refuse')
    return { ok: false, reason: `The key’s policy refuses this move: ${limitsWords(dry.policy.limits)}.` };
  // On the human track the agent's advance changes nothing: the deal waits for its gig's human.
  if (dry && dry.deal.version === deal.version) {
    const gig = activeGig(gigs);
    const reason = closingLost
      ? 'A human works this deal now: to close it lost yourself, give it back to the agent first.'
      : !gig
        ? 'A human works this deal now: its closer proposes the moves from the Closer desk.'
        : gig.status === 'open'
          ? `${gigName(gig.id).replace('gig', 'Gig')} is open for a human ${gig.role}: one claims it at the Closer desk.`
          : `${closer(gig.closerId ?? '')} works this deal on ${gigName(gig.id)}: they propose its moves from the Closer desk.`;
    return { ok: false, reason };
  }
  const verdict = verdictOf(answer);
  return verdict.ok ? verdict : { ...verdict, reason: humanize(verdict.reason, closer) };
}

/** What a refusal says to the person who acted; a stale page says what the deal is now. */
export function refusalWords(error: ApiError, closer: (id: string) => string): string {
  if (error?.code === 'PRECONDITION_FAILED' && error.current) {
    return `This deal changed since you opened it: it is now at ${stageLabel(error.current.stage)}. Nothing was done; the page shows it as it is now.`;
  }
  return errorWords(error, closer);
}

/** What a committed move did, in words; or that the key's policy held it. */
export function doneWords(before: Deal, answer: Deal | Escalation | Held, gigs: readonly Gig[]): string {
  if ('approval' in answer) return heldWords(answer.approval);
  if ('escalated' in answer) {
    const { gig } = answer;
    const name = gigName(gig.id);
    return gigs.some((g) => g.id === gig.id)
      ? `${name[0].toUpperCase()}${name.slice(1)} is already waiting for a ${gig.role}.`
      : `Posted ${name} for a ${gig.role}.`;
  }
  if (answer.stage === 'closed_won') return `Closed won at ${money(answer.finalValueUsd ?? 0)}.`;
  if (answer.stage === 'closed_lost') return 'Closed lost.';
  if (answer.stage !== before.stage) return `Moved to ${stageLabel(answer.stage)}.`;
  return 'Done.';
}
