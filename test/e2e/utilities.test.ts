// End to end over real HTTP: the demo environment's utilities — the index (D-2), health, reset
// (D-27, D-28), the demo clock (D-19) and the platform timers on a live interval (D-16).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  advanceClock,
  advanceDeal,
  advanceGig,
  assertError,
  type CloserView,
  claimedCloserGig,
  createDeal,
  type DealView,
  enrol,
  fixedClock,
  type GigView,
  getCloser,
  getGig,
  HOUR,
  listGigs,
  MILO,
  negotiatingCloserGig,
  openCloserGig,
  T0,
} from '../support/marketplace-e2e.ts';

interface IndexView {
  service: string;
  version: string;
  endpoints: { method: string; path: string; surface: string; summary: string }[];
}

interface Health {
  ok: boolean;
  closers: number;
  deals: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Every endpoint of the spec's DEMO tables (utilities, deal service, closer marketplace), and D-12. */
const DEMO_ENDPOINTS = [
  'GET /',
  'GET /health',
  'POST /demo/reset',
  'POST /demo/clock',
  'POST /pipeline/deals',
  'GET /pipeline/deals/{id}',
  'POST /pipeline/deals/{id}/advance',
  'POST /pipeline/deals/{id}/signals',
  'GET /pipeline/deals/{id}/settlement',
  'POST /pipeline/deals/{id}/reengage',
  'POST /pipeline/deals/{id}/deescalate',
  'POST /pipeline/sell',
  'POST /closers/closers',
  'GET /closers/closers',
  'GET /closers/closers/{id}',
  'POST /closers/match',
  'GET /closers/gigs',
  'POST /closers/gigs/{id}/claim',
  'POST /closers/gigs/{id}/advance',
  'POST /closers/gigs/{id}/revive',
  'POST /closers/gigs/{id}/release',
  'POST /closers/gigs/{id}/expire',
];

async function health(t: TestServer): Promise<Health> {
  const answer = await t.get<Health>('/health');
  assert.equal(answer.status, 200);
  return answer.body;
}

describe('utilities: the index GET / (D-2)', () => {
  let t: TestServer;
  let index: IndexView;
  before(async () => {
    t = await startTestServer();
    const answer = await t.get<IndexView>('/');
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    index = answer.body;
  });
  after(async () => {
    await t.close();
  });

  it('answers {service, version 0.1.0, endpoints}', () => {
    assert.deepEqual(Object.keys(index).sort(), ['endpoints', 'service', 'version']);
    assert.equal(typeof index.service, 'string');
    assert.ok(index.service.length > 0);
    assert.equal(index.version, '0.1.0');
    assert.ok(Array.isArray(index.endpoints));
  });

  it('each entry is {method, path, surface, summary} with a root or demo surface and a summary', () => {
    for (const entry of index.endpoints) {
      assert.deepEqual(Object.keys(entry).sort(), ['method', 'path', 'summary', 'surface'], JSON.stringify(entry));
      assert.match(entry.method, /^(GET|POST|PUT|PATCH|DELETE)$/);
      assert.match(entry.path, /^\//);
      assert.doesNotMatch(entry.path, /:/, 'path params are written {id}, never :id');
      assert.ok(['root', 'demo'].includes(entry.surface), entry.surface);
      assert.equal(typeof entry.summary, 'string');
      assert.ok(entry.summary.length > 0, `${entry.method} ${entry.path} has a summary`);
    }
  });

  it('lists every DEMO endpoint of the spec, with {id} path params, under the demo surface', () => {
    const listed = new Map(index.endpoints.map((e) => [`${e.method} ${e.path}`, e.surface]));
    for (const endpoint of DEMO_ENDPOINTS) {
      assert.ok(listed.has(endpoint), `${endpoint} is listed`);
      assert.equal(listed.get(endpoint), 'demo', `${endpoint} is on the demo surface`);
    }
  });

  it('lists each endpoint once', () => {
    const keys = index.endpoints.map((e) => `${e.method} ${e.path}`);
    assert.equal(new Set(keys).size, keys.length);
    assert.ok(!keys.includes('HEAD /'), 'HEAD twins are not listed');
  });

  it('every listed demo endpoint exists: none of them answers ROUTE_NOT_FOUND', async () => {
    for (const { method, path, surface } of index.endpoints) {
      if (surface !== 'demo' || path === '/demo/reset') continue;
      // The event stream never ends by itself: a bad query (400) shows it is routed.
      const concrete = path === '/events/stream' ? `${path}?after=-1` : path.replace('{id}', 'nothing_0001');
      const answer = await t.raw(method, concrete, method === 'POST' ? '{}' : undefined, {
        ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      });
      assert.notEqual(answer.status, 500, `${method} ${concrete}`);
      assert.notEqual(answer.body?.code, 'ROUTE_NOT_FOUND', `${method} ${concrete} is routed`);
    }
  });
});

describe('utilities: GET /health', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('answers {ok: true, closers: 2, deals: 0} on a fresh server', async () => {
    const answer = await t.get<Health>('/health');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { ok: true, closers: 2, deals: 0 });
  });

  it('counts grow with creates, sells, re-engagements and enrolments', async () => {
    const deal = await createDeal(t);
    assert.deepEqual(await health(t), { ok: true, closers: 2, deals: 1 });
    await createDeal(t);
    assert.equal(
      (await t.post(`${t.prefix}/sell`, { account: { name: 'S', actor: 'B2B' }, listValueUsd: 10 })).status,
      201,
    );
    assert.deepEqual(await health(t), { ok: true, closers: 2, deals: 3 });
    await advanceDeal(t, deal.id, { advanceTo: 'closed_lost' });
    assert.equal((await t.post(`${t.prefix}/deals/${deal.id}/reengage`)).status, 201);
    assert.deepEqual(await health(t), { ok: true, closers: 2, deals: 4 });
    await enrol(t, 'Third Closer (fictional)', ['retail']);
    assert.deepEqual(await health(t), { ok: true, closers: 3, deals: 4 });
  });

  it('moves and gigs do not change the counts', async () => {
    const before = await health(t);
    await openCloserGig(t);
    assert.deepEqual(await health(t), { ...before, deals: before.deals + 1 });
  });
});

describe('utilities: POST /demo/reset (D-27, D-28)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock: fixedClock });
  });
  after(async () => {
    await t.close();
  });

  it('an unknown body field is 400, and nothing is wiped', async () => {
    await createDeal(t);
    const answer = await t.post('/demo/reset', { keepClosers: true });
    const error = assertError(answer, 400, 'INVALID_BODY');
    assert.ok(
      error.violations?.some((v) => v.startsWith('keepClosers:')),
      JSON.stringify(error.violations),
    );
    assert.deepEqual(await health(t), { ok: true, closers: 2, deals: 1 });
  });

  it('wipes deals, gigs, enrolled closers, registers, ledgers and the clock; restarts ids', async () => {
    // State of every kind: deals, gigs in several statuses, an enrolled closer, a paid closer,
    // and a moved demo clock.
    await enrol(t, 'Priya Castellan (fictional)', ['saas']);
    const { gig } = await negotiatingCloserGig(t, ADA, { listValueUsd: 20_000 });
    const won = await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd: 20_000 });
    assert.ok(won.closer && won.closer.payouts.length === 1);
    await claimedCloserGig(t, MILO);
    await openCloserGig(t);
    await advanceClock(t, 48);
    assert.ok((await listGigs(t)).length >= 3);
    assert.equal((await health(t)).closers, 3);

    const answer = await t.post('/demo/reset');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { reset: true, seeded: [ADA, MILO] });

    assert.deepEqual(await health(t), { ok: true, closers: 2, deals: 0 });
    assertError(await t.get(`${t.prefix}/deals/deal_0001`), 404, 'DEAL_NOT_FOUND');
    assert.deepEqual(await listGigs(t), []);
    assertError(await t.get('/closers/closers/closer_0003'), 404, 'CLOSER_NOT_FOUND');
    const closers = (await t.get<CloserView[]>('/closers/closers')).body;
    assert.deepEqual(
      closers.map((c) => c.id),
      [ADA, MILO],
    );
    for (const closer of closers) {
      assert.deepEqual(closer.record, { gigs: 0, wins: 0, grossClosedUsd: 0 }, `${closer.id} register zeroed`);
      assert.deepEqual(closer.payouts, [], `${closer.id} ledger empty`);
    }
    assert.ok((await getCloser(t, ADA)).name.includes('fictional'));

    // The clock offset is gone: the demo clock is back at the fixed machine time.
    assert.deepEqual((await t.post('/demo/clock', { advanceHours: 0 })).body, { now: iso(T0) });
    // Ids restart at 0001 for every kind.
    const deal = await createDeal(t, { mandate: { staffing: { setter: 'human' } } });
    assert.equal(deal.id, 'deal_0001');
    assert.equal(deal.activity[0].at, iso(T0));
    const escalation = await t.post(`${t.prefix}/deals/${deal.id}/advance`);
    assert.equal(escalation.body.gig.id, 'gig_0001');
    assert.equal((await enrol(t, 'After Reset (fictional)')).id, 'closer_0003');
  });

  it('an empty POST, an empty JSON object and an empty JSON body all reset', async () => {
    for (const send of [
      () => t.post('/demo/reset'),
      () => t.post('/demo/reset', {}),
      () => t.raw('POST', '/demo/reset', '', { 'content-type': 'application/json' }),
    ]) {
      await createDeal(t);
      const answer = await send();
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, { reset: true, seeded: [ADA, MILO] });
      assert.deepEqual(await health(t), { ok: true, closers: 2, deals: 0 });
    }
  });
});

describe('utilities: POST /demo/clock (D-19)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock: { now: () => T0 } });
  });
  after(async () => {
    await t.close();
  });

  it('{advanceHours: 24} answers {now} 24 hours after the previous now', async () => {
    const first = await t.post<{ now: string }>('/demo/clock', { advanceHours: 0 });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { now: iso(T0) });
    const moved = await t.post<{ now: string }>('/demo/clock', { advanceHours: 24 });
    assert.equal(moved.status, 200);
    assert.deepEqual(moved.body, { now: iso(T0 + 24 * HOUR) });
    assert.equal(Date.parse(moved.body.now) - Date.parse(first.body.now), 24 * HOUR);
    const again = await t.post<{ now: string }>('/demo/clock', { advanceHours: 24 });
    assert.deepEqual(again.body, { now: iso(T0 + 48 * HOUR) });
  });

  it('records written afterwards carry the moved clock', async () => {
    const now = await advanceClock(t, 0);
    const deal: DealView = await createDeal(t);
    assert.equal(deal.activity[0].at, iso(now));
    assert.equal(now, T0 + 48 * HOUR);
  });

  it('an unknown field or a bad value is 400 and the clock does not move', async () => {
    const before = await advanceClock(t, 0);
    assertError(await t.post('/demo/clock', { advanceHours: 1, reason: 'test' }), 400, 'INVALID_BODY');
    assertError(await t.post('/demo/clock', { advanceHours: 2160.5 }), 400, 'INVALID_BODY');
    assertError(await t.post('/demo/clock', { advanceHours: -0.5 }), 400, 'INVALID_BODY');
    assertError(await t.post('/demo/clock'), 400, 'INVALID_BODY');
    assert.equal(await advanceClock(t, 0), before);
  });
});

describe('utilities: platform timers on the live interval (D-16, D-19)', () => {
  let t: TestServer;
  before(async () => {
    // A claim lasts 0.0001 h (0.36 s); the timers run every 50 ms on the system clock.
    t = await startTestServer({ config: { timerIntervalSeconds: 0.05, claimTtlHours: 0.0001 } });
  });
  after(async () => {
    await t.close();
  });

  it('a claimed gig is open again within a second, without calling /demo/clock', async () => {
    const { gig } = await claimedCloserGig(t, ADA);
    assert.equal(gig.status, 'claimed');
    assert.equal(gig.closerId, ADA);
    const deadline = Date.now() + 1000;
    let current: GigView = gig;
    while (Date.now() < deadline) {
      current = await getGig(t, gig.id);
      if (current.status === 'open') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(current.status, 'open', `gig ${gig.id} reopened by the interval timer`);
    assert.equal(current.closerId, undefined, 'the claimant is cleared');
    assert.equal(current.id, gig.id, 'the same gig reopens');
    const deal = (await t.get<DealView>(`${t.prefix}/deals/${gig.dealId}`)).body;
    const entry = deal.activity.at(-1);
    assert.equal(entry?.by, 'service');
    assert.match(entry?.note ?? '', /expired/);
    assert.equal(entry?.gigId, gig.id);
    // The reopened gig can be claimed again by another closer.
    const reclaimed = await t.post<{ gig: GigView }>(`/closers/gigs/${gig.id}/claim`, { closerId: MILO });
    assert.equal(reclaimed.status, 200);
    assert.equal(reclaimed.body.gig.closerId, MILO);
  });
});
