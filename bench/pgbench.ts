// The reference row of `npm run bench -- --store postgres`: PostgreSQL's own pgbench
// running TPC-B (five statements in one transaction: three updates, a select and an insert) on
// the same server with the same number of clients, so that each scenario can be read as a ratio
// to what this server does for a simple transactional client on this machine. Its tables
// (pgbench_*) live in a schema of their own, dropped afterwards.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { childrenCpuMs, postgresCpuMs } from './proc-cpu.ts';

const run = promisify(execFile);

export interface PgbenchFigure {
  transactionsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  transactions: number;
  /** CPU per transaction of a server on this machine and of pgbench itself, in µs (bench/proc-cpu.ts). */
  postgresCpuUsPerTransaction?: number;
  clientCpuUsPerTransaction?: number;
}

/** The URL with the schema first on the search_path (pgbench has no schema option of its own). */
function withSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

/** pgbench's environment from the URL (it takes a conninfo, but not every libpq accepts URLs' options). */
function libpqEnv(url: string): Record<string, string> {
  const parsed = new URL(url);
  return {
    // `?host=/var/run/postgresql` (a Unix socket's folder, as node-postgres reads it) wins over the host part.
    PGHOST: parsed.searchParams.get('host') ?? parsed.hostname,
    PGPORT: parsed.port || '5432',
    PGUSER: decodeURIComponent(parsed.username),
    PGPASSWORD: decodeURIComponent(parsed.password),
    PGDATABASE: parsed.pathname.slice(1),
    PGOPTIONS: parsed.searchParams.get('options') ?? '',
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Whether pgbench is on the PATH. */
export async function hasPgbench(): Promise<boolean> {
  try {
    await run('pgbench', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/** TPC-B at scale 10 for `seconds` with `clients` clients (and two threads, this machine's cores). */
export async function pgbenchTpcB(url: string, clients: number, seconds: number): Promise<PgbenchFigure> {
  const schema = `bench_pgbench_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const logDir = mkdtempSync(join(tmpdir(), 'pgbench-'));
  try {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
    const env = { ...process.env, ...libpqEnv(withSchema(url, schema)) };
    await run('pgbench', ['-i', '-q', '-s', '10'], { env });
    const postgresBefore = postgresCpuMs();
    const clientBefore = childrenCpuMs();
    const { stdout } = await run(
      'pgbench',
      [
        '-n',
        '-c',
        String(clients),
        '-j',
        String(Math.min(2, clients)),
        '-T',
        String(seconds),
        '-l',
        '--log-prefix',
        join(logDir, 'tx'),
      ],
      { env },
    );
    const postgresAfter = postgresCpuMs();
    const clientAfter = childrenCpuMs();
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
    if (!tps) throw new Error(`pgbench printed no tps:\n${stdout}`);
    // Each log line: client, transaction number, latency in µs, script, epoch s, µs.
    const latencies: number[] = [];
    for (const file of readdirSync(logDir)) {
      for (const line of readFileSync(join(logDir, file), 'utf8').split('\n')) {
        const fields = line.split(' ');
        if (fields.length >= 3) latencies.push(Number(fields[2]) / 1000);
      }
    }
    latencies.sort((a, b) => a - b);
    return {
      transactionsPerSecond: Math.round(Number(tps[1])),
      p50Ms: Math.round(percentile(latencies, 50) * 100) / 100,
      p99Ms: Math.round(percentile(latencies, 99) * 100) / 100,
      transactions: latencies.length,
      ...(postgresBefore !== undefined && postgresAfter !== undefined && latencies.length > 0
        ? { postgresCpuUsPerTransaction: Math.round(((postgresAfter - postgresBefore) * 1000) / latencies.length) }
        : {}),
      ...(clientBefore !== undefined && clientAfter !== undefined && latencies.length > 0
        ? { clientCpuUsPerTransaction: Math.round(((clientAfter - clientBefore) * 1000) / latencies.length) }
        : {}),
    };
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
    rmSync(logDir, { recursive: true, force: true });
  }
}
