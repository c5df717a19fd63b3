// The moves a page offers are dry-run (D-48) whenever what they depend on changes, so that the
// ones the gate would refuse are shown disabled with its reason. Shared by the deal page and the
// desk's claimed gigs.
import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from './api.ts';

/** What the gate would do with a move: accept it, or refuse it with its words. */
export type Verdict = { ok: true } | { ok: false; reason: string; stale?: true };

/** The verdict of a dry run's answer; `stale` when it was refused because the deal changed (412). */
export function verdictOf(answer: { data?: unknown; error?: unknown; response: Response }): Verdict {
  if (answer.data) return { ok: true };
  const error = answer.error as ApiError | undefined;
  return {
    ok: false,
    reason: error?.error ?? `HTTP ${answer.response.status}`,
    ...(error?.code === 'PRECONDITION_FAILED' ? { stale: true as const } : {}),
  };
}

/**
 * Dry-runs each move (150 ms after the last change of `inputs`, one at a time) and answers the
 * verdicts by label. With `onStale`, a round in which a dry run found the deal changed calls it
 * (the page reads the deal again, and its moves are dry-run anew) instead of showing verdicts.
 */
export function useDryRuns(
  inputs: readonly unknown[],
  moves: readonly { label: string; dryRun: () => Promise<Verdict> }[] | undefined,
  onStale?: () => void,
): Record<string, Verdict> {
  const [verdicts, setVerdicts] = useState<Record<string, Verdict>>({});
  useEffect(() => {
    if (!moves) return;
    let live = true;
    const timer = setTimeout(async () => {
      const found: Record<string, Verdict> = {};
      for (const move of moves) found[move.label] = await move.dryRun();
      if (!live) return;
      if (onStale && Object.values(found).some((v) => !v.ok && v.stale)) onStale();
      else setVerdicts(found);
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, inputs);
  return verdicts;
}
