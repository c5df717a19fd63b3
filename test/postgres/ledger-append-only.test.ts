// D-79 on a real server (migration 028): the ledger only grows. Plain SQL as the tables' owner
// (which row-level security and the grants would not stop) still may not update or delete a
// transfer, a refund or a payout: their triggers refuse it; the serving role is not even given
// the right (D-77). The database holds what the store contract cannot show of the adapters: a
// key booked once, an earning released once under any key, no transfer of zero or to itself.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TransferDraft } from '../../src/domain/ledger/transfers.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');

const commission: TransferDraft = {
  key: 'commission:gig_0001',
  at: T0,
  debit: 'seller:none',
  credit: 'closer:closer_0001:pending',
  amountCents: 90_000,
  kind: 'commission',
  dealId: 'deal_0001',
  gigId: 'gig_0001',
  closerId: 'closer_0001',
};

const release: TransferDraft = {
  key: 'release:txn_0001',
  at: T0 + 1,
  debit: 'closer:closer_0001:pending',
  credit: 'closer:closer_0001:available',
  amountCents: 90_000,
  kind: 'release',
  releases: 'txn_0001',
  closerId: 'closer_0001',
  dealId: 'deal_0001',
};

const server = await postgresForTests();

if (server.skip !== undefined) {
  describe('postgres: the ledger is append-only', { skip: server.skip }, () => {});
} else {
  const baseUrl = server.url;

  describe('postgres: the ledger is append-only', () => {
    let store: Store;
    let schema: TestSchema;
    before(async () => {
      schema = await createTestSchema(baseUrl, 'ledger_append');
      store = await createStore(schema.url, { poolSize: 1, ownerUrl: schema.ownerUrl });
      await store.transaction(async (uow) => {
        const transfers = await uow.ledger.post([commission, release]);
        await uow.ledger.putRefund({
          id: await uow.ledger.takeRefundId(),
          dealId: 'deal_0001',
          amountCents: 100,
          reason: 'returned',
          at: T0,
          transfers: [],
        });
        await uow.ledger.putPayout({
          id: await uow.ledger.takePayoutId(),
          closerId: 'closer_0001',
          amountCents: 90_000,
          status: 'paid',
          paidAt: T0,
          reference: null,
          transfers,
        });
      });
    });
    after(async () => {
      await store.close();
      await schema.drop();
    });

    /** Plain SQL on the schema as `url`'s role, for the platform (row-level security shows it every row). */
    const asPlatform = <T>(url: string, work: (query: (text: string) => Promise<unknown>) => Promise<T>) =>
      sqlOn(url, async (c) => {
        await c.query("SET pipeline.principal = 'platform'");
        return work((text) => c.query(text));
      });

    it('refuses UPDATE and DELETE of a transfer, a refund and a payout, even as the tables’ owner', async () => {
      await asPlatform(schema.adminUrl, async (query) => {
        for (const table of ['transfers', 'refunds', 'closer_payouts']) {
          const column = table === 'transfers' ? 'amount_cents = 1' : 'number = number';
          await assert.rejects(query(`UPDATE ${table} SET ${column}`), /append-only: UPDATE on/, table);
          await assert.rejects(query(`DELETE FROM ${table}`), /append-only: DELETE on/, table);
        }
      });
      const left = await store.read((r) => r.ledger.transfers({ limit: 10 }));
      assert.deepEqual(
        left.map((t) => [t.id, t.amountCents]),
        [
          ['txn_0001', 90_000],
          ['txn_0002', 90_000],
        ],
      );
      assert.equal((await store.read((r) => r.ledger.refundsOfDeal('deal_0001'))).length, 1);
      assert.equal((await store.read((r) => r.ledger.payouts({ limit: 10 }))).length, 1);
    });

    it('the serving role is given neither UPDATE nor DELETE of the ledger (D-77)', async (t) => {
      if (schema.ownerUrl === undefined) return t.skip('one role: the serving role owns the tables');
      await asPlatform(schema.url, async (query) => {
        for (const table of ['transfers', 'refunds', 'closer_payouts']) {
          await assert.rejects(query(`UPDATE ${table} SET number = number`), /permission denied/, table);
          await assert.rejects(query(`DELETE FROM ${table}`), /permission denied/, table);
        }
      });
    });

    it('refuses a key booked twice, a second release of an earning under another key, a transfer of zero or to itself', async () => {
      const insert = (key: string, debit: string, credit: string, amount: number, releases = 'NULL') =>
        `INSERT INTO transfers (key, at, debit, credit, amount_cents, kind, releases)
         VALUES ('${key}', ${T0}, '${debit}', '${credit}', ${amount}, 'release', ${releases})`;
      const [pending, available] = ['closer:closer_0001:pending', 'closer:closer_0001:available'];
      await asPlatform(schema.adminUrl, async (query) => {
        await assert.rejects(query(insert('release:txn_0001', pending, available, 1)), /duplicate key/);
        await assert.rejects(query(insert('release:again', pending, available, 1, '1')), /transfers_release_once/);
        await assert.rejects(query(insert('zero', pending, available, 0)), /check constraint/);
        await assert.rejects(query(insert('self', pending, pending, 1)), /check constraint/);
      });
      assert.equal((await store.read((r) => r.ledger.transfers({ limit: 10 }))).length, 2);
    });
  });
}
