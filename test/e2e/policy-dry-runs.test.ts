// D-71: a dry run through a key with a policy says, beside the gate's verdict, what the policy
// would do (commit, hold or refuse) and every limit the proposal meets with what the day used,
// and records nothing: no approval, no refused proposal, no usage, no event. A key without a
// policy, and the real call, answer no `policy`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import {
  as,
  assertUnchanged,
  bearer,
  dealBody,
  type KeyInfo,
  makeKey,
  makeSeller,
  OP,
  snapshot,
  startKeysServer,
} from '../support/keys.ts';

describe('dry runs through a key with a policy (D-71)', () => {
  let t: TestServer;
  let seller: KeyInfo;
  let agent: KeyInfo;
  let holding: KeyInfo;
  let refusing: KeyInfo;

  /** A deal of the Seller at negotiation, list value $20,000.00. */
  const atNegotiation = async (): Promise<string> => {
    const made = await as(t, bearer(seller.key)).post(`${t.prefix}/deals`, dealBody('Dry policy deal'));
    assert.equal(made.status, 201, made.text);
    for (let i = 0; i < 4; i++) {
      const moved = await as(t, bearer(seller.key)).post(`${t.prefix}/deals/${made.body.id}/advance`, {});
      assert.equal(moved.status, 200, moved.text);
    }
    return made.body.id;
  };
  const dryClose = (key: KeyInfo, dealId: string, valueUsd?: number) =>
    as(t, bearer(key.key)).post(`${t.prefix}/deals/${dealId}/advance?dryRun=true`, {
      advanceTo: 'closed_won',
      ...(valueUsd !== undefined ? { valueUsd } : {}),
    });

  before(async () => {
    t = await startKeysServer();
    const sellerId = await makeSeller(t, 'Dry Policy Seller (fictional)');
    seller = await makeKey(t, OP, { name: 'seller', principal: sellerId });
    const policy = { closesPerDay: 1, minCloseValuePct: 0.9, closedValuePerDayUsd: 30_000 };
    agent = await makeKey(t, OP, { name: 'plain agent', principal: sellerId, scopes: ['deals:read', 'deals:propose'] });
    holding = await makeKey(t, OP, { name: 'holding agent', principal: sellerId, policy });
    refusing = await makeKey(t, OP, {
      name: 'refusing agent',
      principal: sellerId,
      policy: { ...policy, onLimit: 'refuse' },
    });
  });
  after(() => t?.close());

  it('within the policy: outcome commit, every limit with what the day used, the deal as the close leaves it', async () => {
    const dealId = await atNegotiation();
    const state = await snapshot(t);
    const dry = await dryClose(holding, dealId);
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.body.accepted, true);
    assert.equal(dry.body.deal.stage, 'closed_won');
    assert.deepEqual(dry.body.policy, {
      outcome: 'commit',
      limits: [
        { limit: 'minCloseValuePct', allowed: 0.9, value: 1 },
        { limit: 'closesPerDay', allowed: 1, value: 1, used: 0 },
        { limit: 'closedValuePerDayUsd', allowed: 30_000, value: 20_000, used: 0 },
      ],
    });
    await assertUnchanged(t, state, 'a dry run within the policy');
    const key = await as(t, bearer(OP)).get(`/keys/${holding.id}`);
    assert.deepEqual(key.body.usage.closes, 0, 'a dry run counts no close');
  });

  it('over a limit: hold or refuse as the policy says, the deal as it is, and nothing recorded', async () => {
    const dealId = await atNegotiation();
    const state = await snapshot(t);
    for (const [key, outcome] of [
      [holding, 'hold'],
      [refusing, 'refuse'],
    ] as const) {
      const dry = await dryClose(key, dealId, 17_000);
      assert.equal(dry.status, 200, dry.text);
      assert.equal(dry.body.policy.outcome, outcome);
      assert.equal(dry.body.deal.stage, 'negotiation', 'held or refused, nothing would move');
      assert.deepEqual(dry.body.events, []);
      assert.deepEqual(
        dry.body.policy.limits.find((l: { limit: string }) => l.limit === 'minCloseValuePct'),
        { limit: 'minCloseValuePct', allowed: 0.9, value: 0.85 },
      );
    }
    await assertUnchanged(t, state, 'dry runs over the policy');
    const approvals = await as(t, bearer(OP)).get(`/approvals?dealId=${dealId}`);
    assert.deepEqual(approvals.body, [], 'no approval was made');
    const refused = await as(t, bearer(OP)).get(`${t.prefix}/deals/${dealId}/proposals`);
    assert.deepEqual(refused.body, [], 'no refused proposal was kept');
  });

  it("the day's closes count: after one close, the next one's dry run says closesPerDay is used up", async () => {
    const first = await atNegotiation();
    const real = await as(t, bearer(holding.key)).post(`${t.prefix}/deals/${first}/advance`, {
      advanceTo: 'closed_won',
    });
    assert.equal(real.status, 200, real.text);
    assert.equal(real.body.policy, undefined, 'the real call answers the deal alone');
    const dry = await dryClose(holding, await atNegotiation());
    assert.equal(dry.body.policy.outcome, 'hold');
    assert.deepEqual(
      dry.body.policy.limits.find((l: { limit: string }) => l.limit === 'closesPerDay'),
      { limit: 'closesPerDay', allowed: 1, value: 2, used: 1 },
    );
  });

  it('a key without a policy, and a gate refusal, answer as before', async () => {
    const dealId = await atNegotiation();
    const plain = await dryClose(agent, dealId);
    assert.equal(plain.status, 200, plain.text);
    assert.equal('policy' in plain.body, false);
    const below = await dryClose(holding, dealId, 1_000);
    assert.equal(below.status, 422, 'below the floor: the gate refuses first, as the real call would');
    assert.equal(below.body.code, 'GATE_BELOW_FLOOR');
  });
});
