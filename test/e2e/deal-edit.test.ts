// Editing deals (D-67): `PATCH {prefix}/deals/{id}` with a JSON merge of the account's name or
// industry and the list value, under If-Match; one activity entry naming each change and one
// `deal.updated`; the floor follows the new list value, a posted gig's brief does not; a closed
// deal is refused. In keys mode only the deal's Seller, with deals:write, may edit it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, freshDeal, type KeysFixture, keysFixture, startKeysServer } from '../support/keys.ts';
import { demoMcp } from '../support/mcp-client.ts';

const patch = (t: TestServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  t.raw('PATCH', path, JSON.stringify(body), { 'content-type': 'application/json', ...headers });

describe('editing a deal (D-67)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  const create = async (name: string, listValueUsd = 40_000, mandate?: unknown) => {
    const created = await t.post(`${t.prefix}/deals`, {
      account: account({ name, industry: 'saas' }),
      listValueUsd,
      ...(mandate ? { mandate } : {}),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body as { id: string; version: number };
  };

  it('changes the fields that differ: one entry naming each, one deal.updated, a new version', async () => {
    const deal = await create('Edit Fictional');
    const before = (await t.get(`/events?dealId=${deal.id}`)).body.lastSeq as number;
    const edited = await patch(
      t,
      `${t.prefix}/deals/${deal.id}`,
      { account: { name: 'Edit Fictional GmbH', industry: null }, listValueUsd: 45_000 },
      { 'if-match': '"1"' },
    );
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.account.name, 'Edit Fictional GmbH');
    assert.equal(edited.body.account.industry, undefined);
    assert.equal(edited.body.account.actor, 'B2B', 'what the merge does not name stays');
    assert.equal(edited.body.listValueUsd, 45_000);
    assert.equal(edited.body.version, 2);
    assert.equal(edited.headers.get('etag'), '"2"');
    const last = edited.body.activity.at(-1);
    assert.equal(
      last.note,
      'Edited: account name “Edit Fictional” → “Edit Fictional GmbH”; industry “saas” → none; list value $40,000.00 → $45,000.00.',
    );
    assert.equal(edited.body.activity.length, 2);
    const events = (await t.get(`/events?dealId=${deal.id}&after=${before}`)).body.events;
    assert.deepEqual(
      events.map((e: { type: string }) => e.type),
      ['deal.updated'],
    );
    assert.deepEqual(events[0].data, {
      dealId: deal.id,
      changes: {
        'account.name': { from: 'Edit Fictional', to: 'Edit Fictional GmbH' },
        'account.industry': { from: 'saas', to: null },
        listValueUsd: { from: 40_000, to: 45_000 },
      },
    });
  });

  it('a body that changes nothing answers the deal as it is: no entry, no version, no event', async () => {
    const deal = await create('Unchanged Fictional');
    const before = (await t.get(`/events`)).body.lastSeq as number;
    const same = await patch(t, `${t.prefix}/deals/${deal.id}`, {
      account: { name: 'Unchanged Fictional' },
      listValueUsd: 40_000,
    });
    assert.equal(same.status, 200);
    assert.equal(same.body.version, 1);
    assert.equal(same.body.activity.length, 1);
    assert.equal((await t.get(`/events?after=${before}`)).body.events.length, 0);
  });

  it('the floor follows the new list value; the posted gig keeps the brief it was posted with', async () => {
    const deal = await create('Floor Fictional', 40_000, { staffing: { closer: 'human' } });
    // The agent advances until the closer's stage, which a human closer must work: a gig is posted.
    for (let i = 0; i < 4; i++) await t.post(`${t.prefix}/deals/${deal.id}/advance`, {});
    const gig = (await t.get(`/closers/gigs?dealId=${deal.id}`)).body[0];
    assert.equal(gig.brief.listValueUsd, 40_000);
    const edited = await patch(t, `${t.prefix}/deals/${deal.id}`, { listValueUsd: 50_000 });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal((await t.get(`/closers/gigs/${gig.id}`)).body.brief.listValueUsd, 40_000, 'the brief is a snapshot');
    assert.equal((await t.get(`/closers/gigs/${gig.id}`)).body.brief.floorUsd, 32_000);
    // A close below 80% of the new list value is below the floor, though above 80% of the old one.
    const enrolled = await t.post('/closers/closers', { name: 'Edit Closer Fictional', industries: ['saas'] });
    await t.post(`/closers/gigs/${gig.id}/claim`, { closerId: enrolled.body.id });
    for (const advanceTo of ['proposal', 'negotiation']) {
      const moved = await t.post(`/closers/gigs/${gig.id}/advance`, { closerId: enrolled.body.id, advanceTo });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
    }
    const below = await t.post(`/closers/gigs/${gig.id}/advance`, {
      closerId: enrolled.body.id,
      advanceTo: 'closed_won',
      valueUsd: 35_000,
    });
    assert.equal(below.status, 422);
    assert.equal(below.body.code, 'GATE_BELOW_FLOOR');
    assert.match(below.body.error, /\$40,000\.00/);
  });

  it('If-Match: a stale version is 412 and changes nothing', async () => {
    const deal = await create('Stale Fictional');
    await t.post(`${t.prefix}/deals/${deal.id}/signals`, { signals: ['budget_confirmed'] });
    const stale = await patch(t, `${t.prefix}/deals/${deal.id}`, { listValueUsd: 1 }, { 'if-match': '"1"' });
    assert.equal(stale.status, 412);
    assert.equal((await t.get(`${t.prefix}/deals/${deal.id}`)).body.listValueUsd, 40_000);
  });

  it('refuses a closed deal (409 DEAL_TERMINAL), bad bodies (400), an unknown id (404); each changes nothing', async () => {
    const won = await t.post(`${t.prefix}/sell`, { account: account({ name: 'Won Fictional' }), listValueUsd: 1_000 });
    assert.equal(won.body.stage, 'closed_won');
    const terminal = await patch(t, `${t.prefix}/deals/${won.body.id}`, { listValueUsd: 2_000 });
    assert.equal(terminal.status, 409);
    assert.equal(terminal.body.code, 'DEAL_TERMINAL');
    const deal = await create('Bad Body Fictional');
    for (const body of [
      {},
      { account: {} },
      { account: { name: '' } },
      { account: { actor: 'B2C' } },
      { listValueUsd: -5 },
      { listValueUsd: '45000' },
      { mandate: {} },
      { account: { name: null } },
    ]) {
      const answer = await patch(t, `${t.prefix}/deals/${deal.id}`, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.ok(Array.isArray(answer.body.violations), JSON.stringify(answer.body));
    }
    assert.equal((await patch(t, `${t.prefix}/deals/deal_9999`, { listValueUsd: 1 })).status, 404);
    const after = await t.get(`${t.prefix}/deals/${deal.id}`);
    assert.equal(after.body.version, 1);
    assert.equal(after.body.listValueUsd, 40_000);
  });

  it('takes application/merge-patch+json', async () => {
    const deal = await create('Merge Patch Fictional');
    const answer = await t.raw('PATCH', `${t.prefix}/deals/${deal.id}`, JSON.stringify({ listValueUsd: 41_000 }), {
      'content-type': 'application/merge-patch+json',
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.listValueUsd, 41_000);
  });

  it('the MCP tool edit_deal does what PATCH does', async () => {
    const deal = await create('Tool Edit Fictional');
    const mcp = await demoMcp(t, 'e2e-deal-edit');
    try {
      const result = await mcp.call('edit_deal', { id: deal.id, listValueUsd: 42_500 });
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      assert.equal((result.structuredContent as { listValueUsd: number }).listValueUsd, 42_500);
    } finally {
      await mcp.client.close();
    }
  });
});

describe('editing in keys mode: the deal’s Seller with deals:write (D-53, D-54)', () => {
  let t: TestServer;
  let f: KeysFixture;
  before(async () => {
    t = await startKeysServer();
    f = await keysFixture(t);
  });
  after(() => t.close());

  it("another Seller's deal is unknown, a key without deals:write is 403, and the event names the actor", async () => {
    const dealId = await freshDeal(t, f.sellerA.key, 'Edited in keys mode Fictional');
    const other = await as(t, bearer(f.sellerB.key)).send('PATCH', `${t.prefix}/deals/${dealId}`, { listValueUsd: 1 });
    assert.equal(other.status, 404);
    const agent = await as(t, bearer(f.agentA.key)).send('PATCH', `${t.prefix}/deals/${dealId}`, { listValueUsd: 1 });
    assert.equal(agent.status, 403);
    assert.equal((agent.body as { code: string }).code, 'INSUFFICIENT_SCOPE');
    const mine = await as(t, bearer(f.sellerA.key)).send('PATCH', `${t.prefix}/deals/${dealId}`, {
      account: { name: 'Renamed by A Fictional' },
    });
    assert.equal(mine.status, 200, mine.text);
    const events = (await as(t, bearer(f.sellerA.key)).get(`/events?dealId=${dealId}&type=deal.updated`)).body as {
      events: { actor: { principal: string; keyId: string } }[];
    };
    assert.equal(events.events.length, 1);
    assert.equal(events.events[0].actor.principal, f.sellerA.principal);
    assert.equal(events.events[0].actor.keyId, f.sellerA.id);
    const seenByB = (await as(t, bearer(f.sellerB.key)).get(`/events?type=deal.updated`)).body as { events: unknown[] };
    assert.equal(seenByB.events.length, 0);
  });
});
