// Given/when/then for the decider (the Emmett style): given past events, when a command, then
// the events decided, in full (then), or the refusal (thenRefused).
import assert from 'node:assert/strict';
import type { DecisionContext, PipelineCommand } from '../../src/domain/commands.ts';
import { type Decision, decide } from '../../src/domain/decide.ts';
import type { PipelineEvent } from '../../src/domain/events.ts';
import type { Refusal, RefusalCode, RefusalKind } from '../../src/domain/refusal.ts';
import type { Role } from '../../src/domain/stages.ts';
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

export interface ThenOptions {
  /**
   * Compare the whole list as decide() returns it, the DealVersioned bookkeeping at its end
   * included (D-47). Without it both sides are compared without DealVersioned, as events() gives
   * them: the version is one rule, held once in test/domain/versions.test.ts, not in every test.
   */
  withVersions?: boolean;
  /**
   * The escalation shape the decision answers with (D-11): the role and its active gig, part of
   * the decision beside its events. Without it, then() asserts the decision has none.
   */
  escalation?: { role: Role; gigId: string };
}

export interface Then {
  decision: Decision;
  /**
   * The decided events are exactly `expected`, in order (a deep, strict equality); fails if
   * refused, naming the refusal. This is how a test of what a command decides ends.
   */
  then(expected: readonly PipelineEvent[], options?: ThenOptions): void;
  /** Asserts a refusal of this kind (and code, if given) and returns it, for its message. */
  thenRefused(kind: RefusalKind, code?: RefusalCode): Refusal;
  /** The events decided, without DealVersioned (see ThenOptions); fails if refused. */
  events(): PipelineEvent[];
  /** The DealVersioned events that end the decision. */
  versions(): PipelineEvent[];
  /** The state after the decided events: for what evolve makes of them. */
  state(): PipelineState;
}

const isVersion = (event: PipelineEvent) => event.type === 'DealVersioned';

export function given(...history: PipelineEvent[]): Spec {
  const state = evolveAll(initialState(), history);
  return {
    state,
    when(command, ctx) {
      const decision = decide(state, command, context(ctx));
      const accepted = (): PipelineEvent[] => {
        assert.ok(decision.ok, `expected events, got refusal ${decision.ok ? '' : JSON.stringify(decision.refusal)}`);
        return decision.events;
      };
      return {
        decision,
        // biome-ignore lint/suspicious/noThenProperty: then() is the decider spec's own word (Emmett's given/when/then); a Then is never awaited, and one that is fails at once, below.
        then(expected, options = {}) {
          assert.ok(Array.isArray(expected), 'then() takes the expected events; a Then is not a promise to await');
          const decided = accepted();
          assert.deepEqual(decision.ok && decision.escalation, options.escalation, 'the escalation answered');
          if (options.withVersions) return assert.deepEqual(decided, expected);
          assert.ok(!expected.some(isVersion), 'expected lists DealVersioned: compare it { withVersions: true }');
          assert.deepEqual(
            decided.filter((e) => !isVersion(e)),
            expected,
          );
        },
        thenRefused(kind, code) {
          assert.ok(
            !decision.ok,
            `expected a ${kind} refusal, got events ${JSON.stringify(decision.ok && decision.events, bigints)}`,
          );
          assert.equal(decision.refusal.kind, kind, decision.refusal.message);
          if (code) assert.equal(decision.refusal.code, code);
          return decision.refusal;
        },
        events() {
          return accepted().filter((e) => !isVersion(e));
        },
        versions() {
          return accepted().filter(isVersion);
        },
        state() {
          return evolveAll(state, accepted());
        },
      };
    },
  };
}

/** JSON.stringify cannot write a bigint (a closer's Register holds one). */
function bigints(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}
