import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mandateView, resolveMandate } from '../../src/domain/mandate.ts';
import type { ActivityEntry } from '../../src/domain/records.ts';
import { dealView, gigView, iso } from '../../src/views/records.ts';
import { sampleDeal, sampleGig } from '../store/contract.ts';

describe('views', () => {
  it('iso answers every instant right whatever order they come in (its cache keeps two)', () => {
    const instants = [0, 1, 0, 1, 2, 2, 1, 0, 86_400_000, 1, 1_790_000_000_123, 0];
    for (const ms of instants) assert.equal(iso(ms), new Date(ms).toISOString(), String(ms));
  });

  it("a shared default mandate's view is kept and frozen; a Seller's own is built each time", () => {
    const shared = resolveMandate(undefined, 'B2B');
    const own = resolveMandate({ commissionPct: 0.05 }, 'B2B');
    assert.ok(shared.ok && own.ok);
    assert.equal(mandateView(shared.mandate), mandateView(shared.mandate));
    assert.ok(Object.isFrozen(mandateView(shared.mandate).fees));
    assert.notEqual(mandateView(own.mandate), mandateView(own.mandate));
    assert.deepEqual(mandateView(own.mandate), mandateView(own.mandate));
    assert.equal(mandateView(own.mandate).commissionPct, 0.05);
  });

  it('D-272: an activity entry names the gig and closer it is about in fields, after its words; others have none', () => {
    const at = Date.UTC(2026, 0, 5);
    const actor = { principal: 'closer_0002', keyId: 'key_0003' };
    const activity: ActivityEntry[] = [
      { at, by: 'agent', stage: 'qualified', note: 'Advanced sourced to qualified by the agent' },
      {
        at,
        by: 'service',
        stage: 'meeting',
        note: 'The closer gig was claimed.',
        gigId: 'gig_0001',
        closerId: 'closer_0002',
      },
      {
        at,
        by: 'human',
        stage: 'proposal',
        note: 'Advanced meeting to proposal by the human',
        gigId: 'gig_0001',
        actor,
      },
    ];
    const time = iso(at);
    const entries = [
      { at: time, by: 'agent', stage: 'qualified', note: 'Advanced sourced to qualified by the agent' },
      {
        at: time,
        by: 'service',
        stage: 'meeting',
        note: 'The closer gig was claimed.',
        gigId: 'gig_0001',
        closerId: 'closer_0002',
      },
      {
        at: time,
        by: 'human',
        stage: 'proposal',
        note: 'Advanced meeting to proposal by the human',
        gigId: 'gig_0001',
        actor,
      },
    ];
    const shown = dealView(sampleDeal('deal_0001', { activity })).activity;
    assert.deepEqual(shown, entries);
    assert.deepEqual(Object.keys(shown[1]), ['at', 'by', 'stage', 'note', 'gigId', 'closerId']);
    // A brief shows no one's actor (D-54), the fields still.
    const gig = sampleGig('gig_0001', 'deal_0001');
    const brief = gigView({ ...gig, brief: { ...gig.brief, activity } }).brief.activity;
    assert.deepEqual(brief, entries.map(withoutActor));
  });
});

/** An entry view as a brief shows it: without its actor. */
function withoutActor<T extends { actor?: unknown }>({ actor: _actor, ...entry }: T) {
  return entry;
}
