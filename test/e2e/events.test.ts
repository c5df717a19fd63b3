// The event feed over HTTP (D-40, D-41): what each kind of change publishes, as the API's JSON
// (USD, ISO 8601), that a refused or replayed request publishes nothing, paging and filters by
// the cursor, a reset, and bad input. Runs on every store (TEST_STORE).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  advanceClock,
  advanceGig,
  assertError,
  claim,
  createDeal,
  DAY,
  dealBody,
  fixedClock,
  HUMAN_CLOSER,
  negotiatingCloserGig,
  openCloserGig,
  reportSignals,
  T0,
} from '../support/marketplace-e2e.ts';

interface EventView {
  id: string;
  seq: number;
  type: string;
  at: string;
  data: Record<string, any>;
}
interface FeedPage {
  events: EventView[];
  nextAfter: number;
  lastSeq: number;
}

describe('the event feed (GET /events)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock: fixedClock });
  });
  after(() => t.close());
  beforeEach(async () => {
    assert.equal((await t.post('/demo/reset')).status, 200);
  });

  async function feed(query = ''): Promise<FeedPage> {
    const answer = await t.get<FeedPage>(`/events${query}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  }
  /** Every event after a seq, following nextAfter a page at a time. */
  async function everyEventAfter(afterSeq: number, limit = 1000): Promise<EventView[]> {
    const seen: EventView[] = [];
    let cursor = afterSeq;
    for (;;) {
      const page = await feed(`?after=${cursor}&limit=${limit}`);
      seen.push(...page.events);
      if (page.events.length === 0) return seen;
      cursor = page.nextAfter;
    }
  }
  const lastSeq = async () => {
    const events = await everyEventAfter(0);
    return events.length === 0 ? 0 : events[events.length - 1].seq;
  };
  const types = (events: EventView[]) => events.map((e) => e.type);

  it('a reset publishes demo.reset first, then the seeded closers; seq goes on increasing', async () => {
    const firstRound = await everyEventAfter(0);
    assert.deepEqual(types(firstRound), ['demo.reset', 'closer.enrolled', 'closer.enrolled']);
    const [reset, ada] = firstRound;
    assert.equal(reset.id, `evt_${reset.seq}`);
    assert.deepEqual(reset.data, {});
    assert.equal(reset.at, new Date(T0).toISOString());
    assert.equal(ada.data.closer.id, ADA);
    assert.deepEqual(ada.data.closer.record, { gigs: 0, wins: 0, grossClosedUsd: 0 });
    await createDeal(t);
    assert.equal((await t.post('/demo/reset')).status, 200);
    const secondRound = await everyEventAfter(0);
    assert.deepEqual(types(secondRound), ['demo.reset', 'closer.enrolled', 'closer.enrolled'], 'the old feed is wiped');
    assert.ok(secondRound[0].seq > firstRound[2].seq + 1, 'seq is never reused');
    // A cursor from before the reset still works: it reads from the reset on.
    assert.deepEqual(
      (await everyEventAfter(firstRound[2].seq)).map((e) => e.seq),
      secondRound.map((e) => e.seq),
    );
  });

  it('the marketplace path publishes every change in order, with USD and who acted', async () => {
    const start = await lastSeq();
    const escalation = await openCloserGig(t, { listValueUsd: 100_000 });
    const dealId = escalation.deal.id;
    const gigId = escalation.gig.id;
    await claim(t, gigId, ADA);
    await advanceGig(t, gigId, { advanceTo: 'proposal' });
    await advanceGig(t, gigId, { advanceTo: 'negotiation' });
    await advanceGig(t, gigId, { advanceTo: 'closed_won', valueUsd: 90_000.5 });
    const events = await everyEventAfter(start);
    assert.deepEqual(types(events), [
      'deal.created',
      'deal.stage_changed',
      'deal.stage_changed',
      'deal.escalated',
      'gig.posted',
      'gig.claimed',
      'deal.stage_changed',
      'deal.stage_changed',
      'deal.stage_changed',
      'deal.closed',
      'gig.fulfilled',
      'payout.posted',
    ]);
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => start + 1 + i),
    );
    const byType = (type: string) => events.filter((e) => e.type === type);
    assert.equal(byType('deal.created')[0].data.deal.id, dealId);
    assert.equal(byType('deal.created')[0].data.deal.listValueUsd, 100_000);
    assert.deepEqual(
      byType('deal.stage_changed').map((e) => [e.data.from, e.data.to, e.data.by]),
      [
        ['sourced', 'qualified', 'agent'],
        ['qualified', 'meeting', 'agent'],
        ['meeting', 'proposal', 'human'],
        ['proposal', 'negotiation', 'human'],
        ['negotiation', 'closed_won', 'human'],
      ],
    );
    assert.deepEqual(byType('deal.escalated')[0].data, { dealId, role: 'closer', gigId });
    assert.equal(byType('gig.posted')[0].data.gig.id, gigId);
    assert.equal(byType('gig.posted')[0].data.gig.brief.floorUsd, 80_000);
    assert.deepEqual(byType('gig.claimed')[0].data, { gigId, dealId, closerId: ADA });
    assert.deepEqual(byType('deal.closed')[0].data, {
      dealId,
      outcome: 'closed_won',
      finalValueUsd: 90_000.5,
      closedBy: 'human',
    });
    assert.deepEqual(byType('gig.fulfilled')[0].data, { gigId, dealId, closerId: ADA, outcome: 'closed_won' });
    assert.deepEqual(byType('payout.posted')[0].data, {
      closerId: ADA,
      gigId,
      dealId,
      kind: 'commission',
      amountUsd: 9_000.05,
    });
    for (const event of events) assert.equal(event.at, new Date(T0).toISOString());
  });

  it('signals, de-escalation, a lost close and a re-engagement each publish what they did', async () => {
    const escalation = await openCloserGig(t);
    const dealId = escalation.deal.id;
    const lost = await createDeal(t);
    const start = await lastSeq();
    await reportSignals(t, dealId, ['budget_confirmed']);
    assert.equal((await t.post(`${t.prefix}/deals/${dealId}/deescalate`)).status, 200);
    const closing = await t.post(`${t.prefix}/deals/${lost.id}/advance`, {
      advanceTo: 'closed_lost',
      note: 'no budget',
    });
    assert.equal(closing.body.stage, 'closed_lost');
    const revived = await t.post(`${t.prefix}/deals/${lost.id}/reengage`);
    assert.equal(revived.status, 201);
    const events = await everyEventAfter(start);
    const summary = events.map((e) => [e.type, e.data.dealId ?? e.data.deal?.id ?? e.data.gigId]);
    // De-escalating withdraws the open gig of the human track (gig.released), then says so.
    assert.deepEqual(summary.slice(0, 3), [
      ['deal.signals_reported', dealId],
      ['gig.released', dealId],
      ['deal.deescalated', dealId],
    ]);
    assert.deepEqual(events[0].data, { dealId, signals: ['budget_confirmed'], by: 'seller' });
    const closed = events.find((e) => e.type === 'deal.closed');
    assert.deepEqual(closed?.data, { dealId: lost.id, outcome: 'closed_lost', closedBy: 'agent' });
    const created = events.find((e) => e.type === 'deal.created');
    assert.equal(created?.data.deal.id, revived.body.id);
    const reengaged = events.find((e) => e.type === 'deal.reengaged');
    assert.deepEqual(reengaged?.data, { dealId: revived.body.id, revivedFrom: lost.id });
  });

  it('the platform timers publish too: a stall is reported by the platform', async () => {
    const deal = await createDeal(t, { mandate: { stallTimeoutDays: 3 } });
    const start = await lastSeq();
    await advanceClock(t, 73);
    const events = await everyEventAfter(start);
    assert.deepEqual(types(events), ['deal.signals_reported', 'deal.stalled']);
    assert.deepEqual(events[0].data, { dealId: deal.id, signals: ['gone_dark'], by: 'platform' });
    assert.equal(events[0].at, new Date(T0 + 73 * (DAY / 24)).toISOString());
  });

  it('a refused request publishes nothing but a refused proposal its one proposal.refused (D-61), and a replay nothing', async () => {
    const { gig } = await negotiatingCloserGig(t, ADA, { listValueUsd: 100_000 });
    const start = await lastSeq();
    // Below the floor (80%): the gate refuses, and keeps the proposal on the record.
    const low = await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', valueUsd: 10 });
    assertError(low, 422);
    const refused = await everyEventAfter(start);
    assert.deepEqual(types(refused), ['proposal.refused']);
    assert.deepEqual(refused[0].data, {
      id: refused[0].data.id,
      dealId: gig.dealId,
      gigId: gig.id,
      by: 'human',
      proposal: { advanceTo: 'closed_won', valueUsd: 10 },
      stage: 'negotiation',
      code: 'GATE_BELOW_FLOOR',
      reason: low.body.gate.error,
      at: refused[0].at,
    });
    const afterRefusal = refused[0].seq;
    assertError(await t.post(`${t.prefix}/deals/deal_9999/advance`), 404);
    assertError(await t.post(`${t.prefix}/deals`, { account: 'nope' }), 400);
    assert.deepEqual(await everyEventAfter(afterRefusal), []);
    const key = { 'idempotency-key': 'events-replay-1' };
    assert.equal((await t.post(`${t.prefix}/deals`, dealBody(), key)).status, 201);
    const once = await everyEventAfter(afterRefusal);
    assert.deepEqual(types(once), ['deal.created']);
    assert.equal((await t.post(`${t.prefix}/deals`, dealBody(), key)).status, 201);
    assert.deepEqual(await everyEventAfter(afterRefusal), once, 'the replay published nothing');
    // A refused proposal under a key: recorded once, its replay publishes nothing more.
    const lowKey = { 'idempotency-key': 'events-replay-2' };
    const body = { advanceTo: 'closed_won', valueUsd: 11 };
    assertError(await t.post(`/closers/gigs/${gig.id}/advance`, body, lowKey), 422);
    const keyed = await everyEventAfter(afterRefusal);
    assert.deepEqual(types(keyed), ['deal.created', 'proposal.refused']);
    const replay = await t.post(`/closers/gigs/${gig.id}/advance`, body, lowKey);
    assertError(replay, 422);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await everyEventAfter(afterRefusal), keyed, 'the refused replay published nothing');
  });

  it('pages by limit and nextAfter, and filters by type and by deal', async () => {
    const start = await lastSeq();
    const first = await createDeal(t, { mandate: HUMAN_CLOSER });
    const second = await createDeal(t);
    await t.post(`${t.prefix}/deals/${first.id}/advance`);
    await t.post(`${t.prefix}/deals/${second.id}/advance`);
    const page1 = await feed(`?after=${start}&limit=2`);
    assert.deepEqual(
      page1.events.map((e) => e.seq),
      [start + 1, start + 2],
    );
    assert.equal(page1.nextAfter, start + 2);
    const page2 = await feed(`?after=${page1.nextAfter}&limit=2`);
    assert.deepEqual(
      page2.events.map((e) => e.seq),
      [start + 3, start + 4],
    );
    const empty = await feed(`?after=${page2.nextAfter}`);
    assert.deepEqual(
      empty,
      { events: [], nextAfter: page2.nextAfter, lastSeq: page2.nextAfter },
      'past the end: the same cursor again, and the newest seq is the last one read',
    );
    assert.equal(page1.lastSeq, page2.nextAfter, 'every page names the newest seq, however far it reads');
    const ofFirst = await feed(`?after=${start}&dealId=${first.id}`);
    assert.deepEqual(types(ofFirst.events), ['deal.created', 'deal.stage_changed']);
    assert.ok(ofFirst.events.every((e) => (e.data.dealId ?? e.data.deal.id) === first.id));
    const moves = await feed(`?after=${start}&type=deal.stage_changed`);
    assert.deepEqual(
      moves.events.map((e) => e.data.dealId),
      [first.id, second.id],
    );
    const both = await feed(`?after=${start}&type=deal.created&dealId=${second.id}`);
    assert.deepEqual(
      both.events.map((e) => e.data.deal.id),
      [second.id],
    );
    for (const nobody of ['deal_9999', 'not-a-deal', 'x'.repeat(300)]) {
      const none = await feed(`?dealId=${encodeURIComponent(nobody)}`);
      // D-76: a page that is not full moves on to the newest seq read before it, seen or not.
      assert.deepEqual({ ...none, lastSeq: undefined }, { events: [], nextAfter: none.lastSeq, lastSeq: undefined });
      assert.ok(none.lastSeq >= page2.nextAfter);
    }
  });

  it('bad input is the catalogue’s 400 and changes nothing', async () => {
    const before = await everyEventAfter(0);
    for (const query of [
      '?after=-1',
      '?after=1.5',
      '?after=abc',
      '?after=1e3x',
      '?after=99999999999999999999',
      '?limit=0',
      '?limit=1001',
      '?type=deal.nope',
      '?type=',
      '?since=3',
    ]) {
      const answer = await t.get(`/events${query}`);
      assertError(answer, 400);
    }
    assert.deepEqual(await everyEventAfter(0), before);
  });
});

describe('the feed’s retention (EVENT_RETENTION_HOURS)', () => {
  it('the timers forget events older than the retention in real time, not on the demo clock', async () => {
    let machineNow = T0;
    const t = await startTestServer({ clock: { now: () => machineNow }, config: { eventRetentionHours: 2 } });
    try {
      const page = async () => (await t.get<FeedPage>('/events?limit=1000')).body;
      const seeded = await page();
      assert.deepEqual(
        seeded.events.map((e) => e.type),
        ['closer.enrolled', 'closer.enrolled'],
      );
      // The demo clock moves 90 days: nothing is old in real time, nothing is forgotten.
      await advanceClock(t, 2160);
      assert.equal((await page()).events.length, 2);
      machineNow += 60 * 60 * 1000;
      await createDeal(t);
      machineNow += 61 * 60 * 1000; // the seeded events are now 2 h 1 min old, the deal's 1 h 1 min
      await advanceClock(t, 0); // runs the timers
      const kept = await page();
      assert.deepEqual(
        kept.events.map((e) => e.type),
        ['deal.created'],
      );
      assert.equal(kept.events[0].seq, seeded.events[1].seq + 1, 'seq is untouched');
    } finally {
      await t.close();
    }
  });
});
