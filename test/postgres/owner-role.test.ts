// D-77: migrations as one role, serving as another. With DATABASE_OWNER_URL the owner role
// migrates and grants DATABASE_URL's role exactly what serving needs: that role owns no table, so
// it can neither switch row-level security off nor change a table, and the service still works
// end to end (two instances in keys mode: Sellers, a closer, the feed, streams and webhooks, and a
// demo reset). When the serving role owns the tables, the start-up logs a warning naming the risk
// and the fix. The two-role tests need .ci/start-postgres's owner role (TEST_DATABASE_OWNER_URL):
// without it they skip (in CI they fail).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type RunningServer, startServer } from '../../src/server.ts';
import { createStore } from '../../src/store/create-store.ts';
import { httpClient, type TestServer } from '../support/http.ts';
import { NPM_START } from '../support/instances.ts';
import { as, bearer, OP } from '../support/keys.ts';
import { createTestSchema, inCi, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';
import { tenantDoors } from '../support/tenant-doors.ts';

const server = await postgresForTests();
const ownerBase = process.env.TEST_DATABASE_OWNER_URL;
const twoRoles =
  server.skip ??
  (ownerBase
    ? undefined
    : 'TEST_DATABASE_OWNER_URL is not set (eval "$(bash .ci/start-postgres --env)" sets it with TEST_DATABASE_URL)');
if (twoRoles !== undefined && server.skip === undefined && inCi()) {
  throw new Error(`the two-role tests must run in CI, but ${twoRoles}`);
}

const WARNING = /owns its tables: a role that owns a table can disable its row-level security .* DATABASE_OWNER_URL/;

/** A service started as `npm start` would be (its configuration, its store), its log lines kept. */
async function start(databaseUrl: string, databaseOwnerUrl?: string): Promise<TestServer & { log: string[] }> {
  const log: string[] = [];
  const running: RunningServer = await startServer({
    config: {
      port: 0,
      host: '127.0.0.1',
      auth: 'keys',
      operatorKey: OP,
      timerIntervalSeconds: 0,
      logLevel: 'warn',
      databaseUrl,
      databaseOwnerUrl,
      databasePoolSize: 4,
      webhookAllowPrivate: true,
      webhookRetryBaseMs: 100,
      webhookTimeoutMs: 1000,
      streamPollMs: 100,
    },
    logStream: { write: (line) => void log.push(line) },
  });
  return {
    ...httpClient(running.url),
    server: running,
    url: running.url,
    prefix: '/pipeline',
    log,
    close: () => running.close(),
  };
}

const warned = (log: readonly string[]) => log.some((line) => WARNING.test(JSON.parse(line).msg ?? ''));

describe('DATABASE_OWNER_URL applies to PostgreSQL only (D-77)', () => {
  const owner = 'postgres://pipeline_owner:secret@127.0.0.1:5432/pipeline';
  it('is refused beside PGlite, the in-memory store or a URL that is not PostgreSQL’s', async () => {
    await assert.rejects(
      createStore('pglite:memory://', { ownerUrl: owner }),
      /^Error: DATABASE_OWNER_URL applies to PostgreSQL only .* DATABASE_URL is pglite in memory.*PGlite runs as one superuser/,
    );
    await assert.rejects(createStore(undefined, { ownerUrl: owner }), /DATABASE_URL is unset \(the in-memory store\)/);
    await assert.rejects(
      createStore('postgres://pipeline:secret@127.0.0.1:5432/pipeline', { ownerUrl: 'mysql://root:pw@h/db' }),
      (error: Error) =>
        /DATABASE_OWNER_URL must start with postgres:\/\//.test(error.message) && !/pw/.test(error.message),
    );
  });

  it('`npm start` refuses to start with it on PGlite, saying why', async () => {
    const child = spawn(process.execPath, NPM_START, {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      env: {
        ...process.env,
        DATABASE_URL: 'pglite:memory://',
        DATABASE_OWNER_URL: owner,
        AUTH: 'demo',
        PORT: '0',
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.stdout.on('data', () => output.includes('listening on') && child.kill('SIGTERM'));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 1, output);
    assert.match(output, /cannot start: DATABASE_OWNER_URL applies to PostgreSQL only/);
    assert.doesNotMatch(output, /secret/);
  });
});

describe('two roles: the owner migrates, the serving role only serves (D-77)', { skip: twoRoles }, () => {
  let schema: TestSchema;
  let a: TestServer & { log: string[] };
  let b: TestServer & { log: string[] };
  let serving: string;
  before(async () => {
    schema = await createTestSchema(server.url as string, 'two_roles');
    serving = decodeURIComponent(new URL(schema.url).username);
    // Two instances starting at once: each migrates (once, under the lock) and grants as the owner.
    [a, b] = await Promise.all([start(schema.url, schema.ownerUrl), start(schema.url, schema.ownerUrl)]);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  it('the serving role owns no table and cannot switch row-level security off, nor change a table', async () => {
    await sqlOn(schema.url, async (c) => {
      const { rows } = await c.query(
        `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = current_schema() AND pg_has_role(current_user, c.relowner, 'MEMBER')`,
      );
      assert.equal(rows[0].n, 0, 'objects the serving role owns');
      for (const statement of [
        'ALTER TABLE deals DISABLE ROW LEVEL SECURITY',
        'ALTER TABLE deals NO FORCE ROW LEVEL SECURITY',
        'ALTER TABLE event_outbox DISABLE ROW LEVEL SECURITY',
        'DROP POLICY deals_of_principal ON deals',
        'ALTER TABLE deals ADD COLUMN note text',
        'DROP TABLE webhooks CASCADE',
      ]) {
        await assert.rejects(c.query(statement), /must be owner/, statement);
      }
      await assert.rejects(c.query('CREATE TABLE spare (n int)'), /permission denied for schema/);
      // TRUNCATE passes every policy: the serving role has none of it (the reset goes through wipe_tables()).
      await assert.rejects(c.query('TRUNCATE deals'), /permission denied for table deals/);
      await assert.rejects(c.query('SELECT * FROM schema_migrations'), /permission denied/);
      await c.query("SET pipeline.principal = 'platform'");
      await assert.rejects(c.query('UPDATE payouts SET amount_cents = 0'), /permission denied for table payouts/);
      const walled = await c.query(
        `SELECT count(*)::int AS n FROM pg_class WHERE relname = 'deals' AND relnamespace = current_schema()::regnamespace
           AND relrowsecurity AND relforcerowsecurity`,
      );
      assert.equal(walled.rows[0].n, 1, 'deals still walled');
    });
  });

  it('the serving role holds exactly what serving needs', async () => {
    const rights = await sqlOn(schema.adminUrl, async (c) => {
      const { rows } = await c.query(
        `SELECT c.relname AS name, c.relkind AS kind,
           array_to_string(ARRAY(SELECT p FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) p
             WHERE c.relkind IN ('r', 'p') AND has_table_privilege($1, c.oid, p)), ',') AS table_rights,
           array_to_string(ARRAY(SELECT p FROM unnest(ARRAY['USAGE', 'SELECT', 'UPDATE']) p
             WHERE c.relkind = 'S' AND has_sequence_privilege($1, c.oid, p)), ',') AS sequence_rights
         FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'S')`,
        [serving],
      );
      const functions = await c.query(
        `SELECT p.proname AS name FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace
           AND has_function_privilege($1, p.oid, 'EXECUTE') ORDER BY 1`,
        [serving],
      );
      return { rows, functions: functions.rows.map((row) => row.name) };
    });
    const of = (name: string) => rights.rows.find((row) => row.name === name);
    for (const table of ['deals', 'gigs', 'events', 'event_outbox', 'webhook_deliveries', 'sellers', 'settings']) {
      assert.equal(of(table)?.table_rights, 'SELECT,INSERT,UPDATE,DELETE', table);
    }
    assert.equal(of('payouts')?.table_rights, 'SELECT,INSERT', 'the ledger only grows');
    assert.equal(of('schema_migrations')?.table_rights, '', 'the migrations are the owner’s');
    for (const row of rights.rows.filter((r) => r.kind === 'r')) {
      assert.doesNotMatch(row.table_rights, /TRUNCATE|REFERENCES|TRIGGER/, row.name);
    }
    for (const row of rights.rows.filter((r) => r.kind === 'S'))
      assert.equal(row.sequence_rights, 'USAGE,SELECT', row.name);
    for (const name of ['take_number', 'sequence_events', 'expect_unchanged', 'wipe_tables']) {
      assert.ok(rights.functions.includes(name), `EXECUTE on ${name}`);
    }
  });

  it('the service works end to end as the serving role, in keys mode on two instances, and warns of nothing', async () => {
    await tenantDoors(a, b);
    // The demo reset empties every table through wipe_tables(), run as the owner.
    const { service } = a.server;
    await service.run(service.platform.reset());
    const deals = await as(b, bearer(OP)).get('/pipeline/deals');
    assert.equal(deals.status, 200, deals.text);
    assert.deepEqual(deals.body, []);
    assert.equal(warned(a.log) || warned(b.log), false, [...a.log, ...b.log].join('\n'));
  });

  it('grants again at every start: a right taken away comes back, one given beyond is taken back', async () => {
    await sqlOn(schema.adminUrl, async (c) => {
      await c.query(`REVOKE SELECT ON deals FROM "${serving}"`);
      await c.query(`GRANT TRUNCATE ON gigs TO "${serving}"`);
    });
    const again = await createStore(schema.url, { poolSize: 1, ownerUrl: schema.ownerUrl });
    await again.close();
    const { rows } = await sqlOn(schema.adminUrl, (c) =>
      c.query(
        `SELECT has_table_privilege($1, 'deals', 'SELECT') AS reads, has_table_privilege($1, 'gigs', 'TRUNCATE') AS truncates`,
        [serving],
      ),
    );
    assert.deepEqual(rows[0], { reads: true, truncates: false });
  });

  it('refuses an owner’s URL that names another database, migrating nothing', async () => {
    const elsewhere = new URL(ownerBase as string);
    elsewhere.pathname = '/postgres';
    const fresh = await createTestSchema(server.url as string, 'other_database');
    try {
      await assert.rejects(
        createStore(fresh.url, { poolSize: 1, ownerUrl: elsewhere.toString() }),
        /DATABASE_OWNER_URL names the database "postgres" and DATABASE_URL "[^"]+": the owner must migrate/,
      );
      const { rows } = await sqlOn(fresh.adminUrl, (c) =>
        c.query("SELECT to_regclass('schema_migrations') IS NULL AS untouched"),
      );
      assert.equal(rows[0].untouched, true);
    } finally {
      await fresh.drop();
    }
  });

  it('migrates into a schema the serving role may not use yet, and lets it use it', async () => {
    const name = `t_unshared_${process.pid}_${Date.now()}`;
    await sqlOn(ownerBase as string, (c) => c.query(`CREATE SCHEMA "${name}"`));
    try {
      const url = new URL(schema.url);
      url.searchParams.set('options', `-c search_path=${name}`);
      const store = await createStore(url.toString(), { poolSize: 1, ownerUrl: ownerBase });
      try {
        await store.transaction((uow) => uow.takeNumber('deal'));
      } finally {
        await store.close();
      }
      const { rows } = await sqlOn(url.toString(), (c) => c.query('SELECT current_schema() AS schema'));
      assert.equal(rows[0].schema, name);
    } finally {
      await sqlOn(ownerBase as string, (c) => c.query(`DROP SCHEMA "${name}" CASCADE`));
    }
  });
});

describe('one role: the start-up warns that the serving role owns the tables (D-77)', { skip: server.skip }, () => {
  let schema: TestSchema;
  before(async () => {
    schema = await createTestSchema(server.url as string, 'one_role');
  });
  after(async () => {
    await schema?.drop();
  });

  it('logs the risk and the fix when DATABASE_URL’s role owns the tables', async () => {
    // With two roles, the owner's own URL as DATABASE_URL: the role that serves owns the tables.
    const one = await start(schema.adminUrl);
    try {
      const line = one.log.map((l) => JSON.parse(l)).find((l) => WARNING.test(l.msg));
      assert.ok(line, `the warning, in: ${one.log.join('\n')}`);
      assert.equal(line.level, 40, 'at warn');
      assert.match(line.msg, /ALTER TABLE … DISABLE ROW LEVEL SECURITY, or NO FORCE/);
      assert.match(line.msg, /Set DATABASE_OWNER_URL to a separate role that owns the tables and migrates them/);
    } finally {
      await one.close();
    }
  });

  it('logs it too when DATABASE_OWNER_URL names the serving role itself', async () => {
    const same = await start(schema.adminUrl, schema.adminUrl);
    try {
      assert.ok(warned(same.log), same.log.join('\n'));
    } finally {
      await same.close();
    }
  });
});
