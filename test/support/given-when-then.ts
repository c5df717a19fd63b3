// Given/when/then for the decider (the Emmett style): given past events, when a command,
// then the events decided, or the refusal.
import assert from 'node:assert/strict';
import type { DecisionContext, PipelineCommand } from '../../src/domain/commands.ts';
import { type Decision, decide } from '../../src/domain/decide.ts';
import type { PipelineEvent } from '../../src/domain/events.ts';
import type { RefusalKind } from '../../src/domain/refusal.ts';
import { evolveAll, initialState, type PipelineState } from '../../src/domain/state.ts';

export const T0 = Date.parse('2026-01-05T09:00:00.000Z');
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export function context(overrides: Partial<DecisionContext> = {}): DecisionContext {
  return {
    now: T0,
    claimTtlMs: 72 * HOUR,
    nextIds: { deal: 'deal_0001', gig: 'gig_0001', closer: 'closer_0001' },
    ...overrides,
  };
}

export interface Spec {
  state: PipelineState;
  when(command: PipelineCommand, ctx?: Partial<DecisionContext>): Then;
}

export interface Then {
  decision: Decision;
  /**
   * The events decided, without the version bookkeeping that ends every accepted decision
   * (DealVersioned, D-47: see versions() and test/domain/versions.test.ts); fails if refused.
   */
  events(): PipelineEvent[];
  /** The DealVersioned events that end the decision. */
  versions(): PipelineEvent[];
  /** The state after the decided events. */
  state(): PipelineState;
  /** Asserts a refusal of this kind (and code, if given) and returns it. */
  refused(kind: RefusalKind, code?: string): { code: string; message: string; violations?: readonly string[] };
}

export function given(...history: PipelineEvent[]): Spec {
  const state = evolveAll(initialState(), history);
  return {
    state,
    when(command, ctx) {
      const decision = decide(state, command, context(ctx));
      return {
        decision,
        events() {
          assert.ok(decision.ok, `expected events, got refusal ${decision.ok ? '' : JSON.stringify(decision.refusal)}`);
          return decision.events.filter((e) => e.type !== 'DealVersioned');
        },
        versions() {
          assert.ok(decision.ok, 'expected events');
          return decision.events.filter((e) => e.type === 'DealVersioned');
        },
        state() {
          assert.ok(decision.ok, 'expected events');
          return evolveAll(state, decision.events);
        },
        refused(kind, code) {
          assert.ok(
            !decision.ok,
            `expected a ${kind} refusal, got events ${JSON.stringify(decision.ok && decision.events)}`,
          );
          assert.equal(decision.refusal.kind, kind, decision.refusal.message);
          if (code) assert.equal(decision.refusal.code, code);
          return decision.refusal;
        },
      };
    },
  };
}
