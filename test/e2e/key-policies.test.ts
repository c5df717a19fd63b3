// Key policies over real HTTP (D-68): a Seller's key made with a policy shows it with its
// defaults stated and money in USD; a malformed policy is 400 and makes nothing; only a Seller's
// key carries one; PUT /keys/{id}/policy replaces the whole policy or removes it; and a key with
// a policy never makes, sets or rolls a policy looser than its own (403 POLICY_WIDENING), leaving
// everything as it was. The limits as proposals meet them are in key-policy-limits.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import {
  assertUnchanged,
  type KeysFixture,
  keysFixture,
  makeKey,
  OP,
  snapshot,
  startKeysServer,
} from '../support/keys.ts';

/** The defaults a key's policy states when they were not sent (D-68). */
const DEFAULTS = { onLimit: 'hold', approvalsRequired: 1, approvalTtlHours: 24 };

describe('key policies: made, shown, replaced, never widened (D-68)', () => {
  let t: TestServer;
  let f: KeysFixture;
  before(async () => {
    t = await startKeysServer();
    f = await keysFixture(t);
  });
  after(() => t.close());

  it('POST /keys with a policy: shown in the answer and in GET /keys/{id} with its defaults stated, money in USD', async () => {
    const policy = {
      maxDealValueUsd: 50_000.005,
      minCloseValuePct: 0.9,
      allowedMoves: ['qualified', 'meeting', 'closed_lost'],
      closesPerDay: 3,
      closedValuePerDayUsd: 120_000.5,
    };
    const made = await f.by(f.sellerA).post('/keys', { name: 'bounded agent', scopes: ['deals:propose'], policy });
    assert.equal(made.status, 201, made.text);
    // USD rounded half-up to the cent; the defaults the key is bound by are stated.
    const shown = { ...policy, maxDealValueUsd: 50_000.01, ...DEFAULTS };
    assert.deepEqual(made.body.policy, shown);
    const read = await f.by(f.sellerA).get(`/keys/${made.body.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.policy, shown);
    // Every field given: nothing defaulted.
    const full = { closesPerDay: 0, onLimit: 'refuse', approvalsRequired: 3, approvalTtlHours: 168 };
    const strict = await f.by(f.sellerA).post('/keys', { name: 'strict agent', policy: full });
    assert.equal(strict.status, 201, strict.text);
    assert.deepEqual(strict.body.policy, full);
    // The operator makes a Seller's key with a policy too; the list shows it.
    const byOperator = await makeKey(t, OP, { name: 'op-made', principal: f.A.sellerId, policy: {} });
    assert.deepEqual(byOperator.created.policy, DEFAULTS, 'an empty policy is the defaults');
    const listed = await f.by(f.sellerA).get('/keys?limit=1000');
    const row = listed.body.find((k: { id: string }) => k.id === byOperator.id);
    assert.deepEqual(row?.policy, DEFAULTS);
    // A key made without one shows none.
    assert.equal('policy' in f.agentA.created, false);
  });

  it('a malformed policy is 400 INVALID_BODY naming the field, and makes no key', async () => {
    const before = await snapshot(t);
    const cases: [string, Record<string, unknown>, string][] = [
      ['approvalsRequired 4', { approvalsRequired: 4 }, 'policy.approvalsRequired'],
      ['approvalsRequired 0', { approvalsRequired: 0 }, 'policy.approvalsRequired'],
      ['minCloseValuePct 1.5', { minCloseValuePct: 1.5 }, 'policy.minCloseValuePct'],
      ['minCloseValuePct below 0', { minCloseValuePct: -0.1 }, 'policy.minCloseValuePct'],
      ['approvalTtlHours 0', { approvalTtlHours: 0 }, 'policy.approvalTtlHours'],
      ['approvalTtlHours 169', { approvalTtlHours: 169 }, 'policy.approvalTtlHours'],
      ['approvalTtlHours 1.5', { approvalTtlHours: 1.5 }, 'policy.approvalTtlHours'],
      ['closesPerDay -1', { closesPerDay: -1 }, 'policy.closesPerDay'],
      ['closesPerDay 2.5', { closesPerDay: 2.5 }, 'policy.closesPerDay'],
      ['maxDealValueUsd -1', { maxDealValueUsd: -1 }, 'policy.maxDealValueUsd'],
      ['closedValuePerDayUsd as text', { closedValuePerDayUsd: '100' }, 'policy.closedValuePerDayUsd'],
      ['onLimit maybe', { onLimit: 'maybe' }, 'policy.onLimit'],
      ['allowedMoves of no stage', { allowedMoves: ['signed'] }, 'policy.allowedMoves'],
      ['allowedMoves twice', { allowedMoves: ['qualified', 'qualified'] }, 'policy.allowedMoves'],
      ['an unknown field', { closesPerWeek: 3 }, 'policy.closesPerWeek'],
    ];
    for (const [what, policy, field] of cases) {
      const answer = await f.by(f.sellerA).post('/keys', { name: `bad: ${what}`, policy });
      assert.equal(answer.status, 400, `${what}: ${answer.text}`);
      assert.equal(answer.body.code, 'INVALID_BODY', what);
      assert.ok(
        answer.body.violations.some((v: string) => v.startsWith(field)),
        `${what}: the violations name ${field}: ${answer.text}`,
      );
    }
    const notAnObject = await f.by(f.sellerA).post('/keys', { name: 'bad', policy: 'strict' });
    assert.equal(notAnObject.status, 400, notAnObject.text);
    await assertUnchanged(t, before, 'malformed policies');
  });

  it("a closer's or the operator's key with a policy: 422 POLICY_NOT_OF_SELLER, nothing made", async () => {
    const before = await snapshot(t);
    const refusals = [
      await f.by(f.closer1).post('/keys', { name: 'closer agent', policy: { closesPerDay: 1 } }),
      await f.by(OP).post('/keys', { name: 'for a closer', principal: f.closer1.principal, policy: {} }),
      await f.by(OP).post('/keys', { name: 'operator agent', principal: 'operator', policy: { closesPerDay: 1 } }),
    ];
    for (const answer of refusals) {
      assert.equal(answer.status, 422, answer.text);
      assert.equal(answer.body.code, 'POLICY_NOT_OF_SELLER');
    }
    // Nor is one set on such a key afterwards.
    const put = await f.by(f.closer1).send('PUT', `/keys/${f.closerRead.id}/policy`, { policy: { closesPerDay: 1 } });
    assert.equal(put.status, 422, put.text);
    assert.equal(put.body.code, 'POLICY_NOT_OF_SELLER');
    assert.equal('policy' in (await f.by(f.closer1).get(`/keys/${f.closerRead.id}`)).body, false);
    await assertUnchanged(t, before, 'policies on keys of no Seller');
  });

  it('PUT /keys/{id}/policy replaces the whole policy (nothing of the old kept); {policy: null} removes it', async () => {
    const key = await makeKey(t, f.sellerA.key, {
      name: 'to be replaced',
      policy: { closesPerDay: 2, maxDealValueUsd: 30_000, onLimit: 'refuse', approvalsRequired: 2 },
    });
    const A = f.by(f.sellerA);
    const replaced = await A.send('PUT', `/keys/${key.id}/policy`, { policy: { minCloseValuePct: 0.85 } });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(replaced.body.policy, { minCloseValuePct: 0.85, ...DEFAULTS });
    assert.equal(replaced.body.key, undefined, 'the key itself is never shown again');
    assert.deepEqual((await A.get(`/keys/${key.id}`)).body.policy, { minCloseValuePct: 0.85, ...DEFAULTS });
    const removed = await A.send('PUT', `/keys/${key.id}/policy`, { policy: null });
    assert.equal(removed.status, 200, removed.text);
    assert.equal('policy' in removed.body, false);
    assert.equal('policy' in (await A.get(`/keys/${key.id}`)).body, false);
    // Set again on a key that had none; the operator may set one on any Seller's key.
    const again = await f.by(OP).send('PUT', `/keys/${key.id}/policy`, { policy: { allowedMoves: [] } });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.policy, { allowedMoves: [], ...DEFAULTS });
    // The body is {policy}: nothing else, and never without it.
    for (const body of [{}, { closesPerDay: 1 }, { policy: { closesPerDay: 1 }, note: 'x' }]) {
      const bad = await A.send('PUT', `/keys/${key.id}/policy`, body);
      assert.equal(bad.status, 400, `${JSON.stringify(body)}: ${bad.text}`);
    }
    // Another Seller's key is unknown to Seller B; an unknown key to everyone.
    const foreign = await f.by(f.sellerB).send('PUT', `/keys/${key.id}/policy`, { policy: null });
    assert.equal(foreign.status, 404, foreign.text);
    const unknown = await A.send('PUT', '/keys/key_9999/policy', { policy: null });
    assert.equal(unknown.status, 404, unknown.text);
    assert.deepEqual((await A.get(`/keys/${key.id}`)).body.policy, { allowedMoves: [], ...DEFAULTS });
  });

  it('a key with a policy makes no key, nor sets a policy, looser than its own: 403 POLICY_WIDENING, nothing changed', async () => {
    const own = {
      maxDealValueUsd: 40_000,
      minCloseValuePct: 0.9,
      allowedMoves: ['qualified', 'meeting'],
      closesPerDay: 2,
      closedValuePerDayUsd: 60_000,
      onLimit: 'refuse',
      approvalsRequired: 2,
    };
    const manager = await makeKey(t, f.sellerA.key, {
      name: 'bounded manager',
      scopes: ['deals:read', 'deals:propose', 'keys:manage'],
      policy: own,
    });
    const sibling = await makeKey(t, f.sellerA.key, { name: 'sibling', policy: own });
    const bounded = f.by(manager.key);
    const looser: [string, unknown][] = [
      ['no policy at all', undefined],
      ['a higher closesPerDay', { ...own, closesPerDay: 3 }],
      ['no closesPerDay', { ...own, closesPerDay: undefined }],
      ['a higher maxDealValueUsd', { ...own, maxDealValueUsd: 40_000.01 }],
      ['no closedValuePerDayUsd', { ...own, closedValuePerDayUsd: undefined }],
      ['a lower minCloseValuePct', { ...own, minCloseValuePct: 0.8 }],
      ['a move outside its own', { ...own, allowedMoves: ['qualified', 'closed_won'] }],
      ['any move', { ...own, allowedMoves: undefined }],
      ['hold where it refuses', { ...own, onLimit: 'hold' }],
      ['fewer approvals', { ...own, approvalsRequired: 1 }],
    ];
    const before = await snapshot(t);
    for (const [what, policy] of looser) {
      const body = { name: `looser: ${what}`, scopes: ['deals:propose'], ...(policy ? { policy } : {}) };
      const made = await bounded.post('/keys', body);
      assert.equal(made.status, 403, `make with ${what}: ${made.text}`);
      assert.equal(made.body.code, 'POLICY_WIDENING', what);
      const set = await bounded.send('PUT', `/keys/${sibling.id}/policy`, { policy: policy ?? null });
      assert.equal(set.status, 403, `set ${what}: ${set.text}`);
      assert.equal(set.body.code, 'POLICY_WIDENING', what);
    }
    // Nor its own.
    const loosenOwn = await bounded.send('PUT', `/keys/${manager.id}/policy`, { policy: null });
    assert.equal(loosenOwn.status, 403, loosenOwn.text);
    assert.equal(loosenOwn.body.code, 'POLICY_WIDENING');
    await assertUnchanged(t, before, 'widening refused');
    const shown = { ...own, approvalTtlHours: 24 };
    assert.deepEqual((await f.by(f.sellerA).get(`/keys/${sibling.id}`)).body.policy, shown, 'the sibling as it was');
    assert.deepEqual((await f.by(f.sellerA).get(`/keys/${manager.id}`)).body.policy, shown, 'its own as it was');
    // As tight, or tighter, is allowed; so is anything for a key without a policy (Seller A's own).
    const tighter = { ...own, closesPerDay: 1, allowedMoves: ['qualified'], approvalsRequired: 3 };
    const made = await bounded.post('/keys', { name: 'tighter', scopes: ['deals:propose'], policy: tighter });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.body.policy, { ...tighter, approvalTtlHours: 24 });
    const same = await bounded.send('PUT', `/keys/${sibling.id}/policy`, { policy: own });
    assert.equal(same.status, 200, same.text);
    const free = await f.by(f.sellerA).send('PUT', `/keys/${sibling.id}/policy`, { policy: null });
    assert.equal(free.status, 200, free.text);
    // Nor rolls one looser (the roll's answer is a new key, to the caller): a key of the Seller's
    // with no policy, and no scope the bounded key lacks, would come back unbounded.
    const plain = await makeKey(t, f.sellerA.key, { name: 'plain proposer', scopes: ['deals:propose'] });
    const state = await snapshot(t);
    const rolled = await bounded.post(`/keys/${plain.id}/roll`, { graceSeconds: 0 });
    assert.equal(rolled.status, 403, rolled.text);
    assert.equal(rolled.body.code, 'POLICY_WIDENING');
    assert.equal('key' in rolled.body, false, 'no key handed out');
    await assertUnchanged(t, state, 'a looser roll refused');
    const tight = await bounded.post(`/keys/${made.body.id}/roll`, { graceSeconds: 0 });
    assert.equal(tight.status, 201, `a key as tight as its own rolls: ${tight.text}`);
  });
});
