import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NumberedTable } from '../../src/store/memory/numbered-table.ts';

describe('memory store: NumberedTable', () => {
  it('finds a record only by its id as written (deal_0001, not deal_1 or deal_00001)', () => {
    const table = new NumberedTable<{ id: string; v: number }>('deal');
    table.set({ id: 'deal_0001', v: 1 });
    table.set({ id: 'deal_10000', v: 2 });
    assert.equal(table.get('deal_0001')?.v, 1);
    assert.equal(table.get('deal_10000')?.v, 2);
    for (const id of [
      'deal_1',
      'deal_00001',
      'deal_',
      'deal',
      'deal_abc',
      'deal_-001',
      'deal_1e3',
      'gig_0001',
      'xdeal_0001',
      'deal_0000',
    ]) {
      assert.equal(table.get(id), undefined, id);
      assert.equal(table.numberOf(id), undefined, id);
    }
    assert.throws(() => table.set({ id: 'deal_1', v: 3 }), /not a deal id/);
  });

  it('counts records, lists them in number order, and restores what a set replaced', () => {
    const table = new NumberedTable<{ id: string; v: number }>('gig');
    assert.equal(table.set({ id: 'gig_0002', v: 2 }), undefined);
    table.set({ id: 'gig_0001', v: 1 });
    const previous = table.set({ id: 'gig_0001', v: 10 });
    assert.deepEqual(previous, { id: 'gig_0001', v: 1 });
    assert.equal(table.size, 2);
    assert.deepEqual(
      [...table.values()].map((r) => r.v),
      [10, 2],
    );
    table.restore('gig_0001', previous);
    assert.equal(table.get('gig_0001')?.v, 1);
    table.restore('gig_0002', undefined);
    assert.equal(table.get('gig_0002'), undefined);
    assert.equal(table.size, 1);
    assert.equal(table.at(1)?.v, 1);
  });
});
