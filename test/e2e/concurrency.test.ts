// End to end over real HTTP: racing requests (Promise.all) against one server. Each request is
// one unit of work; whatever the interleaving, the outcome is one of the serial outcomes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Answer, TestServer } from '../support/http.ts';
import { startTestServer } from '../support/http.ts';
import {
  ADA,
  advanceGig,
  type CloserView,
  claim,
  createDeal,
  type DealView,
  dealBody,
  type ErrorView,
  type EscalationView,
  enrol,
  type GigOutcomeView,
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
} from '../support/marketplace-e2e.ts';

const N = 20;

const statuses = (answers: Answer[]) => answers.map((a) => a.status);
const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

describe('concurrency: racing claims of one open gig', () => {
  let t: TestServer;
  const closerIds: string[] = [];
  before(async () => {
    t = await startTestServer();
    closerIds.push(ADA, MILO);
    for (let i = closerIds.length; i < N; i++) closerIds.push((await enrol(t, `Racer ${i} (fictional)`, ['saas'])).id);
  });
  after(async () => {
    await t.close();
  });

  it(`${N} closers claim at once: exactly one 200 and ${N - 1} 409; the winner holds the gig`, async () => {
    const { gig, deal } = await openCloserGig(t);
    const before = await getDeal(t, deal.id);
    const answers = await Promise.all(
      closerIds.map((closerId) => t.post<GigOutcomeView | ErrorView>(`/closers/gigs/${gig.id}/claim`, { closerId })),
    );
    assert.equal(count(answers, 200), 1, `statuses: ${statuses(answers)}`);
    assert.equal(count(answers, 409), N - 1, `statuses: ${statuses(answers)}`);
    for (const a of answers) {
      if (a.status === 409) assert.equal((a.body as ErrorView).code, 'GIG_NOT_OPEN');
    }
    const winnerIndex = answers.findIndex((a) => a.status === 200);
    const winner = closerIds[winnerIndex];
    const won = answers[winnerIndex].body as GigOutcomeView;
    assert.equal(won.gig.closerId, winner);

    const stored = await getGig(t, gig.id);
    assert.equal(stored.status, 'claimed');
    assert.equal(stored.closerId, winner);
    // Exactly one claim entry in the deal's activity.
    const after = await getDeal(t, deal.id);
    const added = after.activity.slice(before.activity.length);
    assert.equal(added.length, 1);
    assert.equal(added[0].closerId, winner);
    assert.equal(after.activity.filter((e) => /claimed/.test(e.note)).length, 1);
  });
});

describe('concurrency: racing creates', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it(`${N} creates at once: ${N} distinct ids deal_0001..deal_${String(N).padStart(4, '0')}, no gaps`, async () => {
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        t.post<DealView>(
          `${t.prefix}/deals`,
          dealBody({ account: { name: `Racing Co ${i}` }, listValueUsd: 1_000 + i }),
        ),
      ),
    );
    assert.deepEqual(statuses(answers), Array(N).fill(201));
    const ids = answers.map((a) => a.body.id).sort();
    assert.deepEqual(
      ids,
      Array.from({ length: N }, (_, i) => `deal_${String(i + 1).padStart(4, '0')}`),
    );
    // Each id holds the deal its request created.
    for (const [i, a] of answers.entries()) {
      const stored = await getDeal(t, a.body.id);
      assert.equal(stored.account.name, `Racing Co ${i}`);
      assert.equal(stored.listValueUsd, 1_000 + i);
    }
    const health = await t.get<{ ok: boolean; deals: number; closers: number }>('/health');
    assert.equal(health.body.deals, N);
  });

  it(`${N} enrols at once: distinct closer ids after the seeds, no gaps`, async () => {
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        t.post<CloserView>('/closers/closers', { name: `Enrol ${i}`, industries: [] }),
      ),
    );
    assert.deepEqual(statuses(answers), Array(N).fill(201));
    assert.deepEqual(
      answers.map((a) => a.body.id).sort(),
      Array.from({ length: N }, (_, i) => `closer_${String(i + 3).padStart(4, '0')}`),
    );
    const listed = await t.get<CloserView[]>('/closers/closers');
    assert.equal(listed.body.length, N + 2);
  });
});

describe('concurrency: racing advances of one agent-staffed deal', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it(`${N} advances at once: 5 succeed (one per stage to closed_won), the rest 409; one entry per success`, async () => {
    const deal = await createDeal(t, { listValueUsd: 15_000 });
    const answers = await Promise.all(
      Array.from({ length: N }, () => t.post<DealView | ErrorView>(`${t.prefix}/deals/${deal.id}/advance`)),
    );
    const successes = answers.filter((a) => a.status === 200).map((a) => a.body as DealView);
    assert.equal(successes.length, 5, `statuses: ${statuses(answers)}`);
    assert.equal(count(answers, 409), N - 5, `statuses: ${statuses(answers)}`);
    for (const a of answers) {
      if (a.status === 409) assert.equal((a.body as ErrorView).code, 'DEAL_TERMINAL');
    }
    // Each success moved the deal one step: every stage reached exactly once, closed_won once.
    assert.deepEqual(successes.map((d) => d.stage).sort(), [
      'closed_won',
      'meeting',
      'negotiation',
      'proposal',
      'qualified',
    ]);
    const stored = await getDeal(t, deal.id);
    assert.equal(stored.stage, 'closed_won');
    assert.equal(stored.finalValueUsd, 15_000);
    assert.equal(stored.closedBy, 'agent');
    const agentEntries = stored.activity.filter((e) => e.by === 'agent');
    assert.equal(agentEntries.length, successes.length);
    assert.deepEqual(
      agentEntries.map((e) => e.stage),
      ['qualified', 'meeting', 'proposal', 'negotiation', 'closed_won'],
    );
    assert.equal(stored.activity.length, 1 + successes.length);
    assert.equal(stored.activity.filter((e) => e.stage === 'closed_won').length, 1);
  });

  it('3 advances at once: 3 successes and the deal at the third stage after sourced (proposal)', async () => {
    const deal = await createDeal(t);
    const answers = await Promise.all(
      Array.from({ length: 3 }, () => t.post<DealView>(`${t.prefix}/deals/${deal.id}/advance`)),
    );
    assert.deepEqual(statuses(answers), [200, 200, 200]);
    const stored = await getDeal(t, deal.id);
    assert.equal(stored.stage, 'proposal');
    assert.equal(stored.activity.length, 4);
    assert.deepEqual(answers.map((a) => a.body.stage).sort(), ['meeting', 'proposal', 'qualified']);
  });

  it(`${N} advances of a deal whose closer role is human: one gig posted, every answer names it`, async () => {
    const deal = await createDeal(t, { mandate: HUMAN_CLOSER });
    const answers = await Promise.all(
      Array.from({ length: N }, () => t.post<DealView | EscalationView>(`${t.prefix}/deals/${deal.id}/advance`)),
    );
    assert.deepEqual(statuses(answers), Array(N).fill(200));
    const moved = answers.filter((a) => !('escalated' in a.body)).length;
    assert.equal(moved, 2, 'the agent moved the deal sourced → qualified → meeting, once each');
    const escalations = answers.filter((a) => 'escalated' in a.body).map((a) => a.body as EscalationView);
    assert.equal(escalations.length, N - 2);
    const gigIds = new Set(escalations.map((e) => e.gig.id));
    assert.equal(gigIds.size, 1, 'one gig for every escalation answer');
    const gigsOfDeal = (await listGigs(t)).filter((g) => g.dealId === deal.id);
    assert.equal(gigsOfDeal.length, 1);
    const stored = await getDeal(t, deal.id);
    assert.equal(stored.stage, 'meeting');
    assert.equal(stored.activity.filter((e) => /posted to the closer marketplace/.test(e.note)).length, 1);
  });
});

describe('concurrency: racing gig advances to closed_won', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it(`${N} closes at once: one 200, the rest 409, exactly one payout line in the ledger`, async () => {
    const closer = await enrol(t, 'Racing Closer (fictional)', ['saas']);
    const { gig, deal } = await negotiatingCloserGig(t, closer.id, { listValueUsd: 15_000 });
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        t.post<GigOutcomeView | ErrorView>(`/closers/gigs/${gig.id}/advance`, {
          advanceTo: 'closed_won',
          valueUsd: 14_000 + i,
        }),
      ),
    );
    assert.equal(count(answers, 200), 1, `statuses: ${statuses(answers)}`);
    assert.equal(count(answers, 409), N - 1, `statuses: ${statuses(answers)}`);
    const winner = answers.find((a) => a.status === 200)?.body as GigOutcomeView;
    const value = winner.deal.finalValueUsd;
    assert.equal(typeof value, 'number');

    const ledger = await getCloser(t, closer.id);
    assert.equal(ledger.payouts.length, 1);
    assert.equal(ledger.payouts[0].gigId, gig.id);
    assert.equal(ledger.payouts[0].kind, 'commission');
    assert.equal(ledger.payouts[0].amountUsd, pctOfUsd(value ?? 0, 0.1));
    assert.deepEqual(ledger.record, { gigs: 1, wins: 1, grossClosedUsd: value });
    const stored = await getDeal(t, deal.id);
    assert.equal(stored.stage, 'closed_won');
    assert.equal(stored.finalValueUsd, value);
    assert.equal(stored.activity.filter((e) => e.stage === 'closed_won').length, 1);
    const settlement = await t.get<{ closerCommissionUsd: number }>(`${t.prefix}/deals/${deal.id}/settlement`);
    assert.equal(settlement.status, 200);
    assert.equal(settlement.body.closerCommissionUsd, ledger.payouts[0].amountUsd);
  });

  it('a close won racing a close lost: exactly one wins, and the ledger agrees with it', async () => {
    const closer = await enrol(t, 'Torn Closer (fictional)', ['saas']);
    const { gig, deal } = await negotiatingCloserGig(t, closer.id, { listValueUsd: 15_000 });
    const answers = await Promise.all([
      t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', valueUsd: 15_000 }),
      t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_lost' }),
    ]);
    assert.deepEqual(statuses(answers).sort(), [200, 409]);
    const stored = await getDeal(t, deal.id);
    const ledger = await getCloser(t, closer.id);
    if (stored.stage === 'closed_won') {
      assert.equal(ledger.payouts.length, 1);
      assert.deepEqual(ledger.record, { gigs: 1, wins: 1, grossClosedUsd: 15_000 });
    } else {
      assert.equal(stored.stage, 'closed_lost');
      assert.equal(ledger.payouts.length, 0);
      assert.deepEqual(ledger.record, { gigs: 1, wins: 0, grossClosedUsd: 0 });
    }
  });

  it(`${N} revives of one nurturer gig at once: one fee line`, async () => {
    const { gig: closerGig, deal } = await (async () => {
      const escalation = await openCloserGig(t);
      return claim(t, escalation.gig.id, MILO);
    })();
    await reportSignals(t, deal.id, ['gone_dark']);
    assert.equal((await getGig(t, closerGig.id)).status, 'released');
    const nurturer = await enrol(t, 'Racing Nurturer (fictional)', []);
    const escalation = await t.post<EscalationView>(`${t.prefix}/deals/${deal.id}/advance`);
    const nurturerGig = escalation.body.gig;
    await claim(t, nurturerGig.id, nurturer.id);
    const answers = await Promise.all(
      Array.from({ length: N }, () => t.post(`/closers/gigs/${nurturerGig.id}/revive`)),
    );
    assert.equal(count(answers, 200), 1, `statuses: ${statuses(answers)}`);
    assert.equal(count(answers, 409), N - 1);
    const ledger = await getCloser(t, nurturer.id);
    assert.equal(ledger.payouts.length, 1);
    assert.equal(ledger.payouts[0].kind, 'fee');
    assert.equal(ledger.payouts[0].amountUsd, 150);
    assert.deepEqual(ledger.record, { gigs: 1, wins: 0, grossClosedUsd: 0 });
    assert.deepEqual((await getDeal(t, deal.id)).signals, []);
  });

  it('a claim racing a release of the same open gig ends in one consistent state', async () => {
    const { gig } = await openCloserGig(t);
    const [claimed, released] = await Promise.all([
      t.post(`/closers/gigs/${gig.id}/claim`, { closerId: ADA }),
      t.post(`/closers/gigs/${gig.id}/release`),
    ]);
    const stored = await getGig(t, gig.id);
    // Released is final: whichever ran first, the release succeeds and the gig ends released,
    // or the release ran first and the claim is refused.
    assert.equal(released.status, 200);
    assert.equal(stored.status, 'released');
    assert.ok(claimed.status === 200 || claimed.status === 409, `claim answered ${claimed.status}`);
  });

  it('advances of the same gig by its claimant, in parallel with claims by others, stay consistent', async () => {
    const { gig, deal } = await openCloserGig(t);
    await claim(t, gig.id, ADA);
    const answers = await Promise.all([
      t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'proposal', closerId: ADA }),
      t.post(`/closers/gigs/${gig.id}/claim`, { closerId: MILO }),
      t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'proposal', closerId: MILO }),
      t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'proposal', closerId: ADA }),
    ]);
    const [first, otherClaim, otherAdvance, second] = answers;
    assert.equal(otherClaim.status, 409);
    assert.equal(otherAdvance.status, 409);
    // The two identical proposals: one moves meeting → proposal, the other is refused by the gate.
    assert.deepEqual([first.status, second.status].sort(), [200, 422]);
    const stored = await getDeal(t, deal.id);
    assert.equal(stored.stage, 'proposal');
    assert.equal(stored.activity.filter((e) => e.by === 'human').length, 1);
    assert.equal((await getGig(t, gig.id)).closerId, ADA);
    await advanceGig(t, gig.id, { advanceTo: 'negotiation' });
  });
});
