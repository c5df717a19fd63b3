// What both doors do with an operation's request, so that they do it alike: how a write runs
// (its mode: dry, keyed or plain), what identifies it under a key, and how its result is answered.
import type { Caller } from '../domain/access.ts';
import { type Execution, type Mode, PLAIN, type Rendering } from '../service/execute.ts';
import { fingerprint } from '../service/idempotency.ts';
import type { DryRunOutcome } from '../service/outcomes.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import type { Result } from '../service/result.ts';
import { fail, RefusedError } from '../service/result.ts';
import { dryRunAnswer, rendered, type WriteAnswers } from '../views/answers.ts';
import type { DryRunnable } from '../views/dry-run.ts';
import { type Page, readPage } from '../views/page.ts';
import type { Call, PageOperation, WriteOperation } from './operation.ts';

const DRY: Mode = { kind: 'dry' };

/**
 * The mode a write runs in: a dry run when asked of a write that has one (a key is then
 * ignored: a dry run stores nothing and is safe to repeat), keyed under a key, else plain.
 * One key means one request whichever door it came through (idempotency.ts, fingerprint).
 */
export function modeOf(op: WriteOperation, call: Call, key: string | undefined, dryRun: boolean): Mode {
  if (dryRun && op.dryRunnable) return DRY;
  if (key === undefined) return PLAIN;
  const print = fingerprint(op.id, call.id === '' ? [] : [call.id], call.body);
  // D-54: a key is its caller's own: another principal's same key is another request.
  if (call.caller !== undefined) return { kind: 'keyed', key, fingerprint: print, owner: call.caller.principal };
  return { kind: 'keyed', key, fingerprint: print };
}

/** Each write's rendering, made once per door (the answers depend on the deal prefix). */
export function renderings(answers: WriteAnswers) {
  const made = new Map<string, Rendering<unknown>>();
  return (op: WriteOperation): Rendering<unknown> => {
    let rendering = made.get(op.id);
    if (!rendering) {
      const answer = op.answer(answers);
      rendering = {
        answer,
        bytes: rendered,
        ...(op.dryRunnable
          ? { dry: (result) => dryRunAnswer(result as Result<DryRunOutcome<DryRunnable>>, answer) }
          : {}),
      };
      made.set(op.id, rendering);
    }
    return rendering;
  };
}

/**
 * D-57: whom a write's unit of work runs for in the store. A closer's runs as the platform: its
 * move must see every gig of its deal (a closer's row-level wall shows it only the open ones and
 * its own), and the service has checked it may act on the gig (steps.ts) before anything is
 * decided. A Seller's and the operator's run as themselves.
 */
const unitPrincipal = (call: Call) => (call.caller?.kind === 'closer' ? undefined : call.caller?.principal);

/** Runs a write as `mode` says. */
export async function runWrite(
  service: PipelineService,
  op: WriteOperation,
  call: Call,
  mode: Mode,
  rendering: Rendering<unknown>,
): Promise<Execution> {
  let command: ReturnType<WriteOperation['command']>;
  try {
    command = op.command(service, call);
  } catch (error) {
    // A request refused before any unit of work (a closer's key naming another closer).
    if (error instanceof RefusedError) return { kind: 'answered', answer: rendering.answer(fail(error.refusal)) };
    throw error;
  }
  // Most commands are made at once; only a webhook's waits (its URL is checked first).
  return service.runner.execute(
    command instanceof Promise ? await command : command,
    mode,
    rendering,
    unitPrincipal(call),
  );
}

/** One page of a list (D-39): its records after the cursor's id, and the next cursor; `id` the path's. */
export function readListPage(
  service: PipelineService,
  op: PageOperation,
  query: { limit?: number; cursor?: string } & Record<string, unknown>,
  caller: Caller | undefined,
  id = '',
): Promise<Page<unknown>> {
  const { limit, cursor, ...filter } = query;
  return readPage(
    op.idKind,
    { limit, cursor },
    (afterId, max) => op.fetch(service, filter, afterId, max, caller, id),
    op.idOf,
  );
}
