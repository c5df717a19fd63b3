// End to end over real HTTP: the closer marketplace — enrol, list, get, match, list gigs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  advanceGig,
  assertError,
  type CloserView,
  claim,
  claimedCloserGig,
  enrol,
  type GigView,
  listGigs,
  type MatchView,
  MILO,
  negotiatingCloserGig,
  openCloserGig,
} from '../support/marketplace-e2e.ts';

describe('marketplace: enrol a closer', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('refuses bad bodies with 400 {error, code, violations} and consumes no id', async () => {
    const bad: [string, unknown][] = [
      ['missing name', { industries: ['saas'] }],
      ['empty name', { name: '', industries: [] }],
      ['name over 200 chars', { name: 'x'.repeat(201), industries: [] }],
      ['more than 20 industries', { name: 'Too Broad', industries: Array.from({ length: 21 }, (_, i) => `ind${i}`) }],
      ['industry over 100 chars', { name: 'Long Industry', industries: ['y'.repeat(101)] }],
      ['unknown field', { name: 'Extra', industries: [], email: 'x@example.invalid' }],
      ['name not a string', { name: 42, industries: [] }],
      ['industries not an array', { name: 'Wrong', industries: 'saas' }],
      ['industry not a string', { name: 'Wrong', industries: [7] }],
      ['body is an array', [{ name: 'Array' }]],
      ['body is null', null],
    ];
    for (const [why, body] of bad) {
      const answer = await t.post('/closers/closers', body);
      const error = assertError(answer, 400);
      assert.ok(Array.isArray(error.violations) && error.violations.length > 0, `${why}: violations listed`);
    }
    const closers = await t.get<CloserView[]>('/closers/closers');
    assert.deepEqual(
      closers.body.map((c) => c.id),
      [ADA, MILO],
      'no closer was enrolled by a refused request',
    );
  });

  it('answers 201 with {id, name, industries, record: zeros, payouts: []}; ids follow the two seeds', async () => {
    const answer = await t.post<CloserView>('/closers/closers', {
      name: 'Priya Castellan (fictional)',
      industries: ['saas', 'retail'],
    });
    assert.equal(answer.status, 201);
    assert.deepEqual(answer.body, {
      id: 'closer_0003',
      name: 'Priya Castellan (fictional)',
      industries: ['saas', 'retail'],
      record: { gigs: 0, wins: 0, grossClosedUsd: 0 },
      payouts: [],
    });
    const next = await enrol(t, 'Oskar Lindqvist (fictional)', []);
    assert.equal(next.id, 'closer_0004');
    assert.deepEqual(next.industries, []);
  });

  it('accepts the bounds exactly: a 200-char name and 20 industries', async () => {
    const industries = Array.from({ length: 20 }, (_, i) => `industry_${i}`);
    const answer = await t.post<CloserView>('/closers/closers', { name: 'n'.repeat(200), industries });
    assert.equal(answer.status, 201);
    assert.equal(answer.body.name.length, 200);
    assert.deepEqual(answer.body.industries, industries);
  });

  it('industries may be left out: an empty list', async () => {
    const answer = await t.post<CloserView>('/closers/closers', { name: 'No Industries (fictional)' });
    assert.equal(answer.status, 201);
    assert.deepEqual(answer.body.industries, []);
  });
});

describe('marketplace: list and get closers', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('lists the two seeded closers with zeroed Registers and empty ledgers', async () => {
    const answer = await t.get<CloserView[]>('/closers/closers');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.length, 2);
    assert.deepEqual(
      answer.body.map((c) => c.id),
      [ADA, MILO],
    );
    for (const closer of answer.body) {
      assert.deepEqual(closer.record, { gigs: 0, wins: 0, grossClosedUsd: 0 });
      assert.deepEqual(closer.payouts, []);
      assert.ok(closer.name.length > 0);
      assert.ok(Array.isArray(closer.industries));
    }
  });

  it('lists an enrolled closer after the seeds, in id order', async () => {
    const enrolled = await enrol(t, 'Rhea Voss (fictional)', ['retail']);
    const answer = await t.get<CloserView[]>('/closers/closers');
    assert.deepEqual(
      answer.body.map((c) => c.id),
      [ADA, MILO, enrolled.id],
    );
    assert.deepEqual(answer.body[2], enrolled);
  });

  it('gets one closer by id', async () => {
    const answer = await t.get<CloserView>(`/closers/closers/${ADA}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.id, ADA);
    assert.deepEqual(answer.body.record, { gigs: 0, wins: 0, grossClosedUsd: 0 });
    assert.deepEqual(answer.body.payouts, []);
    assert.deepEqual(
      answer.body.industries.map((i) => i.toLowerCase()),
      ['saas', 'fintech'],
    );
  });

  it('answers 404 {error, code} for an unknown closer', async () => {
    const answer = await t.get(`/closers/closers/closer_9999`);
    assertError(answer, 404, 'CLOSER_NOT_FOUND');
    assert.match((answer.body as { error: string }).error, /closer_9999/);
  });
});

describe('marketplace: match', () => {
  let t: TestServer;
  // closer ids, in enrolment order after the two seeds
  let winSmall: string;
  let winBig: string;
  let lostOne: string;
  let retailStar: string;

  /** The closer claims a fresh closer gig and closes it won at valueUsd (list value = valueUsd). */
  const win = async (closerId: string, valueUsd: number, industry: string) => {
    const { gig } = await negotiatingCloserGig(t, closerId, { listValueUsd: valueUsd, account: { industry } });
    const done = await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd });
    assert.equal(done.deal.stage, 'closed_won');
  };

  before(async () => {
    t = await startTestServer();
    winSmall = (await enrol(t, 'Win Small (fictional)', ['saas'])).id;
    winBig = (await enrol(t, 'Win Big (fictional)', ['SaaS'])).id;
    lostOne = (await enrol(t, 'Lost One (fictional)', ['saas'])).id;
    retailStar = (await enrol(t, 'Retail Star (fictional)', ['retail'])).id;
    await win(winSmall, 20_000, 'saas');
    await win(winBig, 30_000, 'saas');
    await win(retailStar, 50_000, 'retail');
    const { gig } = await claimedCloserGig(t, lostOne);
    const lost = await advanceGig(t, gig.id, { advanceTo: 'closed_lost' });
    assert.equal(lost.deal.stage, 'closed_lost');
  });
  after(async () => {
    await t.close();
  });

  it('ranks by industry fit (case-insensitive), then win rate, then gross closed, then id', async () => {
    const answer = await t.post<MatchView[]>('/closers/match', { industry: 'SAAS', valueUsd: 25_000, role: 'closer' });
    assert.equal(answer.status, 200);
    assert.deepEqual(
      answer.body.map((m) => m.closer.id),
      [winBig, winSmall, ADA, lostOne, retailStar, MILO],
    );
  });

  it('answers winRate = wins / gigs and a score in [0, 1] (0.6 fit + 0.3 winRate + 0.1 volume share)', async () => {
    const answer = await t.post<MatchView[]>('/closers/match', { industry: 'saas', valueUsd: 25_000, role: 'closer' });
    const byId = new Map(answer.body.map((m) => [m.closer.id, m]));
    const expected: [string, number, number][] = [
      // id, winRate, score (largest gross closed is 50,000)
      [winBig, 1, 0.96],
      [winSmall, 1, 0.94],
      [ADA, 0, 0.6],
      [lostOne, 0, 0.6],
      [retailStar, 1, 0.4],
      [MILO, 0, 0],
    ];
    for (const [id, winRate, score] of expected) {
      const match = byId.get(id);
      assert.ok(match, `${id} is in the pool`);
      assert.equal(match.winRate, winRate, `${id} winRate`);
      assert.ok(Math.abs(match.score - score) < 1e-9, `${id} score ${match.score} ≈ ${score}`);
      assert.ok(match.score >= 0 && match.score <= 1);
    }
    for (const m of answer.body) assert.ok(m.score >= 0 && m.score <= 1, `${m.closer.id} score in [0, 1]`);
  });

  it('carries each closer with its Register and ledger', async () => {
    const answer = await t.post<MatchView[]>('/closers/match', { industry: 'saas', valueUsd: 1, role: 'setter' });
    const big = answer.body.find((m) => m.closer.id === winBig);
    assert.ok(big);
    assert.deepEqual(big.closer.record, { gigs: 1, wins: 1, grossClosedUsd: 30_000 });
    assert.equal(big.closer.payouts.length, 1);
    assert.equal(big.closer.payouts[0].kind, 'commission');
    assert.equal(big.closer.payouts[0].amountUsd, 3_000);
    const lost = answer.body.find((m) => m.closer.id === lostOne);
    assert.ok(lost);
    assert.deepEqual(lost.closer.record, { gigs: 1, wins: 0, grossClosedUsd: 0 });
    assert.deepEqual(lost.closer.payouts, []);
  });

  it('an industry nobody covers ranks by win rate, then gross, then id; every closer is returned', async () => {
    const answer = await t.post<MatchView[]>('/closers/match', { industry: 'mining', valueUsd: 5, role: 'nurturer' });
    assert.equal(answer.status, 200);
    assert.deepEqual(
      answer.body.map((m) => m.closer.id),
      [retailStar, winBig, winSmall, ADA, MILO, lostOne],
    );
  });

  it('answers the first `limit` of the ranking (default 100, at most 1000): the same order, cut', async () => {
    const all = await t.post('/closers/match', { industry: 'saas', valueUsd: 10, role: 'closer' });
    assert.equal(all.status, 200);
    assert.ok(all.body.length >= 6);
    for (const limit of [1, 3]) {
      const page = await t.post('/closers/match', { industry: 'saas', valueUsd: 10, role: 'closer', limit });
      assert.equal(page.status, 200);
      assert.deepEqual(page.body, all.body.slice(0, limit), `limit ${limit}`);
    }
  });

  it('answers 400 for missing fields, a bad role, wrong types or an unknown field', async () => {
    const bad: [string, unknown][] = [
      ['missing industry', { valueUsd: 10, role: 'closer' }],
      ['missing valueUsd', { industry: 'saas', role: 'closer' }],
      ['missing role', { industry: 'saas', valueUsd: 10 }],
      ['bad role', { industry: 'saas', valueUsd: 10, role: 'janitor' }],
      ['valueUsd a string', { industry: 'saas', valueUsd: '10', role: 'closer' }],
      ['industry a number', { industry: 5, valueUsd: 10, role: 'closer' }],
      ['unknown field', { industry: 'saas', valueUsd: 10, role: 'closer', top: 3 }],
      ['limit 0', { industry: 'saas', valueUsd: 10, role: 'closer', limit: 0 }],
      ['limit over 1000', { industry: 'saas', valueUsd: 10, role: 'closer', limit: 1001 }],
      ['empty object', {}],
    ];
    for (const [why, body] of bad) {
      const answer = await t.post('/closers/match', body);
      const error = assertError(answer, 400);
      assert.ok(error.violations && error.violations.length > 0, `${why}: violations listed`);
    }
  });
});

describe('marketplace: list gigs', () => {
  let t: TestServer;
  let openGig: GigView;
  let claimedGig: GigView;
  let fulfilledGig: GigView;
  let releasedGig: GigView;

  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('is an empty array before any escalation', async () => {
    const answer = await t.get<GigView[]>('/closers/gigs');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, []);
    const open = await t.get<GigView[]>('/closers/gigs?status=open');
    assert.equal(open.status, 200);
    assert.deepEqual(open.body, []);
  });

  it('lists every gig in id order, and only one status with ?status=', async () => {
    openGig = (await openCloserGig(t)).gig;
    claimedGig = (await claimedCloserGig(t, ADA)).gig;
    const won = await negotiatingCloserGig(t, MILO);
    fulfilledGig = (await advanceGig(t, won.gig.id, { advanceTo: 'closed_won', valueUsd: 15_000 })).gig;
    const toRelease = (await openCloserGig(t)).gig;
    const released = await t.post<GigView>(`/closers/gigs/${toRelease.id}/release`);
    assert.equal(released.status, 200);
    releasedGig = released.body;

    const all = await listGigs(t);
    assert.deepEqual(
      all.map((g) => [g.id, g.status]),
      [
        [openGig.id, 'open'],
        [claimedGig.id, 'claimed'],
        [fulfilledGig.id, 'fulfilled'],
        [releasedGig.id, 'released'],
      ],
    );
    assert.deepEqual(
      all.map((g) => g.id),
      ['gig_0001', 'gig_0002', 'gig_0003', 'gig_0004'],
    );

    for (const [status, expected] of [
      ['open', [openGig.id]],
      ['claimed', [claimedGig.id]],
      ['fulfilled', [fulfilledGig.id]],
      ['released', [releasedGig.id]],
      ['expired', []],
    ] as const) {
      const filtered = await listGigs(t, status);
      assert.deepEqual(
        filtered.map((g) => g.id),
        expected,
        `?status=${status}`,
      );
      for (const gig of filtered) assert.equal(gig.status, status);
    }
  });

  it('shows the claimant on a claimed gig and the outcome on a fulfilled one', async () => {
    const claimed = (await listGigs(t, 'claimed'))[0];
    assert.equal(claimed.closerId, ADA);
    assert.equal(typeof claimed.claimedAt, 'string');
    const fulfilled = (await listGigs(t, 'fulfilled'))[0];
    assert.equal(fulfilled.closerId, MILO);
    assert.equal(fulfilled.outcome, 'closed_won');
    assert.equal(fulfilled.finalValueUsd, 15_000);
    const open = (await listGigs(t, 'open'))[0];
    assert.equal(open.closerId, undefined);
    assert.equal(open.claimedAt, undefined);
  });

  it('answers 400 {error, code} for an unknown status value', async () => {
    for (const query of ['?status=bogus', '?status=OPEN', '?status=', '?colour=blue']) {
      const answer = await t.get(`/closers/gigs${query}`);
      assertError(answer, 400, 'INVALID_QUERY');
    }
  });

  it('a claim is visible in the list at once', async () => {
    const opened = (await openCloserGig(t)).gig;
    await claim(t, opened.id, MILO);
    const claimed = await listGigs(t, 'claimed');
    assert.ok(claimed.some((g) => g.id === opened.id && g.closerId === MILO));
  });
});

// D-24: a closer's gross closed is exact to the cent at any size the bounds allow. 91 wins of
// $999,999,999,999.99 sum to 9,099,999,999,999,909 cents, past 2^53: as a double the sum was
// 9,099,999,999,999,908 (a cent lost), and written as a double it would print fewer decimals.
describe('a Register past 2^53 cents (D-24)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('grossClosedUsd is written to the cent, in the closer and in the list of closers', async () => {
    const closer = await enrol(t, 'Fictional Whale Closer', ['saas']);
    const valueUsd = 999_999_999_999.99;
    for (let win = 0; win < 91; win++) {
      const { gig } = await negotiatingCloserGig(t, closer.id, { listValueUsd: 1e12 });
      await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd });
    }
    const exact = '"grossClosedUsd":90999999999999.09';
    const one = await fetch(`${t.url}/closers/closers/${closer.id}`);
    const text = await one.text();
    assert.ok(text.includes(exact), text.slice(0, 300));
    assert.ok(text.includes('"gigs":91,"wins":91'), text.slice(0, 300));
    const list = await (await fetch(`${t.url}/closers/closers?limit=1000`)).text();
    assert.ok(list.includes(exact), 'the list of closers carries the exact amount too');
  });
});
