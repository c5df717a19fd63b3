// Both MCP doors driven by the SDK's own client (D-33): the ROOT door over streamable HTTP answers
// the very envelopes of GET /deals, /deals/{id} and /gigs; the demo door answers the JSON of the
// deal service, refusals as error results with the HTTP error body; the same demo server runs
// over stdio as `sales-pipeline-gate mcp`, a real child process; the command's name is the
// package's and its one bin's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { COMMAND } from '../../src/command.ts';
import { CreateDealBody, DealListQuery, EditDealBody, ProposalBody, SignalsBody } from '../../src/schemas/deal.ts';
import { EventFeedQuery } from '../../src/schemas/events.ts';
import { ClaimBody, GigAdvanceBody, GigListQuery, ReleaseBody, ReviveBody } from '../../src/schemas/marketplace.ts';
import { DealsQuery } from '../../src/schemas/root.ts';
import { selfContained } from '../../src/schemas/shared.ts';
import { cli } from '../support/cli.ts';
import { account, startTestServer, type TestServer } from '../support/http.ts';

type ToolResult = Awaited<ReturnType<Client['callTool']>>;

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `node bin/sales-pipeline-gate.mjs ...args` from the repository root: exit code, stdout, stderr. */

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

/**
 * A normal result: its structured content, which the last text block repeats as JSON (an
 * escalation's words come first, D-270: test/e2e/mcp-escalation.test.ts).
 */
function structured(result: ToolResult): any {
  assert.notEqual(result.isError, true, `expected a result, got an error: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent, 'the result has structured content');
  const blocks = (result.content as { type: string; text?: string }[]).filter((c) => c.type === 'text');
  assert.deepEqual(JSON.parse(blocks.at(-1)?.text ?? ''), result.structuredContent, 'the text block is the same JSON');
  return result.structuredContent;
}

/** An error result: the JSON body its text block carries. */
/** The value without its timestamps (`at`): this suite's server runs on the machine's clock. */
const timeless = (value: unknown) =>
  JSON.parse(JSON.stringify(value, (key, item) => (key === 'at' ? undefined : item)));

function errorBody(result: ToolResult): any {
  assert.equal(result.isError, true, `expected an error result, got ${JSON.stringify(result.structuredContent)}`);
  return JSON.parse(textOf(result));
}

const DEMO_TOOL_NAMES = [
  'advance_deal',
  'advance_gig',
  'claim_gig',
  'edit_deal',
  'get_balance',
  'get_deal',
  'get_insights',
  'list_deals',
  'list_events',
  'list_gigs',
  'list_proposals',
  'list_transfers',
  'refund_deal',
  'release_gig',
  'report_signals',
  'revive_gig',
  'run_payouts',
  'sell',
];
const READ_TOOLS = [
  'get_balance',
  'get_deal',
  'get_insights',
  'list_deals',
  'list_events',
  'list_gigs',
  'list_proposals',
  'list_transfers',
];

/** The hints each tool must declare: a second identical call changes nothing more (idempotent), or may end something for good (destructive). */
const hints = (readOnly: boolean, destructive: boolean, idempotent: boolean) => ({
  readOnlyHint: readOnly,
  destructiveHint: destructive,
  idempotentHint: idempotent,
  openWorldHint: false,
});
const ANNOTATIONS: Record<string, ReturnType<typeof hints>> = {
  read: hints(true, false, true),
  sell: hints(false, false, false),
  advance_deal: hints(false, true, false),
  edit_deal: hints(false, false, true),
  report_signals: hints(false, true, true),
  claim_gig: hints(false, false, true),
  advance_gig: hints(false, true, true),
  revive_gig: hints(false, false, true),
  release_gig: hints(false, true, true),
  // D-81: a refund changes the books for good, and a second one refunds again.
  refund_deal: hints(false, true, false),
  // D-80: a second run pays what became available since.
  run_payouts: hints(false, false, false),
};

/** The schema of the HTTP request each tool stands for (its body, or its query string). */
const HTTP_SCHEMAS = [
  ['sell', CreateDealBody],
  ['advance_deal', ProposalBody],
  ['edit_deal', EditDealBody],
  ['report_signals', SignalsBody],
  ['list_deals', DealListQuery],
  ['claim_gig', ClaimBody],
  ['advance_gig', GigAdvanceBody],
  ['revive_gig', ReviveBody],
  ['release_gig', ReleaseBody],
  ['list_gigs', GigListQuery],
  ['list_events', EventFeedQuery],
] as const;

const CLOSER_HUMAN = { staffing: { closer: 'human' } };

const query = (args: Record<string, string | number | boolean>) =>
  new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();

describe('MCP over streamable HTTP: the ROOT door, POST /mcp', () => {
  let t: TestServer;
  let client: Client;
  before(async () => {
    t = await startTestServer();
    client = await httpClient(`${t.url}/mcp`);
    // Listing first makes the client check every structured result against the tool's output schema.
    await client.listTools();
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('lists exactly listDeals, getDeal and listGigs: "Sandbox:" titles, read-only hints, the schemas of GET', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['getDeal', 'listDeals', 'listGigs']);
    for (const tool of tools) {
      assert.match(tool.title ?? '', /^Sandbox: /, `${tool.name} is titled as a sandbox tool`);
      assert.match(tool.description ?? '', /^Sandbox \(read-only, fixed fictional example data/);
      assert.deepEqual(tool.annotations, ANNOTATIONS.read, `${tool.name} annotations`);
      assert.equal(tool.inputSchema.type, 'object', `${tool.name} input schema`);
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} output schema`);
      const types = ((tool.outputSchema?.anyOf ?? []) as any[]).map((envelope) => envelope.properties.type.const);
      assert.ok(types.includes('OK') && types.includes('EMPTY'), `${tool.name} answers OK or EMPTY envelopes`);
    }
    const listDeals = tools.find((tool) => tool.name === 'listDeals');
    assert.deepEqual(
      listDeals?.inputSchema.properties,
      selfContained(DealsQuery).properties,
      'the query of GET /deals',
    );
    const getDeal = tools.find((tool) => tool.name === 'getDeal');
    assert.deepEqual(getDeal?.inputSchema.required, ['id']);
    assert.match(client.getInstructions() ?? '', /read-only/);
    assert.notEqual(client.getServerCapabilities()?.tools?.listChanged, true, 'a stateless door never notifies');
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
    // A prefix other than the default, so that descriptions and fingerprints must use the real one.
    t = await startTestServer({ config: { dealPrefix: '/acme/pipeline' } });
    client = await httpClient(`${t.url}/demo/mcp`);
    // Listing first makes the client check every structured result against the tool's output schema.
    await client.listTools();
  });
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('lists every demo tool: "Demo store:" titles, truthful hints, the schemas of HTTP, the real deal prefix', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), DEMO_TOOL_NAMES);
    const published = JSON.stringify(tools) + (client.getInstructions() ?? '');
    assert.doesNotMatch(published, /\{deal_prefix\}/, 'no placeholder anywhere');
    assert.match(client.getInstructions() ?? '', /not the ROOT sandbox/);
    assert.notEqual(client.getServerCapabilities()?.tools?.listChanged, true, 'a stateless door never notifies');
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const tool of tools) {
      assert.match(tool.title ?? '', /^Demo store: /, `${tool.name} is titled as a demo tool`);
      assert.match(tool.description ?? '', /^Demo store \(live records/, `${tool.name} says it acts on the demo store`);
      assert.equal(tool.inputSchema.type, 'object', `${tool.name} input schema`);
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} output schema`);
      const write = !READ_TOOLS.includes(tool.name);
      assert.deepEqual(tool.annotations, write ? ANNOTATIONS[tool.name] : ANNOTATIONS.read, `${tool.name} hints`);
      const key = tool.inputSchema.properties?.idempotencyKey as any;
      if (write) {
        assert.deepEqual([key.minLength, key.maxLength, key.pattern], [1, 255, '^[\\x21-\\x7e]{1,255}$']);
        assert.match(tool.description ?? '', /idempotencyKey .* IDEMPOTENCY_KEY_REUSED/);
        assert.match(tool.description ?? '', /error result .* \{error, code, \.\.\.\}/);
      } else {
        assert.equal(key, undefined, `${tool.name} reads: no key`);
      }
    }
    // The input schemas are the HTTP request's: the path id, then the body's (or query's) fields.
    for (const [name, schema] of HTTP_SCHEMAS) {
      const {
        id: _id,
        idempotencyKey: _key,
        ifMatch: _ifMatch,
        dryRun: _dryRun,
        ...fields
      } = byName.get(name)?.inputSchema.properties ?? {};
      assert.deepEqual(fields, selfContained(schema).properties, `${name} takes the fields of its HTTP request`);
      assert.equal(byName.get(name)?.inputSchema.additionalProperties, false, `${name} refuses unknown arguments`);
    }
    // What the gate refuses, said where an agent proposes; the real prefix where a path is named.
    const advanceDeal = byName.get('advance_deal')?.description ?? '';
    assert.ok(advanceDeal.includes(`POST ${t.prefix}/deals/{id}/advance`), advanceDeal);
    for (const code of ['GATE_BELOW_FLOOR', 'GATE_ILLEGAL_MOVE', 'DEAL_TERMINAL'])
      assert.match(advanceDeal, RegExp(code));
    assert.match(advanceDeal, /the message states the value, the floor and the floor percentage/);
    assert.ok(byName.get('sell')?.description?.includes(`POST ${t.prefix}/sell`));
    assert.match(byName.get('sell')?.description ?? '', /MANDATE_OUT_OF_BOUNDS/);
    const advanceGig = byName.get('advance_gig')?.description ?? '';
    for (const code of ['GATE_BELOW_FLOOR', 'NOT_CLAIMANT', 'GIG_NOT_CLAIMED', 'DEAL_TERMINAL']) {
      assert.match(advanceGig, RegExp(code));
    }
    // D-47: every write on a deal or its gigs takes ifMatch; D-48: the writes HTTP dry-runs take dryRun,
    // and the ones that can close tell an agent to dry-run a close first.
    const takes = (argument: string) =>
      tools.filter((tool) => tool.inputSchema.properties?.[argument] !== undefined).map((tool) => tool.name);
    assert.deepEqual(takes('ifMatch').sort(), [
      'advance_deal',
      'advance_gig',
      'claim_gig',
      'edit_deal',
      'release_gig',
      'report_signals',
      'revive_gig',
    ]);
    assert.deepEqual(takes('dryRun').sort(), ['advance_deal', 'advance_gig', 'sell']);
    for (const name of ['advance_deal', 'advance_gig']) {
      assert.match(byName.get(name)?.description ?? '', /Dry-run a close \(advanceTo closed_won\) before proposing it/);
    }
    assert.match(byName.get('sell')?.description ?? '', /dry-run it first/);
    for (const name of takes('ifMatch')) assert.match(byName.get(name)?.description ?? '', /412 PRECONDITION_FAILED/);
    assert.match(byName.get('claim_gig')?.description ?? '', /GIG_NOT_OPEN/);
    assert.match(byName.get('revive_gig')?.description ?? '', /GIG_NOT_NURTURER/);
    assert.match(byName.get('release_gig')?.description ?? '', /GIG_NOT_ACTIVE/);
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

  it('bad arguments are an error result with the 400 body of the catalogue, naming each argument', async () => {
    const bad = errorBody(
      await client.callTool({
        name: 'sell',
        arguments: { account: account({ actor: 'B2X' }), listValueUsd: '1000', extra: true },
      }),
    );
    assert.equal(bad.code, 'INVALID_BODY');
    assert.match(bad.error, /^The arguments of sell are invalid: /);
    assert.deepEqual(bad.violations.sort(), [
      'account.actor: must be one of B2B, B2C, B2D, B2A',
      'extra: unknown field',
      'listValueUsd: must be a number',
    ]);

    const missing = errorBody(await client.callTool({ name: 'claim_gig', arguments: { id: 'gig_0001' } }));
    assert.equal(missing.code, 'INVALID_BODY');
    assert.deepEqual(missing.violations, ['closerId: is required']);

    // A list's arguments stand for a query string: its code is the one GET answers.
    const query = errorBody(await client.callTool({ name: 'list_deals', arguments: { stage: 'won', limit: 0 } }));
    assert.equal(query.code, 'INVALID_QUERY');
    assert.equal(query.violations.length, 2);
    assert.ok(query.violations.some((v: string) => v.startsWith('stage: must be one of sourced')));
    assert.ok(query.violations.some((v: string) => v.startsWith('limit: ')));

    // The mandate is the domain's to check (D-20): out of bounds is 422, not 400, as over HTTP.
    const mandate = errorBody(
      await client.callTool({
        name: 'sell',
        arguments: { account: account(), listValueUsd: 1000, mandate: { floorPct: 2, staffing: { closer: 'x' } } },
      }),
    );
    assert.equal(mandate.code, 'MANDATE_OUT_OF_BOUNDS');
    assert.ok(
      mandate.violations.some((v: string) => v.startsWith('mandate.floorPct')),
      mandate.error,
    );
    assert.ok(
      mandate.violations.some((v: string) => v.startsWith('mandate.staffing.closer')),
      mandate.error,
    );

    // The key is checked first, as HTTP checks the header before the body.
    const key = errorBody(
      await client.callTool({ name: 'sell', arguments: { account: {}, listValueUsd: 1, idempotencyKey: 'two words' } }),
    );
    assert.equal(key.code, 'IDEMPOTENCY_KEY_INVALID');
    assert.match(key.error, /idempotencyKey/);

    // A tool that does not exist is a protocol error (JSON-RPC -32602), not a tool result.
    await assert.rejects(call('close_everything', {}), (error: any) => error.code === -32602);
  });

  it('a human closer works a deal through MCP alone, from the escalation to the payout', async () => {
    // The mandate staffs the closer role with a human; the floor is 90% of the list value.
    const escalation = structured(
      await call('sell', {
        account: account({ name: 'Fictional Harbour Freight', industry: 'logistics' }),
        listValueUsd: 200000,
        mandate: { staffing: { closer: 'human' }, floorPct: 0.9 },
      }),
    );
    assert.equal(escalation.escalated, true);
    assert.equal(escalation.role, 'closer');
    assert.equal(escalation.deal.stage, 'meeting', 'the agent worked the setter stages');
    assert.equal(escalation.gig.status, 'open');
    assert.deepEqual(escalation.gig.pricing, { kind: 'commission', pct: 0.1 });
    const dealId: string = escalation.deal.id;
    const gigId: string = escalation.gig.id;
    const [first, second] = escalation.suggestedClosers.map((match: any) => match.closer.id);

    const claimed = structured(await call('claim_gig', { id: gigId, closerId: first }));
    assert.equal(claimed.gig.status, 'claimed');
    assert.equal(claimed.gig.closerId, first);
    assert.equal(claimed.deal.id, dealId);
    assert.equal(errorBody(await call('claim_gig', { id: gigId, closerId: second })).code, 'GIG_NOT_OPEN');

    // Only the claimant moves the gig, and only one stage at a time.
    const notClaimant = errorBody(await call('advance_gig', { id: gigId, closerId: second, advanceTo: 'proposal' }));
    assert.equal(notClaimant.code, 'NOT_CLAIMANT');
    const skip = errorBody(await call('advance_gig', { id: gigId, advanceTo: 'negotiation' }));
    assert.equal(skip.code, 'GATE_ILLEGAL_MOVE');
    for (const stage of ['proposal', 'negotiation']) {
      const moved = structured(await call('advance_gig', { id: gigId, closerId: first, advanceTo: stage }));
      assert.equal(moved.deal.stage, stage);
      assert.equal(moved.gig.status, 'claimed');
      assert.equal(moved.closer, undefined, 'no closer until the gig is fulfilled');
    }

    // The gate refuses a close won below the floor, and says why in numbers.
    const below = errorBody(await call('advance_gig', { id: gigId, advanceTo: 'closed_won', valueUsd: 150000 }));
    assert.equal(below.code, 'GATE_BELOW_FLOOR');
    assert.equal(below.gate.code, 'GATE_BELOW_FLOOR');
    for (const figure of ['$150,000.00', '$180,000.00', '90%', '$200,000.00']) {
      assert.ok(below.error.includes(figure), `the refusal states ${figure}: ${below.error}`);
    }
    assert.equal(
      structured(await call('get_deal', { id: dealId })).stage,
      'negotiation',
      'the refusal changed nothing',
    );

    const won = structured(
      await call('advance_gig', { id: gigId, closerId: first, advanceTo: 'closed_won', valueUsd: 190000 }),
    );
    assert.equal(won.gig.status, 'fulfilled');
    assert.equal(won.gig.outcome, 'closed_won');
    assert.equal(won.deal.stage, 'closed_won');
    assert.equal(won.deal.closedBy, 'human');
    assert.equal(won.deal.finalValueUsd, 190000);
    assert.equal(won.closer.id, first);
    assert.deepEqual(won.closer.record, { gigs: 1, wins: 1, grossClosedUsd: 190000 });
    assert.deepEqual(
      won.closer.payouts.map(({ gigId: g, dealId: d, kind, amountUsd }: any) => ({ g, d, kind, amountUsd })),
      [{ g: gigId, d: dealId, kind: 'commission', amountUsd: 19000 }],
      'the commission is paid: 10% of the close',
    );

    // Terminal is forever, and the answers are the records HTTP serves.
    assert.equal(errorBody(await call('advance_deal', { id: dealId })).code, 'DEAL_TERMINAL');
    assert.equal(errorBody(await call('advance_gig', { id: gigId, advanceTo: 'closed_lost' })).code, 'GIG_NOT_CLAIMED');
    assert.deepEqual(won.deal, (await t.get(`${t.prefix}/deals/${dealId}`)).body);
    assert.deepEqual(won.closer, (await t.get(`/closers/closers/${first}`)).body);
    assert.equal((await t.get(`${t.prefix}/deals/${dealId}/settlement`)).body.closerCommissionUsd, 19000);
  });

  it('list_deals and list_gigs filter and page as GET {prefix}/deals and GET /closers/gigs do', async () => {
    for (let i = 0; i < 3; i++) {
      await call('sell', { account: account(), listValueUsd: 40000 + i, mandate: { staffing: { closer: 'human' } } });
    }
    const filters: Record<string, string | number | boolean>[] = [
      {},
      { stage: 'meeting' },
      { stage: 'meeting', humanTrack: true },
      { role: 'closer', limit: 2 },
      { humanTrack: false },
      { closerId: 'closer_0002' },
      { closerId: 'nobody' },
    ];
    for (const args of filters) {
      const page = structured(await call('list_deals', args));
      const http = await t.get(`${t.prefix}/deals?${query(args)}`);
      assert.deepEqual(page.deals, http.body, `list_deals ${JSON.stringify(args)}`);
      assert.equal(page.nextCursor !== undefined, http.headers.get('link') !== null, 'a next page when HTTP links one');
    }
    const meeting = structured(await call('list_deals', { stage: 'meeting', humanTrack: true }));
    assert.ok(meeting.deals.length >= 3);
    assert.ok(meeting.deals.every((deal: any) => deal.stage === 'meeting' && deal.humanTrack === true));

    // Paging: the cursor is the one HTTP's Link carries, and the pages join up.
    const first = structured(await call('list_deals', { stage: 'meeting', limit: 2 }));
    assert.equal(first.deals.length, 2);
    const link = (await t.get(`${t.prefix}/deals?stage=meeting&limit=2`)).headers.get('link') ?? '';
    assert.ok(link.includes(`cursor=${first.nextCursor}`), link);
    const next = structured(await call('list_deals', { stage: 'meeting', limit: 2, cursor: first.nextCursor }));
    assert.ok(next.deals[0].id > first.deals[1].id);
    const cursor = errorBody(await call('list_deals', { cursor: 'bogus' }));
    assert.equal(cursor.code, 'INVALID_CURSOR');

    const gigFilters: Record<string, string | number>[] = [
      {},
      { status: 'open' },
      { status: 'open', role: 'closer', limit: 1 },
      { status: 'fulfilled' },
      { dealId: meeting.deals[0].id },
      { closerId: 'closer_0002' },
    ];
    for (const args of gigFilters) {
      const page = structured(await call('list_gigs', args));
      const http = await t.get(`/closers/gigs?${query(args)}`);
      assert.deepEqual(page.gigs, http.body, `list_gigs ${JSON.stringify(args)}`);
      assert.equal(page.nextCursor !== undefined, http.headers.get('link') !== null);
    }
    const open = structured(await call('list_gigs', { status: 'open', role: 'closer' }));
    assert.ok(open.gigs.length >= 3);
    assert.ok(open.gigs.every((gig: any) => gig.status === 'open' && gig.role === 'closer'));
    const ofDeal = structured(await call('list_gigs', { dealId: meeting.deals[0].id }));
    assert.deepEqual(
      ofDeal.gigs.map((gig: any) => gig.dealId),
      [meeting.deals[0].id],
    );
  });

  it('list_events answers the feed as GET /events does: filters, paging by nextAfter, bad arguments', async () => {
    const sold = structured(await call('sell', { account: account(), listValueUsd: 50000 }));
    // Read your writes (D-167): the sell's events are in the feed as soon as it answered.
    const mine = await t.get(`/events?dealId=${sold.id}&type=deal.created`);
    assert.equal(mine.body.events.length, 1);
    const filters: Record<string, string | number>[] = [
      {},
      { limit: 3 },
      { after: 2, limit: 5 },
      { type: 'deal.stage_changed' },
      { dealId: sold.id },
      { dealId: sold.id, type: 'deal.closed' },
      { dealId: 'deal_9999' },
      { after: 1_000_000 },
    ];
    for (const args of filters) {
      const page = structured(await call('list_events', args));
      const http = await t.get(`/events?${query(args)}`);
      assert.equal(http.status, 200);
      assert.deepEqual(page, http.body, `list_events ${JSON.stringify(args)}`);
    }
    // Reading on from nextAfter gives every event once, in order.
    const all = structured(await call('list_events', { limit: 1000 })).events;
    const paged: any[] = [];
    let after = 0;
    for (;;) {
      const page = structured(await call('list_events', { after, limit: 4 }));
      if (page.events.length === 0) break;
      paged.push(...page.events);
      after = page.nextAfter;
    }
    assert.deepEqual(paged, all);
    assert.ok(all.some((e: any) => e.type === 'deal.created' && e.data.deal.id === sold.id));
    for (const args of [{ after: -1 }, { limit: 0 }, { type: 'deal.nope' }, { after: '3' }, { page: 2 }]) {
      const refused = errorBody(await call('list_events', args));
      assert.equal(refused.code, 'INVALID_QUERY', JSON.stringify(args));
      assert.ok(refused.violations.length > 0);
    }
  });

  it('report_signals adds signals once; gone_dark stalls the deal and releases its gigs', async () => {
    const sold = structured(
      await call('sell', { account: account(), listValueUsd: 30000, mandate: { staffing: { closer: 'human' } } }),
    );
    const id: string = sold.deal.id;
    const reported = structured(await call('report_signals', { id, signals: ['procurement_involved'] }));
    assert.deepEqual(reported.signals, ['procurement_involved']);
    assert.deepEqual(reported, (await t.get(`${t.prefix}/deals/${id}`)).body);
    const again = structured(await call('report_signals', { id, signals: ['procurement_involved'] }));
    assert.deepEqual(again, reported, 'a signal the deal carries changes nothing');

    const bad = errorBody(await call('report_signals', { id, signals: ['Not A Signal'] }));
    assert.equal(bad.code, 'INVALID_BODY');
    assert.match(bad.violations[0], /^signals\.0: must match pattern/);
    assert.equal(errorBody(await call('report_signals', { id: 'deal_9999', signals: ['x'] })).code, 'DEAL_NOT_FOUND');

    const dark = structured(await call('report_signals', { id, signals: ['gone_dark'] }));
    assert.ok(dark.signals.includes('gone_dark'));
    assert.equal(dark.humanTrack, true);
    const gig = structured(await call('list_gigs', { dealId: id }));
    assert.deepEqual(
      gig.gigs.map((g: any) => [g.role, g.status]),
      [['closer', 'released']],
      "the closer's gig is released",
    );
  });

  it('revive_gig: a nurturer claims the stalled deal and revives it, paid its fee', async () => {
    const created = structured(await call('sell', { account: account(), listValueUsd: 9000, mandate: CLOSER_HUMAN }));
    const id: string = created.deal.id;
    const closerGig: string = created.gig.id;
    await call('report_signals', { id, signals: ['gone_dark'] });
    // A stalled deal's next advance posts a gig for the nurturer role (always a human).
    const stalled = structured(await call('advance_deal', { id }));
    assert.equal(stalled.escalated, true);
    assert.equal(stalled.role, 'nurturer');
    assert.deepEqual(stalled.gig.pricing, { kind: 'fee', amountUsd: 150 });
    const nurturerGig: string = stalled.gig.id;

    assert.equal(errorBody(await call('revive_gig', { id: closerGig })).code, 'GIG_NOT_NURTURER');
    assert.equal(errorBody(await call('revive_gig', { id: nurturerGig })).code, 'GIG_NOT_CLAIMED');
    structured(await call('claim_gig', { id: nurturerGig, closerId: 'closer_0001' }));
    const other = errorBody(await call('revive_gig', { id: nurturerGig, closerId: 'closer_0002' }));
    assert.equal(other.code, 'NOT_CLAIMANT');

    const revived = structured(
      await call('revive_gig', { id: nurturerGig, closerId: 'closer_0001', note: 'the buyer is back' }),
    );
    assert.equal(revived.gig.status, 'fulfilled');
    assert.equal(revived.gig.outcome, 'revived');
    assert.ok(!revived.deal.signals.includes('gone_dark'));
    assert.match(revived.deal.activity.at(-1).note, /the buyer is back$/);
    assert.deepEqual(revived.closer.payouts.at(-1), {
      at: revived.closer.payouts.at(-1).at,
      gigId: nurturerGig,
      dealId: id,
      kind: 'fee',
      amountUsd: 150,
    });
    assert.equal(errorBody(await call('revive_gig', { id: nurturerGig })).code, 'GIG_NOT_CLAIMED');
  });

  it('release_gig withdraws a claimed gig; the deal returns to matching and posts a fresh gig', async () => {
    const created = structured(await call('sell', { account: account(), listValueUsd: 9000, mandate: CLOSER_HUMAN }));
    const id: string = created.deal.id;
    const gigId: string = created.gig.id;
    structured(await call('claim_gig', { id: gigId, closerId: 'closer_0001' }));
    const other = errorBody(await call('release_gig', { id: gigId, closerId: 'closer_0002' }));
    assert.equal(other.code, 'NOT_CLAIMANT');

    const released = structured(await call('release_gig', { id: gigId, closerId: 'closer_0001' }));
    assert.equal(released.id, gigId);
    assert.equal(released.status, 'released');
    assert.deepEqual(released, (await t.get(`/closers/gigs/${gigId}`)).body);
    assert.equal(errorBody(await call('release_gig', { id: gigId })).code, 'GIG_NOT_ACTIVE');
    assert.equal(errorBody(await call('claim_gig', { id: gigId, closerId: 'closer_0002' })).code, 'GIG_NOT_OPEN');

    const again = structured(await call('advance_deal', { id }));
    assert.equal(again.escalated, true);
    assert.notEqual(again.gig.id, gigId, 'a fresh gig');
    assert.equal(again.gig.status, 'open');
    assert.equal(errorBody(await call('release_gig', { id: 'gig_9999' })).code, 'GIG_NOT_FOUND');
  });

  it('idempotencyKey: a retry replays the answer, another request with the key is refused', async () => {
    const before = (await t.get('/health')).body.deals;
    const args = { account: account({ name: 'Fictional Retry Co' }), listValueUsd: 5000, idempotencyKey: 'mcp-sell-1' };
    const first = await call('sell', args);
    const retry = await call('sell', args);
    assert.deepEqual(retry, first, 'the same tool result');
    assert.equal(structured(first).stage, 'closed_won');
    assert.equal((await t.get('/health')).body.deals, before + 1, 'one deal');

    const reused = errorBody(await call('sell', { ...args, listValueUsd: 5001 }));
    assert.equal(reused.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.match(reused.error, /mcp-sell-1/);
    const elsewhere = errorBody(await call('advance_deal', { id: structured(first).id, idempotencyKey: 'mcp-sell-1' }));
    assert.equal(elsewhere.code, 'IDEMPOTENCY_KEY_REUSED', 'the key belongs to another operation');
    assert.equal((await t.get('/health')).body.deals, before + 1, 'nothing more was written');

    // A refusal under a key is stored and replayed too (D-37).
    const open = await t.post(`${t.prefix}/deals`, { account: account(), listValueUsd: 7000 });
    const skip = { id: open.body.id, advanceTo: 'negotiation', idempotencyKey: 'mcp-skip-1' };
    const refused = await call('advance_deal', skip);
    assert.equal(errorBody(refused).code, 'GATE_ILLEGAL_MOVE');
    assert.deepEqual(await call('advance_deal', skip), refused);
  });

  it('an agent’s loop over MCP: read, dry-run the close (a low one refused as HTTP refuses it), then close with ifMatch', async () => {
    const sold = structured(
      await call('sell', {
        account: account({ name: 'Fictional Loop Co' }),
        listValueUsd: 80_000,
        mandate: CLOSER_HUMAN,
      }),
    );
    const gig = sold.gig.id;
    await call('claim_gig', { id: gig, closerId: 'closer_0001' });
    await call('advance_gig', { id: gig, advanceTo: 'proposal' });
    await call('advance_gig', { id: gig, advanceTo: 'negotiation' });
    const read = structured(await call('get_deal', { id: sold.deal.id }));
    const health = (await t.get('/health')).body;

    const low = { id: gig, advanceTo: 'closed_won', valueUsd: 50_000, ifMatch: read.version, dryRun: true };
    const refused = errorBody(await call('advance_gig', low));
    const http = await t.post(
      `/closers/gigs/${gig}/advance?dryRun=true`,
      { advanceTo: 'closed_won', valueUsd: 50_000 },
      { 'if-match': `"${read.version}"` },
    );
    assert.equal(http.status, 422);
    assert.deepEqual(refused, http.body, 'the same refusal through both doors');
    assert.match(refused.error, /\$50,000\.00 is below the negotiation floor \$64,000\.00 \(80%/);

    const dry = structured(await call('advance_gig', { ...low, valueUsd: 70_000 }));
    assert.equal(dry.dryRun, true);
    assert.equal(dry.deal.stage, 'closed_won');
    assert.equal(dry.settlement.closerCommissionUsd, 7_000);
    assert.deepEqual(structured(await call('get_deal', { id: sold.deal.id })), read, 'the dry runs changed nothing');
    assert.deepEqual((await t.get('/health')).body, health);

    // A stale ifMatch is refused with the deal as it is now; the current one closes.
    const stale = errorBody(
      await call('advance_gig', { ...low, valueUsd: 70_000, dryRun: false, ifMatch: read.version - 1 }),
    );
    assert.equal(stale.code, 'PRECONDITION_FAILED');
    assert.deepEqual(stale.current, { version: read.version, stage: 'negotiation' });
    const won = structured(
      await call('advance_gig', { id: gig, advanceTo: 'closed_won', valueUsd: 70_000, ifMatch: read.version }),
    );
    assert.deepEqual(timeless(won.deal), timeless(dry.deal));
    assert.equal(won.gig.status, 'fulfilled');
    assert.equal(errorBody(await call('advance_deal', { id: sold.deal.id, ifMatch: 'one' })).code, 'INVALID_BODY');
    assert.equal(
      errorBody(await call('sell', { account: account(), listValueUsd: 1, dryRun: 'yes' })).code,
      'INVALID_BODY',
    );
  });

  it('a dry-run sell over MCP answers what HTTP’s answers, ids null, and creates nothing', async () => {
    const body = { account: account({ name: 'Fictional Dry Sell' }), listValueUsd: 9_000 };
    const before = (await t.get('/health')).body.deals;
    const dry = structured(await call('sell', { ...body, dryRun: true, idempotencyKey: 'mcp-dry-sell' }));
    const http = await t.post(`${t.prefix}/sell?dryRun=true`, body);
    assert.deepEqual(timeless(dry), timeless(http.body));
    assert.equal(dry.deal.id, null);
    assert.equal(dry.deal.stage, 'closed_won');
    assert.equal((await t.get('/health')).body.deals, before);
    // The key was ignored: the real sell with it runs.
    const real = await t.post(`${t.prefix}/sell`, body, { 'idempotency-key': 'mcp-dry-sell' });
    assert.equal(real.status, 201);
    assert.equal(real.headers.get('idempotent-replayed'), null);
  });

  it('one key is one request whichever door it came through: HTTP then MCP, MCP then HTTP', async () => {
    const body = { account: account({ name: 'Fictional Two Doors Ltd' }), listValueUsd: 6000 };
    const http = await t.post(`${t.prefix}/sell`, body, { 'idempotency-key': 'two-doors-sell' });
    assert.equal(http.status, 201);
    const before = (await t.get('/health')).body.deals;
    const replay = await call('sell', { ...body, idempotencyKey: 'two-doors-sell' });
    assert.deepEqual(structured(replay), http.body, 'MCP replays the answer HTTP stored');
    assert.equal((await t.get('/health')).body.deals, before, 'no second deal');

    // A tool with a path id: its fingerprint is that of POST {prefix}/deals/{id}/advance.
    const open = await t.post(`${t.prefix}/deals`, { account: account(), listValueUsd: 7000 });
    const moved = structured(
      await call('advance_deal', { id: open.body.id, note: 'once', idempotencyKey: 'two-doors-advance' }),
    );
    assert.equal(moved.stage, 'qualified');
    const again = await t.post(
      `${t.prefix}/deals/${open.body.id}/advance`,
      { note: 'once' },
      { 'idempotency-key': 'two-doors-advance' },
    );
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, moved);
    assert.equal(structured(await call('get_deal', { id: open.body.id })).stage, 'qualified', 'moved once');

    // The marketplace's paths too: a claim retried over HTTP replays, it is not GIG_NOT_OPEN.
    const escalation = structured(
      await call('sell', { account: account(), listValueUsd: 9000, mandate: CLOSER_HUMAN }),
    );
    const claim = structured(
      await call('claim_gig', { id: escalation.gig.id, closerId: 'closer_0001', idempotencyKey: 'two-doors-claim' }),
    );
    const retried = await t.post(
      `/closers/gigs/${escalation.gig.id}/claim`,
      { closerId: 'closer_0001' },
      { 'idempotency-key': 'two-doors-claim' },
    );
    assert.equal(retried.status, 200);
    assert.deepEqual(retried.body, claim);
    const otherBody = await t.post(
      `/closers/gigs/${escalation.gig.id}/claim`,
      { closerId: 'closer_0002' },
      { 'idempotency-key': 'two-doors-claim' },
    );
    assert.equal(otherBody.status, 422);
    assert.equal(otherBody.body.code, 'IDEMPOTENCY_KEY_REUSED');
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

  it('a body that is not JSON is the JSON-RPC parse error, 400, on both doors', async () => {
    for (const path of ['/mcp', '/demo/mcp']) {
      const answer = await t.raw('POST', path, '{nope', { 'content-type': 'application/json', ...accept });
      assert.equal(answer.status, 400, path);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(answer.body).sort(), ['error', 'id', 'jsonrpc']);
      assert.equal(answer.body.jsonrpc, '2.0');
      assert.equal(answer.body.id, null);
      assert.equal(answer.body.error.code, -32700);
      assert.match(answer.body.error.message, /^Parse error: the body is not valid JSON/);
      // JSON that is no JSON-RPC message is the transport's to refuse, also a JSON-RPC error.
      const nullBody = await t.raw('POST', path, 'null', { 'content-type': 'application/json', ...accept });
      assert.equal(nullBody.status, 400);
      assert.equal(nullBody.body.jsonrpc, '2.0');
      assert.equal(nullBody.body.id, null);
    }
    // Other routes keep the catalogue's answer.
    const rest = await t.raw('POST', '/pipeline/sell', '{nope', { 'content-type': 'application/json' });
    assert.equal(rest.status, 400);
    assert.equal(rest.body.code, 'INVALID_JSON');
    // Errors other than parsing are still the app's: a body that is not JSON at all is 415.
    const text = await t.raw('POST', '/mcp', 'hello', { 'content-type': 'text/plain', ...accept });
    assert.equal(text.status, 415);
    assert.equal(text.body.code, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('both doors are in the index and the contract, with their operationIds, Accept and error answers', async () => {
    const index = await t.get('/');
    const entries = index.body.endpoints.filter((e: { method: string }) => e.method === 'POST');
    assert.ok(entries.some((e: any) => e.path === '/mcp' && e.surface === 'root' && e.summary));
    assert.ok(entries.some((e: any) => e.path === '/demo/mcp' && e.surface === 'demo' && e.summary));
    const openapi = await t.get('/openapi.json');
    assert.equal(openapi.body.paths['/mcp'].post.operationId, 'mcpRoot');
    assert.equal(openapi.body.paths['/demo/mcp'].post.operationId, 'mcpDemo');
    for (const path of ['/mcp', '/demo/mcp']) {
      const operation = openapi.body.paths[path].post;
      assert.ok(operation.requestBody, 'the body is documented');
      const acceptParam = operation.parameters.find((p: any) => p.in === 'header' && p.name === 'accept');
      assert.ok(acceptParam, `${path} documents the Accept header as a parameter`);
      assert.equal(acceptParam.required, true);
      assert.match(acceptParam.schema.description ?? acceptParam.description, /text\/event-stream/);
      for (const status of ['400', '406']) {
        const documented = operation.responses[status].content['application/json'].schema;
        // 400 is the JSON-RPC error or (a bad query, a key header) the catalogue's.
        const schema = documented.anyOf ? documented.anyOf[0] : documented;
        const ids = schema.properties.id.anyOf.map((branch: any) => branch.type);
        assert.ok(ids.includes('null'), `${path} ${status}: id may be null`);
        assert.deepEqual(schema.required.sort(), ['error', 'id', 'jsonrpc']);
      }
    }
    // The Accept requirement is the transport's to answer, never a 400 of the app's validation.
    const noAccept = await t.raw('POST', '/mcp', JSON.stringify(initialize), { 'content-type': 'application/json' });
    assert.equal(noAccept.status, 406);
    assert.equal(noAccept.body.id, null);
  });
});

describe('MCP over stdio: `sales-pipeline-gate mcp`, a real child process', () => {
  let client: Client;
  let stderr = '';
  before(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/sales-pipeline-gate.mjs', 'mcp'],
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

  it('lists every demo tool, its descriptions naming the configured deal prefix', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), DEMO_TOOL_NAMES);
    assert.ok(tools.find((tool) => tool.name === 'sell')?.description?.includes('POST /pipeline/sell'));
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
    assert.match(stderr, /^sales-pipeline-gate mcp: /m, 'logs go to stderr');
  });
});

describe('the command line: sales-pipeline-gate verify and usage', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('verify <base-url> prints one line per probe and exits 0 when every probe passes', async () => {
    const run = await cli('verify', t.url);
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
    const run = await cli('verify', url);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^FAIL /m);
  });

  it('is named as the package and its one bin, everywhere it is advertised', async () => {
    // A name of its own on npm: `npx <name>` outside a clone must not run someone else's package.
    const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
    const pkg = read('package.json');
    const lock = read('package-lock.json');
    assert.equal(pkg.name, COMMAND);
    assert.deepEqual(pkg.bin, { [COMMAND]: `./bin/${COMMAND}.mjs` });
    assert.equal(lock.name, COMMAND);
    assert.equal(lock.packages[''].name, COMMAND);
    assert.deepEqual(lock.packages[''].bin, { [COMMAND]: `bin/${COMMAND}.mjs` });
    const card = (await t.get('/.well-known/agents.json')).body;
    assert.ok(
      card.mcp.some((door: any) => door.command === `npx ${COMMAND} mcp`),
      'the capability card',
    );
    const llms = (await t.get('/llms.txt')).body as string;
    assert.ok(llms.includes(`npx ${COMMAND} mcp`) && llms.includes(`npx ${COMMAND} verify`), 'llms.txt');
  });

  it('--help prints the usage and exits 0; an unknown command or a missing argument exits 2', async () => {
    const help = await cli('--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: sales-pipeline-gate <command>/);
    for (const args of [['nope'], [], ['verify'], ['verify', 'not-a-url']]) {
      const run = await cli(...args);
      assert.equal(run.code, 2, `sales-pipeline-gate ${args.join(' ')}`);
      assert.match(run.stderr, /Usage: sales-pipeline-gate <command>/);
      assert.equal(run.stdout, '', 'usage errors go to stderr');
    }
  });
});
