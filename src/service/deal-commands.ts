// The writes of the deal service: each builds one unit of work that loads what its decision
// needs, asks the pure decider through the step (steps.ts), and answers the records as they are
// after it. No HTTP here, no rules either: the rules are src/domain's.

import { actorOf, type Caller, isPerson } from '../domain/access.ts';
import type { ProposalInput } from '../domain/commands.ts';
import type { DealEdit } from '../domain/deal-edit.ts';
import type { PipelineEvent } from '../domain/events.ts';
import { formatUsd, usdToCents } from '../domain/money.ts';
import { dealValueOver, type KeyPolicy, limitsOver, type PolicyVerdict } from '../domain/policy.ts';
import { refusedProposal } from '../domain/proposals.ts';
import type { Deal } from '../domain/records.ts';
import { refuse } from '../domain/refusal.ts';
import { initialState } from '../domain/state.ts';
import type { IfMatch } from '../domain/version.ts';
import type { UnitOfWork } from '../store/store.ts';
import { escalationOf } from './closers.ts';
import { isDryRun } from './dry-run.ts';
import { hold, overWords } from './holds.ts';
import {
  countClose,
  dryVerdict,
  type KeyBounds,
  keyBounds,
  policyGuard,
  type Stop,
  stoppedUnread,
} from './key-bounds.ts';
import type { AdvanceOutcome, DealInput } from './outcomes.ts';
import { RefusedError, RefusedProposalError } from './result.ts';
import type { MoveGuard } from './step.ts';
import type { Steps } from './steps.ts';
import type { UnitCommand } from './unit-command.ts';

/** The agent's advances a sell makes at most: more than the stages it can pass. */
const MAX_SELL_STEPS = 10;

/** D-51: a deal created by a Seller's key belongs to that Seller. */
const ownedBy = (caller: Caller | undefined) => (caller?.kind === 'seller' ? { sellerId: caller.principal } : {});

const isTerminal = (deal: Deal) => deal.stage === 'closed_won' || deal.stage === 'closed_lost';

/** No policy to weigh moves by: every move the gate accepts counts. */
const NO_GUARD: MoveGuard<Stop> = () => undefined;

/**
 * D-71: in a dry run through a key with a policy, every verdict the moves met, and the policy's
 * answer made of them; undefined otherwise (a real call, or no policy to weigh by).
 */
function dryWatch(uow: UnitOfWork, bounds: KeyBounds | undefined) {
  if (!isDryRun(uow) || bounds?.policy === undefined) return undefined;
  const verdicts: PolicyVerdict[] = [];
  return {
    seen: (verdict: PolicyVerdict) => {
      verdicts.push(verdict);
    },
    verdict: (stop: Stop | undefined) => dryVerdict(verdicts, stop),
  };
}

/** D-68: a key never acts on a deal above its maxDealValueUsd, a create or sell included. */
function withinDealValue(caller: Caller | undefined, input: DealInput): void {
  const over = dealValueOver(caller?.policy, usdToCents(input.listValueUsd));
  if (over === undefined) return;
  throw new RefusedError(
    refuse.policy(`The deal's list value is above this key's maxDealValueUsd (${formatUsd(over.allowed as number)}).`, [
      over,
    ]),
  );
}

/** D-69: the refusal of a move over its key's policy (`onLimit: refuse`, or above maxDealValueUsd). */
function policyRefusal(stop: Stop) {
  return refuse.policy(
    `The move is over this key's policy: ${overWords(stop)}. A person may change the policy; do not retry as it is.`,
    limitsOver(stop.verdict),
  );
}

export class DealCommands {
  constructor(private readonly steps: Steps) {}

  /** The caller (keys mode) is a Seller, which owns what it creates (D-51). */
  createDeal(input: DealInput, caller?: Caller): UnitCommand<Deal> {
    return {
      work: async (uow) => {
        withinDealValue(caller, input);
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
        withinDealValue(caller, input);
        const now = await this.steps.now(uow);
        const bounds = await keyBounds(uow, caller, now);
        const watch = dryWatch(uow, bounds);
        let advances = 0;
        const sold = await this.steps.weighEach(
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
          (bounds && policyGuard(bounds, [], watch?.seen)) ?? NO_GUARD,
        );
        const stop = sold.stopped;
        stoppedUnread(bounds, stop);
        const dealId = [...sold.state.deals.keys()][0] as string;
        // D-71: a dry run says what the policy would do, where the sell's moves within it leave the deal.
        if (watch !== undefined) {
          await sold.persist(this.steps.recordedAt());
          const deal = sold.state.deals.get(dealId) as Deal;
          if (stop !== undefined) return { kind: 'deal', deal, policy: watch.verdict(stop) };
          return { ...(await this.outcome(uow, sold, dealId, caller)), policy: watch.verdict(stop) };
        }
        // A sell's own advances are on a deal not yet numbered: refused, the sell creates nothing.
        if (stop?.verdict.outcome === 'refuse') throw new RefusedError(policyRefusal(stop));
        await sold.persist(this.steps.recordedAt());
        const deal = sold.state.deals.get(dealId) as Deal;
        // D-69: held, the deal stays where the sell's last move within the policy left it.
        if (stop !== undefined) return this.held(uow, stop, deal, caller as Caller, now);
        await countClose(uow, bounds, undefined, deal);
        return this.outcome(uow, sold, dealId, caller);
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
        // D-69: the gate decides first, then the key's policy weighs what it accepted.
        const bounds = await keyBounds(uow, caller, now);
        const watch = dryWatch(uow, bounds);
        const guard = (bounds && policyGuard(bounds, [], watch?.seen)) ?? NO_GUARD;
        const advanced = await this.steps.weighEach(
          uow,
          state,
          now,
          (_, first) => (first ? command : undefined),
          actorOf(caller),
          guard,
        );
        const before = state.deals.get(dealId) as Deal;
        const stop = advanced.stopped;
        stoppedUnread(bounds, stop);
        // D-71: a dry run says what the policy would do; held or refused, nothing would move.
        if (watch !== undefined) {
          if (stop !== undefined) return { kind: 'deal', deal: before, policy: watch.verdict(stop) };
          await advanced.persist(this.steps.recordedAt());
          return { ...(await this.outcome(uow, advanced, dealId, caller)), policy: watch.verdict(stop) };
        }
        if (stop?.verdict.outcome === 'refuse') {
          const refusal = policyRefusal(stop);
          const record = refusedProposal(command, refusal, before, now, actorOf(caller));
          throw record ? new RefusedProposalError(refusal, record) : new RefusedError(refusal);
        }
        if (stop !== undefined) return this.held(uow, stop, before, caller as Caller, now);
        await advanced.persist(this.steps.recordedAt());
        await countClose(uow, bounds, before, advanced.state.deals.get(dealId) as Deal);
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

  /** D-69: the stopped move held for approval; the deal as it is. */
  private async held(uow: UnitOfWork, stop: Stop, deal: Deal, caller: Caller, now: number): Promise<AdvanceOutcome> {
    const approval = await hold(uow, stop, deal, caller, caller.policy as KeyPolicy, now, this.steps.recordedAt());
    return { kind: 'held', approval, deal };
  }

  /** The deal as it is, or the escalation shape with its gig and suggested closers (D-11). */
  private async outcome(
    uow: UnitOfWork,
    decided: Pick<Awaited<ReturnType<Steps['apply']>>, 'escalation' | 'state'>,
    dealId: string,
    caller: Caller | undefined,
  ): Promise<AdvanceOutcome> {
    if (!decided.escalation) return { kind: 'deal', deal: decided.state.deals.get(dealId) as Deal };
    const { role, gigId } = decided.escalation;
    return { kind: 'escalation', escalation: await escalationOf(uow, decided.state, dealId, role, gigId, caller) };
  }
}
