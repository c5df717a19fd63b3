// A PostgreSQL server of the test's own (its own data folder and port), for the tests that stop,
// crash and restart the server under load: the shared server of TEST_DATABASE_URL serves the
// other test files at the same time and must not go away. Built from the installed server's
// binaries (Debian's postgresql package: .ci/start-postgres installs it); run as the `postgres`
// user when the tests run as root, since the server refuses to run as root.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { inCi } from './postgres.ts';
import { freePort } from './receiver.ts';

function binDir(): string | undefined {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(join(dir, 'initdb'))) return dir;
  } catch {
    // pg_config is not on the PATH: look where Debian puts the binaries
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
}

export interface OwnPostgres {
  url: string;
  start(): void;
  /** `fast`: a clean shutdown; `immediate`: as a crash (recovery from the WAL at the next start). */
  stop(mode?: 'fast' | 'immediate'): void;
  destroy(): void;
}

/** The reason these tests cannot run here, or undefined (never in CI: there it throws). */
export function ownPostgresSkip(): string | undefined {
  let reason: string | undefined;
  if (!binDir()) reason = 'no PostgreSQL server binaries (initdb, pg_ctl) are installed';
  else if (userInfo().uid === 0 && spawnSync('id', ['postgres']).status !== 0) {
    reason = 'running as root, and there is no postgres user to run a server as';
  }
  if (reason && inCi()) throw new Error(`the PostgreSQL outage tests must run in CI, but ${reason}`);
  return reason;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = binDir() as string;
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'own-postgres-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    const result = spawnSync(command, argv, { encoding: 'utf8', cwd: dir });
    if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  };
  run('initdb', ['-D', data, '--auth=trust', '--username=pipeline', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=100`;
  const server: OwnPostgres = {
    url: `postgres://pipeline@127.0.0.1:${port}/postgres`,
    start: () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']),
    stop: (mode = 'fast') => run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']),
    destroy: () => {
      try {
        server.stop('immediate');
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  server.start();
  return server;
}
