// The feed's index by type leaves out deal.stage_changed (migration 031), most of the feed, so
// that the sequencer pays no entry for it. A read of the other types must still find them by that
// index under a generic plan (the store's statements are prepared), and a read of stage changes,
// or of every type, reads the feed in seq order; both answer what they did with a full index.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PublicEventDraft } from '../../src/domain/public-events.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { EventFilter } from '../../src/store/feed.ts';
import { feedQuery } from '../../src/store/postgres/sql-reader.ts';
import type { Store } from '../../src/store/store.ts';
import { moved, T0 } from '../support/feed-events.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();

const closed = (dealId: string): PublicEventDraft => ({
  type: 'deal.closed',
  at: T0,
  data: { dealId, outcome: 'closed_won', finalValueCents: 100_000, closedBy: 'agent' },
});

describe('the feed by type on PostgreSQL', { skip: server.skip }, () => {
  let schema: TestSchema;
  let store: Store;
  before(async () => {
    schema = await createTestSchema(server.url as string, 'feed_by_type');
    store = await createStore(schema.url, { ownerUrl: schema.ownerUrl });
    // 300 deals, each five stage changes and then its close, as a sell publishes them.
    for (let i = 0; i < 300; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => {
          const dealId = `deal_${i + j + 1}`;
          return store.transaction((uow) => uow.publish([...Array(5).fill(moved(dealId)), closed(dealId)], T0));
        }),
      );
    }
    await store.lastSeq();
    await sqlOn(schema.adminUrl, (client) => client.query('ANALYZE events'));
  });
  after(async () => {
    await store?.close();
    await schema?.drop();
  });

  /** The plan of a page's statement as the store sends it, generic, as the platform. */
  const planOf = (filter: EventFilter) =>
    sqlOn(schema.url, async (client) => {
      const { text, params } = feedQuery(filter);
      await client.query('BEGIN');
      await client.query(`SELECT set_config('pipeline.principal', 'platform', true)`);
      await client.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      // Named, so prepared as the store prepares its statements (a generic plan is forced above).
      const { rows } = await client.query({ name: 'feed_page', text: `EXPLAIN (COSTS OFF) ${text}`, values: params });
      await client.query('ROLLBACK');
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });

  it('reads a type other than stage changes by the index by type', async () => {
    const [index] = await sqlOn(schema.url, async (client) => {
      const { rows } = await client.query<{ indexdef: string }>(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'events_type_seq'`,
      );
      return rows;
    });
    assert.match(index.indexdef, /WHERE \(type <> 'deal\.stage_changed'::text\)/, 'stage changes have no entry');
    assert.match(await planOf({ after: 0, limit: 10, type: 'deal.closed' }), /events_type_seq/);
    // A list of types without stage changes says so too (the notifier's, a webhook's).
    assert.match(
      feedQuery({ after: 0, limit: 10, types: ['deal.closed', 'gig.posted'] }).text,
      /type <> 'deal.stage_changed'/,
    );
    assert.doesNotMatch(feedQuery({ after: 0, limit: 10, types: ['deal.stage_changed'] }).text, /<>/);
    const page = await store.events({ after: 0, limit: 1000, type: 'deal.closed' });
    assert.equal(page.length, 300);
    assert.deepEqual(
      page.map(({ seq }) => seq),
      Array.from({ length: 300 }, (_, i) => 6 * (i + 1)),
      'each deal’s close is its sixth event',
    );
  });

  it('reads stage changes in seq order, without the index by type', async () => {
    assert.doesNotMatch(await planOf({ after: 0, limit: 10, type: 'deal.stage_changed' }), /events_type_seq/);
    const page = await store.events({ after: 0, limit: 12, type: 'deal.stage_changed' });
    assert.deepEqual(
      page.map(({ seq }) => seq),
      [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 13, 14],
    );
    const mixed = await store.events({ after: 0, limit: 7, types: ['deal.stage_changed', 'deal.closed'] });
    assert.deepEqual(
      mixed.map(({ seq }) => seq),
      [1, 2, 3, 4, 5, 6, 7],
    );
  });
});
