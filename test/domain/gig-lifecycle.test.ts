// The spec's "Gig lifecycle" table, one test per row, then the gig rules D-14, D-15, D-35.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  activityBy,
  claimedCloserGig,
  claimedNurturerGig,
  claimedSetterGig,
  DAY,
  HOUR,
  only,
  T0,
  types,
  World,
} from './world.ts';

/** A deal with a human closer at meeting and its closer gig posted (open), plus one enrolled closer. */
function openCloserGig(options: Parameters<World['createDeal']>[0] = {}) {
  const w = new World();
  const closerId = w.enrol();
  const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' } }, ...options });
  w.agentTo(dealId, 'meeting');
  const gigId = w.escalate(dealId);
  return { w, dealId, gigId, closerId };
}

describe('Gig lifecycle table', () => {
  it('gig lifecycle: (none) --escalation--> open, Brief and price fixed', () => {
    const w = new World();
    const dealId = w.createDeal({
      listValueUsd: 50_000,
      industry: 'logistics',
      mandate: { staffing: { closer: 'human' } },
    });
    w.agentTo(dealId, 'meeting');
    w.tick(HOUR);
    const before = w.deal(dealId);
    const then = w.when({ type: 'AdvanceDeal', dealId, proposal: {} });
    const posted = only(then.events(), 'GigPosted').gig;
    assert.equal(posted.id, 'gig_0001');
    assert.equal(posted.status, 'open');
    assert.equal(posted.dealId, dealId);
    assert.equal(posted.role, 'closer');
    assert.equal(posted.postedAt, T0 + HOUR);
    assert.equal(posted.closerId, undefined);
    assert.deepEqual(posted.pricing, { kind: 'commission', pct: 0.1 });
    assert.deepEqual(posted.brief, {
      account: before.account,
      listValueCents: 5_000_000,
      stage: 'meeting',
      signals: [],
      floorCents: 4_000_000,
      activity: before.activity,
    });
    assert.equal(then.state().gigs.get('gig_0001')?.status, 'open');
  });

  it('gig lifecycle: open --claim [closerId given]--> claimed', () => {
    const { w, gigId, closerId, dealId } = openCloserGig();
    w.tick(2 * HOUR);
    const then = w.when({ type: 'ClaimGig', gigId, closerId });
    assert.deepEqual(only(then.events(), 'GigClaimed'), {
      type: 'GigClaimed',
      gigId,
      closerId,
      at: T0 + 2 * HOUR,
      dueAt: T0 + 2 * HOUR + 72 * HOUR,
    });
    const gig = then.state().gigs.get(gigId);
    assert.equal(gig?.status, 'claimed');
    assert.equal(gig?.closerId, closerId);
    assert.equal(gig?.claimedAt, T0 + 2 * HOUR);
    assert.equal(then.state().deals.get(dealId)?.stage, 'meeting', 'a claim does not move the deal');
  });

  it('gig lifecycle: open --release (withdraw)--> released, deal returns to matching', () => {
    const { w, gigId, dealId } = openCloserGig();
    const then = w.when({ type: 'ReleaseGig', gigId });
    assert.deepEqual(types(then.events()), ['GigReleased', 'ActivityRecorded']);
    const state = then.state();
    assert.equal(state.gigs.get(gigId)?.status, 'released');
    assert.equal(state.gigs.get(gigId)?.endedAt, T0);
    assert.equal(state.deals.get(dealId)?.humanTrack, true, 'still human track');
    w.run({ type: 'ReleaseGig', gigId });
    assert.equal(w.escalate(dealId), 'gig_0002', 'matching again: the next advance posts a fresh gig');
  });

  it('gig lifecycle: claimed --gig advance terminal or revive accepted by gate--> fulfilled, payout posted to ledger, Register updated', () => {
    // a terminal advance
    const closing = claimedCloserGig('negotiation');
    const won = closing.w.when({
      type: 'AdvanceGig',
      gigId: closing.gigId,
      advanceTo: 'closed_won',
      valueUsd: 100_000,
    });
    assert.deepEqual(only(won.events(), 'GigFulfilled'), {
      type: 'GigFulfilled',
      gigId: closing.gigId,
      outcome: 'closed_won',
      finalValueCents: 10_000_000,
      at: T0,
    });
    const afterWin = won.state();
    assert.equal(afterWin.gigs.get(closing.gigId)?.status, 'fulfilled');
    assert.equal(afterWin.gigs.get(closing.gigId)?.timerDueAt, undefined);
    assert.deepEqual(
      afterWin.payouts.map((line) => [line.kind, line.amountCents, line.closerId]),
      [['commission', 1_000_000, closing.closerId]],
    );
    assert.deepEqual(afterWin.closers.get(closing.closerId)?.record, {
      gigs: 1,
      wins: 1,
      grossClosedCents: 10_000_000n,
    });

    // a revive
    const nurturing = claimedNurturerGig('meeting');
    const revived = nurturing.w.when({ type: 'ClearGoneDark', gigId: nurturing.gigId });
    const afterRevive = revived.state();
    assert.equal(afterRevive.gigs.get(nurturing.gigId)?.status, 'fulfilled');
    assert.equal(afterRevive.gigs.get(nurturing.gigId)?.outcome, 'revived');
    assert.deepEqual(
      afterRevive.payouts.map((line) => [line.kind, line.amountCents, line.closerId]),
      [['fee', 15_000, nurturing.closerId]],
    );
    assert.deepEqual(afterRevive.closers.get(nurturing.closerId)?.record, { gigs: 1, wins: 0, grossClosedCents: 0n });
  });

  it('gig lifecycle: claimed --release--> released, deal returns to matching, next deal advance posts a fresh gig', () => {
    const { w, gigId, dealId, closerId } = claimedCloserGig('proposal');
    const then = w.when({ type: 'ReleaseGig', gigId, closerId });
    const state = then.state();
    assert.equal(state.gigs.get(gigId)?.status, 'released');
    assert.equal(state.gigs.get(gigId)?.timerDueAt, undefined);
    assert.equal(state.deals.get(dealId)?.stage, 'proposal');
    w.run({ type: 'ReleaseGig', gigId, closerId });
    const next = w.when({ type: 'AdvanceDeal', dealId, proposal: {} });
    assert.ok(next.decision.ok);
    assert.deepEqual(next.decision.escalation, { role: 'closer', gigId: 'gig_0002' });
    const fresh = only(next.events(), 'GigPosted').gig;
    assert.equal(fresh.status, 'open');
    assert.equal(fresh.brief.stage, 'proposal');
  });

  it('gig lifecycle: claimed --expire (platform timer)--> open, the same gig reopens to the pool, closer cleared', () => {
    const { w, gigId, closerId } = claimedCloserGig('meeting');
    const due = w.gig(gigId).timerDueAt;
    assert.equal(due, T0 + 72 * HOUR);
    const then = w.when({ type: 'ReopenGig', gigId, platform: true }, { now: T0 + 72 * HOUR });
    assert.equal(only(then.events(), 'GigReopened').gigId, gigId);
    const gig = then.state().gigs.get(gigId);
    assert.equal(gig?.status, 'open');
    assert.equal(gig?.closerId, undefined);
    assert.equal(gig?.claimedAt, undefined);
    assert.equal(gig?.openedAt, T0 + 72 * HOUR);
    assert.equal(then.state().gigs.size, 1, 'no new gig');
    assert.deepEqual(then.state().closers.get(closerId)?.record, { gigs: 0, wins: 0, grossClosedCents: 0n });
  });

  it('gig lifecycle: open --nobody claims within stallTimeoutDays (ExpireGig)--> expired', () => {
    const { w, gigId, dealId } = openCloserGig({ mandate: { staffing: { closer: 'human' }, stallTimeoutDays: 10 } });
    assert.equal(w.gig(gigId).timerDueAt, T0 + 10 * DAY);
    const then = w.when({ type: 'ExpireGig', gigId }, { now: T0 + 10 * DAY });
    assert.deepEqual(only(then.events(), 'GigExpired'), { type: 'GigExpired', gigId, at: T0 + 10 * DAY });
    const gig = then.state().gigs.get(gigId);
    assert.equal(gig?.status, 'expired');
    assert.equal(gig?.endedAt, T0 + 10 * DAY);
    assert.equal(gig?.timerDueAt, undefined);
    assert.equal(then.state().deals.get(dealId)?.activity.at(-1)?.by, 'service');
  });

  it('gig lifecycle: claimed --deal signals gone_dark [closer gig]--> released', () => {
    const { w, gigId, dealId } = claimedCloserGig('negotiation');
    const then = w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] });
    const gig = then.state().gigs.get(gigId);
    assert.equal(gig?.status, 'released');
    assert.equal(gig?.endedAt, T0);
    assert.deepEqual(then.state().payouts, []);
  });

  it('gig lifecycle: claiming a gig that is not open --> 409', () => {
    // claimed
    const claimed = claimedCloserGig('meeting');
    const other = claimed.w.enrol('Other Fictional');
    const refusal = claimed.w
      .when({ type: 'ClaimGig', gigId: claimed.gigId, closerId: other })
      .thenRefused('conflict', 'GIG_NOT_OPEN');
    assert.match(refusal.message, /is claimed, not open/);
    // released
    const released = openCloserGig();
    released.w.run({ type: 'ReleaseGig', gigId: released.gigId });
    released.w
      .when({ type: 'ClaimGig', gigId: released.gigId, closerId: released.closerId })
      .thenRefused('conflict', 'GIG_NOT_OPEN');
    // expired
    const lapsed = openCloserGig();
    lapsed.w.tick(14 * DAY).run({ type: 'ExpireGig', gigId: lapsed.gigId });
    lapsed.w
      .when({ type: 'ClaimGig', gigId: lapsed.gigId, closerId: lapsed.closerId })
      .thenRefused('conflict', 'GIG_NOT_OPEN');
    // fulfilled
    const done = claimedCloserGig('negotiation');
    done.w.gigAdvance(done.gigId, 'closed_won', 90_000);
    done.w
      .when({ type: 'ClaimGig', gigId: done.gigId, closerId: done.closerId })
      .thenRefused('conflict', 'GIG_NOT_OPEN');
  });
});

describe('D-14 gig moves go through the same gate', () => {
  it('D-14: a setter gig proposing the next stage short of meeting keeps the gig claimed and pays nothing', () => {
    const { w, gigId, dealId } = claimedSetterGig();
    w.tick(HOUR);
    const then = w.when({ type: 'AdvanceGig', gigId, advanceTo: 'qualified' });
    assert.deepEqual(types(then.events()), ['DealMoved', 'ActivityRecorded', 'GigMoved']);
    assert.deepEqual(only(then.events(), 'GigMoved'), {
      type: 'GigMoved',
      gigId,
      at: T0 + HOUR,
      dueAt: T0 + HOUR + 72 * HOUR,
    });
    assert.equal(then.state().gigs.get(gigId)?.status, 'claimed');
    assert.equal(then.state().deals.get(dealId)?.stage, 'qualified');
    assert.deepEqual(then.state().payouts, []);
  });

  it('D-14: a setter gig reaching meeting is fulfilled and pays setterUsd', () => {
    const { w, gigId, dealId, closerId } = claimedSetterGig({
      mandate: { staffing: { setter: 'human' }, fees: { setterUsd: 321.5 } },
    });
    w.gigAdvance(gigId, 'qualified');
    const then = w.when({ type: 'AdvanceGig', gigId, advanceTo: 'meeting' });
    assert.equal(only(then.events(), 'GigFulfilled').outcome, 'meeting');
    assert.deepEqual(only(then.events(), 'PayoutPosted').line, {
      at: T0,
      closerId,
      gigId,
      dealId,
      role: 'setter',
      kind: 'fee',
      amountCents: 32_150,
    });
    const state = then.state();
    assert.equal(state.deals.get(dealId)?.stage, 'meeting');
    assert.equal(state.deals.get(dealId)?.closedBy, undefined, 'the deal continues');
    assert.equal(state.gigs.get(gigId)?.status, 'fulfilled');
    assert.deepEqual(state.closers.get(closerId)?.record, { gigs: 1, wins: 0, grossClosedCents: 0n });
  });

  it('D-14: a setter gig may propose closed_lost (fulfilled, settles nothing) but never closed_won', () => {
    const { w, gigId, dealId } = claimedSetterGig();
    const refusal = w
      .when({ type: 'AdvanceGig', gigId, advanceTo: 'closed_won', valueUsd: 100_000 })
      .thenRefused('gate', 'GATE_ILLEGAL_MOVE');
    assert.match(refusal.message, /setter/);
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'meeting' }).thenRefused('gate', 'GATE_ILLEGAL_MOVE');
    const lost = w.when({ type: 'AdvanceGig', gigId, advanceTo: 'closed_lost' });
    assert.equal(lost.state().deals.get(dealId)?.stage, 'closed_lost');
    assert.equal(lost.state().gigs.get(gigId)?.status, 'fulfilled');
    assert.equal(lost.state().gigs.get(gigId)?.outcome, 'closed_lost');
    assert.equal(types(lost.events()).includes('PayoutPosted'), false);
  });

  it('D-14: a closer gig may propose the next stage (stays claimed), closed_won at least the floor, or closed_lost', () => {
    const meeting = claimedCloserGig('meeting');
    const step = meeting.w.when({ type: 'AdvanceGig', gigId: meeting.gigId, advanceTo: 'proposal' });
    assert.equal(step.state().gigs.get(meeting.gigId)?.status, 'claimed');
    assert.equal(types(step.events()).includes('GigFulfilled'), false);
    for (const to of ['negotiation', 'closed_won', 'qualified', 'sourced', 'revive']) {
      meeting.w
        .when({ type: 'AdvanceGig', gigId: meeting.gigId, advanceTo: to, valueUsd: 100_000 })
        .thenRefused('gate');
    }
    const lost = meeting.w.when({ type: 'AdvanceGig', gigId: meeting.gigId, advanceTo: 'closed_lost' });
    assert.equal(lost.state().deals.get(meeting.dealId)?.stage, 'closed_lost');

    const negotiation = claimedCloserGig('negotiation');
    negotiation.w
      .when({ type: 'AdvanceGig', gigId: negotiation.gigId, advanceTo: 'closed_won' })
      .thenRefused('gate', 'GATE_VALUE_REQUIRED');
    const atFloor = negotiation.w.when({
      type: 'AdvanceGig',
      gigId: negotiation.gigId,
      advanceTo: 'closed_won',
      valueUsd: 80_000,
    });
    assert.equal(atFloor.state().deals.get(negotiation.dealId)?.finalValueCents, 8_000_000);
    assert.equal(only(atFloor.events(), 'PayoutPosted').line.amountCents, 800_000);
  });

  it('D-14: a nurturer gig advancing to closed_lost confirms the deal dead and pays nurturerUsd', () => {
    const { w, gigId, dealId, closerId } = claimedNurturerGig('negotiation', {
      mandate: { fees: { nurturerUsd: 99.99 } },
    });
    const then = w.when({ type: 'AdvanceGig', gigId, advanceTo: 'closed_lost', note: 'company dissolved' });
    const state = then.state();
    assert.equal(state.deals.get(dealId)?.stage, 'closed_lost');
    assert.equal(state.deals.get(dealId)?.closedBy, 'human');
    assert.match(state.deals.get(dealId)?.activity.at(-1)?.note ?? '', /company dissolved/);
    assert.equal(state.gigs.get(gigId)?.outcome, 'closed_lost');
    assert.deepEqual(
      state.payouts.map((line) => [line.role, line.kind, line.amountCents, line.closerId]),
      [['nurturer', 'fee', 9_999, closerId]],
    );
  });

  it('D-14: anything else from a nurturer gig is a 422 gate refusal (next stage, closed_won)', () => {
    const { w, gigId } = claimedNurturerGig('proposal');
    for (const to of ['negotiation', 'closed_won', 'revive', 'proposal']) {
      const refusal = w
        .when({ type: 'AdvanceGig', gigId, advanceTo: to, valueUsd: 100_000 })
        .thenRefused('gate', 'GATE_ILLEGAL_MOVE');
      assert.match(refusal.message, /nurturer/);
    }
  });

  it('D-14: naming a closerId other than the claimant is 409 NOT_CLAIMANT (advance, revive, release)', () => {
    const closer = claimedCloserGig('meeting');
    const intruder = closer.w.enrol('Intruder Fictional');
    closer.w
      .when({ type: 'AdvanceGig', gigId: closer.gigId, closerId: intruder, advanceTo: 'proposal' })
      .thenRefused('conflict', 'NOT_CLAIMANT');
    closer.w
      .when({ type: 'ReleaseGig', gigId: closer.gigId, closerId: intruder })
      .thenRefused('conflict', 'NOT_CLAIMANT');
    // the claimant may name itself
    const own = closer.w.when({
      type: 'AdvanceGig',
      gigId: closer.gigId,
      closerId: closer.closerId,
      advanceTo: 'proposal',
    });
    assert.equal(own.state().deals.get(closer.dealId)?.stage, 'proposal');

    const nurturer = claimedNurturerGig('meeting');
    const other = nurturer.w.enrol('Other Fictional');
    nurturer.w
      .when({ type: 'ClearGoneDark', gigId: nurturer.gigId, closerId: other })
      .thenRefused('conflict', 'NOT_CLAIMANT');
  });

  it('D-14: naming an unknown closer is not_found CLOSER_NOT_FOUND (claim, advance, revive, release)', () => {
    const open = openCloserGig();
    open.w
      .when({ type: 'ClaimGig', gigId: open.gigId, closerId: 'closer_0099' })
      .thenRefused('not_found', 'CLOSER_NOT_FOUND');
    const closer = claimedCloserGig('meeting');
    closer.w
      .when({ type: 'AdvanceGig', gigId: closer.gigId, closerId: 'closer_0099', advanceTo: 'proposal' })
      .thenRefused('not_found', 'CLOSER_NOT_FOUND');
    closer.w
      .when({ type: 'ReleaseGig', gigId: closer.gigId, closerId: 'closer_0099' })
      .thenRefused('not_found', 'CLOSER_NOT_FOUND');
    const nurturer = claimedNurturerGig('meeting');
    nurturer.w
      .when({ type: 'ClearGoneDark', gigId: nurturer.gigId, closerId: 'closer_0099' })
      .thenRefused('not_found', 'CLOSER_NOT_FOUND');
  });

  it('D-14: gig moves record activity by human; claims and releases by service', () => {
    const { w, gigId } = claimedCloserGig('meeting');
    assert.deepEqual(activityBy(w.when({ type: 'AdvanceGig', gigId, advanceTo: 'proposal' }).events()), ['human']);
    assert.deepEqual(activityBy(w.when({ type: 'ReleaseGig', gigId }).events()), ['service']);
  });
});

describe('D-15 gig state errors are 409', () => {
  it('D-15: claim of a gig that is not open', () => {
    const { w, gigId, closerId } = claimedCloserGig('meeting');
    w.when({ type: 'ClaimGig', gigId, closerId }).thenRefused('conflict', 'GIG_NOT_OPEN');
  });

  it('D-15: advance of a gig that is not claimed (open, released, fulfilled)', () => {
    const { w, gigId } = openCloserGig();
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'proposal' }).thenRefused('conflict', 'GIG_NOT_CLAIMED');
    w.run({ type: 'ReleaseGig', gigId });
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'proposal' }).thenRefused('conflict', 'GIG_NOT_CLAIMED');
    const done = claimedCloserGig('negotiation');
    done.w.gigAdvance(done.gigId, 'closed_lost');
    done.w
      .when({ type: 'AdvanceGig', gigId: done.gigId, advanceTo: 'closed_lost' })
      .thenRefused('conflict', 'GIG_NOT_CLAIMED');
  });

  it('D-15: revive of a nurturer gig that is not claimed', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.signals(dealId, 'gone_dark');
    const gigId = w.escalate(dealId);
    assert.equal(w.gig(gigId).role, 'nurturer');
    w.when({ type: 'ClearGoneDark', gigId }).thenRefused('conflict', 'GIG_NOT_CLAIMED');
  });

  it('D-15: revive of a gig that is not a nurturer gig (even when claimed)', () => {
    const { w, gigId } = claimedCloserGig('proposal');
    const refusal = w.when({ type: 'ClearGoneDark', gigId }).thenRefused('conflict', 'GIG_NOT_NURTURER');
    assert.match(refusal.message, /closer gig/);
  });

  it('D-15: release of a gig that is not open or claimed (released, fulfilled, expired)', () => {
    const released = openCloserGig();
    released.w.run({ type: 'ReleaseGig', gigId: released.gigId });
    released.w.when({ type: 'ReleaseGig', gigId: released.gigId }).thenRefused('conflict', 'GIG_NOT_ACTIVE');
    const done = claimedCloserGig('negotiation');
    done.w.gigAdvance(done.gigId, 'closed_won', 85_000);
    done.w.when({ type: 'ReleaseGig', gigId: done.gigId }).thenRefused('conflict', 'GIG_NOT_ACTIVE');
    const lapsed = openCloserGig();
    lapsed.w.tick(14 * DAY).run({ type: 'ExpireGig', gigId: lapsed.gigId });
    lapsed.w.when({ type: 'ReleaseGig', gigId: lapsed.gigId }).thenRefused('conflict', 'GIG_NOT_ACTIVE');
  });

  it('D-15: expire of a gig that is not claimed (open, released), manual or platform', () => {
    const { w, gigId } = openCloserGig();
    w.when({ type: 'ReopenGig', gigId, platform: false }).thenRefused('conflict', 'GIG_NOT_CLAIMED');
    w.when({ type: 'ReopenGig', gigId, platform: true }, { now: T0 + 30 * DAY }).thenRefused(
      'conflict',
      'GIG_NOT_CLAIMED',
    );
    w.run({ type: 'ReleaseGig', gigId });
    w.when({ type: 'ReopenGig', gigId, platform: false }).thenRefused('conflict', 'GIG_NOT_CLAIMED');
  });

  it('D-15: an unknown gig is not_found for every gig command', () => {
    const w = new World();
    const closerId = w.enrol();
    const gigId = 'gig_0404';
    w.when({ type: 'ClaimGig', gigId, closerId }).thenRefused('not_found', 'GIG_NOT_FOUND');
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'proposal' }).thenRefused('not_found', 'GIG_NOT_FOUND');
    w.when({ type: 'ClearGoneDark', gigId }).thenRefused('not_found', 'GIG_NOT_FOUND');
    w.when({ type: 'ReleaseGig', gigId }).thenRefused('not_found', 'GIG_NOT_FOUND');
    w.when({ type: 'ReopenGig', gigId, platform: false }).thenRefused('not_found', 'GIG_NOT_FOUND');
    w.when({ type: 'ExpireGig', gigId }).thenRefused('not_found', 'GIG_NOT_FOUND');
  });
});

describe('D-35 gig pricing and brief', () => {
  it('D-35: a closer gig is priced {kind: commission, pct} from the mandate', () => {
    const { w, gigId } = openCloserGig({ mandate: { staffing: { closer: 'human' }, commissionPct: 0.075 } });
    assert.deepEqual(w.gig(gigId).pricing, { kind: 'commission', pct: 0.075 });
  });

  it('D-35: setter and nurturer gigs are priced {kind: fee, amount} from the mandate fees', () => {
    const setter = claimedSetterGig({ mandate: { staffing: { setter: 'human' }, fees: { setterUsd: 400 } } });
    assert.deepEqual(setter.w.gig(setter.gigId).pricing, { kind: 'fee', amountCents: 40_000 });
    const nurturer = claimedNurturerGig('sourced', { mandate: { fees: { nurturerUsd: 175.25 } } });
    assert.deepEqual(nurturer.w.gig(nurturer.gigId).pricing, { kind: 'fee', amountCents: 17_525 });
  });

  it('D-35: the brief is a snapshot at post time: account, list value, stage, signals, floorCents (floorPct \u00d7 list value), activity', () => {
    const w = new World();
    const dealId = w.createDeal({
      listValueUsd: 33_333.33,
      mandate: { staffing: { closer: { humanIf: { signals: ['procurement_involved'] } } }, floorPct: 0.7 },
    });
    w.agentTo(dealId, 'proposal');
    w.signals(dealId, 'procurement_involved');
    const before = w.deal(dealId);
    const gigId = w.escalate(dealId);
    const brief = w.gig(gigId).brief;
    assert.equal(brief.floorCents, 2_333_333); // 0.7 × 3,333,333 cents = 2,333,333.1
    assert.equal(brief.stage, 'proposal');
    assert.deepEqual(brief.signals, ['procurement_involved']);
    assert.deepEqual(brief.activity, before.activity, 'the complete history up to the post');
    // later activity does not change the snapshot
    const closerId = w.enrol();
    w.claim(gigId, closerId).gigAdvance(gigId, 'negotiation');
    assert.deepEqual(w.gig(gigId).brief, brief);
    assert.ok(w.deal(dealId).activity.length > brief.activity.length);
  });
});
