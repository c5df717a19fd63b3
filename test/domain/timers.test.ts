// Platform timers: claim expiry and lapse of open gigs (D-16), deal stalls (D-17).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claimExpired, entry, escalated, gigClaimed, stallReported, wentDark } from './builders.ts';
import { claimedCloserGig, claimedNurturerGig, DAY, HOUR, T0, World } from './world.ts';

describe('D-16 claim expiry and lapse', () => {
  it('D-16: the platform expires a claim only when due (claimTtl after the claim)', () => {
    const { w, gigId, dealId, closerId } = claimedCloserGig('meeting');
    const due = T0 + 72 * HOUR;
    w.when({ type: 'ReopenGig', gigId, platform: true }, { now: due - 1 }).thenRefused('conflict', 'NOT_DUE');
    w.when({ type: 'ReopenGig', gigId, platform: true }, { now: due }).then(
      claimExpired(dealId, 'meeting', { gigId, closerId }, { at: due }),
    );
  });

  it('D-16: the claim timer honours the configured claimTtl', () => {
    const w = new World();
    const closerId = w.enrol();
    const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' } } });
    w.agentTo(dealId, 'meeting');
    const gigId = w.escalate(dealId);
    w.when({ type: 'ClaimGig', gigId, closerId }, { claimTtlMs: 2 * HOUR }).then(
      gigClaimed(dealId, 'meeting', { gigId, closerId }, { dueAt: T0 + 2 * HOUR }),
    );
  });

  it('D-16: a move by the claimant restarts the claim timer', () => {
    const { w, gigId, dealId, closerId } = claimedCloserGig('meeting');
    w.tick(48 * HOUR).gigAdvance(gigId, 'proposal');
    assert.equal(w.gig(gigId).timerDueAt, T0 + 120 * HOUR);
    w.when({ type: 'ReopenGig', gigId, platform: true }, { now: T0 + 72 * HOUR }).thenRefused('conflict', 'NOT_DUE');
    w.when({ type: 'ReopenGig', gigId, platform: true }, { now: T0 + 120 * HOUR }).then(
      claimExpired(dealId, 'proposal', { gigId, closerId }, { at: T0 + 120 * HOUR }),
    );
  });

  it('D-16: a manual expire reopens a claimed gig at any time, closer cleared; another closer may claim it', () => {
    const { w, gigId, dealId, closerId } = claimedCloserGig('proposal');
    const reopened = w.when({ type: 'ReopenGig', gigId, platform: false });
    assert.equal(reopened.state().gigs.get(gigId)?.closerId, undefined);
    // the reopened gig lapses after stallTimeoutDays unclaimed
    reopened.then(claimExpired(dealId, 'proposal', { gigId, closerId }));
    w.run({ type: 'ReopenGig', gigId, platform: false });
    const other = w.enrol('Other Fictional');
    w.when({ type: 'ClaimGig', gigId, closerId: other }).then(
      gigClaimed(dealId, 'proposal', { gigId, closerId: other }),
    );
  });

  it('D-16: an expiry records a service entry that is not an act', () => {
    const { w, gigId, dealId, closerId } = claimedCloserGig('meeting');
    w.when({ type: 'ReopenGig', gigId, platform: true }, { now: T0 + 80 * HOUR }).then(
      claimExpired(dealId, 'meeting', { gigId, closerId }, { at: T0 + 80 * HOUR }),
    );
  });

  it('D-16: an open gig lapses (stored expired) only once stallTimeoutDays pass unclaimed', () => {
    const w = new World();
    const dealId = w.createDeal({ actor: 'B2C', mandate: { staffing: { setter: 'human' } } });
    const gigId = w.escalate(dealId);
    assert.equal(w.gig(gigId).timerDueAt, T0 + 7 * DAY, 'B2C: 7 days');
    w.when({ type: 'ExpireGig', gigId }, { now: T0 + 7 * DAY - 1 }).thenRefused('conflict', 'NOT_DUE');
    w.when({ type: 'ExpireGig', gigId }, { now: T0 + 7 * DAY }).then([
      { type: 'GigExpired', gigId, at: T0 + 7 * DAY },
      entry(
        dealId,
        'service',
        'sourced',
        'The setter gig expired unclaimed after 7 days; the next advance posts a fresh gig.',
        { at: T0 + 7 * DAY, acted: false, gigId },
      ),
    ]);
  });

  it('D-16: after a lapse the deal stays on the human track and its next advance posts a fresh gig', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    const gigId = w.escalate(dealId);
    w.tick(14 * DAY).run({ type: 'ExpireGig', gigId });
    const { account, activity } = w.deal(dealId);
    // still on the human track: no HumanTrackSet
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0002',
          role: 'setter',
          stage: 'sourced',
          pricing: { kind: 'fee', amountCents: 25_000 },
          setsTrack: false,
          at: T0 + 14 * DAY,
          timerDueAt: T0 + 28 * DAY,
        },
      ),
      { escalation: { role: 'setter', gigId: 'gig_0002' } },
    );
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
    const stalled = w.when({ type: 'StallDeal', dealId }, { now: T0 + 14 * DAY });
    assert.equal(stalled.state().deals.get(dealId)?.stallDueAt, undefined);
    stalled.then([
      ...stallReported(dealId, 'sourced', { at: T0 + 14 * DAY }),
      ...wentDark(dealId, 'sourced', { at: T0 + 14 * DAY, acted: false, setsTrack: true }),
    ]);
  });

  it('D-17: the platform\u2019s stall entries are not acts (lastActedAt unchanged)', () => {
    const w = new World();
    const dealId = w.createDeal();
    const stalled = w.when({ type: 'StallDeal', dealId }, { now: T0 + 20 * DAY });
    assert.equal(stalled.state().deals.get(dealId)?.lastActedAt, T0);
    stalled.then([
      ...stallReported(dealId, 'sourced', { at: T0 + 20 * DAY }),
      ...wentDark(dealId, 'sourced', { at: T0 + 20 * DAY, acted: false, setsTrack: true }),
    ]);
  });

  it('D-17: a stall has the effects of gone_dark (D-13): a claimed closer gig is released', () => {
    const { w, dealId, gigId } = claimedCloserGig('proposal');
    w.when({ type: 'StallDeal', dealId }, { now: T0 + 14 * DAY }).then([
      ...stallReported(dealId, 'proposal', { at: T0 + 14 * DAY }),
      ...wentDark(dealId, 'proposal', { at: T0 + 14 * DAY, acted: false, released: { gigId, role: 'closer' } }),
    ]);
  });

  it('D-17: the stall clock restarts on acts (an agent advance)', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.tick(10 * DAY).advance(dealId);
    assert.equal(w.deal(dealId).stallDueAt, T0 + 24 * DAY);
    w.when({ type: 'StallDeal', dealId }, { now: T0 + 14 * DAY }).thenRefused('conflict', 'NOT_DUE');
    w.when({ type: 'StallDeal', dealId }, { now: T0 + 24 * DAY }).then([
      ...stallReported(dealId, 'qualified', { at: T0 + 24 * DAY }),
      ...wentDark(dealId, 'qualified', { at: T0 + 24 * DAY, acted: false, setsTrack: true }),
    ]);
  });

  it('D-17: the stall clock does not restart on a claim expiry', () => {
    const { w, dealId, gigId } = claimedCloserGig('meeting');
    const due = w.deal(dealId).stallDueAt;
    assert.equal(due, T0 + 14 * DAY);
    w.tick(72 * HOUR).run({ type: 'ReopenGig', gigId, platform: true });
    assert.equal(w.deal(dealId).lastActedAt, T0);
    assert.equal(w.deal(dealId).stallDueAt, due);
    // the reopened gig is open, of the closer role: the stall releases it
    w.when({ type: 'StallDeal', dealId }, { now: T0 + 14 * DAY }).then([
      ...stallReported(dealId, 'meeting', { at: T0 + 14 * DAY }),
      ...wentDark(dealId, 'meeting', { at: T0 + 14 * DAY, acted: false, released: { gigId, role: 'closer' } }),
    ]);
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
    // on the human track already, its gig expired: nothing to release
    w.when({ type: 'StallDeal', dealId }).then([
      ...stallReported(dealId, 'sourced', { at: due }),
      ...wentDark(dealId, 'sourced', { at: due, acted: false }),
    ]);
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
