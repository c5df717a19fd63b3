// Loaded by `npm run test:unit` (scripts/run-tests.mjs --unit) into every test file's process:
// the unit selection is the tests that run in-process, and this makes that a rule, not a hope. A
// test that listens on a port, opens a connection or starts a child process fails at once and
// says what it tried. Such a test belongs under test/e2e (or in the runner's list of files the
// selection leaves out, with the reason).
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

// Only in the test files' processes (node's runner marks them), not in the runner that starts them.
if (process.env.NODE_TEST_CONTEXT !== undefined) {
  const refuse = (what: string) => () => {
    throw new Error(
      `test:unit runs in-process only, and this test tried to ${what}: move it under test/e2e, ` +
        'or leave it out of the unit selection (scripts/run-tests.mjs)',
    );
  };
  net.Server.prototype.listen = refuse('listen on a port');
  net.Socket.prototype.connect = refuse('open a connection');
  const spawning = childProcess as unknown as Record<string, unknown>;
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    spawning[name] = refuse(`start a child process (${name})`);
  }
  // `import { spawn } from 'node:child_process'` reads the patched functions too.
  syncBuiltinESMExports();
}
