// D-73: a deal's facts row is written with the deal where its facts change, and left alone where
// they do not (pending-writes.ts changedFacts). Shown by marking the stored row by hand: a write
// that moves no fact keeps the mark, one that moves a stage replaces it with the deal's facts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Deal } from '../../src/domain/records.ts';
import { createStore } from '../../src/store/create-store.ts';
import { factValues } from '../../src/store/postgres/codec.ts';
import type { Store } from '../../src/store/store.ts';
import { sampleDeal } from '../store/contract.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();
/** A list value no deal of the test has: the hand's mark on a facts row. */
const MARK = 1;

describe("a deal's facts are written where they change (D-73)", { skip: server.skip }, () => {
  let schema: TestSchema;
  let store: Store;
  before(async () => {
    schema = await createTestSchema(server.url as string, 'factwrites');
    store = await createStore(schema.url, { poolSize: 2, ownerUrl: schema.ownerUrl });
  });
  after(async () => {
    await store?.close();
    await schema?.drop();
  });

  const onRow = <T>(work: (c: import('pg').Client) => Promise<T>) =>
    sqlOn(schema.adminUrl, async (c) => {
      await c.query("SET pipeline.principal = 'platform'");
      return work(c);
    });
  const storedValue = async (id: string) =>
    Number(
      (await onRow((c) => c.query('SELECT list_value_cents FROM deal_facts WHERE id = $1', [id]))).rows[0]
        ?.list_value_cents,
    );
  const mark = (id: string) =>
    onRow((c) => c.query('UPDATE deal_facts SET list_value_cents = $2 WHERE id = $1', [id, MARK]));
  const rewrite = (id: string, change: (deal: Deal) => Deal) =>
    store.transaction(async (uow) => {
      const deal = (await uow.getDeal(id)) as Deal;
      await uow.putDeal(change(deal));
    });

  it('a new deal gets its facts; a write that moves none leaves the row; a stage moved writes it', async () => {
    const deal = sampleDeal('deal_0001', { listValueCents: 5_000_000 });
    await store.transaction((uow) => uow.putDeal(deal));
    assert.equal(await storedValue(deal.id), 5_000_000, 'a new deal is written with its facts');

    await mark(deal.id);
    await rewrite(deal.id, (d) => ({
      ...d,
      version: d.version + 1,
      account: { ...d.account, name: 'Renamed Fictional' },
    }));
    assert.equal(await storedValue(deal.id), MARK, 'a rename moves no fact: the row is not written');

    const moved = await store.read((r) => r.getDeal(deal.id));
    await rewrite(deal.id, (d) => ({
      ...d,
      version: d.version + 1,
      stage: 'qualified',
      activity: [...d.activity, { at: d.lastActedAt + 1, by: 'agent', stage: 'qualified', note: 'moved' }],
    }));
    assert.equal(await storedValue(deal.id), 5_000_000, 'a stage moved writes the facts again');
    const after = (await store.read((r) => r.getDeal(deal.id))) as Deal;
    assert.notDeepEqual(factValues(after), factValues(moved as Deal));
  });

  it('two puts in one unit: the facts of the last are the row', async () => {
    const deal = sampleDeal('deal_0002', { listValueCents: 100_000 });
    await store.transaction(async (uow) => {
      await uow.putDeal(deal);
      await uow.putDeal({ ...deal, version: deal.version + 1, listValueCents: 200_000 });
    });
    assert.equal(await storedValue(deal.id), 200_000);
    await rewrite(deal.id, (d) => ({ ...d, version: d.version + 1, listValueCents: 300_000 }));
    assert.equal(await storedValue(deal.id), 300_000, 'a list value edited is a fact changed');
  });
});
