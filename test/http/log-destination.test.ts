// The log's lines reach the reader whole and in order when the process exits, even from a reader
// slow to drain the pipe (a test runner under load): the shutdown test once saw "shut down"
// before "SIGTERM: shutting down", because the exit's synchronous flush overtook a write still
// under way. The child (test/support/log-order-child.ts) writes 3,000 lines, then exits as the
// service does; the parent does not read for 200 ms, so the pipe fills and a write waits.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = 'test/support/log-order-child.ts';

/** The child's output read late, and whether it is every line in order with "shut down" last. */
async function run(): Promise<{ whole: boolean; lines: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout.pause();
  setTimeout(() => child.stdout.resume(), 200);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const code = await new Promise((resolve) => child.once('close', resolve));
  assert.equal(code, 0);
  const lines = output.trim().split('\n');
  const parsed = lines.map((line) => {
    try {
      return JSON.parse(line) as { i?: number; msg: string };
    } catch {
      return undefined; // a line cut into by another write
    }
  });
  const whole =
    lines.length === 3001 &&
    parsed.at(-1)?.msg === 'shut down' &&
    parsed.slice(0, -1).every((line, k) => line?.i === k);
  return { whole, lines: lines.length };
}

describe('the log at exit', () => {
  it('every line, in order, "shut down" last: five exits behind a slow reader', async () => {
    for (let i = 0; i < 5; i++) {
      const result = await run();
      assert.ok(result.whole, `run ${i + 1}: ${result.lines} lines, not all in order`);
    }
  });
});
