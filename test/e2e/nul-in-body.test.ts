// D-200: no body string may hold U+0000. PostgreSQL cannot turn a JSON string holding \u0000 into
// text, so a stored deal with one in its name or a note made every query that looks inside the
// documents (`?role=…`, `?humanTrack=…`) answer 500 until the deal was gone, while memory answered
// 200. The character is refused where bodies are parsed, for every route and every store alike: 400
// NUL_CHARACTER naming the field, nothing stored, and the filters keep answering.
// Runs on memory by default and on PostgreSQL with TEST_STORE=postgres.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import { assertError, createDeal, dealBody, fixedClock } from '../support/marketplace-e2e.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
const NUL = '\u0000';

describe('a body string holding U+0000 (D-200)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock: fixedClock });
  });
  after(async () => {
    await t.close();
  });

  /** Every list that filters inside the stored documents answers, and the deals are the ones made. */
  async function listsAnswer(ids: string[]) {
    for (const query of [
      '',
      '?role=setter',
      '?role=closer',
      '?role=nurturer',
      '?humanTrack=true',
      '?humanTrack=false',
    ]) {
      const answer = await t.get(`${t.prefix}/deals${query}`);
      assert.equal(answer.status, 200, `${query}: ${JSON.stringify(answer.body)}`);
      for (const deal of answer.body) assert.ok(ids.includes(deal.id), `${query}: ${deal.id} was never made`);
    }
    const all = await t.get(`${t.prefix}/deals`);
    assert.deepEqual(
      all.body.map((deal: { id: string }) => deal.id),
      ids,
    );
  }

  it('is refused at the door, 400 NUL_CHARACTER naming the field, and nothing is stored', async () => {
    const kept = await createDeal(t);
    const refusals: [string, unknown, string][] = [
      [`${t.prefix}/deals`, dealBody({ account: { name: `Acme${NUL}Ltd` } }), 'account.name'],
      [`${t.prefix}/deals`, { ...dealBody(), [`x${NUL}`]: 1 }, `x\\u0000`],
      [`${t.prefix}/sell`, dealBody({ account: { industry: `saas${NUL}` } }), 'account.industry'],
      [`${t.prefix}/deals/${kept.id}/advance`, { note: `a note${NUL}` }, 'note'],
      ['/closers/closers', { name: `Ada${NUL}`, industries: ['saas'] }, 'name'],
      ['/closers/closers', { name: 'Ada', industries: ['saas', `fin${NUL}tech`] }, 'industries.1'],
    ];
    for (const [path, body, field] of refusals) {
      const answer = await t.raw('POST', path, JSON.stringify(body), JSON_HEADERS);
      const error = assertError(answer, 400, 'NUL_CHARACTER');
      assert.ok(error.error.includes(field), `${path}: the message names ${field}: ${error.error}`);
      // The same with an Idempotency-Key: refused before the key is looked at, nothing kept.
      const keyed = await t.raw('POST', path, JSON.stringify(body), { ...JSON_HEADERS, 'idempotency-key': 'nul-1' });
      assertError(keyed, 400, 'NUL_CHARACTER');
    }
    // Nothing changed: the one deal made, still at its first version, no closer enrolled.
    const deal = await t.get(`${t.prefix}/deals/${kept.id}`);
    assert.equal(deal.body.version, kept.version);
    assert.equal(deal.body.activity.length, kept.activity.length);
    await listsAnswer([kept.id]);
    // The key was never taken: the same key on a good body is a first request.
    const fresh = await t.post(`${t.prefix}/deals`, dealBody(), { 'idempotency-key': 'nul-1' });
    assert.equal(fresh.status, 201);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
    await listsAnswer([kept.id, fresh.body.id]);
  });

  it('the text "\\u0000" written out (an escaped backslash) is ordinary text, stored and listed', async () => {
    const deal = await createDeal(t, { account: { name: 'C:\\u0000 Ltd' } });
    assert.equal(deal.account.name, 'C:\\u0000 Ltd');
    const listed = await t.get(`${t.prefix}/deals?role=setter`);
    assert.equal(listed.status, 200);
    assert.ok(listed.body.some((d: { id: string }) => d.id === deal.id));
  });

  it('the demo MCP door refuses it too (a JSON-RPC parse error), so no tool stores one', async () => {
    const before = await t.get(`${t.prefix}/deals`);
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'sell', arguments: dealBody({ account: { name: `Mcp${NUL}Ltd` } }) },
    };
    const answer = await t.raw('POST', '/demo/mcp', JSON.stringify(call), {
      ...JSON_HEADERS,
      accept: 'application/json, text/event-stream',
    });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.equal(answer.body.jsonrpc, '2.0');
    assert.equal(answer.body.error.code, -32700);
    assert.match(answer.body.error.message, /U\+0000/);
    assert.match(answer.body.error.message, /params\.arguments\.account\.name/);
    const after = await t.get(`${t.prefix}/deals`);
    assert.deepEqual(after.body, before.body);
    const listed = await t.get(`${t.prefix}/deals?humanTrack=false`);
    assert.equal(listed.status, 200);
  });
});
