// The project's command line as a user runs it (bin/sales-pipeline-gate.mjs, from the clone):
// its exit code and what it wrote.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cliWith(process.env, ...args);
}

/** The command line run with this environment (keys mode's PIPELINE_KEY, say). */
export async function cliWith(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['bin/sales-pipeline-gate.mjs', ...args], {
      cwd: REPO,
      env,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
