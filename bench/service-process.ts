// Starts the service (or the reference server) in a process of its own for a benchmark, on a
// free loopback port.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `entry` bundled as scripts/build.mjs bundles the service, into dist/bench/. */
async function compiled(entry: string): Promise<string> {
  const outfile = `dist/bench/${basename(entry, '.ts')}.js`;
  await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return outfile;
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startServiceProcess(
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  entry = 'src/main.ts',
): Promise<ServiceProcess> {
  const port = await freePort();
  // The service runs as `npm start` runs it, compiled (scripts/start.mjs builds when stale), and
  // another entry (the bare-Fastify reference) is compiled the same way, so that both pay the
  // same runtime; BENCH_RUNTIME=tsx runs the sources through the TypeScript loader instead.
  const args =
    process.env.BENCH_RUNTIME === 'tsx'
      ? [...nodeArgs, '--import', 'tsx', entry]
      : [...nodeArgs, entry === 'src/main.ts' ? 'scripts/start.mjs' : await compiled(entry)];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    // BENCH_STDOUT=ignore sends the service's stdout (its request log) to /dev/null.
    stdio: ['ignore', env.BENCH_STDOUT === 'ignore' ? 'ignore' : 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the service did not start within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
