// PostgreSQL for the tests. TEST_DATABASE_URL names a server (.ci/run starts one and sets it).
// Outside CI a test file that needs it skips, saying why, when none is reachable; in CI
// (CI=true) it fails instead, so that the PostgreSQL tests can never silently not run.
// Each user of the server gets its own schema, so test files and servers run in parallel.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describeError } from '../../src/store/postgres/sql-database.ts';

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
  const client = new pg.Client({ connectionString: url });
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
  const url = new URL(baseUrl);
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
