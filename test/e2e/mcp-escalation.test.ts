// D-270: an agent's move on a deal that needs a human answers the escalation shape. It is no
// error of the call (isError stays false, and structuredContent is the HTTP answer as it is), but
// no move either: the result's first text block says so in words (nothing moved, why, the gig a
// human works it through), and the JSON follows as the last text block, as on every answer. A
// keyed replay says it again; a dry run and a deal that moved say nothing of the kind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { type DemoMcp, demoMcp } from '../support/mcp-client.ts';

const CLOSER_HUMAN = { staffing: { closer: 'human' } };

const texts = (result: CallToolResult) =>
  (result.content as { type: string; text: string }[]).filter((c) => c.type === 'text').map((c) => c.text);

/** An escalation's result: no error, the words first, then the JSON of the structured content. */
function escalation(result: CallToolResult): { words: string; body: any } {
  assert.equal(result.isError ?? false, false, 'an escalation is no error of the call');
  const [words, json, ...more] = texts(result);
  assert.equal(more.length, 0, 'two text blocks');
  assert.doesNotThrow(() => JSON.parse(json), 'the last block is the JSON');
  assert.deepEqual(JSON.parse(json), result.structuredContent, 'the JSON block is the structured content');
  assert.throws(() => JSON.parse(words), 'the first block is words, not JSON');
  const body = result.structuredContent as any;
  assert.equal(body.escalated, true);
  return { words, body };
}

describe('an escalation over MCP says that nothing moved (D-270)', () => {
  let t: TestServer;
  let mcp: DemoMcp;
  before(async () => {
    t = await startTestServer();
    mcp = await demoMcp(t, 'e2e-mcp-escalation');
  });
  after(async () => {
    await mcp.client.close();
    await t.close();
  });

  const call = (name: string, args: Record<string, unknown>) => mcp.call(name, args);

  it('advance_deal on a deal whose closer is a human: the words say it did not move, why, and the gig', async () => {
    const sold = escalation(await call('sell', { account: account(), listValueUsd: 50_000, mandate: CLOSER_HUMAN }));
    const { deal, gig } = sold.body;
    assert.equal(deal.stage, 'meeting');
    assert.match(sold.words, new RegExp(`^Not closed: deal ${deal.id} was created and waits at meeting`));
    assert.match(sold.words, /the agent moves it no further/);
    assert.match(sold.words, /It needs a human closer: its mandate staffs the closer with a human/);
    assert.match(sold.words, new RegExp(`gig ${gig.id} \\(open\\): claimed with claim_gig`));
    assert.match(sold.words, /moved with advance_gig/);

    const before = (await t.get(`${t.prefix}/deals/${deal.id}`)).body;
    const moved = escalation(await call('advance_deal', { id: deal.id, advanceTo: 'proposal' }));
    assert.match(
      moved.words,
      new RegExp(`^Not moved: deal ${deal.id} stays at meeting \\(version ${before.version}\\)`),
    );
    assert.match(moved.words, /no proposal moves a deal that needs a human/);
    assert.match(moved.words, /It needs a human closer: /);
    assert.match(moved.words, new RegExp(`A human works it through gig ${gig.id} \\(open\\)`));
    assert.match(moved.words, /suggestedClosers ranks \d+ who fit/);
    // The structured content is the HTTP answer, shape and all.
    const http = await t.post(`${t.prefix}/deals/${deal.id}/advance`, { advanceTo: 'proposal' });
    assert.equal(http.status, 200);
    assert.deepEqual(Object.keys(moved.body).sort(), Object.keys(http.body).sort());
    assert.deepEqual(moved.body.deal, http.body.deal);
    assert.equal((await t.get(`${t.prefix}/deals/${deal.id}`)).body.stage, 'meeting', 'it did not move');

    // Claimed: the words name the claimant, who works it.
    await call('claim_gig', { id: gig.id, closerId: 'closer_0001' });
    const claimed = escalation(await call('advance_deal', { id: deal.id }));
    assert.match(claimed.words, new RegExp(`gig ${gig.id}, claimed by closer_0001, who moves it \\(advance_gig\\)`));
  });

  it('a stalled deal: the words say a human nurturer revives it', async () => {
    const created = await t.post(`${t.prefix}/deals`, { account: account(), listValueUsd: 9_000 });
    await call('report_signals', { id: created.body.id, signals: ['gone_dark'] });
    const stalled = escalation(await call('advance_deal', { id: created.body.id }));
    assert.equal(stalled.body.role, 'nurturer');
    assert.match(stalled.words, /^Not moved: /);
    assert.match(stalled.words, /It needs a human nurturer: it is stalled \(gone_dark\)/);
    assert.match(stalled.words, /moved with revive_gig/);
  });

  it('a keyed replay says it again; a dry run and a deal that moved carry no such words', async () => {
    const args = { account: account(), listValueUsd: 40_000, mandate: CLOSER_HUMAN, idempotencyKey: 'esc-1' };
    const first = escalation(await call('sell', args));
    const again = escalation(await call('sell', args));
    assert.deepEqual(again, first, 'the same words and the same answer');

    const dry = await call('advance_deal', { id: first.body.deal.id, dryRun: true });
    assert.equal(texts(dry).length, 1, 'a dry run: the JSON alone');
    const created = await t.post(`${t.prefix}/deals`, { account: account(), listValueUsd: 9_000 });
    const moved = await call('advance_deal', { id: created.body.id });
    assert.deepEqual(texts(moved), [JSON.stringify(moved.structuredContent)], 'a move: the JSON alone');
  });

  it('the descriptions of sell and advance_deal say how an escalation reads', async () => {
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      const says = /An escalation is no error result .* its first text block says in words that the deal did not move/;
      if (tool.name === 'sell' || tool.name === 'advance_deal') assert.match(tool.description ?? '', says, tool.name);
      else assert.doesNotMatch(tool.description ?? '', says, tool.name);
    }
    assert.match(mcp.client.getInstructions() ?? '', /an escalation is no error, but its first text block says/);
  });
});
