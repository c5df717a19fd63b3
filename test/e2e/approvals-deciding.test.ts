// Deciding held proposals over real HTTP (D-70), by people signed in to the console (a cookie,
// as a browser sends it) and by keys with approvals:decide: the last approval commits the
// proposal as the proposing key, naming who approved; short of it, the answer is the approval
// with its vote, and an approver counts once; neither the proposing key nor the person who made
// it decides; a denial and an expiry end it with a refused proposal each, and then it never
// changes again. Stale approvals and racing approvers are in approvals-races.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import {
  dealAt,
  eventsOfDeal,
  freshDeal,
  type KeysFixture,
  keysFixture,
  makeKey,
  OP,
  startKeysServer,
} from '../support/keys.ts';
import { type Mailbox, startMailbox } from '../support/mailbox.ts';
import { person } from '../support/people.ts';

/** A person of Seller A, and the name they were invited with. */
type Person = Awaited<ReturnType<typeof person>> & { name: string };

describe('deciding held proposals (D-70)', () => {
  let mailbox: Mailbox;
  let t: TestServer;
  let f: KeysFixture;
  /** Seller A's people: an admin, who makes the agents' keys, and two managers, who decide. */
  let admin: Person;
  let mona: Person;
  let max: Person;
  before(async () => {
    mailbox = await startMailbox();
    t = await startKeysServer({ demoControls: true, smtpUrl: mailbox.url, mailRetryBaseMs: 50 });
    f = await keysFixture(t);
    admin = await personOfA('ada@a.example', 'Ada Admin', 'admin');
    mona = await personOfA('mona@a.example', 'Mona Manager', 'manager');
    max = await personOfA('max@a.example', 'Max Manager', 'manager');
  });
  after(async () => {
    await t?.close();
    await mailbox?.close();
  });

  /** A person of Seller A, invited by the operator and signed in (a cookie). */
  async function personOfA(email: string, name: string, role: string): Promise<Person> {
    const made = await person(t, OP, mailbox, { email, name, role, principal: f.A.sellerId });
    return { ...made, name };
  }
  /** A key the admin makes through the console (so the admin is the person who made it). */
  async function agentOfAdmin(name: string, policy: Record<string, unknown>, scopes = ['deals:read', 'deals:propose']) {
    const made = await admin.client.post('/keys', { name, scopes, policy });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.createdBy, admin.id);
    return { id: made.body.id as string, key: made.body.key as string };
  }
  const hold = async (key: string, dealId: string, body: Record<string, unknown> = {}) => {
    const held = await f.by(key).post(`${t.prefix}/deals/${dealId}/advance`, body);
    assert.equal(held.status, 202, held.text);
    return held.body.approval as { id: string; dealVersion: number; proposal: Record<string, unknown> };
  };
  const approval = async (id: string) => (await f.by(f.sellerA).get(`/approvals/${id}`)).body;
  const deal = async (id: string) => (await f.by(f.sellerA).get(`${t.prefix}/deals/${id}`)).body;
  const asActor = (p: Person) => ({ principal: f.A.sellerId, userId: p.id, name: p.name });

  it('a manager approves: 200 the deal, carrying the key as actor and who approved; usage counts it', async () => {
    const agent = await agentOfAdmin('closing agent', { minCloseValuePct: 0.95 }, [
      'deals:read',
      'deals:propose',
      'approvals:decide',
    ]);
    const dealId = await dealAt(t, f.sellerA.key, 'negotiation');
    const held = await hold(agent.key, dealId, { advanceTo: 'closed_won', valueUsd: 18_000 });
    // Neither the proposing key (though it may decide) nor the person who made it.
    for (const answer of [
      await f.by(agent.key).post(`/approvals/${held.id}/approve`, {}),
      await f.by(agent.key).post(`/approvals/${held.id}/deny`, { reason: 'mine' }),
      await admin.client.post(`/approvals/${held.id}/approve`, { note: 'my own agent' }),
      await admin.client.post(`/approvals/${held.id}/deny`, { reason: 'my own agent' }),
    ]) {
      assert.equal(answer.status, 403, answer.text);
      assert.equal(answer.body.code, 'SELF_APPROVAL');
    }
    assert.deepEqual((await approval(held.id)).approvals, [], 'no vote counted');
    const seqBefore = (await eventsOfDeal(t, dealId)).at(-1)?.seq ?? 0;
    const approved = await mona.client.post(`/approvals/${held.id}/approve`, { note: 'strategic account' });
    assert.equal(approved.status, 200, approved.text);
    const closed = approved.body;
    assert.equal(closed.id, dealId);
    assert.equal(closed.stage, 'closed_won');
    assert.equal(closed.finalValueUsd, 18_000);
    assert.equal(closed.version, held.dealVersion + 1);
    const keyActor = { principal: f.A.sellerId, keyId: agent.id, approvedBy: [{ userId: mona.id, name: mona.name }] };
    const entry = closed.activity.at(-1);
    assert.equal(entry.stage, 'closed_won');
    assert.equal(entry.by, 'agent');
    assert.deepEqual(entry.actor, keyActor);
    assert.deepEqual(await deal(dealId), closed);
    // The approval, decided; its event names the approver, the move's events the key.
    const decided = await approval(held.id);
    assert.equal(decided.status, 'approved');
    assert.equal(decided.approvals.length, 1);
    assert.deepEqual(decided.approvals[0].by, { userId: mona.id, name: mona.name });
    assert.equal(decided.approvals[0].note, 'strategic account');
    assert.ok(decided.decidedAt);
    const events = (await eventsOfDeal(t, dealId)).filter((e) => e.seq > seqBefore);
    assert.deepEqual(
      events.map((e) => e.type),
      ['deal.stage_changed', 'deal.closed', 'approval.approved'],
    );
    assert.deepEqual(events[0].data, { dealId, from: 'negotiation', to: 'closed_won', by: 'agent' });
    assert.deepEqual(events[0].actor, keyActor);
    assert.deepEqual(events[1].actor, keyActor);
    assert.deepEqual(events[2].actor, asActor(mona));
    assert.deepEqual(events[2].data, decided);
    const usage = (await f.by(f.sellerA).get(`/keys/${agent.id}`)).body.usage;
    assert.equal(usage.closes, 1);
    assert.equal(usage.closedValueUsd, 18_000);
    // Decided for good.
    const again = await max.client.post(`/approvals/${held.id}/approve`, {});
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.code, 'APPROVAL_DECIDED');
  });

  it('approvalsRequired 2: the first approval answers the approval with its vote; an approver counts once; the second commits', async () => {
    const agent = await agentOfAdmin('two-approval agent', { allowedMoves: ['qualified'], approvalsRequired: 2 });
    const decider = await makeKey(t, f.sellerA.key, { name: 'approval bot', scopes: ['approvals:decide'] });
    const dealId = await freshDeal(t, f.sellerA.key, 'Two approvals');
    assert.equal((await f.by(agent.key).post(`${t.prefix}/deals/${dealId}/advance`, {})).status, 200);
    const held = await hold(agent.key, dealId);
    const first = await mona.client.post(`/approvals/${held.id}/approve`, {});
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.id, held.id, 'the answer is the approval');
    assert.equal(first.body.status, 'pending');
    assert.equal(first.body.approvalsRequired, 2);
    assert.deepEqual(
      first.body.approvals.map((v: { by: unknown }) => v.by),
      [{ userId: mona.id, name: mona.name }],
    );
    assert.equal((await deal(dealId)).stage, 'qualified', 'nothing moved yet');
    const twice = await mona.client.post(`/approvals/${held.id}/approve`, { note: 'really' });
    assert.equal(twice.status, 409, twice.text);
    assert.equal(twice.body.code, 'ALREADY_APPROVED');
    assert.equal((await approval(held.id)).approvals.length, 1, 'counted once');
    const second = await f.by(decider).post(`/approvals/${held.id}/approve`);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.id, dealId, 'the answer is the deal');
    assert.equal(second.body.stage, 'meeting');
    assert.deepEqual(second.body.activity.at(-1).actor, {
      principal: f.A.sellerId,
      keyId: agent.id,
      approvedBy: [
        { userId: mona.id, name: mona.name },
        { keyId: decider.id, name: 'approval bot' },
      ],
    });
    assert.equal((await approval(held.id)).status, 'approved');
  });

  it('a denial with its reason: denied, a refused proposal APPROVAL_DENIED in those words, approval.denied; then decided for good', async () => {
    const agent = await agentOfAdmin('denied agent', { closesPerDay: 0 });
    const dealId = await dealAt(t, f.sellerA.key, 'negotiation');
    const held = await hold(agent.key, dealId, { advanceTo: 'closed_won', note: 'please' });
    for (const body of [undefined, {}, { reason: '' }, { reason: 'x'.repeat(501) }, { reason: 'ok', note: 'x' }]) {
      const bad = await max.client.post(`/approvals/${held.id}/deny`, body);
      assert.equal(bad.status, 400, `${JSON.stringify(body)}: ${bad.text}`);
    }
    const reason = 'Too early in the quarter: wait for the renewal.';
    const denied = await max.client.post(`/approvals/${held.id}/deny`, { reason });
    assert.equal(denied.status, 200, denied.text);
    assert.equal(denied.body.id, held.id);
    assert.equal(denied.body.status, 'denied');
    assert.equal(denied.body.reason, reason);
    assert.ok(denied.body.decidedAt);
    assert.deepEqual(await approval(held.id), denied.body);
    const kept = (await f.by(f.sellerA).get(`${t.prefix}/proposals?dealId=${dealId}&code=APPROVAL_DENIED`)).body;
    assert.equal(kept.length, 1);
    assert.equal(kept[0].reason, reason);
    assert.deepEqual(kept[0].proposal, held.proposal);
    assert.deepEqual(kept[0].actor, { principal: f.A.sellerId, keyId: agent.id });
    assert.equal(kept[0].stage, 'negotiation');
    const events = (await eventsOfDeal(t, dealId)).filter((e) => e.type === 'approval.denied');
    assert.equal(events.length, 1);
    assert.deepEqual(events[0].data, denied.body);
    assert.deepEqual(events[0].actor, asActor(max));
    for (const answer of [
      await mona.client.post(`/approvals/${held.id}/approve`, {}),
      await mona.client.post(`/approvals/${held.id}/deny`, { reason: 'again' }),
    ]) {
      assert.equal(answer.status, 409, answer.text);
      assert.equal(answer.body.code, 'APPROVAL_DECIDED');
    }
    assert.equal((await deal(dealId)).stage, 'negotiation');
    assert.equal((await approval(held.id)).status, 'denied');
  });

  // Last: it moves the platform clock.
  it('still pending at expiresAt: expired, with a refused proposal APPROVAL_EXPIRED and approval.expired', async () => {
    const agent = await agentOfAdmin('slow agent', { allowedMoves: [], approvalTtlHours: 1 });
    const dealId = await freshDeal(t, f.sellerA.key, 'Expiring');
    const held = await hold(agent.key, dealId);
    await f.by(OP).post('/demo/clock', { advanceHours: 0.5 });
    assert.equal((await approval(held.id)).status, 'pending', 'half its time: still pending');
    await f.by(OP).post('/demo/clock', { advanceHours: 0.6 });
    // The timers' sweep ends it; give it a moment.
    let expired = await approval(held.id);
    for (let i = 0; i < 50 && expired.status === 'pending'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      expired = await approval(held.id);
    }
    assert.equal(expired.status, 'expired');
    assert.ok(expired.decidedAt);
    assert.ok(Date.parse(expired.decidedAt) >= Date.parse(expired.expiresAt));
    const kept = (await f.by(f.sellerA).get(`${t.prefix}/proposals?dealId=${dealId}`)).body;
    assert.deepEqual(
      kept.map((p: { code: string }) => p.code),
      ['APPROVAL_EXPIRED'],
    );
    assert.equal(kept[0].reason, expired.reason);
    assert.deepEqual(kept[0].actor, { principal: f.A.sellerId, keyId: agent.id });
    const events = (await eventsOfDeal(t, dealId)).filter((e) => e.type === 'approval.expired');
    assert.equal(events.length, 1);
    assert.equal(events[0].data.status, 'expired');
    for (const answer of [
      await mona.client.post(`/approvals/${held.id}/approve`, {}),
      await mona.client.post(`/approvals/${held.id}/deny`, { reason: 'late' }),
    ]) {
      assert.equal(answer.status, 409, answer.text);
      assert.equal(answer.body.code, 'APPROVAL_DECIDED');
    }
    assert.equal((await deal(dealId)).stage, 'sourced');
    // Written by the platform timers: an event's actor is absent for them (the contract's ActorRef).
    assert.equal(events[0].actor, undefined, 'approval.expired: the platform timers, no actor');
  });
});
