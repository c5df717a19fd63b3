// Signals: D-13 (dedupe, gone_dark and its effects, activity by service).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signalsReported, stallReported, wentDark } from './builders.ts';
import { claimedCloserGig, claimedSetterGig, DAY, T0, World } from './world.ts';

describe('D-13 signals', () => {
  it('D-13: signals are added to the deal\u2019s set in order, with one activity entry by service', () => {
    const w = new World();
    const dealId = w.createDeal();
    // only gone_dark puts a deal on the human track: no HumanTrackSet
    w.when({ type: 'ReportSignals', dealId, signals: ['procurement_involved', 'legal_review'] }).then(
      signalsReported(dealId, 'sourced', ['procurement_involved', 'legal_review']),
    );
  });

  it('D-13: no duplicates: repeats within a call and signals already present are dropped', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.signals(dealId, 'procurement_involved');
    w.when({
      type: 'ReportSignals',
      dealId,
      signals: ['legal_review', 'procurement_involved', 'legal_review'],
    }).then(signalsReported(dealId, 'sourced', ['legal_review']));
  });

  it('D-13: reporting only signals already present decides nothing (no activity entry)', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.signals(dealId, 'gone_dark');
    // nothing at all, not even a version
    w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] }).then([], { withVersions: true });
    w.when({ type: 'ReportSignals', dealId, signals: [] }).then([], { withVersions: true });
  });

  it('D-13: a new gone_dark puts the deal on the human track under the nurturer role', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.agentTo(dealId, 'meeting');
    const dark = w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] });
    assert.equal(dark.state().deals.get(dealId)?.stallDueAt, undefined, 'a dark deal has no stall timer');
    dark.then([
      ...signalsReported(dealId, 'meeting', ['gone_dark']),
      ...wentDark(dealId, 'meeting', { setsTrack: true }),
    ]);
  });

  it('D-13: gone_dark releases an open gig of another role, not only a claimed one', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' } } });
    w.agentTo(dealId, 'meeting');
    const gigId = w.escalate(dealId);
    w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark', 'budget_cut'] }).then([
      ...signalsReported(dealId, 'meeting', ['gone_dark', 'budget_cut']),
      ...wentDark(dealId, 'meeting', { released: { gigId, role: 'closer' } }),
    ]);
  });

  it('D-13: gone_dark releases a claimed setter gig', () => {
    const { w, dealId, gigId } = claimedSetterGig();
    // released, not fulfilled: no payout
    w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] }).then([
      ...signalsReported(dealId, 'sourced', ['gone_dark']),
      ...wentDark(dealId, 'sourced', { released: { gigId, role: 'setter' } }),
    ]);
  });

  it('D-13: gone_dark on a deal already on the human track does not repeat HumanTrackSet', () => {
    const { w, dealId, gigId } = claimedCloserGig('meeting');
    w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] }).then([
      ...signalsReported(dealId, 'meeting', ['gone_dark']),
      ...wentDark(dealId, 'meeting', { released: { gigId, role: 'closer' } }),
    ]);
  });

  it('D-13: signals other than gone_dark leave gigs and the track alone', () => {
    const { w, dealId } = claimedCloserGig('proposal');
    w.when({ type: 'ReportSignals', dealId, signals: ['budget_cut'] }).then(
      signalsReported(dealId, 'proposal', ['budget_cut']),
    );
  });

  it('D-13: a Seller\u2019s signal report is an act: it restarts the stall clock', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.tick(5 * DAY);
    const reported = w.when({ type: 'ReportSignals', dealId, signals: ['budget_cut'] });
    assert.equal(reported.state().deals.get(dealId)?.stallDueAt, T0 + 19 * DAY);
    reported.then([
      { type: 'SignalsAdded', dealId, signals: ['budget_cut'] },
      {
        type: 'ActivityRecorded',
        dealId,
        entry: { at: T0 + 5 * DAY, by: 'service', stage: 'sourced', note: 'Signals reported: budget_cut.' },
        acted: true, // an act: the stall clock restarts from it
      },
    ]);
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
    w.when({ type: 'ReportSignals', dealId, signals: ['s_0', 's_255'] }).then([], { withVersions: true });
  });

  it('D-44: the platform still stalls a deal at the signal limit (its gone_dark is never refused)', () => {
    const w = new World();
    const dealId = w.createDeal();
    for (let i = 0; i < 8; i++) w.signals(dealId, ...Array.from({ length: 32 }, (_, j) => `s_${i * 32 + j}`));
    w.tick(15 * DAY);
    w.when({ type: 'StallDeal', dealId }).then([
      ...stallReported(dealId, 'sourced', { at: T0 + 15 * DAY }),
      ...wentDark(dealId, 'sourced', { at: T0 + 15 * DAY, acted: false, setsTrack: true }),
    ]);
  });
});
