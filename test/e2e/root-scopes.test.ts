// ROOT's reserved scopes (D-60, D-226, D-227), over a real keys-mode server and a demo server: in
// keys mode a Seller key carrying deals:read opens GET /deals?scope=tenant (its own live deals)
// and ?scope=settlement (the settlements of its deals closed won), in ROOT's envelopes marked
// sandbox: false; every other request to them stays 403 BLOCKED with a reason naming what opens
// them. ROOT stays read-only and open to every origin.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  as,
  assertUnchanged,
  bearer,
  type KeysFixture,
  keysFixture,
  makeKey,
  makeSeller,
  OP,
  snapshot,
  startKeysServer,
  wrongKey,
} from '../support/keys.ts';

const OPENS = 'a Seller key with deals:read in Authorization: Bearer, in keys mode';

/** A BLOCKED envelope for a reserved scope, its reason naming the scope and what opens it. */
function assertBlocked(answer: { status: number; body: any }, scope: string, what: string) {
  assert.equal(answer.status, 403, `${what}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body.type, 'BLOCKED', what);
  assert.equal(answer.body.sandbox, true, what);
  assert.ok(answer.body.reason.includes(scope), `${what}: the reason names the scope`);
  assert.ok(answer.body.reason.includes(OPENS), `${what}: the reason names what opens it: ${answer.body.reason}`);
  assert.equal(answer.body.deals, undefined, what);
  assert.equal(answer.body.settlements, undefined, what);
}

describe("ROOT's reserved scopes in keys mode", () => {
  let t: TestServer;
  let f: KeysFixture;
  before(async () => {
    t = await startKeysServer();
    f = await keysFixture(t);
  });
  after(() => t.close());

  it("scope=tenant answers a Seller key's own live deals, as its own GET /deals lists them", async () => {
    for (const key of [f.sellerA, f.agentA, f.readA]) {
      const answer = await f.by(key).get('/deals?scope=tenant');
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.type, 'OK');
      assert.equal(answer.body.sandbox, false, 'live records, not sandbox data');
      assert.match(answer.body.label, new RegExp(`${f.A.sellerId}.*not sandbox example data`));
      assert.equal(answer.body.total, undefined, 'no total (D-226)');
      assert.equal(answer.body.count, answer.body.deals.length);
      assert.equal(answer.body.nextCursor, undefined);
      const own = await f.by(f.sellerA).get(`${t.prefix}/deals?limit=100`);
      assert.deepEqual(answer.body.deals, own.body, "the demo's deal JSON of the same deals");
      assert.ok(answer.body.deals.length >= 2);
      for (const deal of answer.body.deals) {
        assert.equal(deal.sellerId, f.A.sellerId);
        assert.equal(deal.sandbox, undefined);
      }
      assert.equal(answer.headers.get('access-control-allow-origin'), '*', 'ROOT answers every origin');
      assert.equal(answer.headers.get('cache-control'), 'no-store');
      assert.match(answer.headers.get('vary') ?? '', /authorization/i);
    }
    const b = await f.by(f.sellerB).get('/deals?scope=tenant');
    assert.deepEqual(
      b.body.deals.map((deal: { id: string }) => deal.id),
      [f.B.escalatedDealId, f.B.wonDealId].sort(),
      "Seller B's own, never A's",
    );
  });

  it('scope=settlement answers the settlements of its deals closed won', async () => {
    const answer = await f.by(f.agentA).get('/deals?scope=settlement');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.type, 'OK');
    assert.equal(answer.body.sandbox, false);
    assert.equal(answer.body.count, 1);
    const settlement = await f.by(f.sellerA).get(`${t.prefix}/deals/${f.A.wonDealId}/settlement`);
    assert.equal(settlement.status, 200);
    assert.deepEqual(answer.body.settlements, [settlement.body]);
    assert.equal(answer.body.settlements[0].dealId, f.A.wonDealId);
  });

  it('filters and pages: stage and role filter the deals, limit and cursor walk them', async () => {
    const all = (await f.by(f.sellerA).get('/deals?scope=tenant')).body.deals.map((deal: { id: string }) => deal.id);
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await f.by(f.sellerA).get(`/deals?scope=tenant&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200);
      assert.equal(page.body.count, 1);
      walked.push(page.body.deals[0].id);
      cursor = page.body.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(walked, all);

    const won = await f.by(f.sellerA).get('/deals?scope=tenant&stage=closed_won');
    assert.deepEqual(
      won.body.deals.map((deal: { id: string }) => deal.id),
      [f.A.wonDealId],
    );
    for (const query of ['scope=tenant&stage=nowhere', 'scope=tenant&role=nobody', 'scope=settlement&stage=sourced']) {
      const empty = await f.by(f.sellerA).get(`/deals?${query}`);
      assert.equal(empty.status, 200, query);
      assert.equal(empty.body.type, 'EMPTY', query);
      assert.equal(empty.body.sandbox, false, query);
      assert.equal(typeof empty.body.message, 'string');
    }
    const bad = await f.by(f.sellerA).get('/deals?scope=tenant&cursor=bogus');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'INVALID_CURSOR');
    assert.equal((await f.by(f.sellerA).get('/deals?scope=tenant&limit=0')).status, 400);
  });

  it('a Seller with no deals: EMPTY, for both scopes', async () => {
    const sellerId = await makeSeller(t, 'Seller Without Deals (fictional)');
    const key = await makeKey(t, OP, { name: 'empty seller', principal: sellerId });
    for (const scope of ['tenant', 'settlement']) {
      const answer = await f.by(key).get(`/deals?scope=${scope}`);
      assert.equal(answer.status, 200, scope);
      assert.equal(answer.body.type, 'EMPTY', scope);
      assert.equal(answer.body.sandbox, false);
      assert.ok(answer.body.message.includes(sellerId));
    }
  });

  it('without a Seller key carrying deals:read both stay 403 BLOCKED, naming what opens them', async () => {
    const writer = await makeKey(t, f.sellerA.key, { name: 'writer of A', scopes: ['deals:write'] });
    const revoked = await makeKey(t, f.sellerA.key, { name: 'revoked reader', scopes: ['deals:read'] });
    assert.equal((await f.by(f.sellerA).post(`/keys/${revoked.id}/revoke`)).status, 200);
    const cases: [string, Record<string, string>][] = [
      ['no key', {}],
      ['a wrong key', bearer(wrongKey())],
      ['not a bearer key', { authorization: 'Basic dXNlcjpwYXNz' }],
      ['the operator', bearer(OP)],
      ['a closer', bearer(f.closer1.key)],
      ['a closer reader', bearer(f.closerRead.key)],
      ['a Seller key without deals:read', bearer(writer.key)],
      ['a revoked key', bearer(revoked.key)],
    ];
    for (const [what, headers] of cases) {
      for (const scope of ['tenant', 'settlement']) {
        const answer = await as(t, headers).get(`/deals?scope=${scope}`);
        assertBlocked(answer, scope, `${what}, ${scope}`);
        assert.equal(answer.headers.get('access-control-allow-origin'), '*');
        assert.match(answer.headers.get('vary') ?? '', /authorization/i, 'the answer varies with the key');
      }
    }
  });

  it("GET /gigs serves no tenant's records: its reserved scopes stay BLOCKED, sending the reader to GET /deals", async () => {
    for (const scope of ['tenant', 'settlement']) {
      const answer = await f.by(f.sellerA).get(`/gigs?scope=${scope}`);
      assert.equal(answer.status, 403);
      assert.equal(answer.body.type, 'BLOCKED');
      assert.ok(answer.body.reason.includes(`GET /deals?scope=${scope}`), answer.body.reason);
    }
  });

  it("ROOT's keyless /mcp serves no tenant's records either: listDeals answers BLOCKED, naming GET /deals", async () => {
    for (const scope of ['tenant', 'settlement']) {
      const response = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...bearer(f.sellerA.key),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'listDeals', arguments: { scope } },
        }),
      });
      const envelope = (await response.json()).result.structuredContent;
      assert.equal(envelope.type, 'BLOCKED', scope);
      assert.ok(envelope.reason.includes(`GET /deals opens it with ${OPENS}`), envelope.reason);
    }
  });

  it('a key changes nothing else on ROOT: the sandbox scope answers the same bytes, and nothing is written', async () => {
    // Keys mode's /health has no counts (D-3): the operator's reading of the feed and the counts.
    const before = await snapshot(t);
    const bare = await fetch(`${t.url}/deals`);
    const keyed = await fetch(`${t.url}/deals?scope=sandbox`, { headers: bearer(f.sellerA.key) });
    assert.equal(await keyed.text(), await bare.text());
    await f.by(f.sellerA).get('/deals?scope=tenant');
    await f.by(f.sellerA).get('/deals?scope=settlement');
    await assertUnchanged(t, before, 'ROOT read with a key');
    const write = await f.by(f.sellerA).post('/deals?scope=tenant', {});
    assert.equal(write.status, 405, 'ROOT stays read-only');
  });

  it('the contract documents the keyed scopes in keys mode', async () => {
    const contract = (await t.get('/openapi.json')).body;
    const op = contract.paths['/deals'].get;
    assert.match(op.description, /Seller key carrying deals:read/);
    const scope = op.parameters.find((p: { name: string }) => p.name === 'scope');
    assert.match(scope.description ?? scope.schema.description, /sandbox: false/);
  });
});

describe("ROOT's reserved scopes in the demo", () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('stay 403 BLOCKED whatever the request carries, naming what opens them', async () => {
    for (const headers of [{}, bearer(wrongKey()), bearer(OP)]) {
      for (const scope of ['tenant', 'settlement']) {
        const answer = await as(t, headers).get(`/deals?scope=${scope}`);
        assertBlocked(answer, scope, `demo, ${scope}`);
        assert.equal(answer.headers.get('vary'), null, 'the demo answers the same to every key');
      }
    }
  });
});
