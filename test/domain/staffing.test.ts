// Staffing and the human track: D-10, D-11, D-12.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_STAFFING } from '../../src/domain/mandate.ts';
import { needsHuman, ruleCallsForHuman } from '../../src/domain/staffing.ts';
import { activityBy, claimedCloserGig, claimedNurturerGig, only, T0, types, World } from './world.ts';

const deal = (listValueCents: number, signals: string[] = []) => ({ listValueCents, signals });

describe('D-10 staffing rules', () => {
  it('D-10: agent never calls for a human, human always does', () => {
    assert.equal(ruleCallsForHuman('agent', deal(1e12, ['gone_dark'])), false);
    assert.equal(ruleCallsForHuman('human', deal(1)), true);
  });

  it('D-10: humanIf minDealSizeUsd holds when listValueUsd >= minDealSizeUsd', () => {
    const rule = { humanIf: { minDealSizeCents: 5_000_000 } };
    assert.equal(ruleCallsForHuman(rule, deal(4_999_999)), false);
    assert.equal(ruleCallsForHuman(rule, deal(5_000_000)), true);
    assert.equal(ruleCallsForHuman(rule, deal(5_000_001)), true);
  });

  it('D-10: humanIf signals holds when the deal carries any of the listed signals', () => {
    const rule = { humanIf: { signals: ['procurement_involved', 'legal_review'] } };
    assert.equal(ruleCallsForHuman(rule, deal(100, [])), false);
    assert.equal(ruleCallsForHuman(rule, deal(100, ['budget_cut'])), false);
    assert.equal(ruleCallsForHuman(rule, deal(100, ['budget_cut', 'legal_review'])), true);
  });

  it('D-10: humanIf holds when ANY given condition holds (either one suffices)', () => {
    const rule = { humanIf: { minDealSizeCents: 5_000_000, signals: ['legal_review'] } };
    assert.equal(ruleCallsForHuman(rule, deal(100, ['legal_review'])), true, 'signal only');
    assert.equal(ruleCallsForHuman(rule, deal(5_000_000, [])), true, 'size only');
    assert.equal(ruleCallsForHuman(rule, deal(100, [])), false, 'neither');
    assert.equal(ruleCallsForHuman({ humanIf: {} }, deal(1e12, ['x'])), false, 'no condition never holds');
  });

  it('D-10: default staffing is setter agent, closer agent, nurturer human: an unstaffed deal is sold by the agent', () => {
    assert.deepEqual(DEFAULT_STAFFING, { setter: 'agent', closer: 'agent', nurturer: 'human' });
    const w = new World();
    const dealId = w.createDeal();
    assert.deepEqual(w.deal(dealId).mandate.staffing, DEFAULT_STAFFING);
    w.agentTo(dealId, 'negotiation');
    const closed = w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).state().deals.get(dealId);
    assert.equal(closed?.stage, 'closed_won');
    assert.equal(closed?.closedBy, 'agent');
    assert.equal(closed?.humanTrack, undefined);
  });

  it('D-10: a humanIf below its size threshold lets the agent work the stage', () => {
    const w = new World();
    const dealId = w.createDeal({
      listValueUsd: 10_000,
      mandate: { staffing: { closer: { humanIf: { minDealSizeUsd: 10_000.01 } } } },
    });
    w.agentTo(dealId, 'negotiation');
    assert.equal(w.deal(dealId).humanTrack, undefined);
  });

  it('D-10: a reported signal listed in humanIf makes the next advance escalate', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { closer: { humanIf: { signals: ['legal_review'] } } } } });
    w.agentTo(dealId, 'proposal');
    w.signals(dealId, 'legal_review');
    const then = w.when({ type: 'AdvanceDeal', dealId, proposal: {} });
    assert.ok(then.decision.ok);
    assert.equal(then.decision.escalation?.role, 'closer');
    assert.equal(then.state().deals.get(dealId)?.stage, 'proposal');
  });

  it('D-10: a stalled deal is always worked by a human nurturer, even when the nurturer rule says agent', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { nurturer: 'agent' } } });
    w.agentTo(dealId, 'qualified');
    w.signals(dealId, 'gone_dark');
    assert.equal(needsHuman(w.deal(dealId)), true);
    const then = w.when({ type: 'AdvanceDeal', dealId, proposal: {} });
    assert.ok(then.decision.ok);
    assert.equal(then.decision.escalation?.role, 'nurturer');
    const gig = only(then.events(), 'GigPosted').gig;
    assert.equal(gig.role, 'nurturer');
    assert.deepEqual(gig.pricing, { kind: 'fee', amountCents: 15_000 });
    assert.equal(then.state().deals.get(dealId)?.stage, 'qualified');
  });
});

describe('D-11 the human track never moves the deal on a deal advance', () => {
  it('D-11: an advance on a human-track deal answers the escalation shape with the active open gig, deciding nothing new', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' } } });
    w.agentTo(dealId, 'meeting');
    const gigId = w.escalate(dealId);
    const then = w.when({ type: 'AdvanceDeal', dealId, proposal: {} });
    assert.ok(then.decision.ok);
    assert.deepEqual(then.decision.escalation, { role: 'closer', gigId });
    assert.deepEqual(then.events(), []);
  });

  it('D-11: an advance while the gig is claimed returns that claimed gig', () => {
    const { w, dealId, gigId } = claimedCloserGig('proposal');
    const then = w.when({ type: 'AdvanceDeal', dealId, proposal: {} });
    assert.ok(then.decision.ok);
    assert.deepEqual(then.decision.escalation, { role: 'closer', gigId });
    assert.deepEqual(then.events(), []);
  });

  it('D-11: a human-track advance never moves the deal, whatever the proposal says (closed_lost, closed_won)', () => {
    const { w, dealId, gigId } = claimedCloserGig('negotiation');
    for (const proposal of [{ advanceTo: 'closed_lost' }, { advanceTo: 'closed_won', valueUsd: 100_000 }]) {
      const then = w.when({ type: 'AdvanceDeal', dealId, proposal });
      assert.ok(then.decision.ok);
      assert.deepEqual(then.decision.escalation, { role: 'closer', gigId });
      assert.equal(then.state().deals.get(dealId)?.stage, 'negotiation');
    }
  });

  it('D-11: with no active gig, a human-track advance posts a fresh gig for the owning role even when its staffing is agent', () => {
    // setter human, closer agent: once the setter gig is done the deal stays on the human track
    const w = new World();
    const closerId = w.enrol();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human', closer: 'agent' } } });
    const setterGig = w.escalate(dealId);
    w.claim(setterGig, closerId).gigAdvance(setterGig, 'qualified').gigAdvance(setterGig, 'meeting');
    assert.equal(w.gig(setterGig).status, 'fulfilled');
    const then = w.when({ type: 'AdvanceDeal', dealId, proposal: {} });
    assert.ok(then.decision.ok);
    assert.deepEqual(then.decision.escalation, { role: 'closer', gigId: 'gig_0002' });
    assert.deepEqual(types(then.events()), ['GigPosted', 'ActivityRecorded'], 'humanTrack is already set');
    assert.equal(then.state().deals.get(dealId)?.stage, 'meeting');
    assert.equal(then.state().deals.get(dealId)?.humanTrack, true);
  });

  it('D-11: the first escalation sets humanTrack and records a service activity entry', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    const then = w.when({ type: 'AdvanceDeal', dealId, proposal: {} });
    assert.deepEqual(types(then.events()), ['HumanTrackSet', 'GigPosted', 'ActivityRecorded']);
    assert.deepEqual(activityBy(then.events()), ['service']);
    assert.match(then.state().deals.get(dealId)?.activity.at(-1)?.note ?? '', /gig_0001 posted/);
  });
});

describe('D-12 de-escalation', () => {
  it('D-12: a deal that is not on the human track: 409 NOT_HUMAN_TRACK', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.when({ type: 'Deescalate', dealId }).thenRefused('conflict', 'NOT_HUMAN_TRACK');
  });

  it('D-12: a stalled deal: 409 DEAL_STALLED', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.signals(dealId, 'gone_dark');
    w.when({ type: 'Deescalate', dealId }).thenRefused('conflict', 'DEAL_STALLED');
    w.escalate(dealId); // with an open nurturer gig too
    w.when({ type: 'Deescalate', dealId }).thenRefused('conflict', 'DEAL_STALLED');
  });

  it('D-12: a deal with a claimed gig: 409 GIG_CLAIMED', () => {
    const { w, dealId, gigId, closerId } = claimedCloserGig('proposal');
    const refusal = w.when({ type: 'Deescalate', dealId }).thenRefused('conflict', 'GIG_CLAIMED');
    assert.ok(refusal.message.includes(gigId) && refusal.message.includes(closerId));
  });

  it('D-12: an open gig is released, humanTrack becomes false, activity by service', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' } } });
    w.agentTo(dealId, 'meeting');
    const gigId = w.escalate(dealId);
    const then = w.when({ type: 'Deescalate', dealId });
    assert.deepEqual(types(then.events()), ['GigReleased', 'ActivityRecorded', 'HumanTrackSet', 'ActivityRecorded']);
    assert.deepEqual(activityBy(then.events()), ['service', 'service']);
    const state = then.state();
    assert.equal(state.gigs.get(gigId)?.status, 'released');
    assert.equal(state.deals.get(dealId)?.humanTrack, false);
    assert.equal(state.deals.get(dealId)?.stage, 'meeting');
  });

  it('D-12: with no active gig, only humanTrack is cleared; then the staffing rules apply again (agent works it)', () => {
    // agent-staffed deal that went dark and was revived: human track, not stalled, no gig
    const { w, dealId, gigId } = claimedNurturerGig('proposal');
    w.run({ type: 'ClearGoneDark', gigId });
    assert.equal(w.deal(dealId).humanTrack, true);
    const then = w.when({ type: 'Deescalate', dealId });
    assert.deepEqual(types(then.events()), ['HumanTrackSet', 'ActivityRecorded']);
    w.run({ type: 'Deescalate', dealId });
    assert.equal(w.deal(dealId).humanTrack, false);
    const advanced = w.when({ type: 'AdvanceDeal', dealId, proposal: {} });
    assert.ok(advanced.decision.ok);
    assert.equal(advanced.decision.escalation, undefined);
    assert.equal(advanced.state().deals.get(dealId)?.stage, 'negotiation');
    assert.equal(advanced.state().deals.get(dealId)?.activity.at(-1)?.by, 'agent');
  });

  it('D-12: a human staffing rule still escalates after de-escalation (a fresh gig)', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    w.escalate(dealId);
    w.run({ type: 'Deescalate', dealId });
    const then = w.when({ type: 'AdvanceDeal', dealId, proposal: {} }, { now: T0 + 1 });
    assert.ok(then.decision.ok);
    assert.deepEqual(then.decision.escalation, { role: 'setter', gigId: 'gig_0002' });
    assert.equal(then.state().deals.get(dealId)?.humanTrack, true);
  });
});
