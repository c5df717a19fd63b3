// The instance's copy of records for optimistic units (D-250): kept per principal, bounded, the
// oldest written forgotten first, and forgotten on demand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecordCache } from '../../src/store/postgres/record-cache.ts';
import { sampleCloser, sampleDeal, sampleGig } from './contract.ts';

describe('the record cache (D-250)', () => {
  it('serves a record only to the principal it was kept for', () => {
    const cache = new RecordCache();
    cache.setDeal('seller_0001', { record: sampleDeal('deal_0001'), version: '7' });
    assert.equal(cache.deal('seller_0001', 'deal_0001')?.version, '7');
    assert.equal(cache.deal('seller_0002', 'deal_0001'), undefined);
    assert.equal(cache.deal('platform', 'deal_0001'), undefined);
  });

  it('keeps at most its limit of each kind, forgetting the oldest written first', () => {
    const cache = new RecordCache(2);
    for (const id of ['deal_0001', 'deal_0002']) cache.setDeal('p', { record: sampleDeal(id), version: '1' });
    // Written again: the newest now.
    cache.setDeal('p', { record: sampleDeal('deal_0001'), version: '2' });
    cache.setDeal('p', { record: sampleDeal('deal_0003'), version: '1' });
    assert.equal(cache.deal('p', 'deal_0002'), undefined);
    assert.equal(cache.deal('p', 'deal_0001')?.version, '2');
    assert.equal(cache.deal('p', 'deal_0003')?.version, '1');
  });

  it("finds a gig's deal through its set, and forgets a deal, its gigs and a closer", () => {
    const cache = new RecordCache();
    cache.setDeal('p', { record: sampleDeal('deal_0001'), version: '1' });
    cache.setGigsOf('p', 'deal_0001', [{ record: sampleGig('gig_0001', 'deal_0001'), version: '1' }]);
    cache.setCloser('p', { record: sampleCloser('closer_0001'), version: '1' });
    assert.equal(cache.dealOfGig('p', 'gig_0001'), 'deal_0001');
    cache.forgetGigsOf('p', 'deal_0001');
    assert.equal(cache.gigsOf('p', 'deal_0001'), undefined);
    assert.ok(cache.deal('p', 'deal_0001'), 'the deal stays');
    cache.forget('p', { deals: ['deal_0001'], closers: ['closer_0001'] });
    assert.equal(cache.deal('p', 'deal_0001'), undefined);
    assert.equal(cache.closer('p', 'closer_0001'), undefined);
    cache.setDeal('p', { record: sampleDeal('deal_0002'), version: '1' });
    cache.clear();
    assert.equal(cache.deal('p', 'deal_0002'), undefined);
  });
});
