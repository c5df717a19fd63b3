// How the simulation sends a proposal, one of D-61's three (an agent's deal advance, a closer's
// gig advance or revival): mostly plainly, now and then as a dry run (D-48), under an
// idempotency key and then sent again (D-37), or naming the deal's version, current or stale
// (D-47). The mode decides what the refusal must leave: a dry run's and a stale If-Match's
// nothing, a replay nothing more than the first answer did.
import type { Caller } from '../domain/access.ts';
import type { Snapshot } from '../domain/invariants.ts';
import type { Executor, ProposedMove } from '../domain/proposals.ts';
import type { IfMatch } from '../domain/version.ts';
import type { Execution, Mode, Rendering } from '../service/execute.ts';
import { type Answer, fingerprint, isStoredStatus, type RenderedAnswer } from '../service/idempotency.ts';
import type { Result } from '../service/result.ts';
import type { UnitCommand } from '../service/unit-command.ts';
import { statusOf } from '../views/errors.ts';
import type { ProposalMode, World } from './world.ts';

/** The mode of a proposal, from one roll of the dice. */
export function modeOf(roll: number): ProposalMode {
  if (roll < 0.08) return 'dry';
  if (roll < 0.18) return 'keyed';
  if (roll < 0.24) return 'stale';
  if (roll < 0.28) return 'if-match';
  return 'plain';
}

/** Only the fields a proposal wrote (as src/domain/proposals.ts keeps them). */
export function moveOf(input: { advanceTo?: string; valueUsd?: number; note?: string }): ProposedMove {
  const move: { advanceTo?: string; valueUsd?: number; note?: string } = {};
  if (input.advanceTo !== undefined) move.advanceTo = input.advanceTo;
  if (input.valueUsd !== undefined) move.valueUsd = input.valueUsd;
  if (input.note !== undefined) move.note = input.note;
  return move;
}

/** The version of a deal as the step found it (undefined: no such deal). */
export const versionOf = (s: Snapshot, dealId: string | undefined) => s.deals.find((d) => d.id === dealId)?.version;

// The result itself is the body: the simulation reads back what the service answered.
const asAnswer = (result: Result<unknown>): Answer => ({
  status: result.ok ? 200 : statusOf(result.refusal),
  body: result,
});
const RENDERING: Rendering<unknown> = {
  answer: asAnswer,
  dry: asAnswer,
  bytes: (answer) => ({
    status: answer.status,
    body: JSON.stringify(answer.body, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)),
  }),
};

/** D-57: a closer's unit runs as the platform, a Seller's and the operator's as themselves (operations/run.ts). */
const unitPrincipal = (caller: Caller | undefined) => (caller?.kind === 'closer' ? undefined : caller?.principal);

export interface Proposal {
  /** The operation (its id in the table: the fingerprint's). */
  op: string;
  by: Executor;
  /** The deal advanced, or the gig moved. */
  dealId?: string;
  gigId?: string;
  /** The body as the door would parse it (the fingerprint's). */
  body: { advanceTo?: string; valueUsd?: number; note?: string };
  mode: ProposalMode;
  /** The deal's version before the step (undefined: no such deal). */
  version: number | undefined;
  /** Keyed: whether the proposal is sent again under its key. */
  again: boolean;
}

/**
 * Sends a proposal as its mode says and answers the result the service gave. A keyed one sent
 * again must be answered the same bytes without running again (a status a key stores), or run
 * again to the same answer (one it does not).
 */
export async function send(
  world: World,
  p: Proposal,
  caller: Caller | undefined,
  command: (ifMatch: IfMatch | undefined) => UnitCommand<unknown> | Promise<UnitCommand<unknown>>,
): Promise<Result<unknown>> {
  world.propose({
    by: p.by,
    ...(p.dealId !== undefined ? { dealId: p.dealId } : {}),
    ...(p.gigId !== undefined ? { gigId: p.gigId } : {}),
    proposal: moveOf(p.body),
    mode: p.mode,
  });
  const service = world.service;
  switch (p.mode) {
    case 'plain':
      return service.run(command(undefined));
    case 'if-match':
      return service.run(command(p.version ?? '*'));
    case 'stale':
      return service.run(command((p.version ?? 1) - 1));
    case 'dry': {
      const execution = await service.runner.execute(await command(undefined), { kind: 'dry' }, RENDERING);
      return (execution as { answer: Answer }).answer.body as Result<unknown>;
    }
    case 'keyed': {
      const id = p.gigId ?? p.dealId ?? '';
      const mode: Mode = {
        kind: 'keyed',
        key: world.idempotencyKey(),
        fingerprint: fingerprint(p.op, [id], p.body),
        ...(caller ? { owner: caller.principal } : {}),
      };
      const run = async () => service.runner.execute(await command(undefined), mode, RENDERING, unitPrincipal(caller));
      const first = storedOf(await run());
      if (p.again) {
        const again = await run();
        world.report.proposals.replays++;
        const expected = isStoredStatus(first.status) ? 'replayed' : 'answered';
        const answer = storedOf(again);
        if (again.kind !== expected || answer.status !== first.status || answer.body !== first.body)
          world.found.push({
            invariant: 'proposals',
            message: `${p.op} on ${id} sent again under its key was ${again.kind} ${answer.status} ${answer.body.slice(0, 200)}, not ${expected} ${first.status} ${first.body.slice(0, 200)}`,
            ids: [id],
          });
      }
      return JSON.parse(first.body) as Result<unknown>;
    }
  }
}

/** The bytes an execution answered (a keyed run's stored or replayed answer). */
function storedOf(execution: Execution): RenderedAnswer {
  if (execution.kind === 'replayed') return execution.answer;
  if (execution.kind === 'answered' && execution.stored) return execution.stored;
  throw new Error(`a keyed proposal answered ${execution.kind}`);
}
