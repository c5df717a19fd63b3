// Refused proposals within bounds (D-61, D-242) on a real PostgreSQL server: a client that
// hammers the gate cannot grow the database without bound. 5,000 refused proposals on one deal
// leave 1,000 rows and exact counts, and the tables that hold them (records, tallies, the feed)
// stop growing: vacuumed as autovacuum does (every 1,000 dead rows of these tables, migration
// 014; here by hand every 500, to measure at once), the last 2,000 refusals reuse the room the
// ones before them freed. Measured: about 1.5 MB after 3,000 and after 5,000; a deal that kept
// every record grows 0.5 MB a 1,000.
// On a server of its own: a vacuum reclaims only what no transaction of the same database may
// still see, and on the shared server the other test files' transactions can hold that back (in
// CI the tables once grew 0.8 MB over the last phase).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KEPT_PER_DEAL } from '../../src/domain/proposals.ts';
import { createStore } from '../../src/store/create-store.ts';
import { keptOf, negotiatingDeal, refuseMany } from '../support/hammer.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { advanceClock, HOUR, T0 } from '../support/marketplace-e2e.ts';
import { type OwnPostgres, ownPostgresSkip, startOwnPostgres } from '../support/own-postgres.ts';
import { createTestSchema, sqlOn, type TestSchema } from '../support/postgres.ts';

const skip = ownPostgresSkip();

const TABLES = ['refused_proposals', 'proposal_counts', 'events', 'event_outbox'];

describe('hammering the gate on PostgreSQL (5,000 refusals on one deal)', { skip }, () => {
  let server: OwnPostgres;
  let schema: TestSchema;
  let t: TestServer;
  let machineNow = T0;
  before(async () => {
    server = await startOwnPostgres();
    schema = await createTestSchema(server.url, 'hammer');
    t = await startTestServer({
      clock: { now: () => machineNow },
      config: { eventRetentionHours: 1 },
      store: await createStore(schema.url, { poolSize: 8, ownerUrl: schema.ownerUrl }),
    });
  });
  after(async () => {
    await t?.close();
    await schema?.drop();
    server?.destroy();
  });

  /** The bytes of the tables a refusal writes to, vacuumed (their free room counts as room). */
  const size = () =>
    sqlOn(schema.adminUrl, async (client) => {
      for (const table of TABLES) await client.query(`VACUUM ${table}`);
      const { rows } = await client.query(
        `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
         WHERE c.relname = ANY($1) AND c.relnamespace = current_schema()::regnamespace`,
        [TABLES],
      );
      return Number(rows[0].bytes);
    });

  it('keeps the newest 1,000 rows, counts all 5,000, and the tables stop growing', async () => {
    const dealId = await negotiatingDeal(t);
    // In steps of 500, each followed by what autovacuum does past 1,000 dead rows (migration 014)
    // and the timers' purge of the feed past its retention.
    const phase = async (count: number) => {
      let bytes = 0;
      for (let done = 0; done < count; done += 500) {
        await refuseMany(t, dealId, 500);
        await t.get('/events?limit=1'); // the committed outbox sequenced into the feed (D-167)
        machineNow += 2 * HOUR;
        await advanceClock(t, 0);
        bytes = await size();
      }
      return bytes;
    };
    const first = await phase(1_000);
    const settled = await phase(2_000);
    const last = await phase(2_000);
    console.log(`bytes after 1,000, 3,000 and 5,000 refusals: ${first}, ${settled}, ${last}`);

    const kept = await keptOf(t, dealId);
    assert.equal(kept.length, KEPT_PER_DEAL);
    assert.equal(kept[0].id, 'prop_5000');
    // Read as the platform: row-level security shows a connection with no principal nothing (D-57).
    const rows = await sqlOn(schema.url, async (client) => {
      await client.query(`SET pipeline.principal = 'platform'`);
      return client.query('SELECT count(*)::int AS n FROM refused_proposals');
    });
    assert.equal(rows.rows[0].n, KEPT_PER_DEAL);
    const summary = (await t.get(`${t.prefix}/proposals/summary`)).body;
    assert.deepEqual(summary, {
      accepted: { agent: 4, human: 0 },
      refused: { agent: 5_000, human: 0 },
      byCode: { GATE_BELOW_FLOOR: 5_000 },
    });
    // Each 1,000 rows kept take about 0.5 MB with their indexes: 2,000 more would show.
    assert.ok(last - settled < 256 * 1024, `the tables grew ${last - settled} bytes over the last 2,000 refusals`);
  });
});
