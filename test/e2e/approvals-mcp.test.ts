// Held proposals over the MCP door in keys mode (D-69), through the MCP SDK's own client with the
// agent's key, its tools listed first as an agent host does (so each structured result is checked
// against its tool's output schema): advance_deal held is no error of the call, and its first text
// block says in words what heldNote promises (held, not moved; the limits passed; the approval's
// id and expiry; do not retry, follow it with get_approval); list_approvals and get_approval show
// the approval, and once a person denied it, get_approval says so with the reason.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestServer } from '../support/http.ts';
import {
  dealAt,
  freshDeal,
  heldApproval,
  type KeyInfo,
  type KeysFixture,
  keysFixture,
  makeKey,
  OP,
  startKeysServer,
} from '../support/keys.ts';
import { type Mailbox, startMailbox } from '../support/mailbox.ts';
import { person } from '../support/people.ts';

const texts = (result: CallToolResult) =>
  (result.content as { type: string; text: string }[]).filter((c) => c.type === 'text').map((c) => c.text);

/** An error result's body: the JSON of its text. */
const errorOf = (result: CallToolResult) => {
  assert.equal(result.isError, true, JSON.stringify(result));
  return JSON.parse(texts(result)[0]);
};

describe('held proposals over MCP, with the agent’s key (D-69)', () => {
  let mailbox: Mailbox;
  let t: TestServer;
  let f: KeysFixture;
  /** Seller A's agent whose policy holds every move to meeting or beyond. */
  let agent: KeyInfo;
  let client: Client;
  before(async () => {
    mailbox = await startMailbox();
    t = await startKeysServer({ smtpUrl: mailbox.url, mailRetryBaseMs: 50 });
    f = await keysFixture(t);
    agent = await makeKey(t, f.sellerA.key, {
      name: 'mcp agent',
      scopes: ['deals:read', 'deals:propose'],
      policy: { allowedMoves: ['qualified'], approvalTtlHours: 4 },
    });
    client = new Client({ name: 'e2e-approvals-mcp', version: '0.0.0' });
    const requestInit = { headers: { authorization: `Bearer ${agent.key}` } };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/demo/mcp`), { requestInit }));
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['advance_deal', 'list_approvals', 'get_approval']) assert.ok(names.includes(name), name);
  });
  after(async () => {
    await client?.close();
    await t?.close();
    await mailbox?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  it('advance_deal held: no error result; the words say held, not moved, what was passed, the approval, and not to retry', async () => {
    const dealId = await freshDeal(t, f.sellerA.key, 'Held over MCP');
    assert.equal((await f.by(f.sellerA).post(`${t.prefix}/deals/${dealId}/advance`, {})).status, 200);
    const result = await call('advance_deal', { id: dealId, note: 'book the meeting' });
    assert.equal(result.isError ?? false, false, 'held is no error of the call');
    const body = result.structuredContent as { status: string; approval: Record<string, any> };
    assert.equal(body.status, 'held');
    const { approval } = body;
    const [words, json, ...more] = texts(result);
    assert.equal(more.length, 0, 'two text blocks: the words, then the JSON');
    assert.deepEqual(JSON.parse(json), body, 'the JSON block is the structured content');
    assert.throws(() => JSON.parse(words), 'the first block is words');
    assert.match(words, /^Held, not moved/);
    assert.ok(words.includes(`deal ${dealId}`), words);
    assert.ok(words.includes('allowedMoves (allowed ["qualified"], this move "meeting")'), words);
    assert.ok(words.includes(approval.id), words);
    assert.ok(words.includes(approval.expiresAt), words);
    assert.ok(words.includes('Do not retry'), words);
    assert.ok(words.includes(`get_approval ${approval.id}`), words);
    // What the words say is so: the same approval over HTTP, nothing moved, a second proposal refused.
    assert.deepEqual((await f.by(f.sellerA).get(`/approvals/${approval.id}`)).body, approval);
    assert.equal((await f.by(f.sellerA).get(`${t.prefix}/deals/${dealId}`)).body.stage, 'qualified');
    const again = errorOf(await call('advance_deal', { id: dealId }));
    assert.equal(again.code, 'APPROVAL_PENDING');
    assert.equal(again.approvalId, approval.id);
  });

  it('list_approvals and get_approval show the held proposal; after a person denies it, get_approval says denied and why', async () => {
    // Held through the same key over HTTP: this test reads it over MCP whatever advance_deal answers.
    const dealId = await dealAt(t, f.sellerA.key, 'qualified');
    const held = await f.by(agent).post(`${t.prefix}/deals/${dealId}/advance`, {});
    assert.equal(held.status, 202, held.text);
    const id: string = held.body.approval.id;
    const listed = await call('list_approvals', { keyId: agent.id, status: 'pending' });
    assert.equal(listed.isError ?? false, false, JSON.stringify(listed));
    const { approvals } = listed.structuredContent as { approvals: { id: string; status: string }[] };
    assert.ok(
      approvals.some((a) => a.id === id && a.status === 'pending'),
      JSON.stringify(approvals),
    );
    const pending = await call('get_approval', { id });
    assert.equal(pending.isError ?? false, false, JSON.stringify(pending));
    assert.deepEqual(pending.structuredContent, (await f.by(f.sellerA).get(`/approvals/${id}`)).body);
    assert.equal((pending.structuredContent as { status: string }).status, 'pending');
    // A manager of Seller A denies it in the console.
    const manager = await person(t, OP, mailbox, {
      email: 'mia@a.example',
      name: 'Mia Manager',
      role: 'manager',
      principal: f.A.sellerId,
    });
    const reason = 'Not before the budget review on Friday.';
    const denied = await manager.client.post(`/approvals/${id}/deny`, { reason });
    assert.equal(denied.status, 200, denied.text);
    const read = await call('get_approval', { id });
    assert.equal(read.isError ?? false, false, JSON.stringify(read));
    const shown = read.structuredContent as { status: string; reason: string; decidedAt: string };
    assert.equal(shown.status, 'denied');
    assert.equal(shown.reason, reason);
    assert.ok(shown.decidedAt);
    const after = await call('list_approvals', { keyId: agent.id, status: 'denied' });
    assert.deepEqual(
      (after.structuredContent as { approvals: { id: string }[] }).approvals.map((a) => a.id),
      [id],
    );
    // An approval the key may not see, or none at all, is an error result naming the code.
    const foreign = await heldApproval(t, f.sellerB.key, await bKeyHoldingAll());
    for (const unknown of [foreign, 'apr_9999']) {
      assert.equal(errorOf(await call('get_approval', { id: unknown })).code, 'APPROVAL_NOT_FOUND', unknown);
    }
  });

  /** Seller B's key whose policy holds every move. */
  const bKeyHoldingAll = async () =>
    (await makeKey(t, f.sellerB.key, { name: 'B holds all', scopes: ['deals:propose'], policy: { allowedMoves: [] } }))
      .key;
});
