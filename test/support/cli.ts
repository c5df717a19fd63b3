// The project's command line as a user runs it (bin/sales-pipeline-gate.mjs, from the clone):
// its exit code and what it wrote.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['bin/sales-pipeline-gate.mjs', ...args], {
      cwd: REPO,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
