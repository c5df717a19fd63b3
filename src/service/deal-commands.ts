// The writes of the deal service: each builds one unit of work that loads what its decision
// needs, asks the pure decider through the step (steps.ts), and answers the records as they are
// after it. No HTTP here, no rules either: the rules are src/domain's.

import type { ProposalInput } from '../domain/commands.ts';
import type { PipelineEvent } from '../domain/events.ts';
import type { Deal } from '../domain/records.ts';
import { initialState } from '../domain/state.ts';
import type { IfMatch } from '../domain/version.ts';
import type { UnitOfWork } from '../store/store.ts';
import { escalationOf } from './closers.ts';
import type { AdvanceOutcome, DealInput } from './outcomes.ts';
import type { Steps } from './steps.ts';
import type { UnitCommand } from './unit-command.ts';

/** The agent's advances a sell makes at most: more than the stages it can pass. */
const MAX_SELL_STEPS = 10;

const isTerminal = (deal: Deal) => deal.stage === 'closed_won' || deal.stage === 'closed_lost';

export class DealCommands {
  constructor(private readonly steps: Steps) {}

  createDeal(input: DealInput): UnitCommand<Deal> {
    return {
      work: async (uow) => {
        const now = await this.steps.now(uow);
        const created = await this.steps.apply(uow, initialState(), { type: 'CreateDeal', ...input }, now);
        return [...created.state.deals.values()][0] as Deal;
      },
    };
  }

  /**
   * Creates a deal and lets the agent advance it until it closes or escalates: one unit of
   * work, its records written once at the end.
   */
  sell(input: DealInput): UnitCommand<AdvanceOutcome> {
    return {
      work: async (uow) => {
        const now = await this.steps.now(uow);
        let advances = 0;
        const sold = await this.steps.applyEach(uow, initialState(), now, (state, first) => {
          if (first) return { type: 'CreateDeal', ...input };
          const deal = [...state.deals.values()][0] as Deal;
          if (isTerminal(deal) || advances++ === MAX_SELL_STEPS) return undefined;
          return { type: 'AdvanceDeal', dealId: deal.id, proposal: {} };
        });
        return this.outcome(uow, sold, [...sold.state.deals.keys()][0] as string);
      },
    };
  }

  advanceDeal(dealId: string, proposal: ProposalInput, ifMatch?: IfMatch): UnitCommand<AdvanceOutcome> {
    return {
      work: async (uow) => {
        const { state, now } = await this.steps.onDeal(uow, dealId, ifMatch);
        const advanced = await this.steps.apply(uow, state, { type: 'AdvanceDeal', dealId, proposal }, now);
        return this.outcome(uow, advanced, dealId);
      },
    };
  }

  reportSignals(dealId: string, signals: readonly string[], ifMatch?: IfMatch): UnitCommand<Deal> {
    return this.onDeal(dealId, ifMatch, { type: 'ReportSignals', dealId, signals });
  }

  deescalate(dealId: string, ifMatch?: IfMatch): UnitCommand<Deal> {
    return this.onDeal(dealId, ifMatch, { type: 'Deescalate', dealId });
  }

  /** A closed_lost deal opens a new one with lineage: the answer is the new deal. */
  reengage(dealId: string, ifMatch?: IfMatch): UnitCommand<Deal> {
    return {
      work: async (uow) => {
        const { state, now } = await this.steps.onDeal(uow, dealId, ifMatch);
        const applied = await this.steps.apply(uow, state, { type: 'Reengage', dealId }, now);
        const created = applied.events.find((e) => e.type === 'DealCreated');
        return (created as Extract<PipelineEvent, { type: 'DealCreated' }>).deal;
      },
    };
  }

  private onDeal(
    dealId: string,
    ifMatch: IfMatch | undefined,
    command: Parameters<Steps['apply']>[2],
  ): UnitCommand<Deal> {
    return {
      work: async (uow) => {
        const { state, now } = await this.steps.onDeal(uow, dealId, ifMatch);
        const applied = await this.steps.apply(uow, state, command, now);
        return applied.state.deals.get(dealId) as Deal;
      },
    };
  }

  /** The deal as it is, or the escalation shape with its gig and suggested closers (D-11). */
  private async outcome(
    uow: UnitOfWork,
    decided: Awaited<ReturnType<Steps['apply']>>,
    dealId: string,
  ): Promise<AdvanceOutcome> {
    if (!decided.escalation) return { kind: 'deal', deal: decided.state.deals.get(dealId) as Deal };
    const { role, gigId } = decided.escalation;
    return { kind: 'escalation', escalation: await escalationOf(uow, decided.state, dealId, role, gigId) };
  }
}
