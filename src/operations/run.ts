// What both doors do with an operation's request, so that they do it alike: how a write runs
// (its mode: dry, keyed or plain), what identifies it under a key, and how its result is answered.
import type { IdKind } from '../domain/ids.ts';
import { type Execution, type Mode, PLAIN, type Rendering } from '../service/execute.ts';
import { fingerprint } from '../service/idempotency.ts';
import type { DryRunOutcome } from '../service/outcomes.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import type { Result } from '../service/result.ts';
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
  return { kind: 'keyed', key, fingerprint: fingerprint(op.id, call.id === '' ? [] : [call.id], call.body) };
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

/** Runs a write as `mode` says. */
export async function runWrite(
  service: PipelineService,
  op: WriteOperation,
  call: Call,
  mode: Mode,
  rendering: Rendering<unknown>,
): Promise<Execution> {
  const command = op.command(service, call);
  // Most commands are made at once; only a webhook's waits (its URL is checked first).
  return service.runner.execute(command instanceof Promise ? await command : command, mode, rendering);
}

/** One page of a list (D-39): its records after the cursor's id, and the next cursor. */
export function readListPage(
  service: PipelineService,
  op: PageOperation,
  query: { limit?: number; cursor?: string } & Record<string, unknown>,
): Promise<Page<unknown>> {
  const { limit, cursor, ...filter } = query;
  return readPage(
    op.idKind as IdKind,
    { limit, cursor },
    (afterId, max) => op.fetch(service, filter, afterId, max),
    op.idOf,
  );
}
