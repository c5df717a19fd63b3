// Optimistic units of work on a real PostgreSQL server (D-250: a unit in one round trip). A
// request's command reads its records without locks, from the instance's cache of them when it
// has them, and its write checks them unchanged; a conflict runs it again with locks. Shown
// here: the whole store contract with every unit optimistic, a move in one write to the socket,
// and every way a cached record can be stale (another instance's change, a new gig, a refusal
// decided on it, another principal) ending in the answer a locked unit would give.
import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Deal } from '../../src/domain/records.ts';
import { PgDatabase } from '../../src/store/postgres/pg-database.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import type { SqlDatabase } from '../../src/store/postgres/sql-database.ts';
import type { SqlStore } from '../../src/store/postgres/sql-store.ts';
import type { Store, UnitOfWork } from '../../src/store/store.ts';
import type { Telemetry } from '../../src/telemetry.ts';
import { NO_TELEMETRY } from '../../src/telemetry.ts';
import { createTestSchema, openSqlStore, postgresForTests, type TestSchema, testPool } from '../support/postgres.ts';
import { describeStoreContract, putCreated, sampleCloser, sampleDeal, sampleGig } from './contract.ts';

const OPTIMISTIC = { optimistic: true } as const;

/** The store with every unit of work optimistic: the contract holds for them too. */
function everyUnitOptimistic(store: Store): Store {
  return {
    runsUnitsAgain: store.runsUnitsAgain,
    read: (work, options) => store.read(work, options),
    transaction: (work, options) => store.transaction(work, { ...options, optimistic: true }),
    events: (filter, options) => store.events(filter, options),
    lastSeq: () => store.lastSeq(),
    watchClockOffset: (listener) => store.watchClockOffset(listener),
    watchWebhooks: (listener) => store.watchWebhooks(listener),
    close: () => store.close(),
  };
}

/** A database whose sessions' statements are written down as they are sent. */
function recorded(db: PgDatabase, sent: string[]): SqlDatabase {
  return {
    session: (work) =>
      db.session((session) =>
        work({
          connection: session.connection,
          query: (text, params) => {
            sent.push(text.replace(/\s+/g, ' ').trim());
            return session.query(text, params);
          },
          exec: (text) => session.exec(text),
        }),
      ),
    close: () => db.close(),
  };
}

/** The writes to the server's sockets during `work`. */
async function writesDuring(port: number, work: () => Promise<unknown>): Promise<number> {
  const socket = Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => void>;
  const [write, writev] = [socket._write, socket._writev];
  let writes = 0;
  const count = (original: (...args: unknown[]) => void) =>
    function (this: Socket, ...args: unknown[]) {
      if (this.remotePort === port) writes++;
      return original.apply(this, args);
    };
  socket._write = count(write);
  socket._writev = count(writev);
  try {
    await work();
  } finally {
    socket._write = write;
    socket._writev = writev;
  }
  return writes;
}

/** A command's shape: read the deal and its gigs (and a closer), decide, write. */
async function moveTo(uow: UnitOfWork, dealId: string, stage: Deal['stage']) {
  const [deal, gigs] = await Promise.all([uow.getDeal(dealId), uow.gigsOfDeal(dealId)]);
  if (!deal) throw new Error(`no ${dealId}`);
  await uow.putDeal({ ...deal, stage, version: deal.version + 1 });
  return { from: deal.stage, version: deal.version, gigs: gigs.map((g) => g.id) };
}

const server = await postgresForTests();

if (server.skip !== undefined) {
  describe('optimistic units of work', { skip: server.skip }, () => {});
} else {
  const baseUrl = server.url;

  describe('optimistic units of work: the store contract, every unit optimistic', () => {
    const schema = createTestSchema(baseUrl, 'optimistic_contract');
    // A store for every test, all on one bounded pool (as postgres-store.test.ts's contract).
    const pool = schema.then((s) => testPool(s.url));
    after(async () => {
      await (await pool).end();
      await (await schema).drop();
    });
    describeStoreContract(
      'postgres, every unit optimistic',
      async () =>
        everyUnitOptimistic(
          await openPostgresStore((await schema).url, { pool: await pool, ownerUrl: (await schema).ownerUrl }),
        ),
      { durable: true },
    );
  });

  describe('optimistic units of work', () => {
    let schema: TestSchema;
    const sent: string[] = [];
    const retried: string[] = [];
    const telemetry: Telemetry = { ...NO_TELEMETRY, unitRetried: (state) => retried.push(state) };
    /** This instance, whose statements are recorded, and another on the same schema. */
    let store: SqlStore;
    let other: SqlStore;
    let port: number;
    before(async () => {
      schema = await createTestSchema(baseUrl, 'optimistic');
      port = Number(new URL(schema.url).port || 5432);
      store = await openSqlStore(schema, recorded(new PgDatabase(schema.url, { poolSize: 1 }), sent), telemetry);
      other = await openSqlStore(schema, new PgDatabase(schema.url, { poolSize: 2 }));
      await store.transaction(async (uow) => {
        await putCreated(uow, sampleDeal('deal_0001'), sampleDeal('deal_0002'), sampleCloser('closer_0001'));
        await uow.putGig(sampleGig('gig_0001', 'deal_0001'));
      });
    });
    after(async () => {
      await store.close();
      await other.close();
      await schema.drop();
    });

    it('a move of a deal this instance wrote is BEGIN, the checks, the write and COMMIT: one write to the socket', async () => {
      // Not known yet (a unit that is not optimistic learns no versions): a miss reads under
      // locks, with the versions, as a unit did before; the write follows.
      await store.lastSeq();
      sent.length = 0;
      await store.transaction((uow) => moveTo(uow, 'deal_0001', 'qualified'), OPTIMISTIC);
      assert.deepEqual(sent.slice(0, 3), [
        'BEGIN',
        'SELECT doc, xmin::text AS v FROM deals WHERE id = $1 FOR UPDATE',
        'SELECT doc, xmin::text AS v FROM gigs WHERE deal_id = $1 ORDER BY id_len, id FOR UPDATE',
      ]);
      await store.lastSeq();
      sent.length = 0;
      const writes = await writesDuring(port, () =>
        store.transaction((uow) => moveTo(uow, 'deal_0001', 'meeting'), OPTIMISTIC),
      );
      const unit = sent.slice(0, sent.indexOf('COMMIT') + 1);
      assert.deepEqual(
        unit.map((text) => text.slice(0, 30)),
        [
          'BEGIN',
          'SELECT expect_unchanged((SELEC',
          'SELECT expect_unchanged((SELEC',
          'WITH w0 AS (INSERT INTO deals ',
          'COMMIT',
        ],
      );
      assert.equal(writes, 1, sent.join('\n'));
      assert.equal((await store.read((r) => r.getDeal('deal_0001')))?.stage, 'meeting');
      assert.deepEqual(retried, []);
    });

    it('a deal another instance changed since: the check refuses the stale copy, and the unit runs again with locks on what is there', async () => {
      await store.transaction((uow) => moveTo(uow, 'deal_0002', 'qualified'), OPTIMISTIC);
      await other.transaction((uow) => moveTo(uow, 'deal_0002', 'meeting'), OPTIMISTIC);
      retried.length = 0;
      const seen: string[] = [];
      const moved = await store.transaction(async (uow) => {
        const result = await moveTo(uow, 'deal_0002', 'proposal');
        seen.push(result.from);
        return result;
      }, OPTIMISTIC);
      assert.deepEqual(seen, ['qualified', 'meeting'], 'the cached stage, then the one committed');
      assert.equal(moved.from, 'meeting');
      assert.deepEqual(retried, ['40001']);
      const deal = await store.read((r) => r.getDeal('deal_0002'));
      assert.equal(deal?.stage, 'proposal');
      assert.equal(deal?.version, moved.version + 1, 'no update lost');
    });

    it('a gig another instance added to a cached deal is seen: the set of gigs is checked whole', async () => {
      const before = await store.transaction((uow) => moveTo(uow, 'deal_0001', 'proposal'), OPTIMISTIC);
      assert.deepEqual(before.gigs, ['gig_0001']);
      await other.transaction((uow) => uow.putGig(sampleGig('gig_0002', 'deal_0001')), OPTIMISTIC);
      retried.length = 0;
      const after = await store.transaction((uow) => moveTo(uow, 'deal_0001', 'negotiation'), OPTIMISTIC);
      assert.deepEqual(after.gigs, ['gig_0001', 'gig_0002']);
      assert.deepEqual(retried, ['40001']);
    });

    it('a refusal decided on a stale copy does not stand: the unit runs again on what is there', async () => {
      // Live stages only: the cache keeps no closed deal (optimistic-reads.ts remember), so a closed one is
      // never served stale.
      await store.transaction((uow) => moveTo(uow, 'deal_0002', 'meeting'), OPTIMISTIC);
      await other.transaction((uow) => moveTo(uow, 'deal_0002', 'proposal'), OPTIMISTIC);
      retried.length = 0;
      // "Refuses" a deal at meeting; answers the stage of one that is not.
      const stage = await store.transaction(async (uow) => {
        const deal = await uow.getDeal('deal_0002');
        if (deal?.stage === 'meeting') throw new Error('refused: still at meeting');
        return deal?.stage;
      }, OPTIMISTIC);
      assert.equal(stage, 'proposal');
      assert.deepEqual(retried, ['40001']);
      // The same when the unit had begun (another statement sent the checks) before it refused.
      await store.transaction((uow) => uow.getDeal('deal_0002'), OPTIMISTIC);
      await other.transaction((uow) => moveTo(uow, 'deal_0002', 'negotiation'), OPTIMISTIC);
      retried.length = 0;
      const after = await store.transaction(async (uow) => {
        const deal = await uow.getDeal('deal_0002');
        uow.listDeals({ limit: 1 }).catch(() => undefined);
        if (deal?.stage === 'proposal') throw new Error('refused: at proposal');
        return deal?.stage;
      }, OPTIMISTIC);
      assert.equal(after, 'negotiation');
      assert.deepEqual(retried, ['40001']);
      // A refusal on a current copy stands, and nothing is retried.
      retried.length = 0;
      await assert.rejects(
        store.transaction(async (uow) => {
          await uow.getDeal('deal_0002');
          throw new Error('refused');
        }, OPTIMISTIC),
        /refused/,
      );
      assert.deepEqual(retried, []);
    });

    it('a closer read for a claim is checked unchanged, locked only when the unit may write it', async () => {
      await store.transaction((uow) => uow.readCloser('closer_0001'), OPTIMISTIC);
      await other.transaction(async (uow) => {
        const closer = await uow.getCloser('closer_0001');
        if (closer) await uow.putCloser({ ...closer, name: 'Renamed' });
      }, OPTIMISTIC);
      retried.length = 0;
      const name = await store.transaction(async (uow) => {
        const closer = await uow.readCloser('closer_0001');
        await uow.putGig(sampleGig('gig_0003', 'deal_0001'));
        return closer?.name;
      }, OPTIMISTIC);
      assert.equal(name, 'Renamed');
      assert.deepEqual(retried, ['40001']);
    });

    it('racing moves of one deal from one instance all apply, none lost, none answered busy', async () => {
      const [racing] = await Promise.all([openPostgresStore(schema.url, { poolSize: 4, ownerUrl: schema.ownerUrl })]);
      try {
        await racing.transaction((uow) => putCreated(uow, sampleDeal('deal_0003')), OPTIMISTIC);
        const results = await Promise.all(
          Array.from({ length: 12 }, () =>
            racing.transaction((uow) => moveTo(uow, 'deal_0003', 'qualified'), OPTIMISTIC),
          ),
        );
        const versions = results.map((r) => r.version).sort((a, b) => a - b);
        assert.deepEqual(
          versions,
          Array.from({ length: 12 }, (_, i) => i + 1),
          'each move saw the one before',
        );
        assert.equal((await racing.read((r) => r.getDeal('deal_0003')))?.version, 13);
      } finally {
        await racing.close();
      }
    });

    it('a demo reset leaves no copy that passes for a new row of the same id', async () => {
      await store.transaction((uow) => moveTo(uow, 'deal_0001', 'qualified'), OPTIMISTIC);
      // Another instance resets and writes a deal of the same id: new rows, new versions.
      await other.transaction(async (uow) => {
        await uow.wipe();
        await putCreated(uow, sampleDeal('deal_0001', { stage: 'closed_lost' }));
      });
      retried.length = 0;
      const seen = await store.transaction((uow) => uow.getDeal('deal_0001').then((d) => d?.stage), OPTIMISTIC);
      assert.equal(seen, 'closed_lost');
      assert.deepEqual(retried, ['40001']);
    });

    it('a record cached for one principal is never served to another: row-level security decides (D-57)', async () => {
      // deal_0001 has no Seller: the platform sees it, a Seller does not, cached or not.
      assert.ok(await store.transaction((uow) => uow.getDeal('deal_0001'), OPTIMISTIC));
      assert.equal(
        await store.transaction((uow) => uow.getDeal('deal_0001'), { ...OPTIMISTIC, principal: 'seller_0001' }),
        undefined,
      );
    });
  });
}
