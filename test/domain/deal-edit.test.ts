// D-67 as the decider sees it: an edit of a live deal decides one DealEdited with only the fields
// that differ and one activity entry naming them; nothing for an edit that changes nothing; a
// terminal deal is refused. After it, the floor is the new list value's; a gig's brief is not
// touched.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { floorCents } from '../../src/domain/gate.ts';
import { entry } from './builders.ts';
import { claimedCloserGig, World } from './world.ts';

describe('editing a deal (D-67)', () => {
  it('decides the fields that differ, in one event and one entry naming each', () => {
    const w = new World();
    const dealId = w.createDeal({ name: 'Acme Fictional Ltd', listValueUsd: 40_000 });
    w.when({
      type: 'EditDeal',
      dealId,
      edit: { account: { name: 'Acme Fictional GmbH', industry: 'saas' }, listValueUsd: 45_000 },
    }).then([
      {
        type: 'DealEdited',
        dealId,
        changes: [
          { field: 'account.name', from: 'Acme Fictional Ltd', to: 'Acme Fictional GmbH' },
          { field: 'listValue', from: 4_000_000, to: 4_500_000 },
        ],
      },
      entry(
        dealId,
        'service',
        'sourced',
        'Edited: account name “Acme Fictional Ltd” → “Acme Fictional GmbH”; list value $40,000.00 → $45,000.00.',
      ),
    ]);
  });

  it('industry null removes the industry; a new one sets it', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.run({ type: 'EditDeal', dealId, edit: { account: { industry: null } } });
    assert.equal(w.deal(dealId).account.industry, undefined);
    assert.deepEqual(w.deal(dealId).account, { name: 'Acme Fictional Ltd', actor: 'B2B' });
    w.when({ type: 'EditDeal', dealId, edit: { account: { industry: 'fintech' } } }).then([
      { type: 'DealEdited', dealId, changes: [{ field: 'account.industry', from: null, to: 'fintech' }] },
      entry(dealId, 'service', 'sourced', 'Edited: industry none → “fintech”.'),
    ]);
  });

  it('an edit that changes nothing decides nothing', () => {
    const w = new World();
    const dealId = w.createDeal({ listValueUsd: 40_000 });
    w.when({ type: 'EditDeal', dealId, edit: { account: { name: 'Acme Fictional Ltd' }, listValueUsd: 40_000 } }).then(
      [],
    );
  });

  it('a closed deal is refused: DEAL_TERMINAL', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.advance(dealId, { advanceTo: 'closed_lost' });
    w.when({ type: 'EditDeal', dealId, edit: { listValueUsd: 1 } }).thenRefused('conflict', 'DEAL_TERMINAL');
  });

  it('the floor follows the new list value; the claimed gig keeps its brief', () => {
    const { w, dealId, gigId } = claimedCloserGig('negotiation', { listValueUsd: 100_000 });
    const brief = w.gig(gigId).brief;
    w.run({ type: 'EditDeal', dealId, edit: { listValueUsd: 50_000 } });
    assert.equal(floorCents(w.deal(dealId)), 4_000_000);
    assert.equal(w.gig(gigId).brief, brief);
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'closed_won', valueUsd: 39_999 }).thenRefused(
      'gate',
      'GATE_BELOW_FLOOR',
    );
  });
});
