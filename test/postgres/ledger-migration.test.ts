// Migration 028 (D-79): the deals settled before it get their books, as the write path books
// them: a won deal's platform fee when it entered closed_won, and each payouts line's earning
// when it was posted, held for its closer (so the timers release it), and the books sum to zero.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { platformFeeCents } from '../../src/domain/gate.ts';
import { replay } from '../../src/domain/ledger/transfers.ts';
import type { Deal, PayoutLine } from '../../src/domain/records.ts';
import { createStore } from '../../src/store/create-store.ts';
import { dealValues, FACT_COLUMNS, payoutParams } from '../../src/store/postgres/codec.ts';
import { loadMigrations, migrate } from '../../src/store/postgres/migrate.ts';
import { PgDatabase } from '../../src/store/postgres/pg-database.ts';
import { DAY, World } from '../domain/world.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();

/** A deal won at 45,000 by a closer of Seller 1, and one still open. */
function deals(): Deal[] {
  const w = new World();
  const won = w.createDeal({ listValueUsd: 50_000 });
  const open = w.createDeal();
  w.tick(DAY).agentTo(won, 'negotiation').agentTo(open, 'qualified');
  w.advance(won, { advanceTo: 'closed_won', valueUsd: 45_000 });
  return [{ ...w.deal(won), sellerId: 'seller_0001' }, w.deal(open)];
}

describe('migration 028: the books of what was settled before it (D-79)', { skip: server.skip }, () => {
  let old: TestSchema | undefined;
  after(() => old?.drop());

  it('books each won deal its platform fee and each payouts line its held earning', async () => {
    old = await createTestSchema(server.url as string, 'ledger028');
    const db = new PgDatabase(old.adminUrl, { poolSize: 1 });
    const [won, open] = deals() as [Deal, Deal];
    const line: PayoutLine = {
      at: (won.activity.at(-1)?.at as number) + 1,
      closerId: 'closer_0001',
      gigId: 'gig_0007',
      dealId: won.id,
      role: 'closer',
      kind: 'commission',
      amountCents: 450_000,
    };
    try {
      await migrate(
        db,
        (await loadMigrations()).filter((m) => m.version < 28),
      );
      await sqlOn(old.adminUrl, async (c) => {
        await c.query("SET pipeline.principal = 'platform'");
        const columns = ['id', 'stage', 'stall_due_at', 'seller_id', 'doc', ...FACT_COLUMNS];
        for (const deal of [won, open])
          await c.query(
            `INSERT INTO deals (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
            dealValues(deal),
          );
        await c.query(
          `INSERT INTO payouts (gig_id, closer_id, deal_id, role, kind, amount_cents, at, seller_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'seller_0001')`,
          payoutParams(line),
        );
      });
    } finally {
      await db.close();
    }
    const store = await createStore(old.url, { poolSize: 1, ownerUrl: old.ownerUrl });
    try {
      const { transfers, held } = await store.read(async (reader) => ({
        transfers: await reader.ledger.transfers({ limit: 100 }),
        held: await reader.ledger.heldEarnings(Number.MAX_SAFE_INTEGER, 100),
      }));
      const closedAt = won.activity.find((entry) => entry.stage === 'closed_won')?.at;
      assert.deepEqual(
        transfers.map(({ id, key, at, debit, credit, amountCents, kind, dealId, gigId, closerId, sellerId }) => ({
          id,
          key,
          at,
          debit,
          credit,
          amountCents,
          kind,
          dealId,
          gigId,
          closerId,
          sellerId,
        })),
        [
          {
            id: 'txn_0001',
            key: `platform_fee:${won.id}`,
            at: closedAt,
            debit: 'seller:seller_0001',
            credit: 'platform:fees',
            amountCents: platformFeeCents(4_500_000),
            kind: 'platform_fee',
            dealId: won.id,
            gigId: undefined,
            closerId: undefined,
            sellerId: 'seller_0001',
          },
          {
            id: 'txn_0002',
            key: 'commission:gig_0007',
            at: line.at,
            debit: 'seller:seller_0001',
            credit: 'closer:closer_0001:pending',
            amountCents: 450_000,
            kind: 'commission',
            dealId: won.id,
            gigId: 'gig_0007',
            closerId: 'closer_0001',
            sellerId: 'seller_0001',
          },
        ],
      );
      assert.deepEqual(
        held.map((t) => t.id),
        ['txn_0002'],
        'the earning is held, for the timers to release',
      );
      let sum = 0n;
      for (const balance of replay(transfers).values()) sum += balance;
      assert.equal(sum, 0n);
    } finally {
      await store.close();
    }
  });
});
