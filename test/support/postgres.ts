// PostgreSQL for the tests. TEST_DATABASE_URL names a server (.ci/run starts one and sets it).
// Outside CI a test file that needs it skips, saying why, when none is reachable; in CI
// (CI=true) it fails instead, so that the PostgreSQL tests can never silently not run.
// Each user of the server gets its own schema, so test files and servers run in parallel.
// Every connection a test process opens through these helpers carries its application_name
// (TEST_APPLICATION), so that a test can count its own connections on a shared server; a suite
// that opens many stores takes their connections from one bounded pool (testPool).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { createPool } from '../../src/store/postgres/pg-database.ts';
import { describeError } from '../../src/store/postgres/sql-database.ts';

/** The application_name of every connection this process opens through these helpers. */
export const TEST_APPLICATION = `pipeline-tests-${process.pid}`;

/**
 * The connections one test pool may hold. A server shared by other users may have few slots
 * left (Debian's default max_connections is 100): a suite stays within this many, however many
 * stores it opens.
 */
export const TEST_POOL_SIZE = 8;

/** The URL with this process's application_name, unless it names one of its own. */
function tagged(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('application_name')) parsed.searchParams.set('application_name', TEST_APPLICATION);
  return parsed.toString();
}

export const inCi = () => !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

export type TestDatabase = { url: string; skip?: undefined } | { url?: undefined; skip: string };

/** The server the PostgreSQL tests use, or the reason they skip (never in CI: there it throws). */
export async function postgresForTests(): Promise<TestDatabase> {
  const url = process.env.TEST_DATABASE_URL;
  let reason: string | undefined;
  if (!url) reason = 'TEST_DATABASE_URL is not set (.ci/start-postgres prints one)';
  else {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
    } catch (error) {
      reason = `no PostgreSQL server reachable at TEST_DATABASE_URL: ${describeError(error)}`;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  if (!reason) return { url: url as string };
  if (inCi()) throw new Error(`the PostgreSQL tests must run in CI, but ${reason}`);
  console.log(`# skipping the PostgreSQL tests: ${reason}`);
  return { skip: reason };
}

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: tagged(url) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestSchema {
  name: string;
  /** The server's URL with search_path set to this schema: what a service is given. */
  url: string;
  drop(): Promise<void>;
}

let made = 0;

/** A fresh, empty schema on the test server, and a URL whose connections use it. */
export async function createTestSchema(baseUrl: string, label: string): Promise<TestSchema> {
  const name =
    `t_${label.replace(/\W/g, '_')}_${process.pid}_${++made}_${randomBytes(3).toString('hex')}`.toLowerCase();
  await admin(baseUrl, (client) => client.query(`CREATE SCHEMA "${name}"`));
  const url = new URL(tagged(baseUrl));
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    drop: () =>
      admin(baseUrl, (client) => client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`)).then(() => undefined),
  };
}

/** Runs SQL on a test schema directly (to look behind the store, or to try what it forbids). */
export function sqlOn<T>(schemaUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  return admin(schemaUrl, work);
}

/**
 * One bounded pool of connections to a test schema (its URL), configured as the store's own
 * (src/store/postgres/pg-database.ts): every store a suite opens on it with
 * `openPostgresStore(url, { pool })` shares its TEST_POOL_SIZE connections, and closing a store
 * leaves the pool open. End it when the suite is done.
 */
export function testPool(schemaUrl: string, size = TEST_POOL_SIZE): pg.Pool {
  return createPool(tagged(schemaUrl), size);
}

/** The counting loop of countConnections, run in a worker thread (CommonJS, given `pg`'s path). */
const COUNTING = `
const { parentPort, workerData } = require('node:worker_threads');
const pg = require(workerData.pg);
const client = new pg.Client({ connectionString: workerData.url, application_name: workerData.name + ' (counting)' });
let stopped = false;
let most = 0;
parentPort.once('message', () => { stopped = true; });
(async () => {
  await client.connect();
  parentPort.postMessage({ started: true });
  while (!stopped) {
    const { rows } = await client.query(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [workerData.name]);
    most = Math.max(most, rows[0].n);
    await new Promise((resolve) => setTimeout(resolve, workerData.everyMs));
  }
  await client.end();
  parentPort.postMessage({ most });
})().catch((error) => parentPort.postMessage({ error: String(error) }));
`;

/**
 * Counts, every few milliseconds until stop(), the connections this process holds on the server
 * (by TEST_APPLICATION, as the server lists them in pg_stat_activity), and answers the most seen
 * at once. It counts from a worker thread, so that its queries are no writes of this thread's
 * sockets (which some tests count) and its own connection is not counted.
 */
export async function countConnections(baseUrl: string, everyMs = 20): Promise<{ stop(): Promise<number> }> {
  const worker = new Worker(COUNTING, {
    eval: true,
    workerData: { url: baseUrl, name: TEST_APPLICATION, everyMs, pg: createRequire(import.meta.url).resolve('pg') },
  });
  const next = () =>
    new Promise<{ started?: boolean; most?: number; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  const started = await next();
  if (started.error !== undefined) throw new Error(`cannot count connections: ${started.error}`);
  return {
    async stop() {
      const done = next();
      worker.postMessage('stop');
      const { most, error } = await done;
      await worker.terminate();
      if (error !== undefined || most === undefined) throw new Error(`cannot count connections: ${error}`);
      return most;
    },
  };
}
