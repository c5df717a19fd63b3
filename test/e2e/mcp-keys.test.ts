// The demo's MCP door in keys mode (D-58): it takes any valid key, and each tool is held to its
// operation's scope as its HTTP route is, so the operator's key cannot sell through a tool any
// more than through POST {prefix}/sell; its tools speak of the deployment's live records, not of
// a demo (D-269). test/e2e/mcp-door-keys.test.ts covers each kind of key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type DemoContext, KEYS_TOOLS } from '../../src/mcp/operation-tools.ts';
import { account, startTestServer, type TestServer } from '../support/http.ts';

const OPERATOR_KEY = 'mcp-keys-operator-key-0123456789abcdefghijklmn';

describe('the demo MCP door in keys mode', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ config: { auth: 'keys', operatorKey: OPERATOR_KEY } });
  });
  after(() => t.close());

  async function connect(key?: string): Promise<Client> {
    const client = new Client({ name: 'e2e-mcp-keys', version: '0.0.0' });
    const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/demo/mcp`), { requestInit: { headers } }));
    return client;
  }

  it('refuses a request without a key (401, naming its metadata) and serves a Seller key', async () => {
    const bare = await fetch(`${t.url}/demo/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(bare.status, 401);
    assert.equal(
      bare.headers.get('www-authenticate'),
      `Bearer realm="sales-pipeline", resource_metadata="${t.url}/.well-known/oauth-protected-resource"`,
    );
    const op = { authorization: `Bearer ${OPERATOR_KEY}`, 'content-type': 'application/json' };
    const seller = await (
      await fetch(`${t.url}/sellers`, { method: 'POST', headers: op, body: '{"name":"M"}' })
    ).json();
    const key = await (
      await fetch(`${t.url}/keys`, {
        method: 'POST',
        headers: op,
        body: JSON.stringify({ name: 'm', principal: seller.id }),
      })
    ).json();
    const served = await fetch(`${t.url}/demo/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${key.key}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(served.status, 200);
    const listed = (await served.json()) as { result: { tools: { name: string }[] } };
    assert.ok(
      listed.result.tools.some((tool) => tool.name === 'sell'),
      "a Seller's key is shown sell",
    );
  });

  it("speaks of the deployment's live records, never of a demo store, a demo reset or fictional data (D-269)", async () => {
    const client = await connect(OPERATOR_KEY);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.length >= 5, 'the operator is shown the reads');
      const instructions = client.getInstructions() ?? '';
      assert.match(
        instructions,
        /^The sales pipeline service of this deployment: these tools read and change its live/,
      );
      assert.doesNotMatch(instructions, /\bdemo\b|fictional|reset/i);
      for (const tool of tools) {
        assert.doesNotMatch(tool.title ?? '', /demo/i, tool.name);
        assert.match(tool.title ?? '', /^[A-Z]/, `${tool.name}: a title of its own`);
        assert.match(tool.description ?? '', /^Live records of this deployment \(real data/, tool.name);
        assert.match(tool.description ?? '', /each call acts as its key's principal/, tool.name);
        assert.doesNotMatch(tool.description ?? '', /\bdemo\b|fictional|reset/i, tool.name);
      }
      assert.equal(tools.find((tool) => tool.name === 'list_deals')?.title, 'List deals');
      // Every tool of keys mode, those the operator is not shown too.
      for (const tool of KEYS_TOOLS.map((each) => each.describe({ prefix: t.prefix } as DemoContext))) {
        assert.match(tool.description ?? '', /^Live records of this deployment/, tool.name);
        assert.doesNotMatch(`${tool.title} ${tool.description}`, /\bdemo\b|fictional|reset/i, tool.name);
      }
    } finally {
      await client.close();
    }
  });

  it("holds each tool to its operation's scope: the operator reads, but cannot sell", async () => {
    const client = await connect(OPERATOR_KEY);
    try {
      const listed = await client.callTool({ name: 'list_deals', arguments: {} });
      assert.equal(listed.isError ?? false, false, JSON.stringify(listed));
      const sold = await client.callTool({
        name: 'sell',
        arguments: { account: account(), listValueUsd: 1000 },
      });
      assert.equal(sold.isError, true);
      const body = JSON.parse((sold.content as { text: string }[])[0].text) as { code: string; requiredScope: string };
      assert.equal(body.code, 'INSUFFICIENT_SCOPE');
      assert.equal(body.requiredScope, 'deals:write');
      // Keys mode's /health has no counts (D-3): the operator's list of every deal.
      const deals = await (
        await fetch(`${t.url}${t.prefix}/deals`, { headers: { authorization: `Bearer ${OPERATOR_KEY}` } })
      ).json();
      assert.deepEqual(deals, [], 'no deal was made');
    } finally {
      await client.close();
    }
  });
});
