// Migrations 026 and 027 (D-73): the deals kept before them get their facts, read from their
// documents in SQL (026) and moved into the deals' own rows (027), equal to what the write path
// gives a deal it writes (codec.ts factValues from the record):
// a won deal moved by an agent's key and closed by a closer, a lost one, one still open, one that
// was only created.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Deal } from '../../src/domain/records.ts';
import { createStore } from '../../src/store/create-store.ts';
import { FACT_COLUMNS, factValues } from '../../src/store/postgres/codec.ts';
import { loadMigrations, migrate } from '../../src/store/postgres/migrate.ts';
import { PgDatabase } from '../../src/store/postgres/pg-database.ts';
import { DAY, World } from '../domain/world.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();
/** A deal's facts: its own id, Seller and stage, and the facts' columns. */
const COLUMNS = ['id', 'seller_id', 'stage', ...FACT_COLUMNS];

/** The deals of a known history, their moves made through keys and a closer as keys mode's are. */
function deals(): Deal[] {
  const w = new World();
  const won = w.createDeal({ listValueUsd: 50_000 });
  const lost = w.createDeal({ industry: 'fintech' });
  const open = w.createDeal();
  const fresh = w.createDeal({ industry: 'logistics' });
  w.tick(DAY).agentTo(won, 'negotiation').agentTo(lost, 'meeting').agentTo(open, 'qualified');
  w.tick(DAY).advance(lost, { advanceTo: 'closed_lost' });
  w.advance(won, { advanceTo: 'closed_won', valueUsd: 45_000 });
  const keyed = (deal: Deal, closerAtClose?: string): Deal => ({
    ...deal,
    sellerId: 'seller_0001',
    activity: deal.activity.map((entry, i) => {
      if (entry.by === 'service') return entry;
      const last = i === deal.activity.length - 1;
      return {
        ...entry,
        actor: {
          principal: last && closerAtClose ? closerAtClose : 'seller_0001',
          keyId: last ? 'key_0009' : 'key_0002',
        },
        ...(last && closerAtClose ? { closerId: closerAtClose, by: 'human' as const } : {}),
      };
    }),
  });
  return [keyed(w.deal(won), 'closer_0001'), keyed(w.deal(lost)), keyed(w.deal(open)), w.deal(fresh)];
}

describe('migrations 026 and 027: the facts of the deals kept before them (D-73)', { skip: server.skip }, () => {
  let old: TestSchema | undefined;
  after(() => old?.drop());

  it('are what the write path gives each deal', async () => {
    old = await createTestSchema(server.url as string, 'facts026');
    const db = new PgDatabase(old.adminUrl, { poolSize: 1 });
    const made = deals();
    try {
      await migrate(
        db,
        (await loadMigrations()).filter((m) => m.version < 26),
      );
      await sqlOn((old as TestSchema).adminUrl, async (c) => {
        await c.query("SET pipeline.principal = 'platform'");
        for (const deal of made)
          await c.query('INSERT INTO deals (id, stage, seller_id, doc) VALUES ($1, $2, $3, $4::json)', [
            deal.id,
            deal.stage,
            deal.sellerId ?? null,
            JSON.stringify(deal),
          ]);
      });
    } finally {
      await db.close();
    }
    const store = await createStore(old.url, { poolSize: 1, ownerUrl: old.ownerUrl });
    await store.close();
    const rows = await sqlOn(old.adminUrl, async (c) => {
      await c.query("SET pipeline.principal = 'platform'");
      return (await c.query(`SELECT ${COLUMNS.join(', ')} FROM deals ORDER BY id`)).rows;
    });
    const expected = made.map((deal) => {
      const values = [deal.id, deal.sellerId ?? null, deal.stage, ...factValues(deal)];
      return Object.fromEntries(
        COLUMNS.map((column, i) => {
          const value = values[i];
          if (column === 'moves') return [column, JSON.parse(value as string)];
          return [column, typeof value === 'number' ? String(value) : value];
        }),
      );
    });
    const sortMoves = (row: Record<string, unknown>) => ({
      ...row,
      // JSONB keeps an object's keys in its own order: each move compared by its entries.
      moves: (row.moves as object[]).map((m) => JSON.stringify(Object.entries(m).sort())).sort(),
    });
    assert.deepEqual(rows.map(sortMoves), expected.map(sortMoves));
    assert.equal(rows[0]?.close_closer_id, 'closer_0001', 'a close by a closer');
    assert.equal(rows[1]?.lost_from, 'meeting');
  });
});
