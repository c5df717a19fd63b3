// The sequencer's run reads the outbox by its key, not its heap (migration 019). The outbox is a
// queue: every row is deleted a few milliseconds after it was written, and its heap keeps those
// dead rows until a vacuum (autovacuum looks once a minute). Migration 018's move found its rows
// by `xid IN (…)`, which no index serves, so every run read every dead row since the last vacuum.
// Here the outbox is left unvacuumed on purpose after thousands of units, and a run, counted in
// its own transaction's statistics, must not scan the table, and must leave its caller's
// principal as it found it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import type { Store } from '../../src/store/store.ts';
import { moved, T0 } from '../support/feed-events.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();

describe('the sequencer’s cost on PostgreSQL', { skip: server.skip }, () => {
  let schema: TestSchema;
  let store: Store;
  before(async () => {
    schema = await createTestSchema(server.url as string, 'sequencer_cost');
    store = await createStore(schema.url, { ownerUrl: schema.ownerUrl });
    // No vacuum may clear the dead rows (or truncate the heap) while the test looks (as the table's owner).
    await sqlOn(schema.adminUrl, (client) => client.query('ALTER TABLE event_outbox SET (autovacuum_enabled = false)'));
  });
  after(async () => {
    await store?.close();
    await schema?.drop();
  });

  it('moves a unit without reading the dead rows of the units moved before it', async () => {
    // 3,000 units, each published and then moved into the feed: 3,000 dead outbox rows.
    for (let i = 0; i < 3000; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => store.transaction((uow) => uow.publish([moved(`deal_${i + j}`)], T0))),
      );
      await store.lastSeq();
    }
    const counted = await sqlOn(schema.url, async (client) => {
      const [{ pages }] = (
        await client.query<{ pages: string }>(`SELECT pg_relation_size('event_outbox') / 8192 AS pages`)
      ).rows;
      await client.query('BEGIN');
      // As the operator (a demo reset calls the run inside its own transaction, wipe.ts).
      await client.query(`SELECT set_config('pipeline.principal', 'operator', true)`);
      await client.query(
        `INSERT INTO event_outbox (types, deal_ids, ats, recorded_ats, data, seller_ids, closer_ids, actors)
         VALUES ('{deal.created}', '{deal_last}', '{1}', '{1}', ARRAY['{}'::json], '{NULL}', '{NULL}', ARRAY[NULL::json])`,
      );
      const [{ moved: count }] = (await client.query<{ moved: string }>('SELECT sequence_events(1000) AS moved')).rows;
      const [{ principal }] = (
        await client.query<{ principal: string }>(`SELECT current_setting('pipeline.principal') AS principal`)
      ).rows;
      const [scans] = (
        await client.query<{ seq_scan: string; idx_scan: string }>(
          `SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables WHERE relid = 'event_outbox'::regclass`,
        )
      ).rows;
      await client.query('ROLLBACK');
      return { pages: Number(pages), moved: Number(count), seqScans: Number(scans.seq_scan), principal };
    });
    assert.ok(counted.pages >= 20, `the outbox heap holds the dead rows (${counted.pages} pages)`);
    assert.equal(counted.moved, 1);
    assert.equal(counted.seqScans, 0, 'the run read the outbox by its key');
    assert.equal(counted.principal, 'operator', 'the run gave the caller its principal back');
  });
});
