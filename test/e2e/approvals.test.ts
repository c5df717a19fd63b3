// Held proposals over real HTTP (D-69): a move over its key's policy with onLimit hold moves
// nothing and answers 202 {status: "held", approval} with the whole record, publishes
// approval.requested, replays the same 202 for the same Idempotency-Key, and meets any other
// proposal on the deal that would be held (409 APPROVAL_PENDING) while one within the limits still
// commits. GET /approvals filters and pages them, and a Seller sees only its own. Deciding them is
// in approvals-deciding.test.ts and approvals-races.test.ts; the MCP door in approvals-mcp.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import {
  dealAt,
  eventsOfDeal,
  heldApproval,
  type KeyedAnswer,
  type KeyInfo,
  type KeysFixture,
  keysFixture,
  makeKey,
  OP,
  startKeysServer,
} from '../support/keys.ts';

const HOUR_MS = 3_600_000;
const AGENT_SCOPES = ['deals:read', 'deals:propose'];

describe('held proposals and the approvals list (D-69)', () => {
  let t: TestServer;
  let f: KeysFixture;
  /** Holds any close won below 95% of the list value, for 2 approvals, for 6 hours. */
  let agent: KeyInfo;
  /** Holds every move. */
  let holdsAll: KeyInfo;
  before(async () => {
    t = await startKeysServer({ demoControls: true });
    f = await keysFixture(t);
    agent = await makeKey(t, f.sellerA.key, {
      name: 'discounting agent',
      scopes: AGENT_SCOPES,
      policy: { minCloseValuePct: 0.95, approvalsRequired: 2, approvalTtlHours: 6 },
    });
    holdsAll = await makeKey(t, f.sellerA.key, {
      name: 'holds all',
      scopes: AGENT_SCOPES,
      policy: { allowedMoves: [] },
    });
  });
  after(() => t.close());

  const advance = (key: string, dealId: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
    f.by(key).post(`${t.prefix}/deals/${dealId}/advance`, body, headers);
  const deal = async (id: string) => (await f.by(f.sellerA).get(`${t.prefix}/deals/${id}`)).body;

  it('202 {status: "held", approval} with every field; nothing moves; approval.requested; a replay answers the same 202', async () => {
    const dealId = await dealAt(t, f.sellerA.key, 'negotiation');
    const before = await deal(dealId);
    const proposal = { advanceTo: 'closed_won', valueUsd: 18_000, note: 'end of quarter discount' };
    const headers = { 'idempotency-key': `held-${dealId}` };
    const held = await advance(agent.key, dealId, proposal, headers);
    assert.equal(held.status, 202, held.text);
    assert.deepEqual(Object.keys(held.body).sort(), ['approval', 'status']);
    assert.equal(held.body.status, 'held');
    const { approval } = held.body;
    assert.match(approval.id, /^apr_\d{4,}$/);
    const requestedAt = Date.parse(approval.requestedAt);
    assert.ok(Number.isFinite(requestedAt));
    assert.deepEqual(approval, {
      id: approval.id,
      dealId,
      keyId: agent.id,
      keyName: 'discounting agent',
      principal: f.A.sellerId,
      actor: { principal: f.A.sellerId, keyId: agent.id },
      proposal,
      limits: [{ limit: 'minCloseValuePct', allowed: 0.95, value: 0.9 }],
      dealVersion: before.version,
      approvalsRequired: 2,
      approvals: [],
      status: 'pending',
      requestedAt: approval.requestedAt,
      expiresAt: new Date(requestedAt + 6 * HOUR_MS).toISOString(),
    });
    // Nothing moved, nothing counted.
    const after = await deal(dealId);
    assert.equal(after.stage, 'negotiation');
    assert.equal(after.version, before.version);
    assert.equal((await f.by(f.sellerA).get(`/keys/${agent.id}`)).body.usage.closes, 0);
    assert.deepEqual((await f.by(f.sellerA).get(`${t.prefix}/proposals?keyId=${agent.id}`)).body, []);
    // The approval as GET /approvals/{id} reads it, and its event.
    assert.deepEqual((await f.by(f.sellerA).get(`/approvals/${approval.id}`)).body, approval);
    const events = await eventsOfDeal(t, dealId);
    const requested = events.filter((e) => e.type === 'approval.requested');
    assert.equal(requested.length, 1);
    assert.deepEqual(requested[0].data, approval);
    assert.deepEqual(requested[0].actor, { principal: f.A.sellerId, keyId: agent.id });
    assert.equal(events.at(-1)?.type, 'approval.requested', 'no move was published');
    // The same Idempotency-Key: the same 202, and no second approval.
    const replay = await advance(agent.key, dealId, proposal, headers);
    assert.equal(replay.status, 202, replay.text);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replay.body, held.body);
    assert.deepEqual(
      (await f.by(f.sellerA).get(`/approvals?dealId=${dealId}`)).body.map((a: { id: string }) => a.id),
      [approval.id],
    );
    const again = await eventsOfDeal(t, dealId);
    assert.equal(again.length, events.length, 'the replay published nothing');
  });

  it('another proposal on the deal that would be held: 409 APPROVAL_PENDING naming it; one within the limits commits', async () => {
    const dealId = await dealAt(t, f.sellerA.key, 'negotiation');
    const held = await advance(agent.key, dealId, { advanceTo: 'closed_won', valueUsd: 18_000 });
    assert.equal(held.status, 202, held.text);
    const approvalId = held.body.approval.id;
    for (const body of [
      { advanceTo: 'closed_won', valueUsd: 17_000 },
      { advanceTo: 'closed_won', valueUsd: 18_000 },
    ]) {
      const pending = await advance(agent.key, dealId, body);
      assert.equal(pending.status, 409, pending.text);
      assert.equal(pending.body.code, 'APPROVAL_PENDING');
      assert.equal(pending.body.approvalId, approvalId);
    }
    // Another key whose policy would hold it meets the same approval.
    const other = await makeKey(t, f.sellerA.key, { name: 'other', scopes: AGENT_SCOPES, policy: { closesPerDay: 0 } });
    const meets = await advance(other.key, dealId, { advanceTo: 'closed_won' });
    assert.equal(meets.status, 409, meets.text);
    assert.equal(meets.body.approvalId, approvalId);
    assert.equal((await deal(dealId)).stage, 'negotiation');
    assert.equal((await f.by(f.sellerA).get(`/approvals?dealId=${dealId}`)).body.length, 1, 'no second approval');
    // Within the limits, the same key's close won at 95% commits.
    const within = await advance(agent.key, dealId, { advanceTo: 'closed_won', valueUsd: 19_000 });
    assert.equal(within.status, 200, within.text);
    assert.equal(within.body.stage, 'closed_won');
    assert.equal(within.body.finalValueUsd, 19_000);
    // D-275: the deal moved; the timers' next run makes the approval superseded.
    await f.by(OP).post('/demo/clock', { advanceHours: 0 });
    const approval = (await f.by(f.sellerA).get(`/approvals/${approvalId}`)).body;
    assert.equal(approval.status, 'superseded');
    const superseded = (await eventsOfDeal(t, dealId)).filter((e) => e.type === 'approval.superseded');
    assert.equal(superseded.length, 1);
  });

  it('GET /approvals: newest first, filtered by status, dealId and keyId, a page at a time', async () => {
    const holder = await makeKey(t, f.sellerA.key, {
      name: 'lister',
      scopes: AGENT_SCOPES,
      policy: { allowedMoves: [] },
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await heldApproval(t, f.sellerA.key, holder.key));
    const A = f.by(f.sellerA);
    const list = async (query: string) => {
      const answer = await A.get(`/approvals?${query}`);
      assert.equal(answer.status, 200, `${query}: ${answer.text}`);
      return answer.body.map((a: { id: string }) => a.id);
    };
    const newestFirst = [...ids].reverse();
    assert.deepEqual(await list(`keyId=${holder.id}`), newestFirst);
    const first = (await A.get(`/approvals/${ids[0]}`)).body;
    assert.deepEqual(await list(`dealId=${first.dealId}`), [ids[0]]);
    assert.deepEqual(await list(`keyId=${holder.id}&status=pending`), newestFirst);
    assert.deepEqual(await list(`keyId=${holder.id}&status=approved`), []);
    const everyPending = await list('status=pending&limit=100');
    for (const id of ids) assert.ok(everyPending.includes(id));
    const superseded = await list('status=superseded&limit=100');
    assert.ok(superseded.every((id: string) => !ids.includes(id)));
    // Unknown or malformed filters find nothing; a bad status or limit is 400.
    assert.deepEqual(await list('dealId=deal_9999'), []);
    assert.deepEqual(await list('keyId=not-a-key'), []);
    for (const query of ['status=waiting', 'limit=0', 'cursor=nonsense', 'colour=red']) {
      const bad = await A.get(`/approvals?${query}`);
      assert.equal(bad.status, 400, `${query}: ${bad.text}`);
    }
    // Pages of one, following the Link header's cursor.
    const paged: string[] = [];
    let next: string | undefined = `/approvals?keyId=${holder.id}&limit=1`;
    while (next !== undefined) {
      const page: KeyedAnswer = await A.get(next);
      assert.equal(page.status, 200, page.text);
      assert.ok(page.body.length <= 1);
      paged.push(...page.body.map((a: { id: string }) => a.id));
      const link = page.headers.get('link');
      next = link ? /<[^>]*?(\/approvals[^>]*)>; rel="next"/.exec(link)?.[1] : undefined;
      assert.ok(paged.length <= 3, 'the pages end');
    }
    assert.deepEqual(paged, newestFirst);
    // The operator sees every Seller's; a key that reads deals sees its Seller's.
    assert.deepEqual(
      (await f.by(OP).get(`/approvals?keyId=${holder.id}`)).body.map((a: { id: string }) => a.id),
      newestFirst,
    );
    assert.deepEqual(
      (await f.by(f.readA).get(`/approvals?keyId=${holder.id}`)).body.map((a: { id: string }) => a.id),
      newestFirst,
    );
  });

  it("Seller B sees none of Seller A's approvals, and may not decide them (404 APPROVAL_NOT_FOUND)", async () => {
    const id = await heldApproval(t, f.sellerA.key, holdsAll.key);
    const B = f.by(f.sellerB);
    const listed = await B.get('/approvals?limit=100');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body, [], 'Seller B has no approvals of its own, and sees none of A');
    const dealId = (await f.by(f.sellerA).get(`/approvals/${id}`)).body.dealId;
    assert.deepEqual((await B.get(`/approvals?dealId=${dealId}`)).body, []);
    for (const answer of [
      await B.get(`/approvals/${id}`),
      await B.post(`/approvals/${id}/approve`, {}),
      await B.post(`/approvals/${id}/deny`, { reason: 'not mine to decide' }),
      await f.by(f.sellerA).get('/approvals/apr_9999'),
      await f.by(f.sellerA).get('/approvals/nonsense'),
    ]) {
      assert.equal(answer.status, 404, answer.text);
      assert.equal(answer.body.code, 'APPROVAL_NOT_FOUND');
    }
    // Still pending, as Seller A reads it.
    assert.equal((await f.by(f.sellerA).get(`/approvals/${id}`)).body.status, 'pending');
    // A closer's key reads no approvals at all.
    assert.equal((await f.by(f.closer1).get('/approvals')).status, 403);
  });
});
