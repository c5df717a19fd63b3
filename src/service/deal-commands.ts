// The writes of the deal service: each builds one unit of work that loads what its decision
// needs, asks the pure decider through the step (steps.ts), and answers the records as they are
// after it. No HTTP here, no rules either: the rules are src/domain's.

import { actorOf, type Caller, isPerson } from '../domain/access.ts';
import type { ProposalInput } from '../domain/commands.ts';
import type { DealEdit } from '../domain/deal-edit.ts';
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

/** D-51: a deal created by a Seller's key belongs to that Seller. */
const ownedBy = (caller: Caller | undefined) => (caller?.kind === 'seller' ? { sellerId: caller.principal } : {});

const isTerminal = (deal: Deal) => deal.stage === 'closed_won' || deal.stage === 'closed_lost';

export class DealCommands {
  constructor(private readonly steps: Steps) {}

  /** The caller (keys mode) is a Seller, which owns what it creates (D-51). */
  createDeal(input: DealInput, caller?: Caller): UnitCommand<Deal> {
    return {
      work: async (uow) => {
        const now = await this.steps.now(uow);
        const create = { type: 'CreateDeal' as const, ...input, ...ownedBy(caller) };
        const created = await this.steps.apply(uow, initialState(), create, now, actorOf(caller));
        return [...created.state.deals.values()][0] as Deal;
      },
    };
  }

  /**
   * Creates a deal and lets the agent advance it until it closes or escalates: one unit of
   * work, its records written once at the end.
   */
  sell(input: DealInput, caller?: Caller): UnitCommand<AdvanceOutcome> {
    return {
      work: async (uow) => {
        const now = await this.steps.now(uow);
        let advances = 0;
        const sold = await this.steps.applyEach(
          uow,
          initialState(),
          now,
          (state, first) => {
            if (first) return { type: 'CreateDeal', ...input, ...ownedBy(caller) };
            const deal = [...state.deals.values()][0] as Deal;
            if (isTerminal(deal) || advances++ === MAX_SELL_STEPS) return undefined;
            return { type: 'AdvanceDeal', dealId: deal.id, proposal: {} };
          },
          actorOf(caller),
        );
        return this.outcome(uow, sold, [...sold.state.deals.keys()][0] as string, caller);
      },
    };
  }

  advanceDeal(
    dealId: string,
    proposal: ProposalInput,
    ifMatch?: IfMatch,
    caller?: Caller,
  ): UnitCommand<AdvanceOutcome> {
    return {
      work: async (uow) => {
        const { state, now } = await this.steps.onDeal(uow, dealId, ifMatch, caller);
        // D-65: a Seller's own person is a human executor; a key is the agent.
        const executor = isPerson(caller) ? ('human' as const) : ('agent' as const);
        const command = { type: 'AdvanceDeal' as const, dealId, proposal, executor };
        const advanced = await this.steps.apply(uow, state, command, now, actorOf(caller));
        return this.outcome(uow, advanced, dealId, caller);
      },
    };
  }

  reportSignals(dealId: string, signals: readonly string[], ifMatch?: IfMatch, caller?: Caller): UnitCommand<Deal> {
    return this.onDeal(dealId, ifMatch, { type: 'ReportSignals', dealId, signals }, caller);
  }

  deescalate(dealId: string, ifMatch?: IfMatch, caller?: Caller): UnitCommand<Deal> {
    return this.onDeal(dealId, ifMatch, { type: 'Deescalate', dealId }, caller);
  }

  /** D-67: a Seller corrects the account or the list value; the answer is the deal after it. */
  editDeal(dealId: string, edit: DealEdit, ifMatch?: IfMatch, caller?: Caller): UnitCommand<Deal> {
    return this.onDeal(dealId, ifMatch, { type: 'EditDeal', dealId, edit }, caller);
  }

  /** A closed_lost deal opens a new one with lineage: the answer is the new deal. */
  reengage(dealId: string, ifMatch?: IfMatch, caller?: Caller): UnitCommand<Deal> {
    return {
      work: async (uow) => {
        const { state, now } = await this.steps.onDeal(uow, dealId, ifMatch, caller);
        const applied = await this.steps.apply(uow, state, { type: 'Reengage', dealId }, now, actorOf(caller));
        const created = applied.events.find((e) => e.type === 'DealCreated');
        return (created as Extract<PipelineEvent, { type: 'DealCreated' }>).deal;
      },
    };
  }

  private onDeal(
    dealId: string,
    ifMatch: IfMatch | undefined,
    command: Parameters<Steps['apply']>[2],
    caller: Caller | undefined,
  ): UnitCommand<Deal> {
    return {
      work: async (uow) => {
        const { state, now } = await this.steps.onDeal(uow, dealId, ifMatch, caller);
        const applied = await this.steps.apply(uow, state, command, now, actorOf(caller));
        return applied.state.deals.get(dealId) as Deal;
      },
    };
  }

  /** The deal as it is, or the escalation shape with its gig and suggested closers (D-11). */
  private async outcome(
    uow: UnitOfWork,
    decided: Awaited<ReturnType<Steps['apply']>>,
    dealId: string,
    caller: Caller | undefined,
  ): Promise<AdvanceOutcome> {
    if (!decided.escalation) return { kind: 'deal', deal: decided.state.deals.get(dealId) as Deal };
    const { role, gigId } = decided.escalation;
    return { kind: 'escalation', escalation: await escalationOf(uow, decided.state, dealId, role, gigId, caller) };
  }
}
