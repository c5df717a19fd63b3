// Both doors of the demo answer one operation alike, since both are made from the one table of
// operations (src/operations/table.ts): the same input gets the same status, the same code, the
// same violations and the same gate message over HTTP and over MCP, and an Idempotency-Key is
// one request whichever door sent it (D-37), a query string or none. In keys mode both refuse a
// credential and a missing scope in the words of one writer (src/views/authorization-refusals.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { authorizeCaller } from '../../src/domain/authorization.ts';
import { type Operation, pathOf } from '../../src/operations/operation.ts';
import { OPERATIONS, TOOL_OPERATIONS } from '../../src/operations/table.ts';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { bearer, callerOf, type KeysFixture, keysFixture, startKeysServer, wrongKey } from '../support/keys.ts';

type ToolResult = Awaited<ReturnType<Client['callTool']>>;

/** What a tool answered, as HTTP would: a status-free body (structured content or the error body). */
function bodyOf(result: ToolResult): unknown {
  const block = (result.content as { type: string; text?: string }[]).find((c) => c.type === 'text');
  return JSON.parse(block?.text ?? 'null');
}

/** An answer without what differs from call to call by design (times, the ids a create takes). */
const comparable = (value: unknown) =>
  JSON.parse(JSON.stringify(value, (key, item) => (key === 'at' || key === 'createdAt' ? undefined : item)));

describe('both doors answer one operation alike', () => {
  let server: TestServer;
  let client: Client;

  before(async () => {
    server = await startTestServer();
    client = new Client({ name: 'doors-alike', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/demo/mcp`)));
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  const sellBody = (overrides: Record<string, unknown> = {}) => ({
    account: account(),
    listValueUsd: 20_000,
    mandate: { staffing: { closer: 'human' } },
    ...overrides,
  });

  it('every tool stands for an operation of the table, named after it', () => {
    const names = new Set(TOOL_OPERATIONS.map((op) => op.tool?.name));
    assert.equal(names.size, TOOL_OPERATIONS.length, 'one tool per operation');
    for (const op of OPERATIONS) assert.ok(op.scope, `${op.id} declares the scope a caller needs`);
  });

  it('refusals: the same status, code, violations and gate message through either door', async () => {
    const sold = await server.post(`${server.prefix}/sell`, sellBody());
    assert.equal(sold.status, 201);
    const dealId = sold.body.deal.id as string;
    const gigId = sold.body.gig.id as string;
    const created = await server.post(`${server.prefix}/deals`, { account: account(), listValueUsd: 5_000 });
    const fresh = created.body.id as string;
    // Each case: the HTTP request, then the tool call that stands for it.
    const cases: [string, unknown, Record<string, unknown>, string, Record<string, unknown>][] = [
      [
        'sell: a mandate out of bounds',
        `${server.prefix}/sell`,
        sellBody({ mandate: { commissionPct: 0.5 } }),
        'sell',
        sellBody({ mandate: { commissionPct: 0.5 } }),
      ],
      [
        'sell: a wrong type',
        `${server.prefix}/sell`,
        sellBody({ listValueUsd: 'lots' }),
        'sell',
        sellBody({ listValueUsd: 'lots' }),
      ],
      ['advance: an unknown deal', `${server.prefix}/deals/deal_9999/advance`, {}, 'advance_deal', { id: 'deal_9999' }],
      [
        'advance: a skip the gate refuses',
        `${server.prefix}/deals/${fresh}/advance`,
        { advanceTo: 'closed_won' },
        'advance_deal',
        { id: fresh, advanceTo: 'closed_won' },
      ],
      [
        'signals: a malformed signal',
        `${server.prefix}/deals/${dealId}/signals`,
        { signals: ['Not A Signal'] },
        'report_signals',
        { id: dealId, signals: ['Not A Signal'] },
      ],
      [
        'claim: an unknown closer',
        `/closers/gigs/${gigId}/claim`,
        { closerId: 'closer_9999' },
        'claim_gig',
        { id: gigId, closerId: 'closer_9999' },
      ],
      [
        'advance a gig nobody claimed',
        `/closers/gigs/${gigId}/advance`,
        { advanceTo: 'proposal' },
        'advance_gig',
        { id: gigId, advanceTo: 'proposal' },
      ],
      [
        'release: an unknown field',
        `/closers/gigs/${gigId}/release`,
        { closer: 'x' },
        'release_gig',
        { id: gigId, closer: 'x' },
      ],
    ];
    for (const [what, path, body, tool, args] of cases) {
      const http = await server.post(path as string, body);
      const mcp = await client.callTool({ name: tool, arguments: args });
      assert.ok(http.status >= 400, `${what}: refused over HTTP (${http.status})`);
      assert.equal(mcp.isError, true, `${what}: refused over MCP`);
      const [overHttp, overMcp] = [http.body, bodyOf(mcp)] as { code: string; violations?: string[] }[];
      assert.equal(overMcp.code, overHttp.code, `${what}: the same code`);
      if (overHttp.code === 'INVALID_BODY') {
        // The words name the request's part: HTTP's body, MCP's arguments; the breaches are the same.
        const unframed = (v: string[] = []) => v.map((line) => line.replace(/^(body|arguments)[./]?/, ''));
        assert.deepEqual(unframed(overMcp.violations), unframed(overHttp.violations), `${what}: the same violations`);
      } else {
        assert.deepEqual(overMcp, overHttp, `${what}: the same body, gate message included`);
      }
    }
  });

  it('a sell answers the same records through either door', async () => {
    const http = await server.post(`${server.prefix}/sell`, sellBody({ mandate: {} }));
    const mcp = await client.callTool({ name: 'sell', arguments: sellBody({ mandate: {} }) });
    assert.equal(http.status, 201);
    const overMcp = bodyOf(mcp) as { id: string };
    const { id: _httpId, ...httpDeal } = comparable(http.body);
    const { id: _mcpId, ...mcpDeal } = comparable(overMcp);
    assert.deepEqual(mcpDeal, httpDeal);
  });

  it('a key sent over HTTP with ?dryRun=false, then over MCP, is one request: replayed, not a reused key', async () => {
    const body = sellBody({ mandate: {} });
    const first = await server.post(`${server.prefix}/sell?dryRun=false`, body, { 'idempotency-key': 'doors-1' });
    assert.equal(first.status, 201);
    const again = await client.callTool({ name: 'sell', arguments: { ...body, idempotencyKey: 'doors-1' } });
    assert.notEqual(again.isError, true, JSON.stringify(again.content));
    assert.deepEqual(bodyOf(again), first.body, 'the stored answer, replayed');
    const plain = await server.post(`${server.prefix}/sell`, body, { 'idempotency-key': 'doors-1' });
    assert.equal(plain.headers.get('idempotent-replayed'), 'true', 'no query string is the same request');
    assert.deepEqual(plain.body, first.body);
    const deals = await server.get(`${server.prefix}/deals?limit=1000`);
    assert.equal(deals.body.filter((d: { id: string }) => d.id === first.body.id).length, 1, 'sold once');
  });

  it('a key sent over MCP first is replayed over HTTP, and refused there for another body', async () => {
    const body = sellBody({ mandate: {} });
    const first = await client.callTool({ name: 'sell', arguments: { ...body, idempotencyKey: 'doors-2' } });
    const replayed = await server.post(`${server.prefix}/sell?dryRun=false`, body, { 'idempotency-key': 'doors-2' });
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replayed.body, bodyOf(first));
    const other = await server.post(
      `${server.prefix}/sell`,
      { ...body, listValueUsd: 1 },
      { 'idempotency-key': 'doors-2' },
    );
    assert.equal(other.status, 422);
    assert.equal(other.body.code, 'IDEMPOTENCY_KEY_REUSED');
  });
});

describe('keys mode: both doors refuse a credential and a scope in the same words (D-55)', () => {
  let t: TestServer;
  let f: KeysFixture;
  const clients: Client[] = [];
  before(async () => {
    t = await startKeysServer();
    f = await keysFixture(t);
  });
  after(async () => {
    for (const c of clients) await c.close();
    await t.close();
  });

  async function connect(key: string): Promise<Client> {
    const c = new Client({ name: 'doors-alike-keys', version: '0.0.0' });
    const requestInit = { headers: { authorization: `Bearer ${key}` } };
    await c.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/demo/mcp`), { requestInit }));
    clients.push(c);
    return c;
  }

  /** An operation's HTTP request, its path ids filled with an id of the right kind. */
  const httpPath = (op: Operation) =>
    pathOf(op, t.prefix).replace('{id}', op.path.startsWith('/gigs') ? 'gig_0001' : 'deal_0001');

  it('every tool a key lacks the scope of: the HTTP 403 and the tool result are the same body', async () => {
    let compared = 0;
    for (const info of [f.operator, f.sellerA, f.agentA, f.readA, f.closer1, f.closerRead]) {
      const mcp = await connect(info.key);
      for (const op of TOOL_OPERATIONS) {
        if (authorizeCaller(callerOf(info), op.scope).ok) continue;
        const overHttp = await fetch(`${t.url}${httpPath(op)}`, {
          method: op.method,
          headers: { ...bearer(info.key), ...(op.method === 'POST' ? { 'content-type': 'application/json' } : {}) },
          ...(op.method === 'POST' ? { body: '{}' } : {}),
        });
        const tool = (await mcp.callTool({ name: op.tool?.name as string, arguments: {} })) as ToolResult;
        const what = `${info.principal} ${info.scopes.join(' ')}: ${op.id}`;
        assert.equal(overHttp.status, 403, what);
        assert.equal(tool.isError, true, what);
        const body = await overHttp.json();
        assert.equal(body.code, 'INSUFFICIENT_SCOPE', what);
        assert.deepEqual(bodyOf(tool), body, `${what}: the same words through either door`);
        compared++;
      }
    }
    assert.ok(compared >= 20, `${compared} refusals compared`);
  });

  it('no key, not a bearer key, a wrong key: the MCP door answers as every route, the same body', async () => {
    const op = TOOL_OPERATIONS.find((o) => o.id === 'listDeals') as Operation;
    for (const headers of [{}, { authorization: 'Basic dXNlcjpwYXNz' }, bearer(wrongKey())] as Record<
      string,
      string
    >[]) {
      const overHttp = await fetch(`${t.url}${httpPath(op)}`, { headers });
      const door = await fetch(`${t.url}/demo/mcp`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(door.status, overHttp.status, JSON.stringify(headers));
      assert.equal(door.status, 401);
      assert.deepEqual(await door.json(), await overHttp.json(), JSON.stringify(headers));
    }
  });
});
