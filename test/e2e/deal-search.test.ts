// Finding deals (D-67): `GET {prefix}/deals?q=` answers the deals whose account name contains the
// text, without regard to case, with every other filter and the paging; `q` is 1 to 100
// characters. In keys mode a Seller finds only its own deals (D-54), and the MCP tool takes `q`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, type KeysFixture, keysFixture, startKeysServer } from '../support/keys.ts';
import { demoMcp } from '../support/mcp-client.ts';

describe('finding deals by their account name (D-67)', () => {
  let t: TestServer;
  const made: Record<string, string> = {};
  before(async () => {
    t = await startTestServer();
    for (const name of ['Acme Search Fictional', 'Globex Search Fictional', 'ACME Search Labs']) {
      const created = await t.post(`${t.prefix}/deals`, { account: account({ name }), listValueUsd: 10_000 });
      assert.equal(created.status, 201);
      made[name] = created.body.id;
    }
  });
  after(() => t.close());

  const ids = async (query: string) => {
    const answer = await t.get(`${t.prefix}/deals?${query}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return (answer.body as { id: string }[]).map((deal) => deal.id);
  };

  it('contains, without regard to case, with the other filters and the paging', async () => {
    const acme = [made['Acme Search Fictional'], made['ACME Search Labs']];
    assert.deepEqual(await ids('q=acme%20search'), acme);
    assert.deepEqual(await ids('q=ACME&stage=sourced'), acme);
    assert.deepEqual(await ids('q=acme&stage=negotiation'), []);
    assert.deepEqual(await ids('q=acme&limit=1'), [acme[0]]);
    const first = await t.get(`${t.prefix}/deals?q=acme&limit=1`);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    assert.ok(next, 'a next page');
    assert.deepEqual(
      ((await t.get(next.replace(/^https?:\/\/[^/]+/, ''))).body as { id: string }[]).map((d) => d.id),
      [acme[1]],
    );
    assert.deepEqual(await ids('q=initech'), []);
  });

  it('q is 1 to 100 characters: otherwise 400 INVALID_QUERY, naming it', async () => {
    for (const query of ['q=', `q=${'a'.repeat(101)}`, 'q=a&q=b']) {
      const answer = await t.get(`${t.prefix}/deals?${query}`);
      assert.equal(answer.status, 400, query);
      assert.equal(answer.body.code, 'INVALID_QUERY', query);
      assert.match(answer.body.violations.join('\n'), /q/, query);
    }
    assert.equal((await t.get(`${t.prefix}/deals?q=${'a'.repeat(100)}`)).status, 200);
  });

  it('the MCP tool list_deals takes q, as HTTP does', async () => {
    const mcp = await demoMcp(t, 'e2e-deal-search');
    try {
      const result = await mcp.call('list_deals', { q: 'globex' });
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      const found = (result.structuredContent as { deals: { id: string }[] }).deals.map((d) => d.id);
      assert.deepEqual(found, [made['Globex Search Fictional']]);
    } finally {
      await mcp.client.close();
    }
  });
});

describe('finding deals in keys mode: a Seller finds only its own (D-54, D-67)', () => {
  let t: TestServer;
  let f: KeysFixture;
  before(async () => {
    t = await startKeysServer();
    f = await keysFixture(t);
  });
  after(() => t.close());

  it("another Seller's deal of the same name is not found", async () => {
    const name = 'Twin Search Fictional';
    const ofA = await as(t, bearer(f.sellerA.key)).post(`${t.prefix}/deals`, {
      account: account({ name }),
      listValueUsd: 10_000,
    });
    const ofB = await as(t, bearer(f.sellerB.key)).post(`${t.prefix}/deals`, {
      account: account({ name }),
      listValueUsd: 10_000,
    });
    assert.equal(ofA.status, 201);
    assert.equal(ofB.status, 201);
    const found = await as(t, bearer(f.sellerA.key)).get(`${t.prefix}/deals?q=twin%20search`);
    assert.deepEqual(
      (found.body as { id: string }[]).map((d) => d.id),
      [ofA.body.id],
    );
    const all = await as(t, bearer(f.operator.key)).get(`${t.prefix}/deals?q=twin%20search`);
    assert.deepEqual(
      (all.body as { id: string }[]).map((d) => d.id),
      [ofA.body.id, ofB.body.id],
    );
  });
});
