// Both MCP doors driven by the SDK's own client (D-33): the ROOT door over streamable HTTP answers
// the very envelopes of GET /deals, /deals/{id} and /gigs; the demo door answers the JSON of the
// deal service, refusals as error results with the HTTP error body; the same demo server runs
// over stdio as `pipeline mcp`, a real child process.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { account, startTestServer, type TestServer } from '../support/http.ts';

type ToolResult = Awaited<ReturnType<Client['callTool']>>;

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `node bin/pipeline.mjs ...args` from the repository root: exit code, stdout, stderr. */
async function pipeline(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['bin/pipeline.mjs', ...args], {
      cwd: REPO,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function httpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'e2e-mcp', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The first text block of a result. */
function textOf(result: ToolResult): string {
  const block = (result.content as { type: string; text?: string }[]).find((c) => c.type === 'text');
  assert.ok(block?.text !== undefined, 'the result has a text block');
  return block.text;
}

/** A normal result: its structured content, which the text block repeats as JSON. */
function structured(result: ToolResult): any {
  assert.notEqual(result.isError, true, `expected a result, got an error: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent, 'the result has structured content');
  assert.deepEqual(JSON.parse(textOf(result)), result.structuredContent, 'the text block is the same JSON');
  return result.structuredContent;
}

/** An error result: the JSON body its text block carries. */
function errorBody(result: ToolResult): any {
  assert.equal(result.isError, true, `expected an error result, got ${JSON.stringify(result.structuredContent)}`);
  return JSON.parse(textOf(result));
}

const query = (args: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();

describe('MCP over streamable HTTP: the ROOT door, POST /mcp', () => {
  let t: TestServer;
  let client: Client;
  before(async () => {
    t = await startTestServer();
    client = await httpClient(`${t.url}/mcp`);
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('lists exactly listDeals, getDeal and listGigs, each with a description, an input and an output schema', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['getDeal', 'listDeals', 'listGigs']);
    for (const tool of tools) {
      assert.ok(tool.description, `${tool.name} has a description`);
      assert.equal(tool.inputSchema.type, 'object', `${tool.name} input schema`);
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} output schema`);
      assert.ok(tool.outputSchema?.properties?.type, `${tool.name} output schema names the envelope type`);
    }
    const listDeals = tools.find((tool) => tool.name === 'listDeals');
    assert.deepEqual(Object.keys(listDeals?.inputSchema.properties ?? {}).sort(), [
      'cursor',
      'limit',
      'role',
      'scope',
      'stage',
    ]);
    const getDeal = tools.find((tool) => tool.name === 'getDeal');
    assert.deepEqual(getDeal?.inputSchema.required, ['id']);
  });

  it('listDeals answers the envelope GET /deals answers: OK, EMPTY for an unknown stage, BLOCKED for tenant', async () => {
    const cases: [Record<string, string | number>, string, number][] = [
      [{}, 'OK', 200],
      [{ stage: 'negotiation' }, 'OK', 200],
      [{ role: 'nurturer', limit: 1 }, 'OK', 200],
      [{ stage: 'no_such_stage' }, 'EMPTY', 200],
      [{ scope: 'sandbox', stage: 'closed_won' }, 'OK', 200],
      [{ scope: 'tenant' }, 'BLOCKED', 403],
      [{ scope: 'settlement' }, 'BLOCKED', 403],
      [{ scope: 'elsewhere' }, 'EMPTY', 200],
    ];
    for (const [args, type, status] of cases) {
      const http = await t.get(`/deals?${query(args)}`);
      assert.equal(http.status, status, `GET /deals?${query(args)}`);
      const envelope = structured(await client.callTool({ name: 'listDeals', arguments: args }));
      assert.equal(envelope.type, type, JSON.stringify(args));
      assert.equal(envelope.sandbox, true);
      assert.deepEqual(envelope, http.body, `listDeals ${JSON.stringify(args)} = GET /deals?${query(args)}`);
    }
  });

  it('listDeals pages with limit and cursor exactly as GET /deals does', async () => {
    const first = structured(await client.callTool({ name: 'listDeals', arguments: { limit: 2 } }));
    assert.equal(first.count, 2);
    assert.ok(first.nextCursor, 'a page that is not the last carries nextCursor');
    assert.deepEqual(first, (await t.get('/deals?limit=2')).body);
    const args = { limit: 2, cursor: first.nextCursor };
    const second = structured(await client.callTool({ name: 'listDeals', arguments: args }));
    assert.deepEqual(second, (await t.get(`/deals?${query(args)}`)).body);
    assert.notEqual(second.deals[0].id, first.deals[0].id);
  });

  it('getDeal answers the envelope of GET /deals/{id}, and EMPTY for an unknown id', async () => {
    const list = structured(await client.callTool({ name: 'listDeals', arguments: { stage: 'closed_won' } }));
    const id: string = list.deals[0].id;
    const found = structured(await client.callTool({ name: 'getDeal', arguments: { id } }));
    assert.equal(found.type, 'OK');
    assert.equal(found.deal.id, id);
    assert.deepEqual(found, (await t.get(`/deals/${id}`)).body);

    const missing = structured(await client.callTool({ name: 'getDeal', arguments: { id: 'deal_9999' } }));
    assert.equal(missing.type, 'EMPTY');
    const http = await t.get('/deals/deal_9999');
    assert.equal(http.status, 404);
    assert.deepEqual(missing, http.body);
  });

  it('listGigs answers the envelope of GET /gigs for every status and role, EMPTY for an unknown one', async () => {
    const cases: Record<string, string>[] = [
      {},
      { status: 'open' },
      { status: 'claimed' },
      { status: 'fulfilled' },
      { status: 'released' },
      { status: 'expired' },
      { role: 'setter' },
      { role: 'closer', status: 'fulfilled' },
      { role: 'nurturer' },
      { status: 'no_such_status' },
    ];
    for (const args of cases) {
      const envelope = structured(await client.callTool({ name: 'listGigs', arguments: args }));
      assert.equal(envelope.type, args.status === 'no_such_status' ? 'EMPTY' : 'OK', JSON.stringify(args));
      assert.deepEqual(envelope, (await t.get(`/gigs?${query(args)}`)).body, `listGigs ${JSON.stringify(args)}`);
    }
  });

  it('listGigs takes scope, limit and cursor as GET /gigs does: BLOCKED for tenant, pages with nextCursor', async () => {
    const cases: Record<string, string | number>[] = [
      { scope: 'sandbox' },
      { scope: 'tenant' },
      { scope: 'settlement', role: 'closer' },
      { scope: 'elsewhere' },
      { limit: 2 },
      { role: 'closer', limit: 1 },
    ];
    for (const args of cases) {
      const envelope = structured(await client.callTool({ name: 'listGigs', arguments: args }));
      assert.deepEqual(envelope, (await t.get(`/gigs?${query(args)}`)).body, `listGigs ${JSON.stringify(args)}`);
    }
    const first = structured(await client.callTool({ name: 'listGigs', arguments: { limit: 2 } }));
    assert.equal(first.count, 2);
    assert.ok(first.nextCursor, 'a page that is not the last carries nextCursor');
    const args = { limit: 2, cursor: first.nextCursor };
    const second = structured(await client.callTool({ name: 'listGigs', arguments: args }));
    assert.deepEqual(second, (await t.get(`/gigs?${query(args)}`)).body);
    assert.notEqual(second.gigs[0].id, first.gigs[0].id);
    const badLimit = await client.callTool({ name: 'listGigs', arguments: { limit: 101 } });
    assert.equal(badLimit.isError, true);
    assert.equal(
      errorBody(await client.callTool({ name: 'listGigs', arguments: { cursor: 'bogus' } })).code,
      'INVALID_CURSOR',
    );
  });

  it('an invalid argument is an error result with a clear message; a cursor never given out too', async () => {
    const badLimit = await client.callTool({ name: 'listDeals', arguments: { limit: 0 } });
    assert.equal(badLimit.isError, true);
    assert.match(textOf(badLimit), /limit/);

    const noId = await client.callTool({ name: 'getDeal', arguments: {} });
    assert.equal(noId.isError, true);
    assert.match(textOf(noId), /id/);

    const cursor = errorBody(await client.callTool({ name: 'listDeals', arguments: { cursor: 'bogus' } }));
    assert.equal(cursor.code, 'INVALID_CURSOR');
    assert.deepEqual(cursor, (await t.get('/deals?cursor=bogus')).body);
  });
});

describe('MCP over streamable HTTP: the demo door, POST /demo/mcp', () => {
  let t: TestServer;
  let client: Client;
  before(async () => {
    t = await startTestServer();
    client = await httpClient(`${t.url}/demo/mcp`);
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('lists exactly sell, get_deal and advance_deal, each with an input and an output schema', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['advance_deal', 'get_deal', 'sell']);
    for (const tool of tools) {
      assert.ok(tool.description, `${tool.name} has a description`);
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} output schema`);
    }
    const sell = tools.find((tool) => tool.name === 'sell');
    assert.deepEqual(sell?.inputSchema.required, ['account', 'listValueUsd']);
  });

  it('sell closes a deal, and get_deal answers it as GET {prefix}/deals/{id} does', async () => {
    const sold = structured(
      await client.callTool({ name: 'sell', arguments: { account: account(), listValueUsd: 12000 } }),
    );
    assert.equal(sold.stage, 'closed_won');
    assert.equal(sold.closedBy, 'agent');
    assert.equal(sold.finalValueUsd, 12000);
    const http = await t.get(`${t.prefix}/deals/${sold.id}`);
    assert.equal(http.status, 200);
    assert.deepEqual(sold, http.body, 'sell answers the deal as stored');

    const got = structured(await client.callTool({ name: 'get_deal', arguments: { id: sold.id } }));
    assert.deepEqual(got, http.body);
  });

  it('sell answers the escalation shape when the mandate staffs a human closer', async () => {
    const escalation = structured(
      await client.callTool({
        name: 'sell',
        arguments: { account: account(), listValueUsd: 50000, mandate: { staffing: { closer: 'human' } } },
      }),
    );
    assert.equal(escalation.escalated, true);
    assert.equal(escalation.role, 'closer');
    assert.equal(escalation.gig.status, 'open');
    assert.ok(escalation.suggestedClosers.length >= 1, 'the ranked pool of the seeded closers');
    assert.deepEqual(escalation.deal, (await t.get(`${t.prefix}/deals/${escalation.deal.id}`)).body);
  });

  it('advance_deal moves a deal one stage, as POST {prefix}/deals/{id}/advance would', async () => {
    const created = await t.post(`${t.prefix}/deals`, { account: account(), listValueUsd: 8000 });
    assert.equal(created.status, 201);
    const moved = structured(
      await client.callTool({ name: 'advance_deal', arguments: { id: created.body.id, note: 'over MCP' } }),
    );
    assert.equal(moved.stage, 'qualified');
    assert.match(moved.activity.at(-1).note, /over MCP$/);
    assert.deepEqual(moved, (await t.get(`${t.prefix}/deals/${created.body.id}`)).body);
  });

  it('refusals are error results carrying the body the HTTP API answers', async () => {
    const badMandate = { account: account(), listValueUsd: 1000, mandate: { commissionPct: 0.5 } };
    const mandate = errorBody(await client.callTool({ name: 'sell', arguments: badMandate }));
    assert.equal(mandate.code, 'MANDATE_OUT_OF_BOUNDS');
    const httpMandate = await t.post(`${t.prefix}/sell`, badMandate);
    assert.equal(httpMandate.status, 422);
    assert.deepEqual(mandate, httpMandate.body);

    const unknown = errorBody(await client.callTool({ name: 'get_deal', arguments: { id: 'deal_9999' } }));
    assert.equal(unknown.code, 'DEAL_NOT_FOUND');
    assert.deepEqual(unknown, (await t.get(`${t.prefix}/deals/deal_9999`)).body);

    const advanceUnknown = errorBody(await client.callTool({ name: 'advance_deal', arguments: { id: 'deal_9999' } }));
    assert.equal(advanceUnknown.code, 'DEAL_NOT_FOUND');

    // A refused proposal changes nothing, so HTTP refuses the same proposal with the same body.
    const created = await t.post(`${t.prefix}/deals`, { account: account(), listValueUsd: 8000 });
    const skip = { advanceTo: 'closed_won' };
    const gate = errorBody(
      await client.callTool({ name: 'advance_deal', arguments: { id: created.body.id, ...skip } }),
    );
    const httpGate = await t.post(`${t.prefix}/deals/${created.body.id}/advance`, skip);
    assert.equal(httpGate.status, 422);
    assert.ok(gate.gate, 'a gate refusal names the gate');
    assert.deepEqual(gate, httpGate.body);
  });

  it('an argument outside the input schema is an error result naming it', async () => {
    const result = await client.callTool({
      name: 'sell',
      arguments: { account: account({ actor: 'B2X' }), listValueUsd: 1000 },
    });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /actor/);
  });
});

describe('MCP over streamable HTTP: the transport', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  };
  const accept = { accept: 'application/json, text/event-stream' };

  it('is stateless: a JSON answer and no session id', async () => {
    for (const path of ['/mcp', '/demo/mcp']) {
      const answer = await t.post(path, initialize, accept);
      assert.equal(answer.status, 200, path);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(answer.headers.get('mcp-session-id'), null);
      assert.equal(answer.body.result.serverInfo.name, path === '/mcp' ? 'sales-pipeline-root' : 'sales-pipeline-demo');
    }
  });

  it('GET and DELETE answer 405 with a JSON error: no SSE stream, no session to end', async () => {
    for (const path of ['/mcp', '/demo/mcp']) {
      for (const method of ['GET', 'DELETE']) {
        const answer = await t.raw(method, path, undefined, accept);
        assert.equal(answer.status, 405, `${method} ${path}`);
        assert.equal(answer.body.code, 'METHOD_NOT_ALLOWED');
        assert.equal(typeof answer.body.error, 'string');
      }
    }
    const withBody = await t.raw('DELETE', '/demo/mcp', 'not json', { 'content-type': 'text/plain' });
    assert.equal(withBody.status, 405, 'refused before the body is read');
  });

  it('a body that is not JSON-RPC, or an Accept without event-stream, is a JSON-RPC error', async () => {
    const notRpc = await t.post('/mcp', { hello: 'world' }, accept);
    assert.equal(notRpc.status, 400);
    assert.equal(notRpc.body.jsonrpc, '2.0');
    assert.equal(typeof notRpc.body.error.code, 'number');

    const empty = await t.raw('POST', '/mcp', '', { 'content-type': 'application/json', ...accept });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.jsonrpc, '2.0');

    const jsonOnly = await t.post('/demo/mcp', initialize, { accept: 'application/json' });
    assert.equal(jsonOnly.status, 406);
  });

  it('both doors are in the index and the contract, with their operationIds', async () => {
    const index = await t.get('/');
    const entries = index.body.endpoints.filter((e: { method: string }) => e.method === 'POST');
    assert.ok(entries.some((e: any) => e.path === '/mcp' && e.surface === 'root' && e.summary));
    assert.ok(entries.some((e: any) => e.path === '/demo/mcp' && e.surface === 'demo' && e.summary));
    const openapi = await t.get('/openapi.json');
    assert.equal(openapi.body.paths['/mcp'].post.operationId, 'mcpRoot');
    assert.equal(openapi.body.paths['/demo/mcp'].post.operationId, 'mcpDemo');
    assert.ok(openapi.body.paths['/mcp'].post.requestBody, 'the body is documented');
  });
});

describe('MCP over stdio: `pipeline mcp`, a real child process', () => {
  let client: Client;
  let stderr = '';
  before(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/pipeline.mjs', 'mcp'],
      cwd: REPO,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    client = new Client({ name: 'e2e-stdio', version: '0.0.0' });
    await client.connect(transport);
  });
  after(() => client.close());

  it('lists sell, get_deal and advance_deal', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['advance_deal', 'get_deal', 'sell']);
    assert.equal(client.getServerVersion()?.name, 'sales-pipeline-demo');
  });

  it('sells a deal and gets it back, on a store seeded like the demo', async () => {
    const sold = structured(
      await client.callTool({ name: 'sell', arguments: { account: account(), listValueUsd: 5000 } }),
    );
    assert.equal(sold.id, 'deal_0001', 'a fresh store');
    assert.equal(sold.stage, 'closed_won');
    const got = structured(await client.callTool({ name: 'get_deal', arguments: { id: sold.id } }));
    assert.deepEqual(got, sold);

    const escalation = structured(
      await client.callTool({
        name: 'sell',
        arguments: { account: account(), listValueUsd: 5000, mandate: { staffing: { closer: 'human' } } },
      }),
    );
    assert.deepEqual(
      escalation.suggestedClosers.map((m: any) => m.closer.id).sort(),
      ['closer_0001', 'closer_0002'],
      'the two seeded closers',
    );
    const moved = errorBody(await client.callTool({ name: 'advance_deal', arguments: { id: 'deal_9999' } }));
    assert.equal(moved.code, 'DEAL_NOT_FOUND');
    assert.match(stderr, /pipeline mcp/, 'logs go to stderr');
  });
});

describe('the command line: pipeline verify and usage', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('verify <base-url> prints one line per probe and exits 0 when every probe passes', async () => {
    const run = await pipeline('verify', t.url);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.ok(lines.length > 5, 'a line per probe and a summary');
    for (const line of lines.slice(0, -1)) assert.match(line, /^ok /);
    assert.ok(
      lines.some((line) => line.includes('mcp-initialize')),
      'the MCP door is probed',
    );
    assert.match(lines.at(-1) ?? '', /probes passed/);
  });

  it('verify exits 1 when probes fail (nothing listens there)', async () => {
    const closed = await startTestServer();
    const url = closed.url;
    await closed.close();
    const run = await pipeline('verify', url);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^FAIL /m);
  });

  it('--help prints the usage and exits 0; an unknown command or a missing argument exits 2', async () => {
    const help = await pipeline('--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: pipeline <command>/);
    for (const args of [['nope'], [], ['verify'], ['verify', 'not-a-url']]) {
      const run = await pipeline(...args);
      assert.equal(run.code, 2, `pipeline ${args.join(' ')}`);
      assert.match(run.stderr, /Usage: pipeline <command>/);
      assert.equal(run.stdout, '', 'usage errors go to stderr');
    }
  });
});
