// A small builder for the domain tests: it drives decide() command by command, keeps the
// events as history (for given(...)), a clock and the id counters, so a test can say
// "a deal at negotiation with a claimed closer gig" in a line and then state its when/then.
import assert from 'node:assert/strict';
import type { DecisionContext, PipelineCommand, ProposalInput } from '../../src/domain/commands.ts';
import { type Decision, decide } from '../../src/domain/decide.ts';
import type { PipelineEvent } from '../../src/domain/events.ts';
import { WRITES } from '../../src/domain/events.ts';
import { formatId } from '../../src/domain/ids.ts';
import type { Actor, Closer, Deal, Gig } from '../../src/domain/records.ts';
import type { Stage } from '../../src/domain/stages.ts';
import { evolveAll, initialState, type PipelineState } from '../../src/domain/state.ts';
import { context, given, HOUR, T0, type Then } from '../support/given-when-then.ts';

export { DAY, HOUR, T0 } from '../support/given-when-then.ts';

export interface DealOptions {
  listValueUsd?: number;
  actor?: Actor;
  industry?: string;
  name?: string;
  mandate?: unknown;
}

const ORDER: readonly Stage[] = ['sourced', 'qualified', 'meeting', 'proposal', 'negotiation'];

export class World {
  history: PipelineEvent[] = [];
  state: PipelineState = initialState();
  now = T0;
  private readonly used = { deal: 0, gig: 0, closer: 0 };

  /** The context the next command runs in: this world's clock and next free ids. */
  ctx(overrides: Partial<DecisionContext> = {}): DecisionContext {
    return context({
      now: this.now,
      claimTtlMs: 72 * HOUR,
      nextIds: {
        deal: formatId('deal', this.used.deal + 1),
        gig: formatId('gig', this.used.gig + 1),
        closer: formatId('closer', this.used.closer + 1),
      },
      ...overrides,
    });
  }

  /** given(history).when(command): the step under test, in this world's context. */
  when(command: PipelineCommand, overrides: Partial<DecisionContext> = {}): Then {
    return given(...this.history).when(command, this.ctx(overrides));
  }

  /** Runs a command that must be accepted and records its events as history. */
  run(command: PipelineCommand): Decision & { ok: true } {
    const decision = decide(this.state, command, this.ctx());
    assert.ok(decision.ok, `setup command ${command.type} was refused: ${decision.ok ? '' : decision.refusal.message}`);
    this.history.push(...decision.events);
    this.state = evolveAll(this.state, decision.events);
    for (const event of decision.events) {
      const { kind, creates } = WRITES[event.type];
      if (creates && kind !== 'ledger') this.used[kind]++;
    }
    return decision;
  }

  tick(ms: number): this {
    this.now += ms;
    return this;
  }

  deal(id: string): Deal {
    const deal = this.state.deals.get(id);
    assert.ok(deal, `no deal ${id}`);
    return deal;
  }

  gig(id: string): Gig {
    const gig = this.state.gigs.get(id);
    assert.ok(gig, `no gig ${id}`);
    return gig;
  }

  closer(id: string): Closer {
    const closer = this.state.closers.get(id);
    assert.ok(closer, `no closer ${id}`);
    return closer;
  }

  // ── builders ─────────────────────────────────────────────────────────────────────────────

  createDeal(options: DealOptions = {}): string {
    const decision = this.run({
      type: 'CreateDeal',
      account: {
        name: options.name ?? 'Acme Fictional Ltd',
        actor: options.actor ?? 'B2B',
        ...(options.industry === undefined ? { industry: 'saas' } : { industry: options.industry }),
      },
      listValueUsd: options.listValueUsd ?? 100_000,
      ...(options.mandate === undefined ? {} : { mandate: options.mandate }),
    });
    const created = decision.events[0];
    assert.ok(created?.type === 'DealCreated');
    return created.deal.id;
  }

  advance(dealId: string, proposal: ProposalInput = {}): Decision & { ok: true } {
    return this.run({ type: 'AdvanceDeal', dealId, proposal });
  }

  /** Lets the built-in agent advance the deal one stage at a time until it reaches `stage`. */
  agentTo(dealId: string, stage: Stage): this {
    while (this.deal(dealId).stage !== stage) {
      const from = this.deal(dealId).stage;
      assert.ok(ORDER.includes(from), `cannot walk ${dealId} from ${from} to ${stage}`);
      const decision = this.advance(dealId);
      assert.equal(decision.escalation, undefined, `the agent was expected to work ${dealId} at ${from}`);
    }
    return this;
  }

  /** An advance that must escalate; returns the gig id of the escalation shape. */
  escalate(dealId: string): string {
    const decision = this.advance(dealId);
    assert.ok(decision.escalation, `advance of ${dealId} was expected to escalate`);
    return decision.escalation.gigId;
  }

  enrol(name = 'Casey Fictional', industries: readonly string[] = ['saas']): string {
    const decision = this.run({ type: 'EnrolCloser', name, industries });
    const enrolled = decision.events[0];
    assert.ok(enrolled?.type === 'CloserEnrolled');
    return enrolled.closer.id;
  }

  claim(gigId: string, closerId: string): this {
    this.run({ type: 'ClaimGig', gigId, closerId });
    return this;
  }

  gigAdvance(gigId: string, advanceTo: string, valueUsd?: number): this {
    this.run({ type: 'AdvanceGig', gigId, advanceTo, ...(valueUsd === undefined ? {} : { valueUsd }) });
    return this;
  }

  signals(dealId: string, ...signals: string[]): this {
    this.run({ type: 'ReportSignals', dealId, signals });
    return this;
  }
}

/**
 * A deal whose closer role is staffed by a human, worked by the agent to meeting, with a
 * closer gig posted and claimed, then moved by the closer up to `stage` (meeting..negotiation).
 */
export function claimedCloserGig(stage: Stage = 'meeting', options: DealOptions = {}) {
  const w = new World();
  const closerId = w.enrol();
  const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' } }, ...options });
  w.agentTo(dealId, 'meeting');
  const gigId = w.escalate(dealId);
  w.claim(gigId, closerId);
  for (const next of ['proposal', 'negotiation'] as const) {
    if (w.deal(dealId).stage === stage) break;
    w.gigAdvance(gigId, next);
  }
  assert.equal(w.deal(dealId).stage, stage);
  return { w, dealId, gigId, closerId };
}

/** A deal staffed by a human setter at sourced, with its setter gig posted and claimed. */
export function claimedSetterGig(options: DealOptions = {}) {
  const w = new World();
  const closerId = w.enrol();
  const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } }, ...options });
  const gigId = w.escalate(dealId);
  w.claim(gigId, closerId);
  return { w, dealId, gigId, closerId };
}

/** A deal the agent worked to `stage`, then gone dark, with its nurturer gig posted and claimed. */
export function claimedNurturerGig(stage: Stage = 'proposal', options: DealOptions = {}) {
  const w = new World();
  const closerId = w.enrol('Nico Fictional', ['saas']);
  const dealId = w.createDeal(options);
  w.agentTo(dealId, stage);
  w.signals(dealId, 'gone_dark');
  const gigId = w.escalate(dealId);
  w.claim(gigId, closerId);
  return { w, dealId, gigId, closerId };
}
