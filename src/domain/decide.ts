// decide(state, command, context) → events | refusal. The whole rulebook of the pipeline, one
// command at a time: a deal's rules are in decide-deal.ts, a gig's in decide-gig.ts, what they
// share in decision.ts, the gate in gate.ts. Pure: the clock and the next free ids come in
// through the context.
import type { DecisionContext, PipelineCommand } from './commands.ts';
import { editDeal } from './deal-edit.ts';
import { advanceDeal, createDeal, deescalate, reengage, reportSignals } from './decide-deal.ts';
import { advanceGig, claimGig, clearGoneDark, expireGig, releaseGig, reopenGig } from './decide-gig.ts';
import { accept, type Decision, entry, reject, withClaimedGig, withDeal, withLiveDeal } from './decision.ts';
import { refuse } from './refusal.ts';
import { GONE_DARK } from './stages.ts';
import type { PipelineState } from './state.ts';
import { versioned } from './version.ts';

export type { Decision } from './decision.ts';

/**
 * The commands whose decision may fulfil a gig (GigFulfilled), which writes the claimant's
 * Register: a unit of work deciding one locks the closers it loads (D-46); the others read them.
 */
export const MAY_FULFIL: ReadonlySet<PipelineCommand['type']> = new Set(['AdvanceGig', 'ClearGoneDark']);

export function decide(state: PipelineState, command: PipelineCommand, ctx: DecisionContext): Decision {
  const decision = decideCommand(state, command, ctx);
  return decision.ok ? versioned(state, decision) : decision;
}

function decideCommand(state: PipelineState, command: PipelineCommand, ctx: DecisionContext): Decision {
  switch (command.type) {
    case 'CreateDeal':
      return createDeal(command, ctx);
    case 'AdvanceDeal':
      return withDeal(state, command.dealId, (deal) =>
        advanceDeal(state, deal, command.proposal, ctx, command.executor ?? 'agent'),
      );
    case 'ReportSignals':
      return withLiveDeal(state, command.dealId, (deal) => reportSignals(state, deal, command.signals, 'seller', ctx));
    case 'StallDeal':
      return withLiveDeal(state, command.dealId, (deal) =>
        deal.stallDueAt !== undefined && deal.stallDueAt <= ctx.now
          ? reportSignals(state, deal, [GONE_DARK], 'platform', ctx)
          : reject(refuse.conflict('NOT_DUE', `Deal ${deal.id} is not due to stall.`)),
      );
    case 'Deescalate':
      return withLiveDeal(state, command.dealId, (deal) => deescalate(state, deal, ctx));
    case 'EditDeal':
      return withLiveDeal(state, command.dealId, (deal) => editDeal(deal, command.edit, ctx.now));
    case 'Reengage':
      return withDeal(state, command.dealId, (deal) => reengage(deal, ctx));
    case 'EnrolCloser':
      return accept([
        {
          type: 'CloserEnrolled',
          closer: {
            id: ctx.nextIds.closer,
            name: command.name,
            industries: [...command.industries],
            record: { gigs: 0, wins: 0, grossClosedCents: 0n },
            enrolledAt: ctx.now,
          },
        },
      ]);
    case 'ClaimGig':
      return claimGig(state, command.gigId, command.closerId, ctx);
    case 'AdvanceGig':
      return withClaimedGig(state, command.gigId, command.closerId, (gig, deal) => advanceGig(gig, deal, command, ctx));
    case 'ClearGoneDark':
      return clearGoneDark(state, command, ctx);
    case 'ReleaseGig':
      return releaseGig(state, command.gigId, command.closerId, ctx);
    case 'ReopenGig':
      return reopenGig(state, command.gigId, command.platform, ctx);
    case 'ExpireGig':
      return expireGig(state, command.gigId, ctx);
    case 'RecordRefund':
      // D-81: only a won deal is refunded; the entry changes its version, and nothing else of it.
      return withDeal(state, command.dealId, (deal) =>
        deal.stage === 'closed_won'
          ? accept([entry(deal, 'service', command.note, ctx.now, false)])
          : reject(
              refuse.conflict(
                'DEAL_NOT_CLOSED_WON',
                `Deal ${deal.id} is ${deal.stage}; only a closed_won deal is refunded.`,
              ),
            ),
      );
  }
}
