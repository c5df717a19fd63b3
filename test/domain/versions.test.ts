// D-47: a deal's version is one of the decider's events. Every accepted decision ends with one
// DealVersioned per deal it changed (itself or through a gig), the version one more; a created
// deal is at 1; a refusal has no events at all. The version is a fold like every other field:
// the whole history folded at once gives the state decision by decision gave.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evolveAll, initialState } from '../../src/domain/state.ts';
import { gigClaimed, moved } from './builders.ts';
import { World } from './world.ts';

describe('deal versions from the decider’s events (D-47)', () => {
  it('a created deal is at 1 and has no DealVersioned; each later decision adds exactly one', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' } } });
    assert.equal(w.deal(dealId).version, 1);
    assert.ok(!w.history.some((e) => e.type === 'DealVersioned'));
    // the whole decision: the version ends it
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      [...moved(dealId, 'sourced', 'qualified'), { type: 'DealVersioned', dealId, version: 2 }],
      { withVersions: true },
    );
    w.advance(dealId);
    w.advance(dealId);
    assert.equal(w.deal(dealId).version, 3);
    // The escalation records an entry, sets the human track and posts a gig: still one version.
    const gigId = w.escalate(dealId);
    assert.equal(w.deal(dealId).version, 4);
    // A claim changes only the gig: its deal's version moves.
    const closerId = w.enrol();
    const claim = w.when({ type: 'ClaimGig', gigId, closerId });
    assert.equal(claim.state().deals.get(dealId)?.version, 5);
    claim.then([...gigClaimed(dealId, 'meeting', { gigId, closerId }), { type: 'DealVersioned', dealId, version: 5 }], {
      withVersions: true,
    });
  });

  it('a refused decision has no events, so no version', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.advance(dealId, { advanceTo: 'closed_lost' });
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).thenRefused('conflict', 'DEAL_TERMINAL');
  });

  it('folding the whole history at once gives the versions decision by decision gave', () => {
    const w = new World();
    const dealId = w.createDeal();
    for (let i = 0; i < 4; i++) w.advance(dealId);
    w.signals(dealId, 'legal_review');
    const folded = evolveAll(initialState(), w.history);
    assert.equal(folded.deals.get(dealId)?.version, w.deal(dealId).version);
    assert.equal(w.deal(dealId).version, 6);
  });
});
