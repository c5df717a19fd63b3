// End to end over real HTTP: the platform timers (D-16, D-17), driven through POST /demo/clock
// (D-19). The servers run on a fixed clock so that exact times can be asserted; the interval
// timer is off in tests, so only the demo clock fires timers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  advanceClock,
  advanceDeal,
  advanceGig,
  assertError,
  claim,
  claimedCloserGig,
  createDeal,
  type DealView,
  dealBody,
  escalateDeal,
  fixedClock,
  getCloser,
  getDeal,
  getGig,
  HOUR,
  HUMAN_CLOSER,
  listGigs,
  MILO,
  negotiatingCloserGig,
  openCloserGig,
  reportSignals,
  T0,
} from '../support/marketplace-e2e.ts';

const iso = (ms: number) => new Date(ms).toISOString();

describe('timers: the demo clock', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock: fixedClock });
  });
  after(async () => {
    await t.close();
  });

  it('answers {now}, moved forward by the given hours', async () => {
    const first = await t.post<{ now: string }>('/demo/clock', { advanceHours: 5 });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { now: iso(T0 + 5 * HOUR) });
    assert.deepEqual((await t.post('/demo/clock', { advanceHours: 0 })).body, { now: iso(T0 + 5 * HOUR) });
    assert.deepEqual((await t.post('/demo/clock', { advanceHours: 0.5 })).body, { now: iso(T0 + 5.5 * HOUR) });
    assert.deepEqual((await t.post('/demo/clock', { advanceHours: 2160 })).body, { now: iso(T0 + 2165.5 * HOUR) });
  });

  it('D-19: the clock counts whole ms; a fractional advanceHours is rounded half-up to the ms, on every store', async () => {
    const start = await advanceClock(t, 0);
    // [hours, ms the clock moves]: 1.1 h is 3,960,000 ms (not 3,960,000.0000000005);
    // 1e-9 h is 0.0036 ms: nothing moves; 0.00000875 h is exactly 31.5 ms: half-up is 32.
    const cases: [number, number][] = [
      [1.1, 3_960_000],
      [1e-9, 0],
      [0.0000001, 0], // 0.36 ms
      [0.00000015, 1], // 0.54 ms
      [0.00000875, 32], // 31.5 ms
      [0.00013125, 473], // 472.5 ms
      [0.0000125, 45],
      [0.1234567891, 444_444],
      [2159.9999999999, 7_776_000_000], // 7,775,999,999.99964 ms
    ];
    let now = start;
    for (const [hours, ms] of cases) {
      const answer = await t.post<{ now: string }>('/demo/clock', { advanceHours: hours });
      assert.equal(answer.status, 200, `${hours} h: ${JSON.stringify(answer.body)}`);
      now += ms;
      assert.equal(answer.body.now, iso(now), `${hours} h moves the clock ${ms} ms`);
    }
    assert.equal(await advanceClock(t, 0), now, 'the moves add up to whole ms');
    const deal = await createDeal(t);
    assert.equal(deal.activity[0].at, iso(now), 'records carry the rounded clock');
  });

  it('new records carry the moved clock', async () => {
    const now = await advanceClock(t, 1);
    const deal = await createDeal(t);
    assert.equal(deal.activity[0].at, iso(now));
  });

  it('answers 400 for advanceHours out of 0..2160 or not a number, and does not move the clock', async () => {
    const before = await advanceClock(t, 0);
    for (const body of [
      { advanceHours: -1 },
      { advanceHours: -0.001 },
      { advanceHours: 2160.001 },
      { advanceHours: 100_000 },
      { advanceHours: '5' },
      { advanceHours: null },
      { advanceHours: true },
      { advanceHours: [1] },
      {},
      { advanceHours: 1, extra: 1 },
    ]) {
      const answer = await t.post('/demo/clock', body);
      const error = assertError(answer, 400);
      assert.ok(error.violations && error.violations.length > 0, JSON.stringify(body));
    }
    assertError(
      await t.raw('POST', '/demo/clock', '{"advanceHours": NaN}', { 'content-type': 'application/json' }),
      400,
    );
    assertError(await t.post('/demo/clock'), 400);
    assert.equal(await advanceClock(t, 0), before, 'refused requests left the clock alone');
  });
});

describe('timers: claim expiry after CLAIM_TTL_HOURS (D-16)', () => {
  it('default 72 hours: still claimed at 71h, open again at 72h with the closer cleared', async () => {
    const t = await startTestServer({ clock: fixedClock });
    try {
      assert.equal(t.server.config.claimTtlHours, 72);
      const { gig, deal } = await claimedCloserGig(t, ADA);
      await advanceClock(t, 71);
      const at71 = await getGig(t, gig.id);
      assert.equal(at71.status, 'claimed');
      assert.equal(at71.closerId, ADA);
      const now = await advanceClock(t, 1);
      assert.equal(now, T0 + 72 * HOUR);
      const at72 = await getGig(t, gig.id);
      assert.equal(at72.id, gig.id, 'the same gig reopens');
      assert.equal(at72.status, 'open');
      assert.equal(at72.closerId, undefined);
      assert.equal(at72.claimedAt, undefined);
      // Logged by the service on the deal, which does not move.
      const stored = await getDeal(t, deal.id);
      assert.equal(stored.stage, 'meeting');
      const last = stored.activity.at(-1);
      assert.equal(last?.by, 'service');
      assert.equal(last?.at, iso(T0 + 72 * HOUR));
      assert.equal(last?.gigId, gig.id);
      // Back in the pool.
      const reclaimed = await claim(t, gig.id, MILO);
      assert.equal(reclaimed.gig.closerId, MILO);
    } finally {
      await t.close();
    }
  });

  it('a custom CLAIM_TTL_HOURS (config claimTtlHours: 1)', async () => {
    const t = await startTestServer({ clock: fixedClock, config: { claimTtlHours: 1 } });
    try {
      const { gig } = await claimedCloserGig(t, ADA);
      await advanceClock(t, 0.5);
      assert.equal((await getGig(t, gig.id)).status, 'claimed');
      await advanceClock(t, 0.5);
      const reopened = await getGig(t, gig.id);
      assert.equal(reopened.status, 'open');
      assert.equal(reopened.closerId, undefined);
    } finally {
      await t.close();
    }
  });

  it('the TTL runs from the last move: a gig advance keeps the claim alive', async () => {
    const t = await startTestServer({ clock: fixedClock });
    try {
      const { gig } = await claimedCloserGig(t, ADA);
      await advanceClock(t, 48);
      await advanceGig(t, gig.id, { advanceTo: 'proposal' });
      await advanceClock(t, 48); // 96h after the claim, 48h after the move
      assert.equal((await getGig(t, gig.id)).status, 'claimed');
      await advanceClock(t, 24); // 72h after the move
      assert.equal((await getGig(t, gig.id)).status, 'open');
    } finally {
      await t.close();
    }
  });

  it('a claim that expired cannot be moved by its former claimant (409)', async () => {
    const t = await startTestServer({ clock: fixedClock, config: { claimTtlHours: 2 } });
    try {
      const { gig, deal } = await claimedCloserGig(t, ADA);
      await advanceClock(t, 2);
      const before = await getDeal(t, deal.id);
      assertError(
        await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'proposal', closerId: ADA }),
        409,
        'GIG_NOT_CLAIMED',
      );
      assert.deepEqual(await getDeal(t, deal.id), before);
    } finally {
      await t.close();
    }
  });
});

describe('timers: an open gig nobody claims lapses to expired (D-16)', () => {
  it('within stallTimeoutDays it stays open; at stallTimeoutDays it is expired; the next advance posts a fresh gig', async () => {
    const t = await startTestServer({ clock: fixedClock });
    try {
      const deal = await createDeal(t, { mandate: { ...HUMAN_CLOSER, stallTimeoutDays: 5 } });
      await advanceDeal(t, deal.id);
      await advanceDeal(t, deal.id);
      const { gig } = await escalateDeal(t, deal.id); // posted at T0
      // The Seller acts a day later, so the deal itself is not due to stall with the gig.
      await advanceClock(t, 24);
      await reportSignals(t, deal.id, ['procurement_involved']);
      await advanceClock(t, 4 * 24 - 1);
      assert.equal((await getGig(t, gig.id)).status, 'open');
      await advanceClock(t, 1); // T0 + 5 days
      const lapsed = await getGig(t, gig.id);
      assert.equal(lapsed.status, 'expired');
      assert.equal(lapsed.closerId, undefined);
      assert.deepEqual(
        (await listGigs(t, 'expired')).map((g) => g.id),
        [gig.id],
      );
      const stored = await getDeal(t, deal.id);
      assert.equal(stored.stage, 'meeting');
      assert.deepEqual(stored.signals, ['procurement_involved'], 'the deal did not stall');
      assert.equal(stored.activity.at(-1)?.by, 'service');
      assert.equal(stored.activity.at(-1)?.gigId, gig.id);
      // An expired gig cannot be claimed; the next advance posts a fresh one.
      assertError(await t.post(`/closers/gigs/${gig.id}/claim`, { closerId: ADA }), 409, 'GIG_NOT_OPEN');
      const next = await escalateDeal(t, deal.id);
      assert.notEqual(next.gig.id, gig.id);
      assert.equal(next.gig.role, 'closer');
      assert.equal(next.gig.status, 'open');
    } finally {
      await t.close();
    }
  });

  it('when the gig lapses and the deal stalls in one run, the gig expires first and the deal goes dark (D-17)', async () => {
    const t = await startTestServer({ clock: fixedClock });
    try {
      const { gig, deal } = await openCloserGig(t); // posted at T0; the deal last acted at T0
      await advanceClock(t, 14 * 24);
      assert.equal((await getGig(t, gig.id)).status, 'expired');
      const stored = await getDeal(t, deal.id);
      assert.deepEqual(stored.signals, ['gone_dark']);
      const next = await escalateDeal(t, deal.id);
      assert.equal(next.role, 'nurturer');
      assert.notEqual(next.gig.id, gig.id);
    } finally {
      await t.close();
    }
  });
});

describe('timers: a deal with no activity for stallTimeoutDays goes dark (D-17)', () => {
  it('gets gone_dark with a service activity entry after 14 days by default, not before', async () => {
    const t = await startTestServer({ clock: fixedClock });
    try {
      const deal = await createDeal(t);
      assert.equal(deal.mandate.stallTimeoutDays, 14);
      await advanceClock(t, 14 * 24 - 1);
      const before = await getDeal(t, deal.id);
      assert.deepEqual(before, deal, 'nothing happened before the timeout');
      await advanceClock(t, 1);
      const dark = await getDeal(t, deal.id);
      assert.deepEqual(dark.signals, ['gone_dark']);
      assert.equal(dark.stage, 'sourced', 'the stage is unchanged');
      assert.equal(dark.humanTrack, true);
      const added = dark.activity.slice(deal.activity.length);
      assert.ok(added.length >= 1);
      for (const entry of added) {
        assert.equal(entry.by, 'service');
        assert.equal(entry.at, iso(T0 + 14 * 24 * HOUR));
        assert.equal(entry.stage, 'sourced');
      }
      assert.ok(added.some((e) => /gone_dark/.test(e.note)));
      // Stalled: worked by a human nurturer from now on.
      const next = await escalateDeal(t, deal.id);
      assert.equal(next.role, 'nurturer');
      // Already dark: the timer does not fire again.
      const afterEscalation = await getDeal(t, deal.id);
      await advanceClock(t, 60 * 24);
      const later = await getDeal(t, deal.id);
      assert.deepEqual(later.signals, ['gone_dark']);
      assert.equal(
        later.activity.filter((e) => /gone_dark/.test(e.note)).length,
        afterEscalation.activity.filter((e) => /gone_dark/.test(e.note)).length,
      );
    } finally {
      await t.close();
    }
  });

  it('activity restarts the stall timer', async () => {
    const t = await startTestServer({ clock: fixedClock });
    try {
      const deal = await createDeal(t);
      await advanceClock(t, 10 * 24);
      await advanceDeal(t, deal.id);
      await advanceClock(t, 13 * 24); // 23 days after creation, 13 after the advance
      assert.deepEqual((await getDeal(t, deal.id)).signals, []);
      await advanceClock(t, 24);
      assert.deepEqual((await getDeal(t, deal.id)).signals, ['gone_dark']);
    } finally {
      await t.close();
    }
  });

  it('a custom stallTimeoutDays from the mandate', async () => {
    const t = await startTestServer({ clock: fixedClock });
    try {
      const deal = await createDeal(t, { mandate: { stallTimeoutDays: 3 } });
      await advanceClock(t, 3 * 24 - 1);
      assert.deepEqual((await getDeal(t, deal.id)).signals, []);
      await advanceClock(t, 1);
      assert.deepEqual((await getDeal(t, deal.id)).signals, ['gone_dark']);
    } finally {
      await t.close();
    }
  });

  it('releases its claimed gig of another role', async () => {
    // A claim TTL longer than the stall timeout, so the claim is still held when the deal goes dark.
    const t = await startTestServer({ clock: fixedClock, config: { claimTtlHours: 24 * 30 } });
    try {
      const { gig, deal } = await claimedCloserGig(t, ADA); // claimed at T0
      await advanceClock(t, 14 * 24);
      assert.equal((await getGig(t, gig.id)).status, 'released');
      const dark = await getDeal(t, deal.id);
      assert.deepEqual(dark.signals, ['gone_dark']);
      assert.ok(dark.activity.some((e) => e.by === 'service' && e.gigId === gig.id && /released/.test(e.note)));
      // Nothing was paid for a released gig, and the Register is untouched.
      assert.deepEqual((await getCloser(t, ADA)).record, { gigs: 0, wins: 0, grossClosedUsd: 0 });
      const next = await escalateDeal(t, deal.id);
      assert.equal(next.role, 'nurturer');
    } finally {
      await t.close();
    }
  });

  it('releases its gig that a lapsed claim reopened (platform timers are not activity)', async () => {
    const t = await startTestServer({ clock: fixedClock });
    try {
      const { gig, deal } = await claimedCloserGig(t, ADA); // claimed at T0, claim expires at 72h
      await advanceClock(t, 14 * 24);
      assert.equal((await getGig(t, gig.id)).status, 'released');
      assert.deepEqual((await getDeal(t, deal.id)).signals, ['gone_dark']);
    } finally {
      await t.close();
    }
  });

  it('a B2C deal stalls after 7 days, not before', async () => {
    const t = await startTestServer({ clock: fixedClock });
    try {
      const answer = await t.post<DealView>(`${t.prefix}/deals`, dealBody({ account: { actor: 'B2C' } }));
      assert.equal(answer.status, 201);
      const deal = answer.body;
      assert.equal(deal.mandate.stallTimeoutDays, 7);
      await advanceClock(t, 7 * 24 - 1);
      assert.deepEqual((await getDeal(t, deal.id)).signals, []);
      await advanceClock(t, 1);
      const dark = await getDeal(t, deal.id);
      assert.deepEqual(dark.signals, ['gone_dark']);
      assert.equal(dark.activity.at(-1)?.by, 'service');
    } finally {
      await t.close();
    }
  });
});

describe('timers: never fire on terminal deals', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock: fixedClock });
  });
  after(async () => {
    await t.close();
  });

  it('a closed_won and a closed_lost deal, and their fulfilled gigs, are unchanged after 90 days', async () => {
    const sold = await t.post<DealView>(`${t.prefix}/sell`, dealBody());
    assert.equal(sold.status, 201);
    assert.equal(sold.body.stage, 'closed_won');
    const won = await negotiatingCloserGig(t, ADA);
    await advanceGig(t, won.gig.id, { advanceTo: 'closed_won', valueUsd: 15_000 });
    const lost = await claimedCloserGig(t, MILO);
    await advanceGig(t, lost.gig.id, { advanceTo: 'closed_lost' });

    const deals = await Promise.all([sold.body.id, won.deal.id, lost.deal.id].map((id) => getDeal(t, id)));
    const gigs = await listGigs(t);
    const closers = await Promise.all([ADA, MILO].map((id) => getCloser(t, id)));

    await advanceClock(t, 2160);
    await advanceClock(t, 2160);

    assert.deepEqual(await Promise.all(deals.map((d) => getDeal(t, d.id))), deals);
    assert.deepEqual(await listGigs(t), gigs);
    assert.deepEqual(await Promise.all([ADA, MILO].map((id) => getCloser(t, id))), closers);
    for (const deal of deals) assert.equal(deal.signals.includes('gone_dark'), false);
  });
});
