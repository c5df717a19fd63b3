// The project runs on Node 22 or later whatever Node the machine has: the npm registry's `node`
// package (a dependency, its binary in node_modules/node) is the runtime. npm puts it first on
// the PATH of every npm script (`npm start`, `npm test`); a script run straight with an older
// `node` (`node scripts/run-tests.mjs`, `./bin/sales-pipeline-gate.mjs`) runs itself again on it.
// Whatever the script then spawns uses process.execPath, so that Node too.
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The oldest Node major the project runs on (package.json's engines). */
export const OLDEST_MAJOR = 22;

const PACKAGE = new URL('../node_modules/node/', import.meta.url);

/** The `node` package's binary, or undefined when it is not installed. */
export function projectNode() {
  try {
    // Its package.json names the binary (bin/node; bin/node.exe once installed on Windows).
    const { bin } = JSON.parse(readFileSync(new URL('package.json', PACKAGE), 'utf8'));
    const path = fileURLToPath(new URL(typeof bin === 'string' ? bin : bin.node, PACKAGE));
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

/**
 * Returns at once on Node 22 or later. On an older Node, runs the same script with the same
 * arguments on the project's Node, passes SIGINT and SIGTERM on, and exits as it did.
 */
export async function onSupportedNode() {
  if (Number(process.versions.node.split('.')[0]) >= OLDEST_MAJOR) return;
  const node = projectNode();
  if (node === undefined) {
    process.stderr.write(
      `Node ${process.version} is not supported (${OLDEST_MAJOR} or later), and the project's own ` +
        'Node (the `node` package) is not installed: run `npm ci` (with install scripts allowed)\n',
    );
    process.exit(1);
  }
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, forward);
  const [code, signal] = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (...outcome) => resolve(outcome));
  });
  if (signal !== null) {
    // Ended by a signal: end this process by the same one, as its parent would have seen.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
}
