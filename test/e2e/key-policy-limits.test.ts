// A key's policy as proposals meet it, over real HTTP (D-68, D-69, D-274): over a limit with
// onLimit refuse the answer is 422 POLICY_LIMIT with `limits: [{limit, allowed, value}]`, kept
// as a refused proposal; maxDealValueUsd refuses a create or sell above it whatever onLimit says;
// a Seller's key counts its closes won in GET /keys/{id}'s `usage`, policy or not, until the next
// platform day; a changed policy binds this instance at once; a dry run records nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import {
  assertUnchanged,
  dealAt,
  dealBody,
  eventsOfDeal,
  freshDeal,
  type KeysFixture,
  keysFixture,
  makeKey,
  OP,
  snapshot,
  startKeysServer,
} from '../support/keys.ts';

const HOUR_MS = 3_600_000;

describe('key policies: the limits as proposals meet them (D-68, D-69)', () => {
  let t: TestServer;
  let f: KeysFixture;
  before(async () => {
    t = await startKeysServer({ demoControls: true });
    f = await keysFixture(t);
  });
  after(() => t.close());

  const advance = (key: string, dealId: string, body: Record<string, unknown> = {}, query = '') =>
    f.by(key).post(`${t.prefix}/deals/${dealId}/advance${query}`, body);
  const deal = async (id: string) => (await f.by(f.sellerA).get(`${t.prefix}/deals/${id}`)).body;
  const refusedThrough = async (keyId: string) =>
    (await f.by(f.sellerA).get(`${t.prefix}/proposals?keyId=${keyId}&limit=100`)).body as any[];
  const approvalsOf = async (dealId: string) => (await f.by(f.sellerA).get(`/approvals?dealId=${dealId}`)).body;
  /** The platform clock's now (the demo clock moved by nothing). */
  const platformNow = async () => Date.parse((await f.by(OP).post('/demo/clock', { advanceHours: 0 })).body.now);

  it('onLimit refuse: 422 POLICY_LIMIT with limits [{limit, allowed, value}], kept as a refused proposal; nothing moved', async () => {
    const key = await makeKey(t, f.sellerA.key, {
      name: 'refusing mover',
      scopes: ['deals:read', 'deals:propose'],
      policy: { allowedMoves: ['qualified'], onLimit: 'refuse' },
    });
    const dealId = await freshDeal(t, f.sellerA.key, 'Refused by policy');
    assert.equal((await advance(key.key, dealId)).status, 200, 'a move within the policy commits');
    const refused = await advance(key.key, dealId, { note: 'onwards' });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.code, 'POLICY_LIMIT');
    assert.deepEqual(refused.body.limits, [{ limit: 'allowedMoves', allowed: ['qualified'], value: 'meeting' }]);
    const now = await deal(dealId);
    assert.equal(now.stage, 'qualified');
    assert.equal(now.version, 2);
    const kept = await refusedThrough(key.id);
    assert.equal(kept.length, 1);
    const { id: _id, at: _at, ...record } = kept[0];
    assert.deepEqual(record, {
      dealId,
      by: 'agent',
      actor: { principal: f.A.sellerId, keyId: key.id },
      proposal: { note: 'onwards' },
      stage: 'qualified',
      code: 'POLICY_LIMIT',
      reason: refused.body.error,
    });
    const listed = await f.by(f.sellerA).get(`${t.prefix}/proposals?code=POLICY_LIMIT&limit=100`);
    assert.ok(
      listed.body.some((p: { id: string }) => p.id === kept[0].id),
      'listed under its code',
    );
    assert.deepEqual(await approvalsOf(dealId), [], 'refused, not held');
    const types = (await eventsOfDeal(t, dealId)).map((e) => e.type);
    assert.equal(types.filter((type) => type.startsWith('approval.')).length, 0);
  });

  it('the daily limits and minCloseValuePct name what the close would make them', async () => {
    const key = await makeKey(t, f.sellerA.key, {
      name: 'daily refuser',
      scopes: ['deals:read', 'deals:propose'],
      policy: { closesPerDay: 1, closedValuePerDayUsd: 30_000, minCloseValuePct: 0.9, onLimit: 'refuse' },
    });
    const [one, two] = [await dealAt(t, f.sellerA.key, 'negotiation'), await dealAt(t, f.sellerA.key, 'negotiation')];
    const low = await advance(key.key, one, { advanceTo: 'closed_won', valueUsd: 17_000 });
    assert.equal(low.status, 422, low.text);
    assert.deepEqual(low.body.limits, [{ limit: 'minCloseValuePct', allowed: 0.9, value: 0.85 }]);
    assert.equal((await advance(key.key, one, { advanceTo: 'closed_won' })).status, 200);
    const over = await advance(key.key, two, { advanceTo: 'closed_won', valueUsd: 19_000 });
    assert.equal(over.status, 422, over.text);
    assert.equal(over.body.code, 'POLICY_LIMIT');
    assert.deepEqual(over.body.limits, [
      { limit: 'closesPerDay', allowed: 1, value: 2 },
      { limit: 'closedValuePerDayUsd', allowed: 30_000, value: 39_000 },
    ]);
    assert.equal((await deal(two)).stage, 'negotiation');
    assert.deepEqual(
      (await refusedThrough(key.id)).map((p) => [p.dealId, p.code, p.proposal.valueUsd]),
      [
        [two, 'POLICY_LIMIT', 19_000],
        [one, 'POLICY_LIMIT', 17_000],
      ],
    );
  });

  it('maxDealValueUsd refuses a create, a sell or a move above it, even with onLimit hold', async () => {
    const key = await makeKey(t, f.sellerA.key, {
      name: 'small deals only',
      policy: { maxDealValueUsd: 10_000, onLimit: 'hold' },
    });
    const limits = [{ limit: 'maxDealValueUsd', allowed: 10_000, value: 20_000 }];
    const before = await snapshot(t);
    for (const path of ['/deals', '/sell']) {
      const above = await f.by(key.key).post(`${t.prefix}${path}`, dealBody('Too big', undefined, 20_000));
      assert.equal(above.status, 422, `${path}: ${above.text}`);
      assert.equal(above.body.code, 'POLICY_LIMIT');
      assert.deepEqual(above.body.limits, limits, path);
    }
    // D-274: the deal was never made, so there is nothing to keep.
    await assertUnchanged(t, before, 'creates and sells above maxDealValueUsd');
    assert.deepEqual(await refusedThrough(key.id), []);
    const atCap = await f.by(key.key).post(`${t.prefix}/deals`, dealBody('At the cap', undefined, 10_000));
    assert.equal(atCap.status, 201, atCap.text);
    // A deal another key made above the cap: a move on it is refused, not held.
    const big = await freshDeal(t, f.sellerA.key, 'Big deal');
    const moved = await advance(key.key, big);
    assert.equal(moved.status, 422, moved.text);
    assert.deepEqual(moved.body.limits, limits);
    assert.deepEqual(await approvalsOf(big), []);
    assert.deepEqual(
      (await refusedThrough(key.id)).map((p) => [p.dealId, p.code]),
      [[big, 'POLICY_LIMIT']],
    );
  });

  it('a changed policy binds this instance at once, and sees the closes made before it', async () => {
    const key = await makeKey(t, f.sellerA.key, { name: 'changing', scopes: ['deals:read', 'deals:propose'] });
    const A = f.by(f.sellerA);
    const deals = [];
    for (let i = 0; i < 4; i++) deals.push(await dealAt(t, f.sellerA.key, 'negotiation'));
    const close = (dealId: string) => advance(key.key, dealId, { advanceTo: 'closed_won' });
    assert.equal((await close(deals[0])).status, 200, 'no policy: it commits');
    const put = async (policy: unknown) =>
      assert.equal((await A.send('PUT', `/keys/${key.id}/policy`, { policy })).status, 200);
    await put({ closesPerDay: 1, onLimit: 'refuse' });
    const refused = await close(deals[1]);
    assert.equal(refused.status, 422, `the new policy binds the very next proposal: ${refused.text}`);
    assert.deepEqual(refused.body.limits, [{ limit: 'closesPerDay', allowed: 1, value: 2 }]);
    await put({ closesPerDay: 2, onLimit: 'refuse' });
    assert.equal((await close(deals[1])).status, 200);
    await put({ allowedMoves: [] });
    const held = await close(deals[2]);
    assert.equal(held.status, 202, held.text);
    assert.equal(held.body.status, 'held');
    await put(null);
    assert.equal((await close(deals[3])).status, 200, 'no policy again: it commits');
  });

  it('a dry run through a key with a policy records nothing: no approval, no refused proposal, no event', async () => {
    const holding = await makeKey(t, f.sellerA.key, { name: 'dry holder', policy: { closesPerDay: 0 } });
    const refusing = await makeKey(t, f.sellerA.key, {
      name: 'dry refuser',
      policy: { closesPerDay: 0, maxDealValueUsd: 15_000, onLimit: 'refuse' },
    });
    const dealId = await dealAt(t, f.sellerA.key, 'negotiation', 15_000);
    const before = await snapshot(t);
    const held = await advance(holding.key, dealId, { advanceTo: 'closed_won' }, '?dryRun=true');
    assert.ok([200, 202].includes(held.status), `a dry run of a held close: ${held.text}`);
    const refused = await advance(refusing.key, dealId, { advanceTo: 'closed_won' }, '?dryRun=true');
    assert.ok([200, 422].includes(refused.status), `a dry run of a refused close: ${refused.text}`);
    if (refused.status === 422) assert.equal(refused.body.code, 'POLICY_LIMIT');
    for (const path of ['/deals', '/sell']) {
      const above = await f.by(refusing.key).post(`${t.prefix}${path}?dryRun=true`, dealBody('Dry', undefined, 20_000));
      assert.ok([200, 422].includes(above.status), `${path}: ${above.text}`);
      if (above.status === 422) assert.equal(above.body.code, 'POLICY_LIMIT');
    }
    await assertUnchanged(t, before, 'dry runs through keys with a policy');
    assert.equal((await deal(dealId)).version, 5);
    assert.deepEqual(await approvalsOf(dealId), []);
    assert.deepEqual(await refusedThrough(holding.id), []);
    assert.deepEqual(await refusedThrough(refusing.id), []);
    for (const key of [holding, refusing]) {
      assert.equal((await f.by(f.sellerA).get(`/keys/${key.id}`)).body.usage.closes, 0);
    }
  });

  // Last: it moves the platform clock to the next UTC day.
  it("usage counts the closes won through a Seller's key, policy or not, and starts again on the next platform day", async () => {
    const A = f.by(f.sellerA);
    const plain = await makeKey(t, f.sellerA.key, { name: 'counted, no policy' });
    const bounded = await makeKey(t, f.sellerA.key, {
      name: 'counted, with policy',
      policy: { closedValuePerDayUsd: 1_000_000 },
    });
    const today = new Date(await platformNow()).toISOString().slice(0, 10);
    const usage = async (id: string) => (await A.get(`/keys/${id}`)).body.usage;
    assert.deepEqual(await usage(plain.id), { day: today, closes: 0, closedValueUsd: 0 });
    // A sell that closes won, and a close won through advance.
    const sold = await f.by(plain.key).post(`${t.prefix}/sell`, dealBody('Sold', undefined, 12_345.67));
    assert.equal(sold.status, 201, sold.text);
    assert.equal(sold.body.stage, 'closed_won');
    const won = await advance(plain.key, await dealAt(t, f.sellerA.key, 'negotiation'), {
      advanceTo: 'closed_won',
      valueUsd: 17_000.5,
    });
    assert.equal(won.status, 200, won.text);
    // Neither a close lost, nor another key's close won, counts.
    const lost = await advance(plain.key, await dealAt(t, f.sellerA.key, 'meeting'), { advanceTo: 'closed_lost' });
    assert.equal(lost.status, 200, lost.text);
    const other = await advance(f.sellerA.key, await dealAt(t, f.sellerA.key, 'negotiation'), {
      advanceTo: 'closed_won',
    });
    assert.equal(other.status, 200, other.text);
    assert.deepEqual(await usage(plain.id), { day: today, closes: 2, closedValueUsd: 29_346.17 });
    const throughPolicy = await advance(bounded.key, await dealAt(t, f.sellerA.key, 'negotiation'), {
      advanceTo: 'closed_won',
    });
    assert.equal(throughPolicy.status, 200, throughPolicy.text);
    assert.deepEqual(await usage(bounded.id), { day: today, closes: 1, closedValueUsd: 20_000 });
    // A closer's key commits no closes of a Seller: it shows no usage.
    assert.equal('usage' in (await f.by(f.closer1).get(`/keys/${f.closer1.id}`)).body, false);
    // The next UTC day of the platform clock.
    const now = await platformNow();
    const midnight = Date.parse(`${today}T00:00:00.000Z`) + 24 * HOUR_MS;
    await f.by(OP).post('/demo/clock', { advanceHours: (midnight - now + 1_000) / HOUR_MS });
    const tomorrow = new Date(midnight).toISOString().slice(0, 10);
    assert.deepEqual(await usage(plain.id), { day: tomorrow, closes: 0, closedValueUsd: 0 });
    assert.deepEqual(await usage(bounded.id), { day: tomorrow, closes: 0, closedValueUsd: 0 });
  });
});
