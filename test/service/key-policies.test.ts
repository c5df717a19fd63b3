// D-68 to D-70 in the service, on the memory store: a key's policy weighed after the gate in the
// unit that commits, held proposals as approvals, and people's (and keys') decisions of them.
// The doors of approvals and policies (HTTP, MCP) are tested with their operations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Caller } from '../../src/domain/access.ts';
import type { KeyPolicy } from '../../src/domain/policy.ts';
import type { Deal } from '../../src/domain/records.ts';
import type { AdvanceOutcome } from '../../src/service/outcomes.ts';
import { createPipelineService } from '../../src/service/pipeline-service.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

const OPERATOR_KEY = 'policy-test-operator-key-0123456789abcdefghij';
const HOUR = 3_600_000;

async function world() {
  const store = new MemoryStore();
  let now = Date.parse('2030-01-07T09:00:00.000Z');
  const clock = { now: () => now };
  const service = createPipelineService(store, clock, { claimTtlHours: 72, auth: 'keys' });
  await service.accounts.ensureOperatorKey(OPERATOR_KEY);
  const ring = service.keyRing;
  assert.ok(ring);
  await ring.start();
  const op = await ring.authenticate(OPERATOR_KEY);
  assert.ok(op.ok);
  const operator = op.caller;
  const seller = await service.run(service.accounts.createSeller('Acme'));
  assert.ok(seller.ok);
  const sellerId = seller.value.id;

  /** A Seller's key (with a policy, or none) as the caller its requests carry. */
  const key = async (name: string, policy?: KeyPolicy, by: Caller = operator): Promise<Caller> => {
    const made = await service.run(service.accounts.createKey({ name, principal: sellerId, policy }, by));
    assert.ok(made.ok, JSON.stringify(made));
    const found = await ring.authenticate(made.value.text as string);
    assert.ok(found.ok);
    return found.caller;
  };
  const mover = await key('mover');
  /** A deal of the Seller at negotiation, moved there by a key without a policy. */
  const atNegotiation = async (listValueUsd = 50_000): Promise<Deal> => {
    const created = await service.run(
      service.deals.createDeal({ account: { name: 'Initech', actor: 'B2B' }, listValueUsd }, mover),
    );
    assert.ok(created.ok);
    let deal = created.value;
    for (let i = 0; i < 4; i++) {
      const moved = await service.run(service.deals.advanceDeal(deal.id, {}, undefined, mover));
      assert.ok(moved.ok && moved.value.kind === 'deal', JSON.stringify(moved));
      deal = moved.value.deal;
    }
    assert.equal(deal.stage, 'negotiation');
    return deal;
  };
  const close = (deal: Deal, caller: Caller, valueUsd?: number) =>
    service.run(
      service.deals.advanceDeal(
        deal.id,
        { advanceTo: 'closed_won', ...(valueUsd ? { valueUsd } : {}) },
        undefined,
        caller,
      ),
    );
  return {
    service,
    store,
    operator,
    sellerId,
    key,
    mover,
    atNegotiation,
    close,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const heldOf = (result: { ok: boolean; value?: AdvanceOutcome }) => {
  assert.ok(result.ok && result.value?.kind === 'held', JSON.stringify(result));
  return result.value.approval;
};

describe('key policies and approvals (D-68 to D-70)', () => {
  it('64 concurrent close proposals through a key with closesPerDay 5 commit exactly 5; the rest are refused or held', async () => {
    for (const onLimit of ['refuse', 'hold'] as const) {
      const w = await world();
      const agent = await w.key(`agent-${onLimit}`, { closesPerDay: 5, onLimit });
      const deals = await Promise.all(Array.from({ length: 64 }, () => w.atNegotiation()));
      const results = await Promise.all(deals.map((deal) => w.close(deal, agent)));
      const closed = results.filter((r) => r.ok && r.value.kind === 'deal');
      assert.equal(closed.length, 5, onLimit);
      if (onLimit === 'refuse') {
        const refused = results.filter((r) => !r.ok);
        assert.equal(refused.length, 59);
        for (const r of refused) assert.equal(!r.ok && r.refusal.code, 'POLICY_LIMIT');
        const records = await w.service.queries.listProposals({ code: 'POLICY_LIMIT', limit: 100 });
        assert.equal(records.length, 59, 'every refusal is on the record (D-61)');
      } else {
        assert.equal(results.filter((r) => r.ok && r.value.kind === 'held').length, 59);
      }
      const key = await w.service.accounts.getKey(agent.keyId as string, w.operator);
      assert.ok(key.ok);
      const usage = await w.store.read((reader) => reader.accounts.keyUsage(agent.keyId as string, '2030-01-07'));
      assert.deepEqual(usage, { day: '2030-01-07', closes: 5, closedValueCents: 5 * 5_000_000 });
    }
  });

  it('holds a close below minCloseValuePct; an approval by another key commits it once, naming who approved', async () => {
    const w = await world();
    const agent = await w.key('agent', { minCloseValuePct: 0.95 });
    const approver = await w.key('approver');
    const deal = await w.atNegotiation();
    const approval = heldOf(await w.close(deal, agent, 45_000));
    assert.equal(approval.status, 'pending');
    assert.deepEqual(
      approval.limits.map((l) => l.limit),
      ['minCloseValuePct'],
    );
    assert.equal(approval.dealVersion, deal.version);
    // Nothing moved.
    const still = await w.service.queries.getDeal(deal.id);
    assert.ok(still.ok && still.value.stage === 'negotiation');
    // A second held proposal on the deal meets the first.
    const again = await w.close(deal, agent, 44_000);
    assert.ok(!again.ok && again.refusal.code === 'APPROVAL_PENDING' && again.refusal.approvalId === approval.id);
    // The proposing key may not decide it.
    const self = await w.service.run(w.service.approvals.approve(approval.id, undefined, agent));
    assert.ok(!self.ok && self.refusal.code === 'SELF_APPROVAL');
    // Ten racing final approvals (each by another key) commit it once.
    const approvers = [approver, ...(await Promise.all(Array.from({ length: 9 }, (_, i) => w.key(`approver-${i}`))))];
    const decisions = await Promise.all(
      approvers.map((by) => w.service.run(w.service.approvals.approve(approval.id, 'fine', by))),
    );
    const committed = decisions.filter((d) => d.ok);
    assert.equal(committed.length, 1);
    for (const d of decisions.filter((d) => !d.ok)) assert.equal(!d.ok && d.refusal.code, 'APPROVAL_DECIDED');
    const won = committed[0];
    assert.ok(won?.ok && won.value.kind === 'committed' && won.value.outcome.kind === 'deal');
    const closedDeal = won.value.outcome.deal;
    assert.equal(closedDeal.stage, 'closed_won');
    assert.equal(closedDeal.finalValueCents, 4_500_000);
    const entry = closedDeal.activity[closedDeal.activity.length - 1];
    assert.equal(entry?.actor?.keyId, agent.keyId, "the proposing key's actor");
    assert.equal(entry?.actor?.approvedBy?.length, 1);
    const stored = await w.service.approvals.get(approval.id);
    assert.ok(stored.ok && stored.value.status === 'approved');
    const types = (await w.store.events({ after: 0, limit: 1000 })).map((e) => e.event.type);
    assert.ok(types.includes('approval.requested') && types.includes('approval.approved'));
  });

  it('k of n: two approvals required, an approver counts once', async () => {
    const w = await world();
    const agent = await w.key('agent', { allowedMoves: ['closed_lost'], approvalsRequired: 2 });
    const [a, b] = [await w.key('a'), await w.key('b')];
    const deal = await w.atNegotiation();
    const approval = heldOf(await w.close(deal, agent));
    const first = await w.service.run(w.service.approvals.approve(approval.id, undefined, a));
    assert.ok(first.ok && first.value.kind === 'approval' && first.value.approval.status === 'pending');
    const twice = await w.service.run(w.service.approvals.approve(approval.id, undefined, a));
    assert.ok(!twice.ok && twice.refusal.code === 'ALREADY_APPROVED');
    const second = await w.service.run(w.service.approvals.approve(approval.id, undefined, b));
    assert.ok(second.ok && second.value.kind === 'committed');
  });

  it('a deal that moved first makes the approval superseded: approving it is APPROVAL_STALE', async () => {
    const w = await world();
    const agent = await w.key('agent', { closesPerDay: 0 });
    const approver = await w.key('approver');
    const deal = await w.atNegotiation();
    const approval = heldOf(await w.close(deal, agent));
    // A proposal within the limits still commits: the mover closes it lost.
    const lost = await w.service.run(
      w.service.deals.advanceDeal(deal.id, { advanceTo: 'closed_lost' }, undefined, w.mover),
    );
    assert.ok(lost.ok);
    const stale = await w.service.run(w.service.approvals.approve(approval.id, undefined, approver));
    assert.ok(!stale.ok && stale.refusal.code === 'APPROVAL_STALE');
    const stored = await w.service.approvals.get(approval.id);
    assert.ok(stored.ok && stored.value.status === 'superseded');
    const again = await w.service.run(w.service.approvals.approve(approval.id, undefined, approver));
    assert.ok(!again.ok && again.refusal.code === 'APPROVAL_STALE');
  });

  it('denial and expiry end an approval on the record, with a refused proposal each', async () => {
    const w = await world();
    const agent = await w.key('agent', { closesPerDay: 0, approvalTtlHours: 1 });
    const approver = await w.key('approver');
    const [one, two] = [await w.atNegotiation(), await w.atNegotiation()];
    const denied = heldOf(await w.close(one, agent));
    const expiring = heldOf(await w.close(two, agent));
    const deny = await w.service.run(w.service.approvals.deny(denied.id, 'Too early in the quarter', approver));
    assert.ok(deny.ok && deny.value.kind === 'approval' && deny.value.approval.status === 'denied');
    w.advance(HOUR + 1);
    await w.service.platform.runTimers();
    const expired = await w.service.approvals.get(expiring.id);
    assert.ok(expired.ok && expired.value.status === 'expired');
    const codes = (await w.service.queries.listProposals({ limit: 10 })).map((p) => [p.code, p.reason]);
    assert.deepEqual(codes.sort(), [
      ['APPROVAL_DENIED', 'Too early in the quarter'],
      ['APPROVAL_EXPIRED', 'Nobody decided the approval before it expired.'],
    ]);
    const late = await w.service.run(w.service.approvals.approve(expiring.id, undefined, approver));
    assert.ok(!late.ok && late.refusal.code === 'APPROVAL_DECIDED');
  });

  it('maxDealValueUsd refuses a sell above it whatever onLimit says; no key makes a looser key', async () => {
    const w = await world();
    const agent = await w.key('agent', { maxDealValueCents: 1_000_000, closesPerDay: 3 });
    const sold = await w.service.run(
      w.service.deals.sell({ account: { name: 'Big', actor: 'B2B' }, listValueUsd: 20_000 }, agent),
    );
    assert.ok(!sold.ok && sold.refusal.code === 'POLICY_LIMIT');
    const looser = await w.service.run(w.service.accounts.createKey({ name: 'free' }, agent));
    assert.ok(!looser.ok && looser.refusal.code === 'POLICY_WIDENING');
    const wider = await w.service.run(
      w.service.accounts.createKey({ name: 'wider', policy: { maxDealValueCents: 1_000_000, closesPerDay: 4 } }, agent),
    );
    assert.ok(!wider.ok && wider.refusal.code === 'POLICY_WIDENING');
    const tighter = await w.service.run(
      w.service.accounts.createKey({ name: 'tighter', policy: { maxDealValueCents: 500_000, closesPerDay: 1 } }, agent),
    );
    assert.ok(tighter.ok);
    // A sell within the value closes, and counts in the key's usage.
    const within = await w.service.run(
      w.service.deals.sell({ account: { name: 'Small', actor: 'B2B' }, listValueUsd: 5_000 }, agent),
    );
    assert.ok(within.ok && within.value.kind === 'deal' && within.value.deal.stage === 'closed_won');
    const usage = await w.store.read((reader) => reader.accounts.keyUsage(agent.keyId as string, '2030-01-07'));
    assert.equal(usage.closes, 1);
  });
});
