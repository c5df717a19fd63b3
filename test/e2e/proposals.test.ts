// Refused proposals (D-61, D-239..D-242) over HTTP and MCP on a real port: what the gate refused
// is kept, once, by the request that was refused and by nothing else; the lists page and filter;
// the summary counts exactly; and in keys mode each key sees what D-54 lets it see.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestServer } from '../support/http.ts';
import { bearer, freshDeal, type KeysFixture, keysFixture, startKeysServer } from '../support/keys.ts';
import {
  ADA,
  advanceDeal,
  assertError,
  claim,
  createDeal,
  fixedClock,
  getDeal,
  MILO,
  negotiatingCloserGig,
  openCloserGig,
} from '../support/marketplace-e2e.ts';
import { type Receiver, startReceiver, until } from '../support/receiver.ts';
import { openStream } from '../support/sse.ts';

interface Record {
  id: string;
  dealId: string;
  gigId?: string;
  by: 'agent' | 'human';
  actor?: { principal: string; keyId: string };
  proposal: { advanceTo?: string; valueUsd?: number; note?: string };
  stage: string;
  code: string;
  reason: string;
  at: string;
}

/** A deal the agent took to negotiation: the next move is a close (floor 80% of 50,000). */
async function negotiating(t: TestServer): Promise<string> {
  const deal = await createDeal(t, { listValueUsd: 50_000 });
  for (let i = 0; i < 4; i++) await advanceDeal(t, deal.id);
  assert.equal((await getDeal(t, deal.id)).stage, 'negotiation');
  return deal.id;
}

describe('refused proposals in the demo (D-61)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock: fixedClock });
  });
  after(() => t.close());

  const lastSeq = async () => (await t.get('/events?limit=1')).body.lastSeq as number;
  const eventsAfter = async (seq: number) => (await t.get(`/events?after=${seq}&limit=1000`)).body.events;

  it('an agent proposal below the floor is kept once, with the gate’s words, and changes nothing else', async () => {
    const dealId = await negotiating(t);
    const before = await getDeal(t, dealId);
    const seq = await lastSeq();
    const refused = await t.post(`${t.prefix}/deals/${dealId}/advance`, {
      advanceTo: 'closed_won',
      valueUsd: 20_000,
      note: 'half the floor',
    });
    assertError(refused, 422, 'GATE_BELOW_FLOOR');
    assert.deepEqual(await getDeal(t, dealId), before, 'no activity entry, no version');
    const listed = (await t.get<Record[]>(`${t.prefix}/deals/${dealId}/proposals`)).body;
    assert.equal(listed.length, 1);
    const [record] = listed;
    assert.match(record.id, /^prop_\d{4,}$/);
    assert.deepEqual(record, {
      id: record.id,
      dealId,
      by: 'agent',
      proposal: { advanceTo: 'closed_won', valueUsd: 20_000, note: 'half the floor' },
      stage: 'negotiation',
      code: 'GATE_BELOW_FLOOR',
      reason: refused.body.gate.error,
      at: '2030-03-04T09:00:00.000Z',
    });
    assert.match(record.reason, /below the negotiation floor \$40,000\.00/);
    const events = await eventsAfter(seq);
    assert.deepEqual(
      events.map((e: { type: string }) => e.type),
      ['proposal.refused'],
    );
    assert.deepEqual(events[0].data, record, 'the event’s data is the record');
    assert.deepEqual((await t.get(`${t.prefix}/proposals?dealId=${dealId}`)).body, [record]);
  });

  it('a dry run, a replay, a 400, a 404 and a 412 record nothing; a keyed refusal is kept once', async () => {
    const dealId = await negotiating(t);
    const path = `${t.prefix}/deals/${dealId}/advance`;
    const low = { advanceTo: 'closed_won', valueUsd: 1 };
    const seq = await lastSeq();
    assertError(await t.post(`${path}?dryRun=true`, low), 422, 'GATE_BELOW_FLOOR');
    assertError(await t.post(path, { advanceTo: 'closed_won', valueUsd: 'cheap' }), 400);
    assertError(await t.post(`${t.prefix}/deals/deal_9999/advance`, low), 404);
    assertError(await t.post(path, low, { 'if-match': '"1"' }), 412);
    assert.deepEqual(await eventsAfter(seq), []);
    assert.deepEqual((await t.get(`${t.prefix}/deals/${dealId}/proposals`)).body, []);
    const key = { 'idempotency-key': `refused-once-${dealId}` };
    assertError(await t.post(path, low, key), 422, 'GATE_BELOW_FLOOR');
    const replay = await t.post(path, low, key);
    assertError(replay, 422, 'GATE_BELOW_FLOOR');
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal((await t.get<Record[]>(`${t.prefix}/deals/${dealId}/proposals`)).body.length, 1);
    assert.equal((await eventsAfter(seq)).length, 1);
  });

  it('a closer’s refused moves are kept as by human, with their gig; a terminal deal’s too', async () => {
    const { gig, deal } = await negotiatingCloserGig(t, ADA, { listValueUsd: 100_000 });
    assertError(await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'meeting' }), 422, 'GATE_ILLEGAL_MOVE');
    assertError(await t.post(`/closers/gigs/${gig.id}/revive`, { note: 'wake up' }), 409, 'GIG_NOT_NURTURER');
    assertError(
      await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', closerId: MILO }),
      409,
      'NOT_CLAIMANT',
    );
    const won = await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', valueUsd: 90_000 });
    assert.equal(won.status, 200);
    assertError(await t.post(`${t.prefix}/deals/${deal.id}/advance`, {}), 409, 'DEAL_TERMINAL');
    const records = (await t.get<Record[]>(`${t.prefix}/deals/${deal.id}/proposals`)).body;
    assert.deepEqual(
      records.map((r) => [r.by, r.code, r.gigId ?? null, r.stage]),
      [
        ['agent', 'DEAL_TERMINAL', null, 'closed_won'],
        ['human', 'NOT_CLAIMANT', gig.id, 'negotiation'],
        ['human', 'GIG_NOT_NURTURER', gig.id, 'negotiation'],
        ['human', 'GATE_ILLEGAL_MOVE', gig.id, 'negotiation'],
      ],
    );
    assert.deepEqual(records[2].proposal, { note: 'wake up' }, 'a revival proposes no stage');
    // An open gig (not claimed) refuses a move, and keeps it.
    const open = await openCloserGig(t);
    assertError(
      await t.post(`/closers/gigs/${open.gig.id}/advance`, { advanceTo: 'proposal' }),
      409,
      'GIG_NOT_CLAIMED',
    );
    await claim(t, open.gig.id, ADA);
    const onOpen = (await t.get<Record[]>(`${t.prefix}/proposals?dealId=${open.deal.id}`)).body;
    assert.deepEqual(
      onOpen.map((r) => r.code),
      ['GIG_NOT_CLAIMED'],
    );
  });

  it('the lists page newest first and filter; bad queries are 400 and an unknown deal 404', async () => {
    const dealId = await negotiating(t);
    for (const valueUsd of [1, 2, 3]) {
      await t.post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_won', valueUsd });
    }
    await t.post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'sourced' });
    const first = await t.get<Record[]>(`${t.prefix}/deals/${dealId}/proposals?limit=3`);
    assert.deepEqual(
      first.body.map((r) => r.proposal.advanceTo ?? ''),
      ['sourced', 'closed_won', 'closed_won'],
    );
    const link = first.headers.get('link') ?? '';
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
    assert.ok(next, `a next page: ${link}`);
    const second = await t.get<Record[]>(next);
    assert.deepEqual(
      second.body.map((r) => r.proposal.valueUsd),
      [1],
    );
    assert.equal(second.headers.get('link'), null);
    const illegal = await t.get<Record[]>(`${t.prefix}/proposals?dealId=${dealId}&code=GATE_ILLEGAL_MOVE`);
    assert.deepEqual(
      illegal.body.map((r) => r.proposal.advanceTo),
      ['sourced'],
    );
    assert.deepEqual((await t.get(`${t.prefix}/proposals?dealId=${dealId}&by=human`)).body, []);
    assert.deepEqual((await t.get(`${t.prefix}/proposals?dealId=not-a-deal`)).body, []);
    assertError(await t.get(`${t.prefix}/proposals?by=robot`), 400);
    assertError(await t.get(`${t.prefix}/proposals?code=NOPE`), 400);
    assertError(await t.get(`${t.prefix}/proposals?colour=red`), 400);
    assertError(await t.get(`${t.prefix}/proposals?cursor=bm9wZQ`), 400, 'INVALID_CURSOR');
    assertError(await t.get(`${t.prefix}/proposals/summary?dealId=${dealId}`), 400);
    assertError(await t.get(`${t.prefix}/deals/deal_9999/proposals`), 404, 'DEAL_NOT_FOUND');
  });

  it('the summary counts every refusal and every move the gate committed for an executor', async () => {
    const before = (await t.get(`${t.prefix}/proposals/summary`)).body;
    const dealId = await negotiating(t); // four agent moves
    await t.post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_won', valueUsd: 5 });
    await t.post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_won' }); // won: a fifth
    const after = (await t.get(`${t.prefix}/proposals/summary`)).body;
    assert.equal(after.accepted.agent - before.accepted.agent, 5);
    assert.equal(after.refused.agent - before.refused.agent, 1);
    assert.equal(after.byCode.GATE_BELOW_FLOOR - (before.byCode.GATE_BELOW_FLOOR ?? 0), 1);
    // The summary equals the records (no deal here passed 1,000).
    const all = (await t.get<Record[]>(`${t.prefix}/proposals?limit=1000`)).body;
    assert.equal(after.refused.agent, all.filter((r) => r.by === 'agent').length);
    assert.equal(after.refused.human, all.filter((r) => r.by === 'human').length);
    const byCode: { [code: string]: number } = {};
    for (const r of all) byCode[r.code] = (byCode[r.code] ?? 0) + 1;
    assert.deepEqual(after.byCode, byCode);
  });

  it('concurrent refusals on one deal are each kept once, with distinct ids', async () => {
    const dealId = await negotiating(t);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_won', valueUsd: i + 1 }),
      ),
    );
    for (const answer of answers) assertError(answer, 422, 'GATE_BELOW_FLOOR');
    const records = (await t.get<Record[]>(`${t.prefix}/deals/${dealId}/proposals?limit=100`)).body;
    assert.equal(records.length, 20);
    assert.equal(new Set(records.map((r) => r.id)).size, 20);
    assert.deepEqual(
      records.map((r) => r.proposal.valueUsd).sort((a, b) => (a ?? 0) - (b ?? 0)),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it('MCP: an agent proposes below the floor through the door and reads its refusal with list_proposals', async () => {
    const dealId = await negotiating(t);
    const client = new Client({ name: 'e2e-proposals', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/demo/mcp`)));
    try {
      const refused = (await client.callTool({
        name: 'advance_deal',
        arguments: { id: dealId, advanceTo: 'closed_won', valueUsd: 100 },
      })) as CallToolResult;
      assert.equal(refused.isError, true);
      const listed = (await client.callTool({ name: 'list_proposals', arguments: { dealId } })) as CallToolResult;
      const { proposals } = listed.structuredContent as { proposals: Record[] };
      assert.deepEqual(
        proposals.map((r) => [r.code, r.proposal.valueUsd]),
        [['GATE_BELOW_FLOOR', 100]],
      );
      assert.match(proposals[0].reason, /negotiation floor \$40,000\.00/);
    } finally {
      await client.close();
    }
  });
});

describe('refused proposals in keys mode (D-54, D-241)', () => {
  let t: TestServer;
  let f: KeysFixture;
  before(async () => {
    t = await startKeysServer();
    f = await keysFixture(t);
  });
  after(() => t.close());

  it('a Seller sees its agent’s refusals, per key; another Seller and a closer see none of them', async () => {
    const dealId = await freshDeal(t, f.sellerA.key, 'Agent-hammered deal');
    const agent = f.by(f.agentA);
    for (let i = 0; i < 4; i++) assert.equal((await agent.post(`${t.prefix}/deals/${dealId}/advance`, {})).status, 200);
    const low = await agent.post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_won', valueUsd: 5 });
    assertError(low, 422, 'GATE_BELOW_FLOOR');
    const seller = f.by(f.sellerA);
    const [record] = (await seller.get(`${t.prefix}/deals/${dealId}/proposals`)).body as Record[];
    assert.deepEqual(record.actor, { principal: f.A.sellerId, keyId: f.agentA.id });
    // The agent reads its own refusal: it learns the floor before it proposes again.
    assert.deepEqual((await agent.get(`${t.prefix}/proposals?dealId=${dealId}`)).body, [record]);
    const mine = (await seller.get(`${t.prefix}/proposals/summary?keyId=${f.agentA.id}`)).body;
    assert.equal(mine.refused.agent, 1);
    assert.ok(mine.accepted.agent >= 4, JSON.stringify(mine));
    const sellerKey = (await seller.get(`${t.prefix}/proposals/summary?keyId=${f.sellerA.id}`)).body;
    assert.equal(sellerKey.refused.agent, 0, 'the Seller’s own key proposed nothing refused');
    // Seller B: the deal is unknown, the lists empty of it, the summary without it.
    const other = f.by(f.sellerB);
    assertError(await other.get(`${t.prefix}/deals/${dealId}/proposals`), 404, 'DEAL_NOT_FOUND');
    assert.deepEqual((await other.get(`${t.prefix}/proposals?dealId=${dealId}`)).body, []);
    const ofB = (await other.get(`${t.prefix}/proposals`)).body as Record[];
    assert.ok(ofB.every((r) => r.dealId !== dealId));
    assert.equal((await other.get(`${t.prefix}/proposals/summary?keyId=${f.agentA.id}`)).body.refused.agent, 0);
    // A closer sees only what it proposed itself.
    const closer = f.by(f.closer1);
    const ofCloser = (await closer.get(`${t.prefix}/proposals`)).body as Record[];
    assert.ok(ofCloser.every((r) => r.actor?.principal === f.closer1.principal));
    // The operator sees it.
    const all = (await f.by(f.operator).get(`${t.prefix}/proposals?dealId=${dealId}`)).body as Record[];
    assert.deepEqual(all, [record]);
    // The event: Seller A's feed has it, Seller B's does not.
    const typesOf = async (who: ReturnType<KeysFixture['by']>) =>
      ((await who.get('/events?type=proposal.refused&limit=1000')).body.events as { data: Record }[]).map(
        (e) => e.data.id,
      );
    assert.ok((await typesOf(seller)).includes(record.id));
    assert.ok(!(await typesOf(other)).includes(record.id));
  });

  it('a closer’s refused move is its own: by human, its actor, seen by it and by the deal’s Seller', async () => {
    const closer = f.by(f.closer1);
    const gigId = f.A.openGigId;
    const refused = await closer.post(`/closers/gigs/${gigId}/advance`, { advanceTo: 'proposal' });
    assertError(refused, 409, 'GIG_NOT_CLAIMED');
    const own = (await closer.get(`${t.prefix}/proposals?by=human`)).body as Record[];
    const record = own.find((r) => r.gigId === gigId);
    assert.ok(record, JSON.stringify(own));
    assert.deepEqual(record.actor, { principal: f.closer1.principal, keyId: f.closer1.id });
    const ofSeller = (await f.by(f.sellerA).get(`${t.prefix}/proposals?by=human`)).body as Record[];
    assert.ok(ofSeller.some((r) => r.id === record.id));
    assert.ok(!((await f.by(f.closer2).get(`${t.prefix}/proposals`)).body as Record[]).some((r) => r.id === record.id));
    const summary = (await closer.get(`${t.prefix}/proposals/summary`)).body;
    assert.ok(summary.refused.human >= 1);
    assert.equal(summary.refused.agent, 0, 'a closer’s summary is its own');
  });

  it('no key, or a key without a reading scope, is refused at the door', async () => {
    assert.equal((await t.get(`${t.prefix}/proposals`)).status, 401);
    const hook = await f
      .by(f.operator)
      .post('/keys', { name: 'hooks only', principal: f.A.sellerId, scopes: ['webhooks:manage'] });
    assert.equal(hook.status, 201);
    const hooksOnly = f.by(hook.body.key);
    assertError(await hooksOnly.get(`${t.prefix}/proposals/summary`), 403, 'INSUFFICIENT_SCOPE');
    assertError(await hooksOnly.get(`${t.prefix}/proposals`), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('a Seller alerted the moment its agent is refused: the stream and webhooks (D-61, D-58)', () => {
  let t: TestServer;
  let f: KeysFixture;
  const receivers: Receiver[] = [];
  before(async () => {
    t = await startKeysServer({ webhookAllowPrivate: true, webhookRetryBaseMs: 100, webhookTimeoutMs: 500 });
    f = await keysFixture(t);
  });
  after(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });

  it('its webhook and its stream get proposal.refused with the record; another Seller’s get nothing of it', async () => {
    const ofA = await startReceiver();
    const ofB = await startReceiver();
    receivers.push(ofA, ofB);
    for (const [who, r] of [
      [f.sellerA, ofA],
      [f.sellerB, ofB],
    ] as const) {
      const hook = await f.by(who).post('/webhooks', { url: r.url, types: ['proposal.refused'] });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
    }
    const streamOfA = await openStream(t, '/events/stream?type=proposal.refused', bearer(f.sellerA.key));
    const streamOfB = await openStream(t, '/events/stream?type=proposal.refused', bearer(f.sellerB.key));
    try {
      const dealId = await freshDeal(t, f.sellerA.key, 'Alerting deal');
      const agent = f.by(f.agentA);
      for (let i = 0; i < 4; i++) await agent.post(`${t.prefix}/deals/${dealId}/advance`, {});
      assertError(
        await agent.post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_won', valueUsd: 3 }),
        422,
        'GATE_BELOW_FLOOR',
      );
      const [record] = (await f.by(f.sellerA).get(`${t.prefix}/deals/${dealId}/proposals`)).body as Record[];
      await streamOfA.waitFor((messages) => messages.some((m) => m.event === 'proposal.refused'));
      const streamed = streamOfA.messages.find((m) => m.event === 'proposal.refused');
      assert.deepEqual(JSON.parse(streamed?.data ?? '{}').data, record);
      await until('the webhook delivery', () => ofA.received.length >= 1);
      assert.equal(ofA.received[0].json.type, 'proposal.refused');
      assert.deepEqual(ofA.received[0].json.data, record);
      // Seller B's stream and webhook: nothing of A's refusal.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(ofB.received.length, 0);
      assert.ok(!streamOfB.messages.some((m) => m.event === 'proposal.refused'));
    } finally {
      streamOfA.close();
      streamOfB.close();
    }
  });
});
