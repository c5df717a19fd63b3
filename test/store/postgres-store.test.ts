// The store contract on a real PostgreSQL server (TEST_DATABASE_URL), in a schema of its own,
// plus what only a server can show: migrations racing from several instances, and the
// ledger's append-only trigger.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import { loadMigrations } from '../../src/store/postgres/migrate.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';
import { describeStoreContract, sampleLine } from './contract.ts';

const server = await postgresForTests();

if (server.skip !== undefined) {
  describe('store contract: postgres', { skip: server.skip }, () => {});
} else {
  const baseUrl = server.url;
  const schema = await createTestSchema(baseUrl, 'contract');
  after(() => schema.drop());

  describeStoreContract('postgres', () => createStore(schema.url, { poolSize: 25 }), { durable: true });

  describe('postgres store: migrations', () => {
    let fresh: TestSchema;
    const stores: Store[] = [];
    before(async () => {
      fresh = await createTestSchema(baseUrl, 'migrate');
    });
    after(async () => {
      for (const store of stores) await store.close();
      await fresh.drop();
    });

    it('applies each migration once when several instances start at once on an empty schema', async () => {
      stores.push(...(await Promise.all(Array.from({ length: 5 }, () => createStore(fresh.url, { poolSize: 2 })))));
      const migrations = await loadMigrations();
      const applied = await sqlOn(fresh.url, (c) =>
        c.query('SELECT version, name FROM schema_migrations ORDER BY version'),
      );
      assert.deepEqual(
        applied.rows.map((r) => [r.version, r.name]),
        migrations.map((m) => [m.version, m.name]),
      );
      // Every instance works on the one schema.
      await stores[0].transaction((uow) => uow.takeNumber('deal'));
      await stores[4].transaction(async (uow) => assert.equal(await uow.takeNumber('deal'), 2));
    });

    it('starting again never wipes: the data and the counters stay', async () => {
      await stores[1].transaction((uow) => uow.appendPayout(sampleLine('gig_0001')));
      const again = await createStore(fresh.url, { poolSize: 1 });
      stores.push(again);
      assert.equal((await again.read((r) => r.payoutsOfDeal('deal_0001'))).length, 1);
      await again.transaction(async (uow) => assert.equal((await uow.nextNumbers()).deal, 3));
    });

    it('refuses a database migrated by a newer release', async () => {
      const newer = await createTestSchema(baseUrl, 'newer');
      try {
        await (await createStore(newer.url, { poolSize: 1 })).close();
        await sqlOn(newer.url, (c) =>
          c.query("INSERT INTO schema_migrations (version, name) VALUES (999, '999-future')"),
        );
        await assert.rejects(
          createStore(newer.url, { poolSize: 1 }),
          /schema migrations this service does not know: 999/,
        );
      } finally {
        await newer.drop();
      }
    });
  });

  describe('postgres store: the payout ledger is append-only', () => {
    let store: Store;
    let ledger: TestSchema;
    before(async () => {
      ledger = await createTestSchema(baseUrl, 'ledger');
      store = await createStore(ledger.url, { poolSize: 1 });
      await store.transaction((uow) => uow.appendPayout(sampleLine('gig_0001')));
    });
    after(async () => {
      await store.close();
      await ledger.drop();
    });

    it('refuses UPDATE and DELETE of a line, even in plain SQL', async () => {
      await sqlOn(ledger.url, async (c) => {
        await assert.rejects(c.query('UPDATE payouts SET amount_cents = 1'), /append-only: UPDATE/);
        await assert.rejects(c.query('DELETE FROM payouts'), /append-only: DELETE/);
        await assert.rejects(
          c.query(
            "INSERT INTO payouts (gig_id, closer_id, deal_id, role, kind, amount_cents, at) VALUES ('gig_0001', 'c', 'd', 'closer', 'fee', 1, 0)",
          ),
          /duplicate key/,
        );
        const { rows } = await c.query('SELECT count(*)::int AS n, sum(amount_cents)::int AS total FROM payouts');
        assert.deepEqual(rows[0], { n: 1, total: 123_45 });
      });
    });
  });

  describe('postgres store: startup errors', () => {
    it('says which database it cannot reach, without the password', async () => {
      await assert.rejects(createStore('postgres://someone:s3cret@127.0.0.1:1/nowhere'), (error: Error) => {
        assert.match(
          error.message,
          /^cannot open the PostgreSQL database at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nowhere: /,
        );
        assert.match(error.message, /ECONNREFUSED/);
        assert.doesNotMatch(error.message, /s3cret/);
        return true;
      });
    });

    it('says when the schema named by search_path does not exist', async () => {
      const url = new URL(baseUrl);
      url.searchParams.set('options', '-c search_path=no_such_schema_here');
      await assert.rejects(createStore(url.toString()), /search_path names no existing schema/);
    });
  });
}
