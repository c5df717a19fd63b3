// Platform timers: claim expiry and lapse of open gigs (D-16), deal stalls (D-17).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activityBy, claimedCloserGig, claimedNurturerGig, DAY, HOUR, only, T0, types, World } from './world.ts';

describe('D-16 claim expiry and lapse', () => {
  it('D-16: the platform expires a claim only when due (claimTtl after the claim)', () => {
    const { w, gigId } = claimedCloserGig('meeting');
    const due = T0 + 72 * HOUR;
    w.when({ type: 'ReopenGig', gigId, platform: true }, { now: due - 1 }).thenRefused('conflict', 'NOT_DUE');
    const then = w.when({ type: 'ReopenGig', gigId, platform: true }, { now: due });
    assert.equal(then.state().gigs.get(gigId)?.status, 'open');
  });

  it('D-16: the claim timer honours the configured claimTtl', () => {
    const w = new World();
    w.enrol();
    const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' } } });
    w.agentTo(dealId, 'meeting');
    const gigId = w.escalate(dealId);
    const then = w.when({ type: 'ClaimGig', gigId, closerId: 'closer_0001' }, { claimTtlMs: 2 * HOUR });
    assert.equal(only(then.events(), 'GigClaimed').dueAt, T0 + 2 * HOUR);
  });

  it('D-16: a move by the claimant restarts the claim timer', () => {
    const { w, gigId } = claimedCloserGig('meeting');
    w.tick(48 * HOUR).gigAdvance(gigId, 'proposal');
    assert.equal(w.gig(gigId).timerDueAt, T0 + 120 * HOUR);
    w.when({ type: 'ReopenGig', gigId, platform: true }, { now: T0 + 72 * HOUR }).thenRefused('conflict', 'NOT_DUE');
    w.when({ type: 'ReopenGig', gigId, platform: true }, { now: T0 + 120 * HOUR }).events();
  });

  it('D-16: a manual expire reopens a claimed gig at any time, closer cleared; another closer may claim it', () => {
    const { w, gigId, closerId } = claimedCloserGig('proposal');
    const then = w.when({ type: 'ReopenGig', gigId, platform: false });
    const reopened = only(then.events(), 'GigReopened');
    assert.equal(reopened.dueAt, T0 + 14 * DAY, 'the reopened gig lapses after stallTimeoutDays unclaimed');
    const gig = then.state().gigs.get(gigId);
    assert.equal(gig?.status, 'open');
    assert.equal(gig?.closerId, undefined);
    assert.match(then.state().deals.get(gigOf(w, gigId))?.activity.at(-1)?.note ?? '', new RegExp(closerId));
    w.run({ type: 'ReopenGig', gigId, platform: false });
    const other = w.enrol('Other Fictional');
    const claimed = w.when({ type: 'ClaimGig', gigId, closerId: other }).state().gigs.get(gigId);
    assert.equal(claimed?.status, 'claimed');
    assert.equal(claimed?.closerId, other);
  });

  it('D-16: an expiry records a service entry that is not an act', () => {
    const { w, gigId } = claimedCloserGig('meeting');
    const then = w.when({ type: 'ReopenGig', gigId, platform: true }, { now: T0 + 80 * HOUR });
    const recorded = only(then.events(), 'ActivityRecorded');
    assert.equal(recorded.entry.by, 'service');
    assert.equal(recorded.acted, false);
  });

  it('D-16: an open gig lapses (stored expired) only once stallTimeoutDays pass unclaimed', () => {
    const w = new World();
    const dealId = w.createDeal({ actor: 'B2C', mandate: { staffing: { setter: 'human' } } });
    const gigId = w.escalate(dealId);
    assert.equal(w.gig(gigId).timerDueAt, T0 + 7 * DAY, 'B2C: 7 days');
    w.when({ type: 'ExpireGig', gigId }, { now: T0 + 7 * DAY - 1 }).thenRefused('conflict', 'NOT_DUE');
    const then = w.when({ type: 'ExpireGig', gigId }, { now: T0 + 7 * DAY });
    assert.deepEqual(types(then.events()), ['GigExpired', 'ActivityRecorded']);
    assert.equal(only(then.events(), 'ActivityRecorded').acted, false);
    assert.equal(then.state().gigs.get(gigId)?.status, 'expired');
  });

  it('D-16: after a lapse the deal stays on the human track and its next advance posts a fresh gig', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    const gigId = w.escalate(dealId);
    w.tick(14 * DAY).run({ type: 'ExpireGig', gigId });
    const then = w.when({ type: 'AdvanceDeal', dealId, proposal: {} });
    assert.ok(then.decision.ok);
    assert.deepEqual(then.decision.escalation, { role: 'setter', gigId: 'gig_0002' });
  });

  it('D-16: a claimed gig never lapses', () => {
    const { w, gigId } = claimedCloserGig('meeting');
    w.when({ type: 'ExpireGig', gigId }, { now: T0 + 365 * DAY }).thenRefused('conflict', 'NOT_DUE');
  });
});

describe('D-17 stall timeout', () => {
  it('D-17: StallDeal only when due: stallTimeoutDays after the last act', () => {
    const w = new World();
    const dealId = w.createDeal();
    assert.equal(w.deal(dealId).stallDueAt, T0 + 14 * DAY);
    w.when({ type: 'StallDeal', dealId }, { now: T0 + 14 * DAY - 1 }).thenRefused('conflict', 'NOT_DUE');
    const then = w.when({ type: 'StallDeal', dealId }, { now: T0 + 14 * DAY });
    assert.deepEqual(only(then.events(), 'SignalsAdded').signals, ['gone_dark']);
    const deal = then.state().deals.get(dealId);
    assert.deepEqual(deal?.signals, ['gone_dark']);
    assert.equal(deal?.humanTrack, true);
    assert.equal(deal?.stallDueAt, undefined);
    assert.ok(activityBy(then.events()).every((by) => by === 'service'));
    assert.match(deal?.activity.at(-2)?.note ?? '', /No activity for 14 days/);
  });

  it('D-17: the platform\u2019s stall entries are not acts (lastActedAt unchanged)', () => {
    const w = new World();
    const dealId = w.createDeal();
    const then = w.when({ type: 'StallDeal', dealId }, { now: T0 + 20 * DAY });
    for (const event of then.events()) if (event.type === 'ActivityRecorded') assert.equal(event.acted, false);
    assert.equal(then.state().deals.get(dealId)?.lastActedAt, T0);
  });

  it('D-17: a stall has the effects of gone_dark (D-13): a claimed closer gig is released', () => {
    const { w, dealId, gigId } = claimedCloserGig('proposal');
    const then = w.when({ type: 'StallDeal', dealId }, { now: T0 + 14 * DAY });
    assert.equal(then.state().gigs.get(gigId)?.status, 'released');
    assert.equal(only(then.events(), 'GigReleased').gigId, gigId);
  });

  it('D-17: the stall clock restarts on acts (an agent advance)', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.tick(10 * DAY).advance(dealId);
    assert.equal(w.deal(dealId).stallDueAt, T0 + 24 * DAY);
    w.when({ type: 'StallDeal', dealId }, { now: T0 + 14 * DAY }).thenRefused('conflict', 'NOT_DUE');
    w.when({ type: 'StallDeal', dealId }, { now: T0 + 24 * DAY }).events();
  });

  it('D-17: the stall clock does not restart on a claim expiry', () => {
    const { w, dealId, gigId } = claimedCloserGig('meeting');
    const due = w.deal(dealId).stallDueAt;
    assert.equal(due, T0 + 14 * DAY);
    w.tick(72 * HOUR).run({ type: 'ReopenGig', gigId, platform: true });
    assert.equal(w.deal(dealId).lastActedAt, T0);
    assert.equal(w.deal(dealId).stallDueAt, due);
    w.when({ type: 'StallDeal', dealId }, { now: T0 + 14 * DAY }).events();
  });

  it('D-17: the stall clock does not restart on a lapse (gig timers run first, then the stall falls due)', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    const gigId = w.escalate(dealId);
    const due = T0 + 14 * DAY;
    assert.equal(w.gig(gigId).timerDueAt, due);
    assert.equal(w.deal(dealId).stallDueAt, due);
    w.tick(14 * DAY).run({ type: 'ExpireGig', gigId });
    assert.equal(w.deal(dealId).stallDueAt, due, 'lapse is not an act');
    const then = w.when({ type: 'StallDeal', dealId });
    assert.deepEqual(then.state().deals.get(dealId)?.signals, ['gone_dark']);
  });

  it('D-17: a gig claim is an act (restarts the clock)', () => {
    const w = new World();
    const closerId = w.enrol();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    const gigId = w.escalate(dealId);
    w.tick(3 * DAY).claim(gigId, closerId);
    assert.equal(w.deal(dealId).stallDueAt, T0 + 17 * DAY);
  });

  it('D-17: B2C deals stall after 7 days by default; a mandate value wins', () => {
    const w = new World();
    const b2c = w.createDeal({ actor: 'B2C' });
    const custom = w.createDeal({ actor: 'B2C', mandate: { stallTimeoutDays: 30 } });
    assert.equal(w.deal(b2c).stallDueAt, T0 + 7 * DAY);
    assert.equal(w.deal(custom).stallDueAt, T0 + 30 * DAY);
  });

  it('D-17: a dark deal cannot stall again; a revive restarts the clock from the revive', () => {
    const { w, dealId, gigId } = claimedNurturerGig('proposal');
    w.when({ type: 'StallDeal', dealId }, { now: T0 + 365 * DAY }).thenRefused('conflict', 'NOT_DUE');
    w.tick(2 * DAY).run({ type: 'ClearGoneDark', gigId });
    assert.equal(w.deal(dealId).stallDueAt, T0 + 16 * DAY);
  });

  it('D-17: a terminal deal has no stall timer and cannot stall', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.advance(dealId, { advanceTo: 'closed_lost' });
    assert.equal(w.deal(dealId).stallDueAt, undefined);
    w.when({ type: 'StallDeal', dealId }, { now: T0 + 365 * DAY }).thenRefused('conflict', 'DEAL_TERMINAL');
  });
});

function gigOf(w: World, gigId: string): string {
  return w.gig(gigId).dealId;
}
