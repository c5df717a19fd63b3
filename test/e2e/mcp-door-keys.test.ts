// The demo MCP door in keys mode (D-58, D-224, D-225), over a real keys-mode server and the MCP
// SDK's own client, as an agent host connects: any valid key opens the door, each tool acts as
// the key's principal with HTTP's visibility (D-54) and its operation's scope (D-53); tools/list
// shows a key the tools its scopes allow; a request without a valid key is 401 with a challenge
// naming the door's RFC 9728 metadata, served open at /.well-known/oauth-protected-resource.
// ROOT's /mcp stays keyless.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ALL_SCOPES } from '../../src/domain/access.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  as,
  bearer,
  dealBody,
  escalatedDeal,
  freshDeal,
  type KeysFixture,
  keysFixture,
  OP,
  startKeysServer,
  wrongKey,
} from '../support/keys.ts';

const MCP_ACCEPT = 'application/json, text/event-stream';
const LIST_TOOLS = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

/** The tools each kind of key is shown (D-225): those its scopes allow. */
const SHOWN = {
  operator: [
    'get_approval',
    'get_balance',
    'get_deal',
    'get_insights',
    'list_approvals',
    'list_deals',
    'list_events',
    'list_gigs',
    'list_proposals',
    'list_transfers',
    'run_payouts',
  ],
  seller: [
    'advance_deal',
    'edit_deal',
    'get_approval',
    'get_balance',
    'get_deal',
    'get_insights',
    'list_approvals',
    'list_deals',
    'list_events',
    'list_gigs',
    'list_proposals',
    'list_transfers',
    'refund_deal',
    'release_gig',
    'report_signals',
    'sell',
  ],
  agent: [
    'advance_deal',
    'get_approval',
    'get_balance',
    'get_deal',
    'get_insights',
    'list_approvals',
    'list_deals',
    'list_gigs',
    'list_proposals',
    'list_transfers',
    'report_signals',
  ],
  closer: [
    'advance_gig',
    'claim_gig',
    'get_balance',
    'get_deal',
    'get_insights',
    'list_deals',
    'list_events',
    'list_gigs',
    'list_proposals',
    'list_transfers',
    'release_gig',
    'revive_gig',
  ],
};

/** A tool result's body: structured content, or the JSON of an error result's text. */
function bodyOf(result: CallToolResult): any {
  if (!result.isError) return result.structuredContent;
  return JSON.parse((result.content as { text: string }[])[0].text);
}

describe('the demo MCP door in keys mode: any valid key, each tool as its principal', () => {
  let f: KeysFixture;
  let t: TestServer;
  const clients: Client[] = [];
  before(async () => {
    t = await startKeysServer();
    f = await keysFixture(t);
  });
  after(async () => {
    for (const client of clients) await client.close();
    await t.close();
  });

  /** An MCP client of the door with this key in the Authorization header, as a host sends it. */
  async function connect(key: string, path = '/demo/mcp'): Promise<Client> {
    const client = new Client({ name: 'e2e-mcp-door-keys', version: '0.0.0' });
    const requestInit = { headers: { authorization: `Bearer ${key}` } };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}${path}`), { requestInit }));
    clients.push(client);
    return client;
  }

  const post = (headers: Record<string, string>, path = '/demo/mcp') =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
      body: LIST_TOOLS,
    });

  it('without a key: 401 UNAUTHENTICATED, the challenge naming the metadata (RFC 9728); a wrong key adds invalid_token', async () => {
    const metadata = `resource_metadata="${t.url}/.well-known/oauth-protected-resource"`;
    const bare = await post({});
    assert.equal(bare.status, 401);
    assert.equal(bare.headers.get('www-authenticate'), `Bearer realm="sales-pipeline", ${metadata}`);
    assert.equal((await bare.json()).code, 'UNAUTHENTICATED');
    const basic = await post({ authorization: 'Basic dXNlcjpwYXNz' });
    assert.equal(basic.status, 401);
    assert.equal(basic.headers.get('www-authenticate'), `Bearer realm="sales-pipeline", ${metadata}`);
    await basic.body?.cancel();
    for (const key of [wrongKey(), wrongKey('sp_op_'), 'not-a-key-at-all']) {
      const wrong = await post(bearer(key));
      assert.equal(wrong.status, 401, key);
      assert.equal(
        wrong.headers.get('www-authenticate'),
        `Bearer realm="sales-pipeline", error="invalid_token", ${metadata}`,
      );
      assert.equal((await wrong.json()).code, 'INVALID_KEY');
    }
    // The origin is the request's own Host (fetch cannot set one: node:http can).
    const port = new URL(t.url).port;
    const aliased = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request(`${t.url}/demo/mcp`, {
        method: 'POST',
        headers: { host: `localhost:${port}`, 'content-type': 'application/json', accept: MCP_ACCEPT },
      });
      request.on('response', resolve).on('error', reject).end(LIST_TOOLS);
    });
    aliased.resume();
    assert.equal(aliased.statusCode, 401);
    assert.equal(
      aliased.headers['www-authenticate'],
      `Bearer realm="sales-pipeline", resource_metadata="http://localhost:${port}/.well-known/oauth-protected-resource"`,
    );
  });

  it('only the MCP door names the metadata: the other routes keep their challenge', async () => {
    for (const path of ['/keys', `${t.prefix}/deals`, '/events']) {
      const answer = await fetch(`${t.url}${path}`);
      assert.equal(answer.status, 401, path);
      assert.equal(answer.headers.get('www-authenticate'), 'Bearer realm="sales-pipeline"', path);
      await answer.body?.cancel();
    }
  });

  it('serves the Protected Resource Metadata open, at the well-known path and its path-suffixed form', async () => {
    const anyone = as(t, {});
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/demo/mcp']) {
      const answer = await anyone.get(path);
      assert.equal(answer.status, 200, path);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(answer.headers.get('access-control-allow-origin'), '*', 'readable from any origin');
      assert.deepEqual(answer.body, {
        resource: `${t.url}/demo/mcp`,
        bearer_methods_supported: ['header'],
        scopes_supported: [...ALL_SCOPES],
        resource_name: 'Sales pipeline demo MCP',
      });
      assert.equal((await anyone.get(path, bearer(wrongKey()))).status, 200, 'a wrong key changes nothing');
    }
    const scopes = (await anyone.get('/.well-known/oauth-protected-resource')).body.scopes_supported;
    for (const scope of ['deals:read', 'deals:write', 'deals:propose', 'gigs:read', 'gigs:work', 'admin']) {
      assert.ok(scopes.includes(scope), scope);
    }
    const contract = (await anyone.get('/openapi.json')).body;
    assert.ok(contract.paths['/.well-known/oauth-protected-resource'].get.operationId);
  });

  it('tools/list shows each key the tools its scopes allow', async () => {
    for (const [kind, key] of [
      ['operator', OP],
      ['seller', f.sellerA.key],
      ['agent', f.agentA.key],
      ['closer', f.closer1.key],
    ] as const) {
      const client = await connect(key);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), SHOWN[kind], kind);
    }
    const reader = await connect(f.readA.key);
    assert.deepEqual(
      (await reader.listTools()).tools.map((tool) => tool.name).sort(),
      [
        'get_approval',
        'get_balance',
        'get_deal',
        'get_insights',
        'list_approvals',
        'list_deals',
        'list_gigs',
        'list_proposals',
        'list_transfers',
      ],
      'a read-only key: the reads',
    );
  });

  it("an agent key reads, dry-runs and proposes on its Seller's deal; another Seller's deal is unknown, as over HTTP", async () => {
    const agent = await connect(f.agentA.key);
    await agent.listTools(); // the client then checks each structured result against its tool's schema
    const dealId = await freshDeal(t, f.sellerA.key, 'Agent-worked deal');

    const read = await agent.callTool({ name: 'get_deal', arguments: { id: dealId } });
    assert.equal(read.isError ?? false, false, JSON.stringify(read));
    assert.equal(bodyOf(read as CallToolResult).sellerId, f.A.sellerId);

    const listed = bodyOf((await agent.callTool({ name: 'list_deals', arguments: {} })) as CallToolResult);
    assert.ok(listed.deals.length > 0);
    assert.ok(
      listed.deals.every((deal: { sellerId: string }) => deal.sellerId === f.A.sellerId),
      "a list holds only its Seller's deals",
    );
    const viaHttp = await f.by(f.agentA).get(`${t.prefix}/deals?limit=100`);
    assert.deepEqual(
      listed.deals.map((deal: { id: string }) => deal.id),
      viaHttp.body.map((deal: { id: string }) => deal.id),
      'the same list as GET /deals',
    );

    const dry = await agent.callTool({ name: 'advance_deal', arguments: { id: dealId, dryRun: true } });
    assert.equal(dry.isError ?? false, false, JSON.stringify(dry));
    const after = bodyOf((await agent.callTool({ name: 'get_deal', arguments: { id: dealId } })) as CallToolResult);
    assert.equal(after.stage, 'sourced', 'a dry run changes nothing');

    const advanced = await agent.callTool({ name: 'advance_deal', arguments: { id: dealId, idempotencyKey: 'ag-1' } });
    assert.equal(advanced.isError ?? false, false, JSON.stringify(advanced));
    assert.equal(bodyOf(advanced as CallToolResult).stage, 'qualified');
    const signals = await agent.callTool({ name: 'report_signals', arguments: { id: dealId, signals: ['budget_ok'] } });
    assert.equal(signals.isError ?? false, false, JSON.stringify(signals));
    const stored = await f.by(f.sellerA).get(`${t.prefix}/deals/${dealId}`);
    assert.equal(stored.body.stage, 'qualified');
    assert.ok(stored.body.signals.includes('budget_ok'));

    // Seller B's deal: the very 404 HTTP answers the agent's key, reading or proposing.
    const foreign = f.B.escalatedDealId;
    const overHttp = await f.by(f.agentA).get(`${t.prefix}/deals/${foreign}`);
    assert.equal(overHttp.status, 404);
    for (const [name, args] of [
      ['get_deal', { id: foreign }],
      ['advance_deal', { id: foreign, dryRun: true }],
      ['report_signals', { id: foreign, signals: ['x'] }],
    ] as const) {
      const result = (await agent.callTool({ name, arguments: args })) as CallToolResult;
      assert.equal(result.isError, true, name);
      assert.deepEqual(bodyOf(result), overHttp.body, name);
      assert.equal(bodyOf(result).code, 'DEAL_NOT_FOUND', name);
    }
    const ghost = await agent.callTool({ name: 'get_deal', arguments: { id: 'deal_9999' } });
    assert.equal(bodyOf(ghost as CallToolResult).code, 'DEAL_NOT_FOUND', 'as a deal that does not exist');
  });

  it('a tool the key is not shown still answers its call: INSUFFICIENT_SCOPE, nothing made', async () => {
    const agent = await connect(f.agentA.key);
    // Keys mode's /health has no counts (D-3): the operator counts the deals.
    const deals = async () => (await f.by(OP).get(`${t.prefix}/deals?limit=1000`)).body.length;
    const before = await deals();
    const sold = (await agent.callTool({
      name: 'sell',
      arguments: dealBody('Not sold by an agent'),
    })) as CallToolResult;
    assert.equal(sold.isError, true);
    assert.equal(bodyOf(sold).code, 'INSUFFICIENT_SCOPE');
    assert.equal(bodyOf(sold).requiredScope, 'deals:write');
    const created = (await agent.callTool({ name: 'claim_gig', arguments: { id: f.A.openGigId } })) as CallToolResult;
    assert.equal(bodyOf(created).code, 'INSUFFICIENT_SCOPE');
    assert.equal(bodyOf(created).requiredScope, 'gigs:work');
    assert.equal(await deals(), before, 'no deal was made');
    const gig = await f.by(f.sellerA).get(`/closers/gigs/${f.A.openGigId}`);
    assert.equal(gig.body.status, 'open', 'no gig was claimed');
  });

  it('a Seller key sells as itself; a closer key claims as itself and works the gig', async () => {
    const seller = await connect(f.sellerB.key);
    const sold = (await seller.callTool({ name: 'sell', arguments: dealBody('Sold through MCP') })) as CallToolResult;
    assert.equal(sold.isError ?? false, false, JSON.stringify(sold));
    const dealId = bodyOf(sold).deal?.id ?? bodyOf(sold).id;
    assert.equal((await f.by(f.sellerB).get(`${t.prefix}/deals/${dealId}`)).body.sellerId, f.B.sellerId);

    const { gigId } = await escalatedDeal(t, f.sellerA.key, 'Claimed through MCP');
    const closer = await connect(f.closer2.key);
    const claimed = (await closer.callTool({ name: 'claim_gig', arguments: { id: gigId } })) as CallToolResult;
    assert.equal(claimed.isError ?? false, false, JSON.stringify(claimed));
    assert.equal(bodyOf(claimed).gig?.closerId ?? bodyOf(claimed).closerId, f.closer2.principal);
    const mine = (await closer.callTool({
      name: 'list_gigs',
      arguments: { closerId: f.closer2.principal },
    })) as CallToolResult;
    assert.ok(bodyOf(mine).gigs.some((gig: { id: string }) => gig.id === gigId));
    // Another closer's gig (closer 1 won Seller A's) is one it does not see: unknown.
    const other = (await closer.callTool({ name: 'get_deal', arguments: { id: f.A.wonDealId } })) as CallToolResult;
    assert.equal(bodyOf(other).code, 'DEAL_NOT_FOUND');
  });

  it("ROOT's /mcp stays keyless in keys mode", async () => {
    const client = new Client({ name: 'e2e-root-mcp', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    clients.push(client);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['getDeal', 'listDeals', 'listGigs']);
    const listed = (await client.callTool({ name: 'listDeals', arguments: { limit: 1 } })) as CallToolResult;
    assert.equal(listed.isError ?? false, false);
    assert.equal(bodyOf(listed).type, 'OK');
    const bare = await post({}, '/mcp');
    assert.equal(bare.status, 200);
    assert.equal(bare.headers.get('www-authenticate'), null);
    await bare.body?.cancel();
  });
});

describe('the demo MCP door in the demo: no key, every tool, no metadata', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('lists every tool without a key, and the metadata paths are no routes (404)', async () => {
    const client = new Client({ name: 'e2e-demo-door', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/demo/mcp`)));
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.length, 18);
    } finally {
      await client.close();
    }
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/demo/mcp']) {
      const answer = await t.get(path);
      assert.equal(answer.status, 404, path);
      assert.equal(answer.body.code, 'ROUTE_NOT_FOUND');
    }
  });
});
