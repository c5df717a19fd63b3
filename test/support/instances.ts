// Service instances as real processes (`npm start`'s command: node scripts/start.mjs, the
// compiled build) over one database, for the tests that race requests across instances.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { httpClient, type TestServer } from './http.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `npm start`'s arguments to node, run from the project's root. */
export const NPM_START = ['scripts/start.mjs'];

export interface Instance extends TestServer {
  process: ChildProcess;
  output: string[];
}

/**
 * Starts `npm start`'s command on a free port over the database, and waits until it listens. A
 * test schema (test/support/postgres.ts) is given with its owner's URL too, when the tests run with
 * two roles: the instance migrates as the owner (DATABASE_OWNER_URL) and serves as the other (D-77).
 */
export async function startInstance(
  database: string | { url: string; ownerUrl?: string },
  extraEnv: Record<string, string> = {},
): Promise<Instance> {
  const { url: databaseUrl, ownerUrl } =
    typeof database === 'string' ? { url: database, ownerUrl: undefined } : database;
  const child = spawn(process.execPath, NPM_START, {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      // Never one this process was started with: only the schema's own.
      DATABASE_OWNER_URL: ownerUrl ?? '',
      // The demo's semantics, which these tests exercise (keys mode is the durable default, D-50).
      AUTH: 'demo',
      PORT: '0',
      HOST: '127.0.0.1',
      // Both instances sweep the timers often, so that their sweeps overlap.
      TIMER_INTERVAL_SECONDS: '0.2',
      LOG_LEVEL: 'info',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error(`no "listening" line within 60 s:\n${output.join('')}`)), 60_000);
    const scan = (chunk: Buffer) => {
      output.push(chunk.toString());
      const found = /listening on (http:\/\/[\w.:[\]]+)/.exec(output.join(''));
      if (found) {
        clearTimeout(timeout);
        resolve(found[1]);
      }
    };
    child.stdout?.on('data', scan);
    child.stderr?.on('data', scan);
    child.once('exit', (code) => {
      clearTimeout(timeout);
      reject(new Error(`the service exited (${code}) before listening:\n${output.join('')}`));
    });
  });
  // An instance that ends before the test stops it: say why, with everything it wrote (else a
  // dead instance shows only as "fetch failed" in the tests after it).
  child.once('exit', (code, signal) => {
    if (!stopping.has(child)) {
      process.stderr.write(
        `\n[multi-instance] an instance exited unasked (code ${code}, signal ${signal}):\n${output.join('')}\n`,
      );
    }
  });
  return {
    ...httpClient(url),
    url,
    prefix: '/pipeline',
    server: undefined as never,
    process: child,
    output,
    close: () => stopInstance(child),
  };
}

/** The instances being stopped by the test (any other exit is reported). */
const stopping = new Set<ChildProcess>();

export async function stopInstance(child: ChildProcess): Promise<void> {
  stopping.add(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Kills the instance at once (SIGKILL: no shutdown of any kind, as a crash) and waits for its exit. */
export async function killInstance(child: ChildProcess): Promise<void> {
  stopping.add(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * `npm start`'s command on a PGlite folder, for a test that expects it to refuse: its exit code
 * and what it wrote. Should it start after all, it is stopped once it listens (and the test sees
 * the code of a stop, not a refusal); one that hangs is killed after a minute.
 */
export async function startOnFolder(dir: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, NPM_START, {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: `pglite:${dir}`,
      AUTH: 'demo',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  child.stdout.on('data', () => output.includes('listening on') && child.kill('SIGTERM'));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, output };
}
