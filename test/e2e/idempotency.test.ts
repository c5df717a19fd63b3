// Safe retries (D-37): an Idempotency-Key on any demo POST makes a retry replay the first
// answer, byte for byte, with no second effect; racing requests with one key have one effect.
// Runs on every store (TEST_STORE).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type Answer, startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  assertError,
  claimedCloserGig,
  createDeal,
  dealBody,
  type EscalationView,
  HUMAN_CLOSER,
  openCloserGig,
} from '../support/marketplace-e2e.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
const keyed = (key: string) => ({ ...JSON_HEADERS, 'idempotency-key': key });

/** POSTs a JSON body (or none) under a key, keeping the answer's raw text. */
async function post(t: TestServer, path: string, key: string, body?: unknown) {
  const response = await fetch(t.url + path, {
    method: 'POST',
    headers: body === undefined ? { 'idempotency-key': key } : keyed(key),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

async function health(t: TestServer): Promise<{ deals: number; closers: number }> {
  return (await t.get('/health')).body;
}

describe('idempotency keys on the demo (D-37)', () => {
  let t: TestServer;
  let now = Date.parse('2030-03-04T09:00:00.000Z');
  before(async () => {
    t = await startTestServer({ clock: { now: () => now } });
  });
  after(() => t.close());
  beforeEach(async () => {
    await t.post('/demo/reset');
  });

  it('a retried sell with the same key makes one deal and answers the same bytes, marked replayed', async () => {
    const first = await post(t, '/pipeline/sell', 'sell-1', dealBody());
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await post(t, '/pipeline/sell', 'sell-1', dealBody());
    assert.equal(again.status, 201);
    assert.equal(again.text, first.text, 'byte for byte');
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.equal(first.headers.get('location'), `/pipeline/deals/${JSON.parse(first.text).id}`);
    assert.equal((await health(t)).deals, 1, 'one deal');
  });

  it('the body is compared after parsing: key order and spacing do not matter', async () => {
    const first = await post(t, '/pipeline/deals', 'create-1', {
      listValueUsd: 20_000,
      account: { actor: 'B2B', name: 'Order Fictional' },
    });
    const reordered = await fetch(`${t.url}/pipeline/deals`, {
      method: 'POST',
      headers: keyed('create-1'),
      body: '{ "account": { "name": "Order Fictional", "actor": "B2B" },\n  "listValueUsd": 20000 }',
    });
    assert.equal(reordered.status, 201);
    assert.equal(await reordered.text(), first.text);
    assert.equal(reordered.headers.get('idempotent-replayed'), 'true');
    assert.equal((await health(t)).deals, 1);
  });

  it('the same key with another body, path or method is 422 IDEMPOTENCY_KEY_REUSED and changes nothing', async () => {
    const first = await post(t, '/pipeline/deals', 'k', dealBody({ listValueUsd: 10_000 }));
    assert.equal(first.status, 201);
    const otherBody = await post(t, '/pipeline/deals', 'k', dealBody({ listValueUsd: 10_001 }));
    assert.equal(otherBody.status, 422);
    assert.equal(JSON.parse(otherBody.text).code, 'IDEMPOTENCY_KEY_REUSED');
    const otherPath = await post(t, '/pipeline/sell', 'k', dealBody({ listValueUsd: 10_000 }));
    assert.equal(JSON.parse(otherPath.text).code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal((await health(t)).deals, 1, 'nothing else was created');
    // The first request still replays.
    assert.equal((await post(t, '/pipeline/deals', 'k', dealBody({ listValueUsd: 10_000 }))).text, first.text);
  });

  it('a malformed key is 400 IDEMPOTENCY_KEY_INVALID before anything runs', async () => {
    // (' ' arrives as an empty value: header values are trimmed.)
    for (const key of ['', ' ', 'with space', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const response = await fetch(`${t.url}/pipeline/sell`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'idempotency-key': key },
        body: JSON.stringify(dealBody()),
      });
      assert.equal(response.status, 400, JSON.stringify(key));
      assert.equal((await response.json()).code, 'IDEMPOTENCY_KEY_INVALID');
    }
    assert.equal((await post(t, '/pipeline/sell', 'x'.repeat(255), dealBody())).status, 201, '255 characters is fine');
    assert.equal((await health(t)).deals, 1);
  });

  it('a 400 is not stored: a corrected retry may reuse the key', async () => {
    const bad = await post(t, '/pipeline/deals', 'fix-me', { listValueUsd: 10_000 });
    assert.equal(bad.status, 400);
    const fixed = await post(t, '/pipeline/deals', 'fix-me', dealBody());
    assert.equal(fixed.status, 201);
    assert.equal(fixed.headers.get('idempotent-replayed'), null);
  });

  it('refusals (404, 409, 422) are stored and replayed, even once the state would now allow the request', async () => {
    const missing = await post(t, '/pipeline/deals/deal_0099/advance', 'nf');
    assert.equal(missing.status, 404);
    const missingAgain = await post(t, '/pipeline/deals/deal_0099/advance', 'nf');
    assert.equal(missingAgain.text, missing.text);
    assert.equal(missingAgain.headers.get('idempotent-replayed'), 'true');

    const deal = await createDeal(t);
    const skip = await post(t, `/pipeline/deals/${deal.id}/advance`, 'skip', { advanceTo: 'meeting' });
    assert.equal(skip.status, 422);
    await t.post(`/pipeline/deals/${deal.id}/advance`); // now at qualified: meeting would be legal
    const skipAgain = await post(t, `/pipeline/deals/${deal.id}/advance`, 'skip', { advanceTo: 'meeting' });
    assert.equal(skipAgain.status, 422, 'the stored answer, not a new decision');
    assert.equal(skipAgain.text, skip.text);
    assert.equal((await t.get(`/pipeline/deals/${deal.id}`)).body.stage, 'qualified');
  });

  it('racing requests with one key: one effect, and every one answers the first one’s answer', async () => {
    const before = await health(t);
    const answers = await Promise.all(
      Array.from({ length: 16 }, () => post(t, '/pipeline/sell', 'race', dealBody({ listValueUsd: 30_000 }))),
    );
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([201]));
    assert.equal(new Set(answers.map((a) => a.text)).size, 1, 'identical answers');
    assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === null).length, 1, 'one ran');
    assert.equal((await health(t)).deals, before.deals + 1, 'one deal');
  });

  it('every demo write takes a key: gig claims, moves and releases, signals, enrolment, match, clock and reset', async () => {
    const escalated: EscalationView = await openCloserGig(t, { mandate: HUMAN_CLOSER });
    const gig = escalated.gig.id;
    const dealId = escalated.deal.id;
    const cases: [string, unknown][] = [
      [`/closers/gigs/${gig}/claim`, { closerId: ADA }],
      [`/closers/gigs/${gig}/advance`, { advanceTo: 'proposal' }],
      [`/pipeline/deals/${dealId}/signals`, { signals: ['legal_review'] }],
      ['/closers/closers', { name: 'Keyed Closer (fictional)', industries: ['saas'] }],
      ['/closers/match', { industry: 'saas', valueUsd: 1000, role: 'closer', limit: 2 }],
      [`/closers/gigs/${gig}/release`, { closerId: ADA }],
      ['/demo/clock', { advanceHours: 1 }],
    ];
    for (const [path, body] of cases) {
      const first = await post(t, path, `every:${path}`, body);
      assert.ok(first.status < 300, `${path}: ${first.status} ${first.text}`);
      const again = await post(t, path, `every:${path}`, body);
      assert.equal(again.text, first.text, path);
      assert.equal(again.headers.get('idempotent-replayed'), 'true', path);
    }
    assert.equal((await t.get('/closers/closers')).body.length, 3, 'enrolled once');
    const gigAfter = (await t.get(`/closers/gigs/${gig}`)).body;
    assert.equal(gigAfter.status, 'released', 'released once, not refused as already released');
  });

  it('a keyed reset replays instead of wiping again, and wipes every other key', async () => {
    const sold = await post(t, '/pipeline/sell', 'before-reset', dealBody());
    const reset = await post(t, '/demo/reset', 'reset-1');
    assert.equal(reset.status, 200);
    await createDeal(t);
    const resetAgain = await post(t, '/demo/reset', 'reset-1');
    assert.equal(resetAgain.headers.get('idempotent-replayed'), 'true');
    assert.equal((await health(t)).deals, 1, 'the replayed reset wiped nothing');
    const soldAgain = await post(t, '/pipeline/sell', 'before-reset', dealBody());
    assert.equal(soldAgain.headers.get('idempotent-replayed'), null, 'the reset forgot the key');
    assert.notEqual(soldAgain.text, sold.text);
  });

  it('keys are kept 24 hours of real time: the demo clock does not age them', async () => {
    const first = await post(t, '/pipeline/deals', 'aging', dealBody());
    await t.post('/demo/clock', { advanceHours: 48 });
    assert.equal(
      (await post(t, '/pipeline/deals', 'aging', dealBody())).text,
      first.text,
      'demo time is not real time',
    );
    now += 24 * 3_600_000 - 1;
    assert.equal((await post(t, '/pipeline/deals', 'aging', dealBody())).text, first.text, 'still inside 24 hours');
    now += 1;
    await t.post('/demo/clock', { advanceHours: 0 }); // runs the timers, which purge old answers
    const kept = await t.server.store.transaction((uow) => uow.getAnswer('aging'));
    assert.equal(kept, undefined, 'purged by the timers');
    const after24h = await post(t, '/pipeline/deals', 'aging', dealBody());
    assert.equal(after24h.status, 201);
    assert.equal(after24h.headers.get('idempotent-replayed'), null, 'forgotten after 24 hours');
    assert.equal((await health(t)).deals, 2);
  });

  it('the demo MCP door takes keys as tool arguments: the header there is refused', async () => {
    const response = await fetch(`${t.url}/demo/mcp`, {
      method: 'POST',
      headers: { ...keyed('mcp'), accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(response.status, 400);
    assert.equal((await response.json()).code, 'IDEMPOTENCY_KEY_INVALID');
  });

  it('a claim retried after it won answers the win, not 409 GIG_NOT_OPEN', async () => {
    const { gig } = await claimedCloserGig(t, ADA);
    const again: Answer = await t.post(`/closers/gigs/${gig.id}/claim`, { closerId: ADA });
    assertError(again, 409, 'GIG_NOT_OPEN');
    const escalated = await openCloserGig(t, { mandate: HUMAN_CLOSER });
    const won = await post(t, `/closers/gigs/${escalated.gig.id}/claim`, 'claim-once', { closerId: ADA });
    const retried = await post(t, `/closers/gigs/${escalated.gig.id}/claim`, 'claim-once', { closerId: ADA });
    assert.equal(won.status, 200);
    assert.equal(retried.status, 200);
    assert.equal(retried.text, won.text);
  });
});
