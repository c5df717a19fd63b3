// evolve copies a deal field by field (one object shape, fast to read). This holds that copy to
// every field of Deal: the fixture is a Required<Deal>, so a field added to Deal does not
// typecheck here until it is added, and then this test fails until the copy keeps it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveMandate } from '../../src/domain/mandate.ts';
import type { Deal } from '../../src/domain/records.ts';
import { evolve, initialState } from '../../src/domain/state.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');

function everyField(): Required<Deal> {
  const resolved = resolveMandate(undefined, 'B2B');
  assert.ok(resolved.ok);
  return {
    id: 'deal_0007',
    sellerId: 'seller_0002',
    version: 3,
    account: { name: 'Every Field Fictional', industry: 'saas', actor: 'B2B' },
    listValueCents: 12_345_600,
    stage: 'negotiation',
    signals: ['legal_review'],
    mandate: resolved.mandate,
    activity: [{ at: T0, by: 'service', stage: 'sourced', note: 'created' }],
    humanTrack: true,
    finalValueCents: 11_000_000,
    closedBy: 'human',
    lineage: { revivedFrom: 'deal_0003' },
    lastActedAt: T0,
    stallDueAt: T0 + 1,
  };
}

describe('evolve: a deal changed by an event keeps every field it does not change', () => {
  it('carries every field of Deal through its copy (stallDueAt is recomputed from the copy)', () => {
    const deal = everyField();
    const given = evolve(initialState(), { type: 'DealCreated', deal });
    const entry = { at: T0 + 5, by: 'agent' as const, stage: 'negotiation' as const, note: 'a note' };
    const after = given.deals.get(deal.id) as Deal;
    const changed = evolve(given, { type: 'ActivityRecorded', dealId: deal.id, entry, acted: false }).deals.get(
      deal.id,
    ) as Deal;
    assert.notEqual(changed, after, 'the event changed a copy, not the record');
    // Held to the fixture itself: the created deal is a copy too.
    for (const key of Object.keys(deal) as (keyof Deal)[]) {
      if (key === 'activity' || key === 'stallDueAt') continue;
      assert.deepEqual(after[key], deal[key], `${key} survives the copy at creation`);
      assert.deepEqual(changed[key], deal[key], `${key} survives the copy of a change`);
    }
    assert.deepEqual(changed.activity, [...deal.activity, entry]);
    assert.equal(Object.keys(changed).sort().join(), Object.keys(deal).sort().join(), 'no field lost or added');
  });
});
