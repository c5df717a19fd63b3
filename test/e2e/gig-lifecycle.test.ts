// End to end over real HTTP: every row of the spec's "Gig lifecycle" table and every gig row
// of its "Deal stages" table, each test named after its row; then the gig moves of D-14, the
// gig state errors of D-15, release and expiry (D-16), settlement (D-23) and de-escalation (D-12).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  advanceDeal,
  advanceGig,
  assertError,
  type CloserView,
  claim,
  claimedCloserGig,
  createDeal,
  type DealView,
  dealBody,
  type EscalationView,
  escalateDeal,
  type GigOutcomeView,
  type GigView,
  getCloser,
  getDeal,
  getGig,
  HUMAN_CLOSER,
  listGigs,
  MILO,
  negotiatingCloserGig,
  openCloserGig,
  pctOfUsd,
  reportSignals,
  type SettlementView,
} from '../support/marketplace-e2e.ts';

/** A mandate whose setter role is always a human: the deal escalates at sourced. */
const HUMAN_SETTER = { staffing: { setter: 'human' } };

/** A deal stalled (gone_dark) while a closer gig was claimed, and its open nurturer gig. */
async function openNurturerGig(t: TestServer, mandate: Record<string, unknown> = HUMAN_CLOSER) {
  const { gig: closerGig, deal } = await claimedCloserGig(t, MILO, { mandate });
  await reportSignals(t, deal.id, ['gone_dark']);
  const escalation = await escalateDeal(t, deal.id);
  assert.equal(escalation.role, 'nurturer');
  return { closerGig, nurturerGig: escalation.gig, dealId: deal.id };
}

describe('gig lifecycle table', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('gig lifecycle: (none) --escalation--> open', async () => {
    const deal = await createDeal(t, {
      listValueUsd: 15_000,
      mandate: { ...HUMAN_CLOSER, commissionPct: 0.07, floorPct: 0.75 },
    });
    await advanceDeal(t, deal.id);
    await advanceDeal(t, deal.id);
    const escalation = await escalateDeal(t, deal.id);
    const { gig } = escalation;
    assert.equal(gig.status, 'open');
    assert.equal(gig.role, 'closer');
    assert.equal(gig.dealId, deal.id);
    assert.match(gig.id, /^gig_\d{4,}$/);
    assert.equal(gig.closerId, undefined);
    assert.equal(typeof gig.postedAt, 'string');
    // Brief and price fixed at post time.
    assert.deepEqual(gig.pricing, { kind: 'commission', pct: 0.07 });
    assert.deepEqual(gig.brief.account, deal.account);
    assert.equal(gig.brief.listValueUsd, 15_000);
    assert.equal(gig.brief.stage, 'meeting');
    assert.deepEqual(gig.brief.signals, []);
    assert.equal(gig.brief.floorUsd, 11_250);
    assert.deepEqual(gig.brief.activity, escalation.deal.activity.slice(0, -1), 'the history up to the posting');
    assert.equal(gig.brief.activity.length, 3);

    // The brief is a snapshot: later signals on the deal do not rewrite it.
    const signalled = await reportSignals(t, deal.id, ['procurement_involved']);
    assert.deepEqual(signalled.signals, ['procurement_involved']);
    const again = await getGig(t, gig.id);
    assert.deepEqual(again.brief, gig.brief);
    assert.deepEqual(again.pricing, gig.pricing);
    assert.equal(again.status, 'open');
  });

  it('gig lifecycle: open --claim--> claimed', async () => {
    const { gig, deal } = await openCloserGig(t);
    const answer = await t.post<GigOutcomeView>(`/closers/gigs/${gig.id}/claim`, { closerId: ADA });
    assert.equal(answer.status, 200);
    assert.deepEqual(Object.keys(answer.body).sort(), ['deal', 'gig']);
    assert.equal(answer.body.gig.id, gig.id);
    assert.equal(answer.body.gig.status, 'claimed');
    assert.equal(answer.body.gig.closerId, ADA);
    assert.equal(typeof answer.body.gig.claimedAt, 'string');
    assert.deepEqual(answer.body.gig.brief, gig.brief, 'the brief does not change on claim');
    assert.equal(answer.body.deal.id, deal.id);
    assert.equal(answer.body.deal.stage, 'meeting', 'a claim does not move the deal');
    assert.equal(answer.body.deal.activity.length, deal.activity.length + 1);
    const last = answer.body.deal.activity.at(-1);
    assert.equal(last?.by, 'service');
    assert.deepEqual([last?.gigId, last?.closerId], [gig.id, ADA], 'the gig and its claimant in fields (D-272)');
    const stored = await getGig(t, gig.id);
    assert.equal(stored.status, 'claimed');
    assert.equal(stored.closerId, ADA);
  });

  it('gig lifecycle: open --release (withdraw)--> released', async () => {
    const { gig, deal } = await openCloserGig(t);
    const answer = await t.post<GigView>(`/closers/gigs/${gig.id}/release`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.id, gig.id);
    assert.equal(answer.body.status, 'released');
    assert.equal((await getGig(t, gig.id)).status, 'released');
    // The deal returns to matching: unmoved, still human-track, and its next advance posts a fresh gig.
    const after = await getDeal(t, deal.id);
    assert.equal(after.stage, 'meeting');
    assert.equal(after.humanTrack, true);
    const next = await escalateDeal(t, deal.id);
    assert.notEqual(next.gig.id, gig.id);
    assert.equal(next.gig.status, 'open');
    assert.equal(next.gig.role, 'closer');
  });

  it('gig lifecycle: claimed --gig advance terminal--> fulfilled', async () => {
    const { gig } = await negotiatingCloserGig(t, ADA, { listValueUsd: 15_000 });
    const before = await getCloser(t, ADA);
    const answer = await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd: 14_000 });
    assert.equal(answer.gig.status, 'fulfilled');
    assert.equal(answer.gig.outcome, 'closed_won');
    assert.equal(answer.gig.finalValueUsd, 14_000);
    // Payout posted to the ledger; Register updated.
    assert.ok(answer.closer);
    assert.equal(answer.closer.payouts.length, before.payouts.length + 1);
    const line = answer.closer.payouts.at(-1);
    assert.equal(line?.kind, 'commission');
    assert.equal(line?.gigId, gig.id);
    assert.equal(line?.amountUsd, 1_400);
    assert.deepEqual(answer.closer.record, {
      gigs: before.record.gigs + 1,
      wins: before.record.wins + 1,
      grossClosedUsd: before.record.grossClosedUsd + 14_000,
    });
    assert.deepEqual(await getCloser(t, ADA), answer.closer);
    assert.equal((await getGig(t, gig.id)).status, 'fulfilled');
  });

  it('gig lifecycle: claimed --revive accepted by gate--> fulfilled', async () => {
    const { nurturerGig, dealId } = await openNurturerGig(t);
    await claim(t, nurturerGig.id, ADA);
    const before = await getCloser(t, ADA);
    const answer = await t.post<GigOutcomeView>(`/closers/gigs/${nurturerGig.id}/revive`, { note: 'They replied.' });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.gig.status, 'fulfilled');
    assert.ok(answer.body.closer);
    assert.equal(answer.body.closer.payouts.length, before.payouts.length + 1);
    assert.deepEqual(answer.body.closer.payouts.at(-1), {
      at: answer.body.closer.payouts.at(-1)?.at,
      gigId: nurturerGig.id,
      dealId,
      kind: 'fee',
      amountUsd: 150,
    });
    assert.equal(answer.body.closer.record.gigs, before.record.gigs + 1);
    assert.equal(answer.body.closer.record.wins, before.record.wins);
    assert.equal((await getGig(t, nurturerGig.id)).status, 'fulfilled');
  });

  it('gig lifecycle: claimed --release--> released', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    const answer = await t.post<GigView>(`/closers/gigs/${gig.id}/release`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'released');
    assert.equal((await getGig(t, gig.id)).status, 'released');
    // Deal returns to matching; the next deal advance posts a fresh gig.
    const next = await escalateDeal(t, deal.id);
    assert.notEqual(next.gig.id, gig.id);
    assert.equal(next.gig.status, 'open');
    assert.equal(next.gig.closerId, undefined);
    assert.equal(next.deal.stage, 'meeting');
    // The released gig stays released.
    assert.equal((await getGig(t, gig.id)).status, 'released');
  });

  it('gig lifecycle: claimed --expire (platform timer)--> open', async () => {
    const { gig } = await claimedCloserGig(t, ADA);
    const answer = await t.post<GigView>(`/closers/gigs/${gig.id}/expire`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.id, gig.id, 'the same gig reopens');
    assert.equal(answer.body.status, 'open');
    assert.equal(answer.body.closerId, undefined);
    assert.equal(answer.body.claimedAt, undefined);
    const stored = await getGig(t, gig.id);
    assert.equal(stored.status, 'open');
    assert.equal(stored.closerId, undefined);
    // Back in the pool: another closer may claim it.
    const reclaimed = await claim(t, gig.id, MILO);
    assert.equal(reclaimed.gig.closerId, MILO);
  });

  it('gig lifecycle: claimed --deal signals gone_dark--> released (closer gig)', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    const dark = await reportSignals(t, deal.id, ['gone_dark']);
    assert.deepEqual(dark.signals, ['gone_dark']);
    const stored = await getGig(t, gig.id);
    assert.equal(stored.status, 'released');
    assert.equal(stored.role, 'closer');
  });

  it("gig lifecycle: a gig's completion does not imply the deal's termination", async () => {
    const deal = await createDeal(t, { mandate: HUMAN_SETTER });
    const { gig } = await escalateDeal(t, deal.id);
    await claim(t, gig.id, ADA);
    await advanceGig(t, gig.id, { advanceTo: 'qualified' });
    const done = await advanceGig(t, gig.id, { advanceTo: 'meeting' });
    assert.equal(done.gig.status, 'fulfilled');
    assert.equal(done.deal.stage, 'meeting');
    assert.equal(done.deal.closedBy, undefined);
  });

  it('gig lifecycle: claiming a gig that is not open gives 409', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    const before = await getDeal(t, deal.id);
    assertError(await t.post(`/closers/gigs/${gig.id}/claim`, { closerId: MILO }), 409, 'GIG_NOT_OPEN');
    assertError(await t.post(`/closers/gigs/${gig.id}/claim`, { closerId: ADA }), 409, 'GIG_NOT_OPEN');
    const stored = await getGig(t, gig.id);
    assert.equal(stored.closerId, ADA);
    assert.deepEqual(await getDeal(t, deal.id), before, 'a refused claim changes nothing (D-6)');

    const released = (await openCloserGig(t)).gig;
    await t.post(`/closers/gigs/${released.id}/release`);
    assertError(await t.post(`/closers/gigs/${released.id}/claim`, { closerId: MILO }), 409, 'GIG_NOT_OPEN');

    const won = await negotiatingCloserGig(t, MILO);
    await advanceGig(t, won.gig.id, { advanceTo: 'closed_won', valueUsd: 15_000 });
    assertError(await t.post(`/closers/gigs/${won.gig.id}/claim`, { closerId: ADA }), 409, 'GIG_NOT_OPEN');
  });
});

describe('deal stages table: the gig rows', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it("deal stages: any stage --advance when the current Role's staffing calls for a human--> unchanged", async () => {
    // staffing 'human': the setter role at sourced.
    const deal = await createDeal(t, { mandate: HUMAN_SETTER });
    const escalation = await escalateDeal(t, deal.id);
    assert.equal(escalation.role, 'setter');
    assert.equal(escalation.gig.status, 'open');
    assert.equal(escalation.deal.stage, 'sourced', 'the deal does not move');
    assert.equal(escalation.deal.humanTrack, true);
    const stored = await getDeal(t, deal.id);
    assert.equal(stored.stage, 'sourced');
    assert.equal(stored.humanTrack, true);

    // humanIf conditions hold: list value satisfies minDealSizeUsd, at meeting (closer role).
    const big = await createDeal(t, {
      listValueUsd: 60_000,
      mandate: { staffing: { closer: { humanIf: { minDealSizeUsd: 50_000 } } } },
    });
    await advanceDeal(t, big.id);
    await advanceDeal(t, big.id);
    const bigEscalation = await escalateDeal(t, big.id);
    assert.equal(bigEscalation.role, 'closer');
    assert.equal(bigEscalation.deal.stage, 'meeting');
    assert.equal(bigEscalation.gig.status, 'open');

    // ...and do not hold below it: the agent works the stage.
    const small = await createDeal(t, {
      listValueUsd: 40_000,
      mandate: { staffing: { closer: { humanIf: { minDealSizeUsd: 50_000 } } } },
    });
    await advanceDeal(t, small.id);
    await advanceDeal(t, small.id);
    const moved = await advanceDeal(t, small.id);
    assert.equal(moved.stage, 'proposal');
    assert.equal(moved.humanTrack, undefined);
  });

  it('deal stages: meeting --gig advance proposal (claimed closer gig)--> proposal', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    const answer = await advanceGig(t, gig.id, { advanceTo: 'proposal', note: 'Sent the proposal.' });
    assert.equal(answer.deal.stage, 'proposal');
    assert.equal(answer.gig.status, 'claimed', 'a move that does not complete the gig leaves it claimed');
    assert.equal(answer.closer, undefined);
    const last = answer.deal.activity.at(-1);
    assert.equal(last?.by, 'human');
    assert.equal(last?.stage, 'proposal');
    assert.match(last?.note ?? '', /Sent the proposal\./);
    assert.equal((await getDeal(t, deal.id)).stage, 'proposal');
  });

  it('deal stages: proposal --gig advance proposal--> negotiation', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    await advanceGig(t, gig.id, { advanceTo: 'proposal' });
    const answer = await advanceGig(t, gig.id, { advanceTo: 'negotiation' });
    assert.equal(answer.deal.stage, 'negotiation');
    assert.equal(answer.gig.status, 'claimed');
    assert.equal(answer.deal.activity.at(-1)?.by, 'human');
    assert.equal((await getDeal(t, deal.id)).stage, 'negotiation');
  });

  it('deal stages: negotiation --gig advance closed_won with valueUsd at least the floor--> closed_won', async () => {
    const { gig, deal } = await negotiatingCloserGig(t, MILO, { listValueUsd: 15_000 });
    const before = await getCloser(t, MILO);
    const answer = await t.post<GigOutcomeView>(`/closers/gigs/${gig.id}/advance`, {
      advanceTo: 'closed_won',
      valueUsd: 12_345.65,
      closerId: MILO,
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(Object.keys(answer.body).sort(), ['closer', 'deal', 'gig']);
    const { gig: done, deal: closed, closer } = answer.body;
    assert.equal(done.status, 'fulfilled');
    assert.equal(done.outcome, 'closed_won');
    assert.equal(done.finalValueUsd, 12_345.65);
    assert.equal(closed.stage, 'closed_won');
    assert.equal(closed.finalValueUsd, 12_345.65);
    assert.equal(closed.closedBy, 'human');
    assert.equal(closed.activity.at(-1)?.by, 'human');
    assert.ok(closer);
    assert.equal(closer.id, MILO);
    assert.deepEqual(closer.record, {
      gigs: before.record.gigs + 1,
      wins: before.record.wins + 1,
      grossClosedUsd: before.record.grossClosedUsd + 12_345.65,
    });
    // Commission 10% of 12,345.65 = 1,234.565 → 1,234.57 (half-up to the cent).
    const line = closer.payouts.at(-1);
    assert.deepEqual(line, { at: line?.at, gigId: gig.id, dealId: deal.id, kind: 'commission', amountUsd: 1_234.57 });
    assert.equal(line?.amountUsd, pctOfUsd(12_345.65, 0.1));
    assert.equal(typeof line?.at, 'string');
    const stored = await getDeal(t, deal.id);
    assert.equal(stored.stage, 'closed_won');
    assert.equal(stored.closedBy, 'human');
    assert.deepEqual(await getCloser(t, MILO), closer);
  });

  it('deal stages: negotiation --gig advance closed_won with valueUsd below the floor--> unchanged (422)', async () => {
    const { gig, deal } = await negotiatingCloserGig(t, ADA, { listValueUsd: 15_000 });
    const dealBefore = await getDeal(t, deal.id);
    const gigBefore = await getGig(t, gig.id);
    const closerBefore = await getCloser(t, ADA);
    const answer = await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', valueUsd: 11_999.99 });
    const error = assertError(answer, 422);
    assert.ok(error.gate, 'the body carries the gate refusal');
    assert.equal(typeof error.gate.error, 'string');
    assert.match(error.gate.error, /11,?999\.99/, 'states the proposed value');
    assert.match(error.gate.error, /12,?000(\.00)?/, 'states the floor');
    assert.match(error.gate.error, /80%/, 'states the floor percentage');
    // The gig stays claimed, the deal is unmoved, nothing is paid.
    assert.deepEqual(await getGig(t, gig.id), gigBefore);
    assert.equal(gigBefore.status, 'claimed');
    assert.deepEqual(await getDeal(t, deal.id), dealBefore);
    assert.deepEqual(await getCloser(t, ADA), closerBefore);
    // The same gig may then close at the floor exactly.
    const atFloor = await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd: 12_000 });
    assert.equal(atFloor.deal.stage, 'closed_won');
  });

  it('deal stages: (human-track stage) --gig advance closed_lost--> closed_lost', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    const before = await getCloser(t, ADA);
    const answer = await advanceGig(t, gig.id, { advanceTo: 'closed_lost', note: 'Went with a competitor.' });
    assert.equal(answer.deal.stage, 'closed_lost');
    assert.equal(answer.deal.closedBy, 'human');
    assert.equal(answer.deal.finalValueUsd, undefined);
    assert.equal(answer.gig.status, 'fulfilled');
    assert.equal(answer.gig.outcome, 'closed_lost');
    assert.equal(answer.gig.finalValueUsd, undefined);
    // Settles nothing: no payout line; the Register counts a gig, not a win.
    assert.ok(answer.closer);
    assert.deepEqual(answer.closer.payouts, before.payouts);
    assert.deepEqual(answer.closer.record, {
      gigs: before.record.gigs + 1,
      wins: before.record.wins,
      grossClosedUsd: before.record.grossClosedUsd,
    });
    assertError(await t.get(`${t.prefix}/deals/${deal.id}/settlement`), 409, 'DEAL_NOT_CLOSED_WON');
  });

  it('deal stages: any non-terminal --signals including gone_dark--> unchanged stage', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    await advanceGig(t, gig.id, { advanceTo: 'proposal' });
    const before = await getDeal(t, deal.id);
    const dark = await reportSignals(t, deal.id, ['gone_dark']);
    assert.equal(dark.stage, 'proposal', 'the stage is unchanged');
    assert.deepEqual(dark.signals, ['gone_dark']);
    assert.equal(dark.humanTrack, true);
    const added = dark.activity.slice(before.activity.length);
    assert.ok(added.length >= 1, 'the signals are logged');
    assert.ok(
      added.every((e) => e.by === 'service' && e.stage === 'proposal'),
      'activity by service',
    );
    assert.ok(
      added.some((e) => e.gigId === gig.id),
      'the release of the gig is logged',
    );
    assert.deepEqual(await getDeal(t, deal.id), dark);
    // A claimed closer gig is released; the deal returns to matching under the nurturer.
    assert.equal((await getGig(t, gig.id)).status, 'released');
    const next = await escalateDeal(t, deal.id);
    assert.equal(next.role, 'nurturer');
    assert.equal(next.gig.role, 'nurturer');
    assert.equal(next.gig.status, 'open');
    assert.deepEqual(next.gig.pricing, { kind: 'fee', amountUsd: 150 });
    assert.deepEqual(next.gig.brief.signals, ['gone_dark']);
    assert.equal(next.gig.brief.stage, 'proposal');
  });

  it('deal stages: stalled --nurturer gig revive--> same stage', async () => {
    const { nurturerGig, dealId } = await openNurturerGig(t, { ...HUMAN_CLOSER, fees: { nurturerUsd: 175.5 } });
    assert.deepEqual(nurturerGig.pricing, { kind: 'fee', amountUsd: 175.5 });
    await claim(t, nurturerGig.id, ADA);
    const before = await getDeal(t, dealId);
    const answer = await t.post<GigOutcomeView>(`/closers/gigs/${nurturerGig.id}/revive`, { closerId: ADA });
    assert.equal(answer.status, 200);
    assert.deepEqual(Object.keys(answer.body).sort(), ['closer', 'deal', 'gig']);
    assert.equal(answer.body.deal.stage, before.stage, 'same stage');
    assert.deepEqual(answer.body.deal.signals, [], 'gone_dark cleared');
    assert.equal(answer.body.deal.activity.at(-1)?.by, 'human');
    assert.equal(answer.body.gig.status, 'fulfilled');
    assert.deepEqual(answer.body.closer?.payouts.at(-1)?.amountUsd, 175.5);
    assert.equal(answer.body.closer?.payouts.at(-1)?.kind, 'fee');
    // Handed back to the role owning its stage: still human-track, the next advance posts a closer gig.
    const stored = await getDeal(t, dealId);
    assert.deepEqual(stored.signals, []);
    assert.equal(stored.humanTrack, true);
    const next = await escalateDeal(t, dealId);
    assert.equal(next.role, 'closer');
    assert.equal(next.gig.status, 'open');
    assert.notEqual(next.gig.id, nurturerGig.id);
  });
});

describe('gig moves: escalation shape (D-11, D-35)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  const assertEscalationShape = (body: EscalationView, role: string) => {
    assert.deepEqual(Object.keys(body).sort(), ['deal', 'escalated', 'gig', 'role', 'suggestedClosers']);
    assert.equal(body.escalated, true);
    assert.equal(body.role, role);
    assert.equal(body.gig.role, role);
    assert.equal(body.gig.dealId, body.deal.id);
    assert.deepEqual(Object.keys(body.gig.brief).sort(), [
      'account',
      'activity',
      'floorUsd',
      'listValueUsd',
      'signals',
      'stage',
    ]);
    // The ranked pool: every closer, the saas closer first.
    assert.deepEqual(
      body.suggestedClosers.map((m) => m.closer.id),
      [ADA, MILO],
    );
    assert.equal(body.suggestedClosers[0].score, 0.6);
    assert.equal(body.suggestedClosers[0].winRate, 0);
    for (const m of body.suggestedClosers) {
      assert.ok(m.score >= 0 && m.score <= 1);
      assert.deepEqual(Object.keys(m).sort(), ['closer', 'score', 'winRate']);
    }
  };

  it('from sell: 201 with {escalated: true, role, gig, suggestedClosers, deal}', async () => {
    const answer = await t.post<EscalationView>(
      `${t.prefix}/sell`,
      dealBody({ listValueUsd: 20_000, mandate: { ...HUMAN_CLOSER, commissionPct: 0.09 } }),
    );
    assert.equal(answer.status, 201);
    assertEscalationShape(answer.body, 'closer');
    const { gig, deal } = answer.body;
    assert.equal(deal.stage, 'meeting');
    assert.equal(deal.humanTrack, true);
    assert.deepEqual(gig.pricing, { kind: 'commission', pct: 0.09 });
    assert.deepEqual(gig.brief.account, deal.account);
    assert.equal(gig.brief.listValueUsd, 20_000);
    assert.equal(gig.brief.stage, 'meeting');
    assert.deepEqual(gig.brief.signals, []);
    assert.equal(gig.brief.floorUsd, 16_000);
    assert.deepEqual(gig.brief.activity, deal.activity.slice(0, -1));
    assert.deepEqual(
      gig.brief.activity.map((e) => e.by),
      ['service', 'agent', 'agent'],
    );
    assert.deepEqual(await getDeal(t, deal.id), deal);
    assert.deepEqual(await getGig(t, gig.id), gig);
  });

  it('from advance: 200, a setter gig priced {kind: fee, amountUsd: setterUsd}', async () => {
    const deal = await createDeal(t, {
      listValueUsd: 9_000,
      mandate: { ...HUMAN_SETTER, fees: { setterUsd: 320.25 }, floorPct: 0.5 },
    });
    const answer = await t.post<EscalationView>(`${t.prefix}/deals/${deal.id}/advance`);
    assert.equal(answer.status, 200);
    assertEscalationShape(answer.body, 'setter');
    assert.deepEqual(answer.body.gig.pricing, { kind: 'fee', amountUsd: 320.25 });
    assert.equal(answer.body.gig.brief.stage, 'sourced');
    assert.equal(answer.body.gig.brief.floorUsd, 4_500);
    assert.deepEqual(answer.body.gig.brief.activity, deal.activity);
    assert.equal(answer.body.deal.stage, 'sourced');
  });

  it('the brief floorUsd is floorPct × listValueUsd rounded half-up to the cent (D-22)', async () => {
    // 0.8 × 12,345.67 = 9,876.536 → 9,876.54; 0.85 × 10,000.01 = 8,500.0085 → 8,500.01
    const first = await openCloserGig(t, { listValueUsd: 12_345.67 });
    assert.equal(first.gig.brief.floorUsd, 9_876.54);
    const second = await openCloserGig(t, { listValueUsd: 10_000.01, mandate: { ...HUMAN_CLOSER, floorPct: 0.85 } });
    assert.equal(second.gig.brief.floorUsd, 8_500.01);
    assert.equal(second.gig.brief.listValueUsd, 10_000.01);
  });

  it('a nurturer gig is priced {kind: fee, amountUsd: nurturerUsd}', async () => {
    const { nurturerGig } = await openNurturerGig(t);
    assert.deepEqual(nurturerGig.pricing, { kind: 'fee', amountUsd: 150 });
  });

  it('an advance on a deal with an active gig answers that gig; no second gig is posted', async () => {
    const { gig, deal } = await openCloserGig(t);
    const gigsBefore = await listGigs(t);
    const dealBefore = await getDeal(t, deal.id);
    const again = await escalateDeal(t, deal.id);
    assert.equal(again.gig.id, gig.id);
    assert.deepEqual(await listGigs(t), gigsBefore);
    assert.deepEqual((await getDeal(t, deal.id)).stage, dealBefore.stage);
    // Also while it is claimed.
    await claim(t, gig.id, ADA);
    const claimed = await escalateDeal(t, deal.id);
    assert.equal(claimed.gig.id, gig.id);
    assert.equal(claimed.gig.status, 'claimed');
    assert.equal(claimed.deal.stage, 'meeting');
  });
});

describe('gig moves: claims and proposals (D-14, D-15)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('claim naming an unknown closer: 404, the gig stays open', async () => {
    const { gig, deal } = await openCloserGig(t);
    const before = await getDeal(t, deal.id);
    assertError(await t.post(`/closers/gigs/${gig.id}/claim`, { closerId: 'closer_9999' }), 404, 'CLOSER_NOT_FOUND');
    const stored = await getGig(t, gig.id);
    assert.equal(stored.status, 'open');
    assert.equal(stored.closerId, undefined);
    assert.deepEqual(await getDeal(t, deal.id), before);
  });

  it('claim without a closerId: 400', async () => {
    const { gig } = await openCloserGig(t);
    assertError(await t.post(`/closers/gigs/${gig.id}/claim`, {}), 400);
    assertError(await t.post(`/closers/gigs/${gig.id}/claim`, { closerId: 7 }), 400);
    assert.equal((await getGig(t, gig.id)).status, 'open');
  });

  it('an unknown gig: 404 for claim, advance, revive, release and expire', async () => {
    assertError(await t.post('/closers/gigs/gig_9999/claim', { closerId: ADA }), 404, 'GIG_NOT_FOUND');
    assertError(await t.post('/closers/gigs/gig_9999/advance', { advanceTo: 'proposal' }), 404, 'GIG_NOT_FOUND');
    assertError(await t.post('/closers/gigs/gig_9999/revive'), 404, 'GIG_NOT_FOUND');
    assertError(await t.post('/closers/gigs/gig_9999/release'), 404, 'GIG_NOT_FOUND');
    assertError(await t.post('/closers/gigs/gig_9999/expire'), 404, 'GIG_NOT_FOUND');
  });

  it('gig advance meeting → proposal → negotiation → closed_won: {gig, deal, closer} with Register and payout', async () => {
    const closer = (
      await t.post<CloserView>('/closers/closers', { name: 'Fresh Closer (fictional)', industries: ['saas'] })
    ).body;
    const { gig, deal } = await claimedCloserGig(t, closer.id, {
      listValueUsd: 50_000,
      mandate: { ...HUMAN_CLOSER, commissionPct: 0.075 },
    });
    const toProposal = await advanceGig(t, gig.id, { advanceTo: 'proposal', closerId: closer.id });
    assert.deepEqual(Object.keys(toProposal).sort(), ['deal', 'gig']);
    assert.equal(toProposal.deal.stage, 'proposal');
    const toNegotiation = await advanceGig(t, gig.id, { advanceTo: 'negotiation' });
    assert.equal(toNegotiation.deal.stage, 'negotiation');
    assert.equal(toNegotiation.gig.status, 'claimed');
    const won = await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd: 43_210.1 });
    assert.equal(won.deal.stage, 'closed_won');
    assert.equal(won.deal.finalValueUsd, 43_210.1);
    assert.equal(won.deal.closedBy, 'human');
    assert.ok(won.closer);
    assert.deepEqual(won.closer.record, { gigs: 1, wins: 1, grossClosedUsd: 43_210.1 });
    // 7.5% of 43,210.10 = 3,240.7575 → 3,240.76
    assert.equal(won.closer.payouts.length, 1);
    const line = won.closer.payouts[0];
    assert.deepEqual(line, { at: line.at, gigId: gig.id, dealId: deal.id, kind: 'commission', amountUsd: 3_240.76 });
    assert.equal(line.amountUsd, pctOfUsd(43_210.1, 0.075));
    assert.deepEqual(
      won.deal.activity.slice(-3).map((e) => [e.by, e.stage]),
      [
        ['human', 'proposal'],
        ['human', 'negotiation'],
        ['human', 'closed_won'],
      ],
    );
    // Terminal is forever: the deal and the gig accept no more moves.
    assertError(await t.post(`${t.prefix}/deals/${deal.id}/advance`), 409, 'DEAL_TERMINAL');
    assertError(await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_lost' }), 409, 'GIG_NOT_CLAIMED');
    assertError(await t.post(`${t.prefix}/deals/${deal.id}/signals`, { signals: ['gone_dark'] }), 409, 'DEAL_TERMINAL');
  });

  it('gig advance naming a closer who is not the claimant: 409, nothing changes', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    const before = await getDeal(t, deal.id);
    assertError(
      await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'proposal', closerId: MILO }),
      409,
      'NOT_CLAIMANT',
    );
    assertError(
      await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'proposal', closerId: 'closer_9999' }),
      404,
      'CLOSER_NOT_FOUND',
    );
    assert.deepEqual(await getDeal(t, deal.id), before);
    assert.equal((await getGig(t, gig.id)).closerId, ADA);
    const moved = await advanceGig(t, gig.id, { advanceTo: 'proposal', closerId: ADA });
    assert.equal(moved.deal.stage, 'proposal');
  });

  it('gig advance of an open gig: 409, the deal does not move', async () => {
    const { gig, deal } = await openCloserGig(t);
    const before = await getDeal(t, deal.id);
    assertError(await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'proposal' }), 409, 'GIG_NOT_CLAIMED');
    assert.deepEqual(await getDeal(t, deal.id), before);
    assert.equal((await getGig(t, gig.id)).status, 'open');
  });

  it('the gate refuses a skip, a stage backwards and a close won without a value: 422, nothing changes', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    const before = await getDeal(t, deal.id);
    assertError(await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'won' }), 400, 'INVALID_BODY');
    for (const body of [
      { advanceTo: 'negotiation' },
      { advanceTo: 'closed_won', valueUsd: 15_000 },
      { advanceTo: 'meeting' },
      { advanceTo: 'qualified' },
    ]) {
      const error = assertError(await t.post(`/closers/gigs/${gig.id}/advance`, body), 422);
      assert.equal(typeof error.gate?.error, 'string', JSON.stringify(body));
    }
    await advanceGig(t, gig.id, { advanceTo: 'proposal' });
    await advanceGig(t, gig.id, { advanceTo: 'negotiation' });
    const noValue = assertError(await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won' }), 422);
    assert.equal(typeof noValue.gate?.error, 'string');
    const stored = await getDeal(t, deal.id);
    assert.equal(stored.stage, 'negotiation');
    assert.equal(stored.activity.length, before.activity.length + 2);
    assert.equal((await getGig(t, gig.id)).status, 'claimed');
  });

  it('closed_lost via a closer gig: fulfilled, no payout', async () => {
    const closer = (await t.post<CloserView>('/closers/closers', { name: 'Unlucky (fictional)', industries: [] })).body;
    const { gig } = await claimedCloserGig(t, closer.id);
    await advanceGig(t, gig.id, { advanceTo: 'proposal' });
    const lost = await advanceGig(t, gig.id, { advanceTo: 'closed_lost' });
    assert.equal(lost.gig.status, 'fulfilled');
    assert.equal(lost.gig.outcome, 'closed_lost');
    assert.equal(lost.deal.stage, 'closed_lost');
    assert.ok(lost.closer);
    assert.deepEqual(lost.closer.record, { gigs: 1, wins: 0, grossClosedUsd: 0 });
    assert.deepEqual(lost.closer.payouts, []);
    assert.deepEqual((await getCloser(t, closer.id)).payouts, []);
  });
});

describe('gig moves: setter and nurturer gigs (D-14)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('a setter gig: sourced → qualified keeps it claimed; qualified → meeting fulfils it and pays the setter fee', async () => {
    const setter = (await t.post<CloserView>('/closers/closers', { name: 'Set Ter (fictional)', industries: [] })).body;
    const deal = await createDeal(t, { mandate: HUMAN_SETTER });
    const { gig } = await escalateDeal(t, deal.id);
    assert.equal(gig.role, 'setter');
    await claim(t, gig.id, setter.id);
    const qualified = await advanceGig(t, gig.id, { advanceTo: 'qualified' });
    assert.equal(qualified.deal.stage, 'qualified');
    assert.equal(qualified.gig.status, 'claimed');
    assert.equal(qualified.closer, undefined);
    assert.deepEqual((await getCloser(t, setter.id)).payouts, []);
    const meeting = await advanceGig(t, gig.id, { advanceTo: 'meeting' });
    assert.equal(meeting.deal.stage, 'meeting');
    assert.equal(meeting.gig.status, 'fulfilled');
    assert.equal(meeting.gig.outcome, 'meeting');
    assert.ok(meeting.closer);
    assert.deepEqual(meeting.closer.record, { gigs: 1, wins: 0, grossClosedUsd: 0 });
    assert.equal(meeting.closer.payouts.length, 1);
    const line = meeting.closer.payouts[0];
    assert.deepEqual(line, { at: line.at, gigId: gig.id, dealId: deal.id, kind: 'fee', amountUsd: 250 });
    // The deal continues on the human track: its next advance posts a closer gig.
    const next = await escalateDeal(t, deal.id);
    assert.equal(next.role, 'closer');
    assert.deepEqual(next.gig.pricing, { kind: 'commission', pct: 0.1 });
  });

  it('a setter gig may not propose closed_won (422) but may close lost, which pays nothing', async () => {
    const deal = await createDeal(t, { mandate: HUMAN_SETTER });
    const { gig } = await escalateDeal(t, deal.id);
    await claim(t, gig.id, MILO);
    const before = await getCloser(t, MILO);
    assertError(await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', valueUsd: 15_000 }), 422);
    const lost = await advanceGig(t, gig.id, { advanceTo: 'closed_lost' });
    assert.equal(lost.deal.stage, 'closed_lost');
    assert.equal(lost.gig.status, 'fulfilled');
    assert.deepEqual(lost.closer?.payouts, before.payouts);
  });

  it('signals gone_dark with a claimed closer gig: gig released, human track, next advance posts a nurturer gig', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    const dark = await reportSignals(t, deal.id, ['gone_dark']);
    assert.equal(dark.humanTrack, true);
    assert.equal((await getGig(t, gig.id)).status, 'released');
    const next = await escalateDeal(t, deal.id);
    assert.equal(next.role, 'nurturer');
    assert.equal(next.gig.role, 'nurturer');
    assert.notEqual(next.gig.id, gig.id);
  });

  it('nurturer revive: {gig, closer, deal}, gone_dark cleared, a fee payout of nurturerUsd', async () => {
    const { nurturerGig, dealId } = await openNurturerGig(t, { ...HUMAN_CLOSER, fees: { nurturerUsd: 99.99 } });
    await claim(t, nurturerGig.id, ADA);
    const answer = await t.post<GigOutcomeView>(`/closers/gigs/${nurturerGig.id}/revive`);
    assert.equal(answer.status, 200);
    assert.deepEqual(Object.keys(answer.body).sort(), ['closer', 'deal', 'gig']);
    assert.equal(answer.body.gig.status, 'fulfilled');
    assert.equal(answer.body.deal.id, dealId);
    assert.equal(answer.body.deal.signals.includes('gone_dark'), false);
    assert.equal(answer.body.closer?.id, ADA);
    const line = answer.body.closer?.payouts.at(-1);
    assert.deepEqual(line, { at: line?.at, gigId: nurturerGig.id, dealId, kind: 'fee', amountUsd: 99.99 });
    assert.equal((await getDeal(t, dealId)).signals.includes('gone_dark'), false);
  });

  it('revive of a gig that is not a nurturer gig: 409', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    const before = await getDeal(t, deal.id);
    assertError(await t.post(`/closers/gigs/${gig.id}/revive`), 409, 'GIG_NOT_NURTURER');
    assert.deepEqual(await getDeal(t, deal.id), before);
    assert.equal((await getGig(t, gig.id)).status, 'claimed');
  });

  it('revive of a nurturer gig that is not claimed: 409', async () => {
    const { nurturerGig } = await openNurturerGig(t);
    assertError(await t.post(`/closers/gigs/${nurturerGig.id}/revive`), 409, 'GIG_NOT_CLAIMED');
    assert.equal((await getGig(t, nurturerGig.id)).status, 'open');
  });

  it('a nurturer gig may not propose a stage move (422)', async () => {
    const { nurturerGig, dealId } = await openNurturerGig(t);
    await claim(t, nurturerGig.id, ADA);
    const before = await getDeal(t, dealId);
    for (const advanceTo of ['proposal', 'closed_won', 'negotiation']) {
      assertError(await t.post(`/closers/gigs/${nurturerGig.id}/advance`, { advanceTo, valueUsd: 15_000 }), 422);
    }
    assert.deepEqual(await getDeal(t, dealId), before);
    assert.equal((await getGig(t, nurturerGig.id)).status, 'claimed');
  });

  it('revive naming a closer who is not the claimant: 409; naming an unknown closer: 404', async () => {
    const { nurturerGig, dealId } = await openNurturerGig(t);
    await claim(t, nurturerGig.id, ADA);
    const before = await getDeal(t, dealId);
    assertError(await t.post(`/closers/gigs/${nurturerGig.id}/revive`, { closerId: MILO }), 409, 'NOT_CLAIMANT');
    assertError(
      await t.post(`/closers/gigs/${nurturerGig.id}/revive`, { closerId: 'closer_9999' }),
      404,
      'CLOSER_NOT_FOUND',
    );
    assert.deepEqual(await getDeal(t, dealId), before);
    assert.equal((await getGig(t, nurturerGig.id)).status, 'claimed');
  });

  it('nurturer advance closed_lost (confirmed dead) pays the nurturer fee', async () => {
    const nurturer = (await t.post<CloserView>('/closers/closers', { name: 'Nur Turer (fictional)', industries: [] }))
      .body;
    const { nurturerGig, dealId } = await openNurturerGig(t);
    await claim(t, nurturerGig.id, nurturer.id);
    const dead = await advanceGig(t, nurturerGig.id, { advanceTo: 'closed_lost', note: 'No answer in a month.' });
    assert.equal(dead.deal.stage, 'closed_lost');
    assert.equal(dead.gig.status, 'fulfilled');
    assert.equal(dead.gig.outcome, 'closed_lost');
    assert.ok(dead.closer);
    assert.deepEqual(dead.closer.record, { gigs: 1, wins: 0, grossClosedUsd: 0 });
    const line = dead.closer.payouts[0];
    assert.deepEqual(dead.closer.payouts, [
      { at: line.at, gigId: nurturerGig.id, dealId, kind: 'fee', amountUsd: 150 },
    ]);
  });
});

describe('gig moves: release and expire (D-15, D-16)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('release of an open gig → released', async () => {
    const { gig } = await openCloserGig(t);
    const answer = await t.post<GigView>(`/closers/gigs/${gig.id}/release`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'released');
    assert.equal((await getGig(t, gig.id)).status, 'released');
  });

  it('release of a claimed gig → released; the next advance posts a fresh gig with a new id', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    const answer = await t.post<GigView>(`/closers/gigs/${gig.id}/release`, { closerId: ADA });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'released');
    const next = await escalateDeal(t, deal.id);
    assert.notEqual(next.gig.id, gig.id);
    assert.equal(next.gig.status, 'open');
    assert.equal(Number(next.gig.id.slice(4)), Number(gig.id.slice(4)) + 1, 'the next gig number');
  });

  it('release of a claimed gig naming another closer: 409', async () => {
    const { gig } = await claimedCloserGig(t, ADA);
    assertError(await t.post(`/closers/gigs/${gig.id}/release`, { closerId: MILO }), 409, 'NOT_CLAIMANT');
    assert.equal((await getGig(t, gig.id)).status, 'claimed');
  });

  it('release naming an unknown closer: 404, the gig stays as it was', async () => {
    const { gig } = await claimedCloserGig(t, ADA);
    assertError(await t.post(`/closers/gigs/${gig.id}/release`, { closerId: 'closer_9999' }), 404, 'CLOSER_NOT_FOUND');
    const stored = await getGig(t, gig.id);
    assert.equal(stored.status, 'claimed');
    assert.equal(stored.closerId, ADA);
  });

  it('release of a released gig: 409; of a fulfilled gig: 409', async () => {
    const { gig } = await openCloserGig(t);
    await t.post(`/closers/gigs/${gig.id}/release`);
    assertError(await t.post(`/closers/gigs/${gig.id}/release`), 409, 'GIG_NOT_ACTIVE');
    assert.equal((await getGig(t, gig.id)).status, 'released');

    const lost = await claimedCloserGig(t, MILO);
    await advanceGig(t, lost.gig.id, { advanceTo: 'closed_lost' });
    assertError(await t.post(`/closers/gigs/${lost.gig.id}/release`), 409, 'GIG_NOT_ACTIVE');
    assert.equal((await getGig(t, lost.gig.id)).status, 'fulfilled');
  });

  it('expire of a claimed gig → open with closerId cleared', async () => {
    const { gig } = await claimedCloserGig(t, ADA);
    const answer = await t.post<GigView>(`/closers/gigs/${gig.id}/expire`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'open');
    assert.equal(answer.body.closerId, undefined);
    const stored = await getGig(t, gig.id);
    assert.equal(stored.status, 'open');
    assert.equal('closerId' in stored, false);
  });

  it('expire of an open gig: 409; of a released gig: 409', async () => {
    const { gig } = await openCloserGig(t);
    assertError(await t.post(`/closers/gigs/${gig.id}/expire`), 409, 'GIG_NOT_CLAIMED');
    assert.equal((await getGig(t, gig.id)).status, 'open');
    await t.post(`/closers/gigs/${gig.id}/release`);
    assertError(await t.post(`/closers/gigs/${gig.id}/expire`), 409, 'GIG_NOT_CLAIMED');
    assert.equal((await getGig(t, gig.id)).status, 'released');
  });
});

describe('settlement after a human close (D-23)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('commission, 5% platform fee, fees settled at fulfilment, and net = final − commission − fee − fees', async () => {
    const deal = await createDeal(t, {
      listValueUsd: 100_000,
      mandate: {
        staffing: { setter: 'human', closer: 'human' },
        commissionPct: 0.08,
        fees: { setterUsd: 300, nurturerUsd: 120.5 },
      },
    });
    // Setter gig: fulfilled at meeting, fee 300 to Ada.
    const setterGig = (await escalateDeal(t, deal.id)).gig;
    await claim(t, setterGig.id, ADA);
    await advanceGig(t, setterGig.id, { advanceTo: 'qualified' });
    await advanceGig(t, setterGig.id, { advanceTo: 'meeting' });
    // Closer gig: claimed by Milo, then the deal goes dark and it is released.
    const firstCloserGig = (await escalateDeal(t, deal.id)).gig;
    await claim(t, firstCloserGig.id, MILO);
    await advanceGig(t, firstCloserGig.id, { advanceTo: 'proposal' });
    await reportSignals(t, deal.id, ['gone_dark']);
    // Nurturer gig: Ada revives, fee 120.50.
    const nurturerGig = (await escalateDeal(t, deal.id)).gig;
    assert.equal(nurturerGig.role, 'nurturer');
    await claim(t, nurturerGig.id, ADA);
    const revived = await t.post<GigOutcomeView>(`/closers/gigs/${nurturerGig.id}/revive`);
    assert.equal(revived.status, 200);
    // A fresh closer gig: Milo closes won at 90,000.10.
    const closerGig = (await escalateDeal(t, deal.id)).gig;
    assert.equal(closerGig.role, 'closer');
    await claim(t, closerGig.id, MILO);
    await advanceGig(t, closerGig.id, { advanceTo: 'negotiation' });
    const won = await advanceGig(t, closerGig.id, { advanceTo: 'closed_won', valueUsd: 90_000.1 });
    assert.equal(won.deal.stage, 'closed_won');

    const answer = await t.get<SettlementView>(`${t.prefix}/deals/${deal.id}/settlement`);
    assert.equal(answer.status, 200);
    // 8% of 90,000.10 = 7,200.008 → 7,200.01; 5% = 4,500.005 → 4,500.01 (half-up to the cent).
    assert.deepEqual(answer.body, {
      dealId: deal.id,
      finalValueUsd: 90_000.1,
      closedBy: 'human',
      closerCommissionUsd: 7_200.01,
      platformFeeUsd: 4_500.01,
      feesSettledUsd: 420.5,
      netToSellerUsd: 77_879.58,
      fees: [
        { gigId: setterGig.id, role: 'setter', closerId: ADA, amountUsd: 300 },
        { gigId: nurturerGig.id, role: 'nurturer', closerId: ADA, amountUsd: 120.5 },
      ],
    });
    assert.equal(answer.body.closerCommissionUsd, pctOfUsd(90_000.1, 0.08));
    assert.equal(answer.body.platformFeeUsd, pctOfUsd(90_000.1, 0.05));
    // The ledgers agree: Ada two fees, Milo one commission; Milo's released gig counts nothing.
    const ada = await getCloser(t, ADA);
    assert.deepEqual(
      ada.payouts.map((p) => [p.gigId, p.kind, p.amountUsd]),
      [
        [setterGig.id, 'fee', 300],
        [nurturerGig.id, 'fee', 120.5],
      ],
    );
    assert.deepEqual(ada.record, { gigs: 2, wins: 0, grossClosedUsd: 0 });
    const milo = await getCloser(t, MILO);
    assert.deepEqual(
      milo.payouts.map((p) => [p.gigId, p.kind, p.amountUsd]),
      [[closerGig.id, 'commission', 7_200.01]],
    );
    assert.deepEqual(milo.record, { gigs: 1, wins: 1, grossClosedUsd: 90_000.1 });
  });

  it('with no fees: net = final − commission − platform fee', async () => {
    const { gig, deal } = await negotiatingCloserGig(t, ADA, { listValueUsd: 15_000 });
    await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd: 12_345.65 });
    const answer = await t.get<SettlementView>(`${t.prefix}/deals/${deal.id}/settlement`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.closerCommissionUsd, 1_234.57);
    assert.equal(answer.body.platformFeeUsd, 617.28);
    assert.equal(answer.body.feesSettledUsd, 0);
    assert.deepEqual(answer.body.fees, []);
    assert.equal(answer.body.netToSellerUsd, 10_493.8);
  });

  it('D-24: a 0% commission close writes no $0 ledger line; the gig and the win count in the Register', async () => {
    const closer = (await t.post<CloserView>('/closers/closers', { name: 'Zero Commission (fictional)' })).body;
    const { gig, deal } = await negotiatingCloserGig(t, closer.id, {
      listValueUsd: 15_000,
      mandate: { ...HUMAN_CLOSER, commissionPct: 0 },
    });
    assert.deepEqual(gig.pricing, { kind: 'commission', pct: 0 });
    const won = await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd: 15_000 });
    assert.equal(won.gig.status, 'fulfilled');
    assert.deepEqual(won.closer?.payouts, []);
    assert.deepEqual(won.closer?.record, { gigs: 1, wins: 1, grossClosedUsd: 15_000 });
    assert.deepEqual(await getCloser(t, closer.id), won.closer);
    const settlement = (await t.get<SettlementView>(`${t.prefix}/deals/${deal.id}/settlement`)).body;
    assert.equal(settlement.closerCommissionUsd, 0);
    assert.equal(settlement.netToSellerUsd, 15_000 - 750);
  });

  it('D-24: a $0 setter fee writes no ledger line; the gig counts', async () => {
    const setter = (await t.post<CloserView>('/closers/closers', { name: 'Zero Fee (fictional)' })).body;
    const deal = await createDeal(t, { mandate: { ...HUMAN_SETTER, fees: { setterUsd: 0 } } });
    const { gig } = await escalateDeal(t, deal.id);
    assert.deepEqual(gig.pricing, { kind: 'fee', amountUsd: 0 });
    await claim(t, gig.id, setter.id);
    await advanceGig(t, gig.id, { advanceTo: 'qualified' });
    const meeting = await advanceGig(t, gig.id, { advanceTo: 'meeting' });
    assert.equal(meeting.gig.outcome, 'meeting');
    assert.deepEqual(meeting.closer?.payouts, []);
    assert.deepEqual(meeting.closer?.record, { gigs: 1, wins: 0, grossClosedUsd: 0 });
  });

  it('settlement of a deal that is not closed_won: 409; of an unknown deal: 404', async () => {
    const { deal } = await claimedCloserGig(t, ADA);
    assertError(await t.get(`${t.prefix}/deals/${deal.id}/settlement`), 409, 'DEAL_NOT_CLOSED_WON');
    const fresh = await createDeal(t);
    assertError(await t.get(`${t.prefix}/deals/${fresh.id}/settlement`), 409, 'DEAL_NOT_CLOSED_WON');
    assertError(await t.get(`${t.prefix}/deals/deal_9999/settlement`), 404, 'DEAL_NOT_FOUND');
  });
});

describe('de-escalation (D-12)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  const deescalate = (id: string) => t.post<DealView>(`${t.prefix}/deals/${id}/deescalate`);

  it('409 when the deal is not on the human track', async () => {
    const deal = await createDeal(t);
    assertError(await deescalate(deal.id), 409, 'NOT_HUMAN_TRACK');
    assert.deepEqual(await getDeal(t, deal.id), deal);
  });

  it('409 when a gig is claimed', async () => {
    const { gig, deal } = await claimedCloserGig(t, ADA);
    const before = await getDeal(t, deal.id);
    assertError(await deescalate(deal.id), 409, 'GIG_CLAIMED');
    assert.deepEqual(await getDeal(t, deal.id), before);
    assert.equal((await getGig(t, gig.id)).status, 'claimed');
  });

  it('409 when the deal is stalled (gone_dark)', async () => {
    const { nurturerGig, dealId } = await openNurturerGig(t);
    const before = await getDeal(t, dealId);
    assertError(await deescalate(dealId), 409, 'DEAL_STALLED');
    assert.deepEqual(await getDeal(t, dealId), before);
    assert.equal((await getGig(t, nurturerGig.id)).status, 'open');
  });

  it('404 for an unknown deal; 409 for a terminal one', async () => {
    assertError(await deescalate('deal_9999'), 404, 'DEAL_NOT_FOUND');
    const { gig, deal } = await claimedCloserGig(t, ADA);
    await advanceGig(t, gig.id, { advanceTo: 'closed_lost' });
    assertError(await deescalate(deal.id), 409, 'DEAL_TERMINAL');
  });

  it('with an open gig: releases it and sets humanTrack false; the staffing rules apply again', async () => {
    const { gig, deal } = await openCloserGig(t);
    const answer = await deescalate(deal.id);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.humanTrack, false);
    assert.equal(answer.body.stage, 'meeting');
    assert.equal(answer.body.activity.at(-1)?.by, 'service');
    assert.equal((await getGig(t, gig.id)).status, 'released');
    assert.equal((await getDeal(t, deal.id)).humanTrack, false);
    // The closer role is still staffed 'human': the next advance escalates with a fresh gig.
    const again = await escalateDeal(t, deal.id);
    assert.notEqual(again.gig.id, gig.id);
    assert.equal(again.deal.humanTrack, true);
  });

  it('after a revive, a de-escalated agent-staffed deal is worked by the agent again', async () => {
    // Default staffing (agent); the deal goes dark at qualified, a nurturer revives it.
    const deal = await createDeal(t);
    await advanceDeal(t, deal.id);
    await reportSignals(t, deal.id, ['gone_dark']);
    const nurturerGig = (await escalateDeal(t, deal.id)).gig;
    await claim(t, nurturerGig.id, ADA);
    await t.post(`/closers/gigs/${nurturerGig.id}/revive`);
    // Still human-track (one-way): an advance posts a setter gig rather than moving.
    const stillHuman = await escalateDeal(t, deal.id);
    assert.equal(stillHuman.role, 'setter');
    const answer = await deescalate(deal.id);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.humanTrack, false);
    assert.equal((await getGig(t, stillHuman.gig.id)).status, 'released');
    const moved = await advanceDeal(t, deal.id);
    assert.equal(moved.stage, 'meeting');
    assert.equal(moved.activity.at(-1)?.by, 'agent');
  });
});
