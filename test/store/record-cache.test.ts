// The instance's copy of records for optimistic units (D-250): one for every principal (D-282),
// bounded, the oldest written forgotten first, and forgotten on demand. That a principal acts on
// no record it may not see is the checks' work, under its own principal: test/postgres/shared-cache.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { remember } from '../../src/store/postgres/optimistic-reads.ts';
import { RecordCache } from '../../src/store/postgres/record-cache.ts';
import { sampleCloser, sampleDeal, sampleGig } from './contract.ts';

describe('the record cache (D-250)', () => {
  it('keeps one copy of a record, whoever read or wrote it', () => {
    const cache = new RecordCache();
    cache.setDeal({ record: sampleDeal('deal_0001'), version: '7' });
    cache.setDeal({ record: sampleDeal('deal_0001'), version: '8' });
    assert.equal(cache.deal('deal_0001')?.version, '8');
    assert.equal(cache.deal('deal_0002'), undefined);
  });

  it('keeps at most its limit of each kind, forgetting the oldest written first', () => {
    const cache = new RecordCache(2);
    for (const id of ['deal_0001', 'deal_0002']) cache.setDeal({ record: sampleDeal(id), version: '1' });
    // Written again: the newest now.
    cache.setDeal({ record: sampleDeal('deal_0001'), version: '2' });
    cache.setDeal({ record: sampleDeal('deal_0003'), version: '1' });
    assert.equal(cache.deal('deal_0002'), undefined);
    assert.equal(cache.deal('deal_0001')?.version, '2');
    assert.equal(cache.deal('deal_0003')?.version, '1');
  });

  it("finds a gig's deal through its set, and forgets a deal, its gigs and a closer", () => {
    const cache = new RecordCache();
    cache.setDeal({ record: sampleDeal('deal_0001'), version: '1' });
    cache.setGigsOf('deal_0001', [{ record: sampleGig('gig_0001', 'deal_0001'), version: '1' }]);
    cache.setCloser({ record: sampleCloser('closer_0001'), version: '1' });
    assert.equal(cache.dealOfGig('gig_0001'), 'deal_0001');
    cache.forgetGigsOf('deal_0001');
    assert.equal(cache.gigsOf('deal_0001'), undefined);
    assert.ok(cache.deal('deal_0001'), 'the deal stays');
    cache.forget({ deals: ['deal_0001'], closers: ['closer_0001'] });
    assert.equal(cache.deal('deal_0001'), undefined);
    assert.equal(cache.closer('closer_0001'), undefined);
    cache.setDeal({ record: sampleDeal('deal_0002'), version: '1' });
    cache.clear();
    assert.equal(cache.deal('deal_0002'), undefined);
  });

  it('keeps what a committed unit wrote, but no closed deal (nor its gigs): it is seldom written again', () => {
    const cache = new RecordCache();
    cache.setDeal({ record: sampleDeal('deal_0002', { stage: 'negotiation' }), version: '3' });
    const none = new Set<string>();
    remember(cache, {
      xid: '9',
      deals: new Map([
        ['deal_0001', sampleDeal('deal_0001', { stage: 'proposal' })],
        ['deal_0002', sampleDeal('deal_0002', { stage: 'closed_won' })],
        ['deal_0003', sampleDeal('deal_0003', { stage: 'closed_lost' })],
      ]),
      gigs: new Map(),
      closers: new Map(),
      put: { deals: new Set(['deal_0001', 'deal_0002', 'deal_0003']), gigs: none, closers: none },
      gigSetsKnown: new Set(['deal_0001', 'deal_0002', 'deal_0003']),
    });
    assert.equal(cache.deal('deal_0001')?.version, '9');
    assert.deepEqual(cache.gigsOf('deal_0001'), []);
    // The older copy of the deal it closed is gone too: nothing stale is left to serve.
    for (const id of ['deal_0002', 'deal_0003']) {
      assert.equal(cache.deal(id), undefined, id);
      assert.equal(cache.gigsOf(id), undefined, id);
    }
  });
});
