// D-201: a body may nest objects and arrays at most 32 levels deep. A deal whose mandate nests
// 30,000 levels deep (60 KB, under the size limit) was answered 500 with an Idempotency-Key
// (the key's fingerprint walks the body level by level, without a bound) and 422 without one.
// It is refused where bodies are parsed, for every route, before the key or the schema see it:
// 400 BODY_TOO_DEEP, with or without a key, and nothing changes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_BODY_DEPTH } from '../../src/http/json-body.ts';
import { ERRORS } from '../../src/views/errors.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { assertError, createDeal, dealBody, fixedClock } from '../support/marketplace-e2e.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** `[[…]]`, `levels` levels. */
const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** `{"a":[[…]]}`: an object holding arrays, `levels` levels in all. */
const nested = (levels: number) => `{"a":${arrays(levels - 1)}}`;
/** A deal whose mandate (left to the domain's checks, 422) nests `levels` levels in all. */
const deepMandate = (levels: number) => `${JSON.stringify(dealBody()).slice(0, -1)},"mandate":${arrays(levels - 1)}}`;

describe('a body nested too deep (D-201)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock: fixedClock });
  });
  after(async () => {
    await t.close();
  });

  it('30,000 levels: 400 BODY_TOO_DEEP with and without an Idempotency-Key, nothing changed', async () => {
    const kept = await createDeal(t);
    const refused: [string, string][] = [
      [`${t.prefix}/deals`, deepMandate(30_000)],
      [`${t.prefix}/sell`, deepMandate(30_000)],
      [`${t.prefix}/deals`, nested(30_000)],
      [`${t.prefix}/deals/${kept.id}/advance`, nested(30_000)],
      ['/closers/closers', nested(30_000)],
    ];
    for (const [path, body] of refused) {
      for (const headers of [{ ...JSON_HEADERS, 'idempotency-key': `deep-${path}` }, JSON_HEADERS]) {
        const error = assertError(await t.raw('POST', path, body, headers), 400, 'BODY_TOO_DEEP');
        assert.match(error.error, new RegExp(`more than ${MAX_BODY_DEPTH} levels`));
      }
    }
    const deals = await t.get(`${t.prefix}/deals`);
    assert.deepEqual(
      deals.body.map((deal: { id: string }) => deal.id),
      [kept.id],
    );
    assert.deepEqual((await t.get('/closers/closers')).body, (await t.get('/closers/closers')).body);
    assert.equal((await t.get(`${t.prefix}/deals/${kept.id}`)).body.version, kept.version);
    // The keys were never taken: each is a first request on a good body.
    const fresh = await t.post(`${t.prefix}/deals`, dealBody(), { 'idempotency-key': `deep-${t.prefix}/deals` });
    assert.equal(fresh.status, 201);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
  });

  it(`the limit is ${MAX_BODY_DEPTH} levels: one more is refused, the limit itself reaches the rules`, async () => {
    const key = { ...JSON_HEADERS, 'idempotency-key': 'deep-at-limit' };
    assertError(await t.raw('POST', `${t.prefix}/deals`, deepMandate(MAX_BODY_DEPTH + 1), key), 400, 'BODY_TOO_DEEP');
    // Parsed, then refused by the schema or the mandate's checks as any other such body.
    assertError(await t.raw('POST', `${t.prefix}/deals`, nested(MAX_BODY_DEPTH), JSON_HEADERS), 400, 'INVALID_BODY');
    const at = await t.raw('POST', `${t.prefix}/deals`, deepMandate(MAX_BODY_DEPTH), key);
    assertError(at, 422, 'MANDATE_OUT_OF_BOUNDS');
  });

  it('the catalogue states the limit the parser holds', () => {
    assert.match(ERRORS.BODY_TOO_DEEP.when, new RegExp(`more than ${MAX_BODY_DEPTH} levels`));
  });

  it('the MCP doors refuse it as their JSON-RPC parse error', async () => {
    const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sell","arguments":${nested(30_000)}}}`;
    for (const path of ['/mcp', '/demo/mcp']) {
      const answer = await t.raw('POST', path, call, {
        ...JSON_HEADERS,
        accept: 'application/json, text/event-stream',
      });
      assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.error.code, -32700);
      assert.match(answer.body.error.message, /levels deep/);
    }
  });
});
