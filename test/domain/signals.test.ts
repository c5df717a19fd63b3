// Signals: D-13 (dedupe, gone_dark and its effects, activity by service).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { owningRole } from '../../src/domain/stages.ts';
import { activityBy, claimedCloserGig, claimedSetterGig, DAY, only, T0, types, World } from './world.ts';

describe('D-13 signals', () => {
  it('D-13: signals are added to the deal\u2019s set in order, with one activity entry by service', () => {
    const w = new World();
    const dealId = w.createDeal();
    const then = w.when({ type: 'ReportSignals', dealId, signals: ['procurement_involved', 'legal_review'] });
    assert.deepEqual(types(then.events()), ['SignalsAdded', 'ActivityRecorded']);
    assert.deepEqual(activityBy(then.events()), ['service']);
    const deal = then.state().deals.get(dealId);
    assert.deepEqual(deal?.signals, ['procurement_involved', 'legal_review']);
    assert.equal(deal?.stage, 'sourced');
    assert.equal(deal?.humanTrack, undefined, 'only gone_dark puts a deal on the human track');
    assert.match(deal?.activity.at(-1)?.note ?? '', /procurement_involved, legal_review/);
  });

  it('D-13: no duplicates: repeats within a call and signals already present are dropped', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.signals(dealId, 'procurement_involved');
    const then = w.when({
      type: 'ReportSignals',
      dealId,
      signals: ['legal_review', 'procurement_involved', 'legal_review'],
    });
    assert.deepEqual(only(then.events(), 'SignalsAdded').signals, ['legal_review']);
    assert.deepEqual(then.state().deals.get(dealId)?.signals, ['procurement_involved', 'legal_review']);
  });

  it('D-13: reporting only signals already present decides nothing (no activity entry)', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.signals(dealId, 'gone_dark');
    assert.deepEqual(w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] }).events(), []);
    assert.deepEqual(w.when({ type: 'ReportSignals', dealId, signals: [] }).events(), []);
  });

  it('D-13: a new gone_dark puts the deal on the human track under the nurturer role', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.agentTo(dealId, 'meeting');
    const then = w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] });
    assert.deepEqual(types(then.events()), ['SignalsAdded', 'ActivityRecorded', 'HumanTrackSet', 'ActivityRecorded']);
    assert.deepEqual(activityBy(then.events()), ['service', 'service']);
    const deal = then.state().deals.get(dealId);
    assert.ok(deal);
    assert.equal(deal.humanTrack, true);
    assert.equal(owningRole(deal), 'nurturer');
    assert.equal(deal.stallDueAt, undefined, 'a dark deal has no stall timer');
  });

  it('D-13: gone_dark releases an open gig of another role, not only a claimed one', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' } } });
    w.agentTo(dealId, 'meeting');
    const gigId = w.escalate(dealId);
    const then = w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark', 'budget_cut'] });
    assert.equal(only(then.events(), 'GigReleased').gigId, gigId);
    assert.equal(then.state().gigs.get(gigId)?.status, 'released');
    assert.match(
      then.state().deals.get(dealId)?.activity.at(-2)?.note ?? '',
      new RegExp(`${gigId} \\(closer\\) released`),
    );
  });

  it('D-13: gone_dark releases a claimed setter gig', () => {
    const { w, dealId, gigId } = claimedSetterGig();
    const then = w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] });
    assert.equal(then.state().gigs.get(gigId)?.status, 'released');
    assert.deepEqual(then.state().payouts, []);
  });

  it('D-13: gone_dark on a deal already on the human track does not repeat HumanTrackSet', () => {
    const { w, dealId } = claimedCloserGig('meeting');
    const then = w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] });
    assert.equal(types(then.events()).includes('HumanTrackSet'), false);
    assert.equal(then.state().deals.get(dealId)?.humanTrack, true);
  });

  it('D-13: signals other than gone_dark leave gigs and the track alone', () => {
    const { w, dealId, gigId } = claimedCloserGig('proposal');
    const then = w.when({ type: 'ReportSignals', dealId, signals: ['budget_cut'] });
    assert.deepEqual(types(then.events()), ['SignalsAdded', 'ActivityRecorded']);
    assert.equal(then.state().gigs.get(gigId)?.status, 'claimed');
  });

  it('D-13: a Seller\u2019s signal report is an act: it restarts the stall clock', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.tick(5 * DAY);
    const deal = w
      .when({ type: 'ReportSignals', dealId, signals: ['budget_cut'] })
      .state()
      .deals.get(dealId);
    assert.equal(deal?.lastActedAt, T0 + 5 * DAY);
    assert.equal(deal?.stallDueAt, T0 + 19 * DAY);
  });

  it('D-13: signals on an unknown deal are not_found; on a terminal deal 409', () => {
    const w = new World();
    w.when({ type: 'ReportSignals', dealId: 'deal_0007', signals: ['x'] }).thenRefused('not_found', 'DEAL_NOT_FOUND');
    const dealId = w.createDeal();
    w.advance(dealId, { advanceTo: 'closed_lost' });
    w.when({ type: 'ReportSignals', dealId, signals: ['budget_cut'] }).thenRefused('conflict', 'DEAL_TERMINAL');
  });

  it('D-44: a deal carries at most 256 distinct signals; a call that would pass it is SIGNAL_LIMIT and changes nothing', () => {
    const w = new World();
    const dealId = w.createDeal();
    const names = (from: number, n: number) => Array.from({ length: n }, (_, i) => `s_${from + i}`);
    for (let i = 0; i < 8; i++) w.signals(dealId, ...names(i * 32, 32));
    assert.equal(w.deal(dealId).signals.length, 256);
    w.when({ type: 'ReportSignals', dealId, signals: ['one_more'] }).thenRefused('limit', 'SIGNAL_LIMIT');
    // Signals already carried add nothing, so they are not refused.
    assert.deepEqual(w.when({ type: 'ReportSignals', dealId, signals: ['s_0', 's_255'] }).events(), []);
  });

  it('D-44: the platform still stalls a deal at the signal limit (its gone_dark is never refused)', () => {
    const w = new World();
    const dealId = w.createDeal();
    for (let i = 0; i < 8; i++) w.signals(dealId, ...Array.from({ length: 32 }, (_, j) => `s_${i * 32 + j}`));
    w.tick(15 * DAY);
    const then = w.when({ type: 'StallDeal', dealId });
    assert.ok(then.state().deals.get(dealId)?.signals.includes('gone_dark'));
  });
});
