// PostgreSQL for the tests. TEST_DATABASE_URL names a server (.ci/run starts one and sets it).
// D-77: with TEST_DATABASE_OWNER_URL too (`eval "$(bash .ci/start-postgres --env)"` sets both),
// the tests run as the production guide sets PostgreSQL up: the owner role creates each test's
// schema, and every service and store a test starts on it migrates as the owner (its
// DATABASE_OWNER_URL, TestSchema.ownerUrl) and serves as TEST_DATABASE_URL's role, which owns
// nothing. Without it, TEST_DATABASE_URL's role does both, as before.
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
import { createPool, PgDatabase } from '../../src/store/postgres/pg-database.ts';
import { describeError, type SqlDatabase } from '../../src/store/postgres/sql-database.ts';
import { SqlStore } from '../../src/store/postgres/sql-store.ts';
import type { Telemetry } from '../../src/telemetry.ts';

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
  /** The serving role's URL with search_path set to this schema: what a service is given (DATABASE_URL). */
  url: string;
  /**
   * D-77: the owner role's URL (TEST_DATABASE_OWNER_URL) with the same search_path: what a service
   * on the schema is given as DATABASE_OWNER_URL, and a store as `ownerUrl`. Undefined when the
   * tests run with one role.
   */
  ownerUrl?: string;
  /** Where SQL that takes the tables' owner runs (DDL, the migrations' record): ownerUrl, or url with one role. */
  adminUrl: string;
  drop(): Promise<void>;
}

let made = 0;

/** The URL with its search_path set to `schema`. */
function onSchema(url: string, schema: string): string {
  const parsed = new URL(tagged(url));
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

/** Whether two URLs name the same database of the same server. */
function sameDatabase(a: string, b: string): boolean {
  const [x, y] = [new URL(a), new URL(b)];
  return x.host === y.host && x.pathname === y.pathname && x.searchParams.get('host') === y.searchParams.get('host');
}

/**
 * TEST_DATABASE_OWNER_URL when `baseUrl` is TEST_DATABASE_URL's database (a test's own server,
 * own-postgres.ts, has one role).
 */
function ownerOf(baseUrl: string): string | undefined {
  const { TEST_DATABASE_URL: serving, TEST_DATABASE_OWNER_URL: owner } = process.env;
  return serving && owner && sameDatabase(baseUrl, serving) ? owner : undefined;
}

/**
 * A fresh, empty schema on the test server, and the URLs whose connections use it. With two roles
 * (TEST_DATABASE_OWNER_URL) the owner creates it and lets the serving role use it, as a database
 * administrator does with the schema of the production guide.
 */
export async function createTestSchema(baseUrl: string, label: string): Promise<TestSchema> {
  const ownerBaseUrl = ownerOf(baseUrl);
  const name =
    `t_${label.replace(/\W/g, '_')}_${process.pid}_${++made}_${randomBytes(3).toString('hex')}`.toLowerCase();
  const creator = ownerBaseUrl ?? baseUrl;
  try {
    await admin(creator, async (client) => {
      await client.query(`CREATE SCHEMA "${name}"`);
      const serving = decodeURIComponent(new URL(baseUrl).username);
      if (ownerBaseUrl !== undefined && serving !== '')
        await client.query(`GRANT USAGE ON SCHEMA "${name}" TO "${serving}"`);
    });
  } catch (error) {
    // .ci/start-postgres's database belongs to the owner role: the serving role alone creates nothing.
    if ((error as { code?: string }).code === '42501' && ownerBaseUrl === undefined) {
      throw new Error(
        `${describeError(error)}: TEST_DATABASE_URL's role may not create a schema; if the database is .ci/start-postgres's, set TEST_DATABASE_OWNER_URL too (eval "$(bash .ci/start-postgres --env)")`,
      );
    }
    throw error;
  }
  const url = onSchema(baseUrl, name);
  const ownerUrl = ownerBaseUrl === undefined ? undefined : onSchema(ownerBaseUrl, name);
  return {
    name,
    url,
    ownerUrl,
    adminUrl: ownerUrl ?? url,
    drop: () =>
      admin(creator, (client) => client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`)).then(() => undefined),
  };
}

/**
 * SqlStore.open on a test schema: the store's migrations run as the schema's owner when the
 * tests run with two roles (D-77), over `db` with one.
 */
export async function openSqlStore(schema: TestSchema, db: SqlDatabase, telemetry?: Telemetry): Promise<SqlStore> {
  const owner = schema.ownerUrl === undefined ? undefined : new PgDatabase(schema.ownerUrl, { poolSize: 1 });
  try {
    return await SqlStore.open(db, telemetry, { owner });
  } finally {
    await owner?.close();
  }
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
