// Held proposals when something else happens first, over real HTTP (D-70, D-275): the deal moved
// by another key after the hold makes the approval stale (409 APPROVAL_STALE, superseded,
// approval.superseded once, however often it is decided or the timers run); and ten approvers
// racing on an approval that needs one commit it exactly once, the others 409 APPROVAL_DECIDED.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import {
  dealAt,
  eventsOfDeal,
  type KeyInfo,
  type KeysFixture,
  keysFixture,
  makeKey,
  OP,
  startKeysServer,
} from '../support/keys.ts';

describe('stale and racing approvals (D-70, D-275)', () => {
  let t: TestServer;
  let f: KeysFixture;
  /** Holds every close won: no close a day without a person's approval. */
  let agent: KeyInfo;
  /** Ten keys of Seller A that may decide approvals, each an approver of its own. */
  const deciders: KeyInfo[] = [];
  before(async () => {
    t = await startKeysServer({ demoControls: true });
    f = await keysFixture(t);
    agent = await makeKey(t, f.sellerA.key, {
      name: 'closing agent',
      scopes: ['deals:read', 'deals:propose'],
      policy: { closesPerDay: 0 },
    });
    for (let i = 0; i < 10; i++) {
      deciders.push(await makeKey(t, f.sellerA.key, { name: `approver ${i}`, scopes: ['approvals:decide'] }));
    }
  });
  after(() => t.close());

  const holdClose = async (dealId: string) => {
    const held = await f.by(agent).post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_won' });
    assert.equal(held.status, 202, held.text);
    return held.body.approval as { id: string; dealVersion: number };
  };
  const approval = async (id: string) => (await f.by(f.sellerA).get(`/approvals/${id}`)).body;
  const deal = async (id: string) => (await f.by(f.sellerA).get(`${t.prefix}/deals/${id}`)).body;

  it('the deal moved by another key after the hold: approving is 409 APPROVAL_STALE, the approval superseded once', async () => {
    const dealId = await dealAt(t, f.sellerA.key, 'negotiation');
    const held = await holdClose(dealId);
    // Seller A's own key (no policy) closes it lost meanwhile: within its limits, it commits.
    const lost = await f.by(f.sellerA).post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_lost' });
    assert.equal(lost.status, 200, lost.text);
    const stale = await f.by(deciders[0]).post(`/approvals/${held.id}/approve`, {});
    assert.equal(stale.status, 409, stale.text);
    assert.equal(stale.body.code, 'APPROVAL_STALE');
    const superseded = await approval(held.id);
    assert.equal(superseded.status, 'superseded');
    assert.ok(superseded.decidedAt);
    assert.equal(typeof superseded.reason, 'string');
    // Decided again, or swept by the timers: still stale, and nothing more is published.
    const again = await f.by(deciders[1]).post(`/approvals/${held.id}/approve`, {});
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.code, 'APPROVAL_STALE');
    const deny = await f.by(deciders[1]).post(`/approvals/${held.id}/deny`, { reason: 'too late' });
    assert.equal(deny.status, 409, deny.text);
    await f.by(OP).post('/demo/clock', { advanceHours: 0 });
    assert.deepEqual(await approval(held.id), superseded);
    const events = await eventsOfDeal(t, dealId);
    const ended = events.filter((e) => e.type === 'approval.superseded');
    assert.equal(ended.length, 1, 'approval.superseded once');
    assert.equal(ended[0].data.status, 'superseded');
    assert.equal(events.filter((e) => e.type === 'approval.approved').length, 0);
    const after = await deal(dealId);
    assert.equal(after.stage, 'closed_lost');
    assert.equal(after.version, held.dealVersion + 1, 'only the close lost moved it');
    assert.equal((await f.by(f.sellerA).get(`/keys/${agent.id}`)).body.usage.closes, 0);
  });

  it('D-275: every decision checks at once whether the deal moved: 409 APPROVAL_STALE, superseded, nothing recorded', async () => {
    const twoKey = await makeKey(t, f.sellerA.key, {
      name: 'two-approval closer',
      scopes: ['deals:read', 'deals:propose'],
      policy: { closesPerDay: 0, approvalsRequired: 2 },
    });
    /** A close held through `key`, then the deal closed lost by Seller A's own key. */
    const heldThenLost = async (key: KeyInfo) => {
      const dealId = await dealAt(t, f.sellerA.key, 'negotiation');
      const held = await f.by(key).post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_won' });
      assert.equal(held.status, 202, held.text);
      const lost = await f.by(f.sellerA).post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_lost' });
      assert.equal(lost.status, 200, lost.text);
      return { dealId, id: held.body.approval.id as string };
    };
    const decisions: [string, KeyInfo, string, unknown][] = [
      ['the first vote of two', twoKey, 'approve', {}],
      ['a denial', twoKey, 'deny', { reason: 'no' }],
      ['the last vote', agent, 'approve', {}],
    ];
    const seen = [];
    for (const [what, key, decision, body] of decisions) {
      const { dealId, id } = await heldThenLost(key);
      const answer = await f.by(deciders[0]).post(`/approvals/${id}/${decision}`, body);
      const ended = await approval(id);
      const kept = (await f.by(f.sellerA).get(`${t.prefix}/proposals?dealId=${dealId}`)).body;
      // The refused decision leaves no vote and no refused proposal: only the approval superseded.
      seen.push({
        what,
        status: answer.status,
        code: answer.body.code,
        approval: ended.status,
        votes: ended.approvals,
        kept,
      });
    }
    assert.deepEqual(
      seen,
      decisions.map(([what]) => ({
        what,
        status: 409,
        code: 'APPROVAL_STALE',
        approval: 'superseded',
        votes: [],
        kept: [],
      })),
    );
  });

  it('the timers alone supersede a pending approval whose deal moved (D-275); a new hold then is allowed', async () => {
    const dealId = await dealAt(t, f.sellerA.key, 'proposal');
    const moved = await f.by(agent).post(`${t.prefix}/deals/${dealId}/advance`, {});
    assert.equal(moved.status, 200, 'to negotiation: within the policy');
    const first = await holdClose(dealId);
    const edit = await f.by(f.sellerA).send('PATCH', `${t.prefix}/deals/${dealId}`, { listValueUsd: 21_000 });
    assert.equal(edit.status, 200, edit.text);
    // The deal's version moved: a new proposal that would be held supersedes the pending one.
    const second = await holdClose(dealId);
    assert.notEqual(second.id, first.id);
    assert.equal((await approval(first.id)).status, 'superseded');
    await f.by(OP).post('/demo/clock', { advanceHours: 0 });
    assert.equal((await approval(second.id)).status, 'pending', 'its deal did not move since');
    const ended = (await eventsOfDeal(t, dealId)).filter((e) => e.type === 'approval.superseded');
    assert.deepEqual(
      ended.map((e) => e.data.id),
      [first.id],
    );
  });

  it('10 approvers race on an approval needing one: exactly one 200, nine 409 APPROVAL_DECIDED, one close', async () => {
    const dealId = await dealAt(t, f.sellerA.key, 'negotiation');
    const held = await holdClose(dealId);
    const seqBefore = (await eventsOfDeal(t, dealId)).at(-1)?.seq ?? 0;
    const answers = await Promise.all(
      deciders.map((key, i) => f.by(key).post(`/approvals/${held.id}/approve`, { note: `approver ${i}` })),
    );
    const committed = answers.filter((a) => a.status === 200);
    assert.equal(committed.length, 1, answers.map((a) => `${a.status} ${a.body?.code ?? ''}`).join(', '));
    for (const lost of answers.filter((a) => a.status !== 200)) {
      assert.equal(lost.status, 409, lost.text);
      assert.equal(lost.body.code, 'APPROVAL_DECIDED');
    }
    const closed = committed[0].body;
    assert.equal(closed.stage, 'closed_won');
    assert.equal(closed.version, held.dealVersion + 1);
    const winner = deciders[answers.indexOf(committed[0])];
    assert.deepEqual(closed.activity.at(-1).actor.approvedBy, [{ keyId: winner.id, name: winner.created.name }]);
    const decided = await approval(held.id);
    assert.equal(decided.status, 'approved');
    assert.equal(decided.approvals.length, 1, 'one vote: the one that committed');
    const events = (await eventsOfDeal(t, dealId)).filter((e) => e.seq > seqBefore);
    const count = (type: string) => events.filter((e) => e.type === type).length;
    assert.equal(count('deal.stage_changed'), 1);
    assert.equal(count('deal.closed'), 1);
    assert.equal(count('approval.approved'), 1);
    assert.deepEqual(await deal(dealId), closed);
    assert.equal((await f.by(f.sellerA).get(`/keys/${agent.id}`)).body.usage.closes, 1, 'counted once');
  });
});
