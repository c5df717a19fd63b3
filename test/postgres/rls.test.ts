// Row-level security on a real server (D-57, migration 011): the second wall behind the
// application's filters. As the service's own role (never a superuser nor BYPASSRLS: the test
// checks), plain SQL with a Seller's principal set reads that Seller's rows only, a closer's
// reads open gigs and its own, and a connection that names no principal reads and writes
// nothing. The store sets the principal in every transaction it runs, and refuses at start a
// role that would skip the policies (.ci/start-postgres makes one, <role>_bypassrls, to try).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { ApiKey } from '../../src/domain/keys.ts';
import type { Webhook } from '../../src/domain/webhooks.ts';
import { createStore } from '../../src/store/create-store.ts';
import { PgDatabase } from '../../src/store/postgres/pg-database.ts';
import { assertRowSecurityApplies } from '../../src/store/postgres/postgres-store.ts';
import { rowSecurityRefusal } from '../../src/store/postgres/role-check.ts';
import type { Store } from '../../src/store/store.ts';
import { sampleDeal, sampleGig, sampleLine } from '../store/contract.ts';
import { createTestSchema, inCi, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');
const A = 'seller_0001';
const B = 'seller_0002';

const key = (n: number, principal: string): ApiKey => ({
  id: `key_${String(n).padStart(4, '0')}`,
  hash: `${n}`.repeat(64).slice(0, 64),
  prefix: 'sp_sk_abcdef',
  name: `key ${n}`,
  principal,
  scopes: [],
  createdAt: T0,
});

const hook = (n: number, owner: string): Webhook =>
  ({
    id: `whk_${String(n).padStart(4, '0')}`,
    url: `http://receiver.example/${n}`,
    secret: 'whsec_c2VjcmV0',
    createdAt: T0,
    afterSeq: 0,
    owner,
  }) as Webhook;

/** What each table holds, by the column that names a row. */
const TABLES = {
  deals: 'id',
  gigs: 'id',
  payouts: 'gig_id',
  events: 'seq',
  api_keys: 'id',
  idempotency_keys: 'key',
  webhooks: 'id',
} as const;

type Rows = Record<keyof typeof TABLES, string[]>;

/**
 * Every row of each table (plain `SELECT … FROM t`, no WHERE) on a connection of its own, with
 * `principal` set as the store sets it (transaction-local), or with none set at all.
 */
async function everyRow(url: string, principal?: string): Promise<Rows> {
  return sqlOn(url, async (c) => {
    await c.query('BEGIN');
    if (principal !== undefined) await c.query("SELECT set_config('pipeline.principal', $1, true)", [principal]);
    const rows = {} as Rows;
    for (const [table, column] of Object.entries(TABLES)) {
      const { rows: found } = await c.query(`SELECT * FROM ${table}`);
      rows[table as keyof Rows] = found.map((row) => String(row[column])).sort();
    }
    await c.query('COMMIT');
    return rows;
  });
}

const server = await postgresForTests();

if (server.skip !== undefined) {
  describe('row-level security', { skip: server.skip }, () => {});
} else {
  const baseUrl = server.url;

  describe('row-level security (D-57)', () => {
    let schema: TestSchema;
    let store: Store;
    before(async () => {
      schema = await createTestSchema(baseUrl, 'rls');
      // The role the suite connects as is the service's: row-level security must apply to it.
      store = await createStore(schema.url, { poolSize: 2, requireRowSecurity: true, ownerUrl: schema.ownerUrl });
      await store.transaction(async (uow) => {
        await uow.accounts.putSeller({ id: A, name: 'A', createdAt: T0 });
        await uow.accounts.putSeller({ id: B, name: 'B', createdAt: T0 });
        await uow.putDeal(sampleDeal('deal_0001', { sellerId: A }));
        await uow.putDeal(sampleDeal('deal_0002', { sellerId: B }));
        await uow.putDeal(sampleDeal('deal_0003', { sellerId: B }));
        await uow.putGig(sampleGig('gig_0001', 'deal_0001', { sellerId: A }));
        await uow.putGig(
          sampleGig('gig_0002', 'deal_0002', { sellerId: B, status: 'claimed', closerId: 'closer_0001' }),
        );
        await uow.putGig(
          sampleGig('gig_0003', 'deal_0003', { sellerId: B, status: 'claimed', closerId: 'closer_0002' }),
        );
        await uow.publish(
          [
            { type: 'deal.stalled', at: T0, data: { dealId: 'deal_0001' }, sellerId: A },
            { type: 'deal.stalled', at: T0, data: { dealId: 'deal_0002' }, sellerId: B },
            {
              type: 'gig.claimed',
              at: T0,
              data: { gigId: 'gig_0002', dealId: 'deal_0002', closerId: 'closer_0001' },
              sellerId: B,
              closerId: 'closer_0001',
            },
          ],
          T0,
        );
        await uow.accounts.putKey(key(1, A));
        await uow.accounts.putKey(key(2, B));
        await uow.accounts.putKey(key(3, 'closer_0001'));
        await uow.putAnswer('answer-a', { fingerprint: 'f', owner: A, status: 200, body: '{}', storedAt: T0 });
        await uow.putAnswer('answer-b', { fingerprint: 'f', owner: B, status: 200, body: '{}', storedAt: T0 });
        await uow.webhooks.put(hook(1, A));
        await uow.webhooks.put(hook(2, 'closer_0001'));
      });
      await store.transaction(async (uow) => {
        // Each line's Seller is its deal's, taken by the insert.
        await uow.appendPayout(sampleLine('gig_0002', { dealId: 'deal_0002', closerId: 'closer_0001' }));
        await uow.appendPayout(sampleLine('gig_0003', { dealId: 'deal_0003', closerId: 'closer_0002' }));
      });
      await store.events({ after: 0, limit: 1 }); // the feed sequenced
    });
    after(async () => {
      await store?.close();
      await schema?.drop();
    });

    it('the service’s role is neither a superuser nor BYPASSRLS (the policies apply to it)', async () => {
      await sqlOn(schema.url, async (c) => {
        const { rows } = await c.query(
          'SELECT current_user AS role, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user',
        );
        assert.deepEqual(rows[0], { role: rows[0].role, rolsuper: false, rolbypassrls: false });
      });
      const db = new PgDatabase(schema.url, { poolSize: 1 });
      try {
        await assertRowSecurityApplies(db);
      } finally {
        await db.close();
      }
    });

    it('a Seller’s principal reads only its rows with plain SELECT * (no WHERE)', async () => {
      const rows = await everyRow(schema.url, A);
      assert.deepEqual(rows.deals, ['deal_0001']);
      assert.deepEqual(rows.gigs, ['gig_0001']);
      assert.deepEqual(rows.payouts, []);
      assert.equal(rows.events.length, 1);
      assert.deepEqual(rows.api_keys, ['key_0001']);
      assert.deepEqual(rows.idempotency_keys, ['answer-a']);
      assert.deepEqual(rows.webhooks, ['whk_0001']);
      const ofB = await everyRow(schema.url, B);
      assert.deepEqual(ofB.deals, ['deal_0002', 'deal_0003']);
      assert.deepEqual(ofB.gigs, ['gig_0002', 'gig_0003']);
      assert.deepEqual(ofB.payouts, ['gig_0002', 'gig_0003']);
      assert.equal(ofB.events.length, 2);
      assert.deepEqual(ofB.api_keys, ['key_0002']);
    });

    it('a closer’s principal reads open gigs and its own, their deals, its lines, events, keys and webhooks', async () => {
      const rows = await everyRow(schema.url, 'closer_0001');
      assert.deepEqual(rows.gigs, ['gig_0001', 'gig_0002']);
      assert.deepEqual(rows.deals, ['deal_0001', 'deal_0002'], 'the deal of an open gig: a claim reads it');
      assert.deepEqual(rows.payouts, ['gig_0002']);
      assert.equal(rows.events.length, 1);
      assert.deepEqual(rows.api_keys, ['key_0003']);
      assert.deepEqual(rows.idempotency_keys, []);
      assert.deepEqual(rows.webhooks, ['whk_0002']);
    });

    it('the platform and the operator read every row', async () => {
      for (const principal of ['platform', 'operator']) {
        const rows = await everyRow(schema.url, principal);
        assert.equal(rows.deals.length, 3, principal);
        assert.equal(rows.gigs.length, 3);
        assert.equal(rows.payouts.length, 2);
        assert.equal(rows.events.length, 3);
        assert.equal(rows.api_keys.length, 3);
        assert.equal(rows.idempotency_keys.length, 2);
        assert.equal(rows.webhooks.length, 2);
      }
    });

    it('a plain connection (no principal set) reads no row of any table and writes none', async () => {
      for (const principal of [undefined, '']) {
        const rows = await everyRow(schema.url, principal);
        for (const [table, found] of Object.entries(rows)) assert.deepEqual(found, [], `${table} (${principal})`);
      }
      await sqlOn(schema.url, async (c) => {
        await assert.rejects(
          c.query(`INSERT INTO deals (id, stage, doc) VALUES ('deal_0099', 'sourced', '{}')`),
          /row-level security/,
        );
        await assert.rejects(
          c.query(`INSERT INTO events (seq, type, at, recorded_at, data) VALUES (999, 'deal.stalled', 0, 0, '{}')`),
          /row-level security/,
        );
        const updated = await c.query(`UPDATE gigs SET status = 'open'`);
        assert.equal(updated.rowCount, 0);
        const deleted = await c.query('DELETE FROM api_keys');
        assert.equal(deleted.rowCount, 0);
      });
      assert.equal((await store.read((r) => r.accounts.listKeys({}))).length, 3, 'nothing was deleted');
    });

    it('a Seller’s principal cannot write a row of another Seller', async () => {
      await sqlOn(schema.url, async (c) => {
        await c.query('BEGIN');
        await c.query("SELECT set_config('pipeline.principal', $1, true)", [A]);
        await assert.rejects(
          c.query(`INSERT INTO deals (id, stage, seller_id, doc) VALUES ('deal_0099', 'sourced', $1, '{}')`, [B]),
          /row-level security/,
        );
        await c.query('ROLLBACK');
      });
      await assert.rejects(
        store.transaction((uow) => uow.putDeal(sampleDeal('deal_0099', { sellerId: B })), { principal: A }),
        /row-level security/,
      );
      // Nor take over one by rewriting its Seller.
      await assert.rejects(
        store.transaction((uow) => uow.putDeal(sampleDeal('deal_0001', { sellerId: B })), { principal: A }),
        /row-level security/,
      );
    });

    it('the store runs every read, unit of work and page of the feed as the principal it is given', async () => {
      const deals = (principal?: string) =>
        store.read(async (r) => (await r.listDeals({ limit: 10 })).map((d) => d.id), { principal });
      assert.deepEqual(await deals(A), ['deal_0001']);
      assert.deepEqual(await deals(), ['deal_0001', 'deal_0002', 'deal_0003'], 'unset: the platform');
      assert.deepEqual(await deals(''), [], 'an empty principal sees nothing');
      assert.equal(await store.read((r) => r.getDeal('deal_0002'), { principal: A, oneStatement: true }), undefined);
      assert.equal((await store.read((r) => r.getDeal('deal_0002'), { oneStatement: true }))?.id, 'deal_0002');
      const feed = await store.events({ after: 0, limit: 10 }, { principal: A });
      assert.deepEqual(
        feed.map((e) => e.event.sellerId),
        [A],
      );
      assert.deepEqual(
        await store.transaction(async (uow) => (await uow.listGigs()).map((g) => g.id), { principal: 'closer_0002' }),
        ['gig_0001', 'gig_0003'],
      );
    });

    it('a closer’s claim reads and updates the deal of an open gig, and publishes about it', async () => {
      const closer = 'closer_0002';
      await store.transaction(
        async (uow) => {
          const gig = await uow.getGig('gig_0001');
          assert.equal(gig?.status, 'open');
          const deal = await uow.getDeal('deal_0001');
          assert.ok(deal);
          await uow.putGig({ ...gig, status: 'claimed', closerId: closer });
          await uow.putDeal({ ...deal, version: deal.version + 1 });
          await uow.publish(
            [
              {
                type: 'gig.claimed',
                at: T0,
                data: { gigId: 'gig_0001', dealId: 'deal_0001', closerId: closer },
                sellerId: A,
                closerId: closer,
              },
            ],
            T0,
          );
        },
        { principal: closer },
      );
      assert.equal((await store.read((r) => r.getDeal('deal_0001')))?.version, 2);
      const rows = await everyRow(schema.url, 'closer_0001');
      assert.deepEqual(rows.gigs, ['gig_0002'], 'a gig claimed by another is no longer seen');
      assert.deepEqual(rows.deals, ['deal_0002']);
      const feed = await store.events({ after: 0, limit: 10 }, { principal: closer });
      assert.deepEqual(
        feed.map((e) => e.event.type),
        ['gig.claimed'],
      );
    });

    it('the copies are walled too: outbox rows, webhook deliveries and attempts, and Sellers (D-77, migration 020)', async () => {
      // Rows made in a transaction that is rolled back (so that no sequencer moves the outbox's),
      // then read, with plain SELECT * (no WHERE), as each principal in turn.
      const seen = await sqlOn(schema.url, async (c) => {
        const as = (principal: string) => c.query("SELECT set_config('pipeline.principal', $1, true)", [principal]);
        const ids = async (table: string, column: string) =>
          (await c.query(`SELECT * FROM ${table}`)).rows.map((row) => String(row[column])).sort();
        await c.query('BEGIN');
        // A unit of Seller A's and a closer's move on Seller B's deal, each as itself.
        await as(A);
        await c.query(
          `INSERT INTO event_outbox (types, deal_ids, ats, recorded_ats, data, seller_ids, closer_ids, actors)
           VALUES ('{deal.stalled}', '{deal_0001}', '{1}', '{1}', ARRAY['{"n":"a"}'::json], $1, '{NULL}', ARRAY[NULL::json])`,
          [[A]],
        );
        await as('closer_0001');
        await c.query(
          `INSERT INTO event_outbox (types, deal_ids, ats, recorded_ats, data, seller_ids, closer_ids, actors)
           VALUES ('{gig.claimed}', '{deal_0002}', '{1}', '{1}', ARRAY['{"n":"b"}'::json], $1, $2, ARRAY[NULL::json])`,
          [[B], ['closer_0001']],
        );
        // The dispatcher and the senders, as the platform: a delivery and an attempt to each webhook.
        await as('platform');
        for (const hook of ['whk_0001', 'whk_0002']) {
          await c.query(
            `INSERT INTO webhook_deliveries (webhook_id, seq, type, at, data, dispatched_at, next_attempt_at)
             VALUES ($1, 1, 'deal.stalled', 1, '{}', 1, 1)`,
            [hook],
          );
          await c.query(
            `INSERT INTO webhook_attempts (webhook_id, seq, attempt, at, status) VALUES ($1, 1, 1, 1, 500)`,
            [hook],
          );
        }
        const seen: Record<string, Record<string, string[]>> = {};
        for (const principal of [A, B, 'closer_0001', 'closer_0002', 'operator', 'platform', '']) {
          await as(principal);
          seen[principal] = {
            outbox: (await c.query('SELECT * FROM event_outbox')).rows.map((row) => row.data[0].n).sort(),
            deliveries: await ids('webhook_deliveries', 'webhook_id'),
            attempts: await ids('webhook_attempts', 'webhook_id'),
            sellers: await ids('sellers', 'id'),
          };
        }
        // Only the platform and the operator move rows out of the outbox, or touch a delivery.
        await as(A);
        assert.equal((await c.query('DELETE FROM event_outbox')).rowCount, 0);
        assert.equal((await c.query('DELETE FROM webhook_deliveries')).rowCount, 0);
        assert.equal((await c.query('UPDATE webhook_attempts SET status = 200')).rowCount, 1, 'its own webhook’s');
        // A webhook its owner deletes takes its deliveries and attempts along (the cascade passes the policies).
        assert.equal((await c.query(`DELETE FROM webhooks WHERE id = 'whk_0001'`)).rowCount, 1);
        await as('platform');
        seen.afterDelete = {
          deliveries: await ids('webhook_deliveries', 'webhook_id'),
          attempts: await ids('webhook_attempts', 'webhook_id'),
        };
        await c.query('ROLLBACK');
        return seen;
      });
      // A tenant reads its events in the feed and its webhooks' attempts, never the queue nor the deliveries.
      assert.deepEqual(seen[A], { outbox: [], deliveries: [], attempts: ['whk_0001'], sellers: [A] });
      assert.deepEqual(seen[B], { outbox: [], deliveries: [], attempts: [], sellers: [B] });
      assert.deepEqual(seen.closer_0001, { outbox: [], deliveries: [], attempts: ['whk_0002'], sellers: [] });
      assert.deepEqual(seen.closer_0002, { outbox: [], deliveries: [], attempts: [], sellers: [] });
      for (const all of ['operator', 'platform']) {
        assert.deepEqual(seen[all], {
          outbox: ['a', 'b'],
          deliveries: ['whk_0001', 'whk_0002'],
          attempts: ['whk_0001', 'whk_0002'],
          sellers: [A, B],
        });
      }
      assert.deepEqual(seen[''], { outbox: [], deliveries: [], attempts: [], sellers: [] }, 'no principal: nothing');
      assert.deepEqual(seen.afterDelete, { deliveries: ['whk_0002'], attempts: ['whk_0002'] });
      // A connection that names no principal adds no outbox row either.
      await sqlOn(schema.url, async (c) => {
        await assert.rejects(
          c.query(
            `INSERT INTO event_outbox (types, deal_ids, ats, recorded_ats, data, seller_ids, closer_ids, actors)
             VALUES ('{deal.stalled}', '{deal_0001}', '{1}', '{1}', ARRAY['{}'::json], '{NULL}', '{NULL}', ARRAY[NULL::json])`,
          ),
          /row-level security/,
        );
      });
    });

    it('a page after a cursor is still an index bound under row-level security (id_len, migration 011)', async () => {
      await sqlOn(schema.url, async (c) => {
        await c.query('BEGIN');
        await c.query("SELECT set_config('pipeline.principal', 'platform', true)");
        await c.query('SET LOCAL enable_seqscan = off');
        const { rows } = await c.query(
          `EXPLAIN SELECT doc FROM deals WHERE (id_len, id) > (length($1::text), $1::text COLLATE "C")
           ORDER BY id_len, id LIMIT 100`,
          ['deal_0001'],
        );
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        assert.match(plan, /Index Cond: \(ROW\(id_len, id\) > /, plan);
        await c.query('COMMIT');
      });
    });
  });

  describe('the start-up check refuses a role row-level security does not apply to', () => {
    it('names the role and the fix (superuser, BYPASSRLS)', () => {
      assert.equal(rowSecurityRefusal({ role: 'pipeline', superuser: false, bypassRls: false }), undefined);
      assert.match(
        rowSecurityRefusal({ role: 'postgres', superuser: true, bypassRls: false }) as string,
        /role "postgres" is a superuser: row-level security .* ALTER ROLE "postgres" NOSUPERUSER NOBYPASSRLS/,
      );
      assert.match(
        rowSecurityRefusal({ role: 'admin', superuser: false, bypassRls: true }) as string,
        /role "admin" has BYPASSRLS: .* ALTER ROLE "admin" NOSUPERUSER NOBYPASSRLS .* create a dedicated role/,
      );
    });

    it('refuses to open the store as a BYPASSRLS role, before migrating anything', async (t) => {
      const url = new URL(baseUrl);
      url.username = `${decodeURIComponent(url.username)}_bypassrls`;
      const probe = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000 });
      try {
        await probe.connect();
      } catch (error) {
        const reason = `no role ${url.username} to connect as (.ci/start-postgres makes it): ${String(error)}`;
        if (inCi()) throw new Error(reason);
        t.skip(reason);
        return;
      } finally {
        await probe.end().catch(() => undefined);
      }
      const schema = await createTestSchema(baseUrl, 'bypass');
      try {
        const bypassing = new URL(schema.url);
        bypassing.username = url.username;
        await assert.rejects(
          createStore(bypassing.toString(), { poolSize: 1, requireRowSecurity: true }),
          (error: Error) => {
            assert.match(error.message, new RegExp(`role "${url.username}" has BYPASSRLS`));
            assert.match(error.message, new RegExp(`ALTER ROLE "${url.username}" NOSUPERUSER NOBYPASSRLS`));
            return true;
          },
        );
        const { rows } = await sqlOn(schema.url, (c) =>
          c.query("SELECT to_regclass('schema_migrations') IS NULL AS untouched"),
        );
        assert.equal(rows[0].untouched, true, 'nothing migrated');
      } finally {
        await schema.drop();
      }
    });
  });
}
