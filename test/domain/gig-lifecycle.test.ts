// The spec's "Gig lifecycle" table, one test per row, then the gig rules D-14, D-15, D-35.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  claimExpired,
  closedWon,
  entry,
  escalated,
  gigClaimed,
  gigReleased,
  moved,
  signalsReported,
  wentDark,
} from './builders.ts';
import { claimedCloserGig, claimedNurturerGig, claimedSetterGig, DAY, HOUR, T0, World } from './world.ts';

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
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account: before.account, activity: before.activity },
        {
          gigId: 'gig_0001',
          role: 'closer',
          stage: 'meeting',
          pricing: { kind: 'commission', pct: 0.1 },
          setsTrack: true,
          listValueCents: 5_000_000,
          floorCents: 4_000_000,
          at: T0 + HOUR,
        },
      ),
      { escalation: { role: 'closer', gigId: 'gig_0001' } },
    );
  });

  it('gig lifecycle: open --claim [closerId given]--> claimed', () => {
    const { w, gigId, closerId, dealId } = openCloserGig();
    w.tick(2 * HOUR);
    // a claim does not move the deal: no DealMoved
    w.when({ type: 'ClaimGig', gigId, closerId }).then(
      gigClaimed(dealId, 'meeting', { gigId, closerId }, { at: T0 + 2 * HOUR }),
    );
  });

  it('gig lifecycle: open --release (withdraw)--> released, deal returns to matching', () => {
    const { w, gigId, dealId } = openCloserGig();
    // still on the human track: no HumanTrackSet
    w.when({ type: 'ReleaseGig', gigId }).then(gigReleased(dealId, 'meeting', gigId));
    // matching again: the next advance posts a fresh gig
    w.run({ type: 'ReleaseGig', gigId });
    const { account, activity } = w.deal(dealId);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0002',
          role: 'closer',
          stage: 'meeting',
          pricing: { kind: 'commission', pct: 0.1 },
          setsTrack: false,
        },
      ),
      { escalation: { role: 'closer', gigId: 'gig_0002' } },
    );
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
    const afterWin = won.state();
    assert.equal(afterWin.gigs.get(closing.gigId)?.timerDueAt, undefined);
    assert.deepEqual(afterWin.closers.get(closing.closerId)?.record, {
      gigs: 1,
      wins: 1,
      grossClosedCents: 10_000_000n,
    });
    won.then([
      ...closedWon(closing.dealId, 10_000_000, '$100,000.00', { gigId: closing.gigId, closerId: closing.closerId }),
      { type: 'GigFulfilled', gigId: closing.gigId, outcome: 'closed_won', finalValueCents: 10_000_000, at: T0 },
      {
        type: 'PayoutPosted',
        line: {
          at: T0,
          closerId: closing.closerId,
          gigId: closing.gigId,
          dealId: closing.dealId,
          role: 'closer',
          kind: 'commission',
          amountCents: 1_000_000,
        },
      },
    ]);

    // a revive
    const nurturing = claimedNurturerGig('meeting');
    const revived = nurturing.w.when({ type: 'ClearGoneDark', gigId: nurturing.gigId });
    assert.deepEqual(revived.state().closers.get(nurturing.closerId)?.record, {
      gigs: 1,
      wins: 0,
      grossClosedCents: 0n,
    });
    revived.then([
      { type: 'SignalsCleared', dealId: nurturing.dealId, signals: ['gone_dark'] },
      entry(
        nurturing.dealId,
        'human',
        'meeting',
        'Revived by the nurturer: gone_dark cleared; handed back to the closer role',
        { gigId: nurturing.gigId, closerId: nurturing.closerId },
      ),
      { type: 'GigFulfilled', gigId: nurturing.gigId, outcome: 'revived', at: T0 },
      {
        type: 'PayoutPosted',
        line: {
          at: T0,
          closerId: nurturing.closerId,
          gigId: nurturing.gigId,
          dealId: nurturing.dealId,
          role: 'nurturer',
          kind: 'fee',
          amountCents: 15_000,
        },
      },
    ]);
  });

  it('gig lifecycle: claimed --release--> released, deal returns to matching, next deal advance posts a fresh gig', () => {
    const { w, gigId, dealId, closerId } = claimedCloserGig('proposal');
    const released = w.when({ type: 'ReleaseGig', gigId, closerId });
    assert.equal(released.state().gigs.get(gigId)?.timerDueAt, undefined);
    // the deal does not move: no DealMoved
    released.then(gigReleased(dealId, 'proposal', gigId));
    w.run({ type: 'ReleaseGig', gigId, closerId });
    const { account, activity } = w.deal(dealId);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0002',
          role: 'closer',
          stage: 'proposal',
          pricing: { kind: 'commission', pct: 0.1 },
          setsTrack: false,
        },
      ),
      { escalation: { role: 'closer', gigId: 'gig_0002' } },
    );
  });

  it('gig lifecycle: claimed --expire (platform timer)--> open, the same gig reopens to the pool, closer cleared', () => {
    const { w, gigId, dealId, closerId } = claimedCloserGig('meeting');
    const due = w.gig(gigId).timerDueAt;
    assert.equal(due, T0 + 72 * HOUR);
    const reopened = w.when({ type: 'ReopenGig', gigId, platform: true }, { now: T0 + 72 * HOUR });
    const gig = reopened.state().gigs.get(gigId);
    assert.equal(gig?.closerId, undefined);
    assert.equal(gig?.claimedAt, undefined);
    // the same gig: no GigPosted; the claimant's Register is left alone: no GigFulfilled
    reopened.then(claimExpired(dealId, 'meeting', { gigId, closerId }, { at: T0 + 72 * HOUR }));
  });

  it('gig lifecycle: open --nobody claims within stallTimeoutDays (ExpireGig)--> expired', () => {
    const { w, gigId, dealId } = openCloserGig({ mandate: { staffing: { closer: 'human' }, stallTimeoutDays: 10 } });
    assert.equal(w.gig(gigId).timerDueAt, T0 + 10 * DAY);
    const expired = w.when({ type: 'ExpireGig', gigId }, { now: T0 + 10 * DAY });
    assert.equal(expired.state().gigs.get(gigId)?.timerDueAt, undefined);
    expired.then([
      { type: 'GigExpired', gigId, at: T0 + 10 * DAY },
      entry(
        dealId,
        'service',
        'meeting',
        'The closer gig expired unclaimed after 10 days; the next advance posts a fresh gig.',
        { at: T0 + 10 * DAY, acted: false, gigId },
      ),
    ]);
  });

  it('gig lifecycle: claimed --deal signals gone_dark [closer gig]--> released', () => {
    const { w, gigId, dealId } = claimedCloserGig('negotiation');
    // released, not fulfilled: no payout
    w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] }).then([
      ...signalsReported(dealId, 'negotiation', ['gone_dark']),
      ...wentDark(dealId, 'negotiation', { released: { gigId, role: 'closer' } }),
    ]);
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
    const { w, gigId, dealId, closerId } = claimedSetterGig();
    w.tick(HOUR);
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'qualified' }).then([
      ...moved(dealId, 'sourced', 'qualified', { gigId, closerId }, { at: T0 + HOUR }),
      { type: 'GigMoved', gigId, at: T0 + HOUR, dueAt: T0 + HOUR + 72 * HOUR },
    ]);
  });

  it('D-14: a setter gig reaching meeting is fulfilled and pays setterUsd', () => {
    const { w, gigId, dealId, closerId } = claimedSetterGig({
      mandate: { staffing: { setter: 'human' }, fees: { setterUsd: 321.5 } },
    });
    w.gigAdvance(gigId, 'qualified');
    const met = w.when({ type: 'AdvanceGig', gigId, advanceTo: 'meeting' });
    assert.deepEqual(met.state().closers.get(closerId)?.record, { gigs: 1, wins: 0, grossClosedCents: 0n });
    met.then([
      // the deal continues: no closedBy
      ...moved(dealId, 'qualified', 'meeting', { gigId, closerId }),
      { type: 'GigFulfilled', gigId, outcome: 'meeting', at: T0 },
      {
        type: 'PayoutPosted',
        line: { at: T0, closerId, gigId, dealId, role: 'setter', kind: 'fee', amountCents: 32_150 },
      },
    ]);
  });

  it('D-14: a setter gig may propose closed_lost (fulfilled, settles nothing) but never closed_won', () => {
    const { w, gigId, dealId, closerId } = claimedSetterGig();
    const refusal = w
      .when({ type: 'AdvanceGig', gigId, advanceTo: 'closed_won', valueUsd: 100_000 })
      .thenRefused('gate', 'GATE_ILLEGAL_MOVE');
    assert.match(refusal.message, /setter/);
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'meeting' }).thenRefused('gate', 'GATE_ILLEGAL_MOVE');
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'closed_lost' }).then([
      ...moved(dealId, 'sourced', 'closed_lost', { gigId, closerId }),
      { type: 'GigFulfilled', gigId, outcome: 'closed_lost', at: T0 },
      // no PayoutPosted
    ]);
  });

  it('D-14: a closer gig may propose the next stage (stays claimed), closed_won at least the floor, or closed_lost', () => {
    const meeting = claimedCloserGig('meeting');
    const onGig = { gigId: meeting.gigId, closerId: meeting.closerId };
    meeting.w.when({ type: 'AdvanceGig', gigId: meeting.gigId, advanceTo: 'proposal' }).then([
      ...moved(meeting.dealId, 'meeting', 'proposal', onGig),
      // stays claimed: no GigFulfilled
      { type: 'GigMoved', gigId: meeting.gigId, at: T0, dueAt: T0 + 72 * HOUR },
    ]);
    for (const to of ['negotiation', 'closed_won', 'qualified', 'sourced', 'revive']) {
      meeting.w
        .when({ type: 'AdvanceGig', gigId: meeting.gigId, advanceTo: to, valueUsd: 100_000 })
        .thenRefused('gate');
    }
    meeting.w
      .when({ type: 'AdvanceGig', gigId: meeting.gigId, advanceTo: 'closed_lost' })
      .then([
        ...moved(meeting.dealId, 'meeting', 'closed_lost', onGig),
        { type: 'GigFulfilled', gigId: meeting.gigId, outcome: 'closed_lost', at: T0 },
      ]);

    const negotiation = claimedCloserGig('negotiation');
    negotiation.w
      .when({ type: 'AdvanceGig', gigId: negotiation.gigId, advanceTo: 'closed_won' })
      .thenRefused('gate', 'GATE_VALUE_REQUIRED');
    negotiation.w
      .when({ type: 'AdvanceGig', gigId: negotiation.gigId, advanceTo: 'closed_won', valueUsd: 80_000 })
      .then([
        ...closedWon(negotiation.dealId, 8_000_000, '$80,000.00', {
          gigId: negotiation.gigId,
          closerId: negotiation.closerId,
        }),
        { type: 'GigFulfilled', gigId: negotiation.gigId, outcome: 'closed_won', finalValueCents: 8_000_000, at: T0 },
        {
          type: 'PayoutPosted',
          line: {
            at: T0,
            closerId: negotiation.closerId,
            gigId: negotiation.gigId,
            dealId: negotiation.dealId,
            role: 'closer',
            kind: 'commission',
            amountCents: 800_000,
          },
        },
      ]);
  });

  it('D-14: a nurturer gig advancing to closed_lost confirms the deal dead and pays nurturerUsd', () => {
    const { w, gigId, dealId, closerId } = claimedNurturerGig('negotiation', {
      mandate: { fees: { nurturerUsd: 99.99 } },
    });
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'closed_lost', note: 'company dissolved' }).then([
      ...moved(dealId, 'negotiation', 'closed_lost', { gigId, closerId }, { note: 'company dissolved' }),
      { type: 'GigFulfilled', gigId, outcome: 'closed_lost', at: T0 },
      {
        type: 'PayoutPosted',
        line: { at: T0, closerId, gigId, dealId, role: 'nurturer', kind: 'fee', amountCents: 9_999 },
      },
    ]);
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
    const nurturer = claimedNurturerGig('meeting');
    const other = nurturer.w.enrol('Other Fictional');
    nurturer.w
      .when({ type: 'ClearGoneDark', gigId: nurturer.gigId, closerId: other })
      .thenRefused('conflict', 'NOT_CLAIMANT');
    // the claimant may name itself
    closer.w
      .when({ type: 'AdvanceGig', gigId: closer.gigId, closerId: closer.closerId, advanceTo: 'proposal' })
      .then([
        ...moved(closer.dealId, 'meeting', 'proposal', { gigId: closer.gigId, closerId: closer.closerId }),
        { type: 'GigMoved', gigId: closer.gigId, at: T0, dueAt: T0 + 72 * HOUR },
      ]);
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
    const { w, gigId, dealId, closerId } = claimedCloserGig('meeting');
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'proposal' }).then([
      ...moved(dealId, 'meeting', 'proposal', { gigId, closerId }),
      { type: 'GigMoved', gigId, at: T0, dueAt: T0 + 72 * HOUR },
    ]);
    w.when({ type: 'ReleaseGig', gigId }).then(gigReleased(dealId, 'meeting', gigId));
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
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' }, commissionPct: 0.075 } });
    w.agentTo(dealId, 'meeting');
    const { account, activity } = w.deal(dealId);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0001',
          role: 'closer',
          stage: 'meeting',
          pricing: { kind: 'commission', pct: 0.075 },
          setsTrack: true,
        },
      ),
      { escalation: { role: 'closer', gigId: 'gig_0001' } },
    );
  });

  it('D-35: setter and nurturer gigs are priced {kind: fee, amount} from the mandate fees', () => {
    const setter = new World();
    const setterDeal = setter.createDeal({ mandate: { staffing: { setter: 'human' }, fees: { setterUsd: 400 } } });
    const before = setter.deal(setterDeal);
    setter.when({ type: 'AdvanceDeal', dealId: setterDeal, proposal: {} }).then(
      escalated(
        { id: setterDeal, account: before.account, activity: before.activity },
        {
          gigId: 'gig_0001',
          role: 'setter',
          stage: 'sourced',
          pricing: { kind: 'fee', amountCents: 40_000 },
          setsTrack: true,
        },
      ),
      { escalation: { role: 'setter', gigId: 'gig_0001' } },
    );

    const nurturer = new World();
    const nurturerDeal = nurturer.createDeal({ mandate: { fees: { nurturerUsd: 175.25 } } });
    nurturer.signals(nurturerDeal, 'gone_dark');
    const dark = nurturer.deal(nurturerDeal);
    // gone_dark put the deal on the human track already: no HumanTrackSet
    nurturer.when({ type: 'AdvanceDeal', dealId: nurturerDeal, proposal: {} }).then(
      escalated(
        { id: nurturerDeal, account: dark.account, activity: dark.activity },
        {
          gigId: 'gig_0001',
          role: 'nurturer',
          stage: 'sourced',
          pricing: { kind: 'fee', amountCents: 17_525 },
          setsTrack: false,
          signals: ['gone_dark'],
        },
      ),
      { escalation: { role: 'nurturer', gigId: 'gig_0001' } },
    );
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
