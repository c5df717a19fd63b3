// D-68 to D-70 under concurrency, on a durable store: keys-mode services (one, or several
// instances over one database) with a Seller, its keys and deals, and the two races the lock
// names exist for: many closes through one key with a daily limit (`key-usage:<keyId>`), and
// many final approvals of one held proposal (`approval:<id>`). Each instance authenticates the
// keys on its own ring and runs what is sent to it; the races alternate between them.
import assert from 'node:assert/strict';
import type { Caller } from '../../src/domain/access.ts';
import type { Approval } from '../../src/domain/approvals.ts';
import type { KeyPolicy, OnLimit } from '../../src/domain/policy.ts';
import type { Deal } from '../../src/domain/records.ts';
import { createPipelineService, type PipelineService } from '../../src/service/pipeline-service.ts';
import type { Store } from '../../src/store/store.ts';

const OPERATOR_KEY = 'policy-race-operator-key-0123456789abcdefghij';
/** The platform's day: every close of a race counts in it. */
export const RACE_DAY = '2030-01-07';
const NOW = Date.parse(`${RACE_DAY}T09:00:00.000Z`);
/** The list value of every deal (USD), which a close without a value closes at. */
const LIST_VALUE_USD = 50_000;

export interface PolicyWorld {
  readonly services: readonly PipelineService[];
  /** Each instance's store (the same order). */
  readonly stores: readonly Store[];
  /** The operator, as the first instance's ring knows it. */
  readonly operator: Caller;
  /** The Seller of the races. */
  readonly principal: string;
  /** A Seller's key, as each instance's ring knows it (the same order as `services`). */
  key(name: string, policy?: KeyPolicy, scopes?: readonly string[]): Promise<Caller[]>;
  /** `count` deals of the Seller at negotiation, made through every instance in turn. */
  atNegotiation(count: number): Promise<Deal[]>;
  close(): Promise<void>;
}

/** Keys-mode services over `stores` (one each, over one database), one Seller for the races. */
export async function policyWorld(stores: readonly Store[], sellerName: string): Promise<PolicyWorld> {
  const clock = { now: () => NOW };
  const services = stores.map((store) =>
    createPipelineService(store, clock, { claimTtlHours: 72, auth: 'keys', operatorKey: OPERATOR_KEY }),
  );
  const operators: Caller[] = [];
  for (const service of services) {
    await service.accounts.ensureOperatorKey(OPERATOR_KEY);
    const ring = service.keyRing;
    assert.ok(ring);
    await ring.start();
    const op = await ring.authenticate(OPERATOR_KEY);
    assert.ok(op.ok);
    operators.push(op.caller);
  }
  const seller = await services[0].run(services[0].accounts.createSeller(sellerName));
  assert.ok(seller.ok, JSON.stringify(seller));
  const principal = seller.value.id;

  const key = async (name: string, policy?: KeyPolicy, scopes?: readonly string[]) => {
    const input = { name, principal, ...(policy ? { policy } : {}), ...(scopes ? { scopes } : {}) };
    const made = await services[0].run(services[0].accounts.createKey(input, operators[0]));
    assert.ok(made.ok, JSON.stringify(made));
    const callers: Caller[] = [];
    for (const service of services) {
      const found = await service.keyRing?.authenticate(made.value.text as string);
      assert.ok(found?.ok, `${name} is known to every instance`);
      callers.push(found.caller);
    }
    return callers;
  };
  const movers = await key('mover');

  const atNegotiation = (count: number) =>
    Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const at = i % services.length;
        const service = services[at];
        const mover = movers[at];
        const account = { name: `Race Fictional ${i}`, actor: 'B2B' as const };
        const created = await service.run(service.deals.createDeal({ account, listValueUsd: LIST_VALUE_USD }, mover));
        assert.ok(created.ok, JSON.stringify(created));
        let deal = created.value;
        for (let step = 0; step < 4; step++) {
          const moved = await service.run(service.deals.advanceDeal(deal.id, {}, undefined, mover));
          assert.ok(moved.ok && moved.value.kind === 'deal', JSON.stringify(moved));
          deal = moved.value.deal;
        }
        assert.equal(deal.stage, 'negotiation');
        return deal;
      }),
    );

  return {
    services,
    stores,
    operator: operators[0],
    principal,
    key,
    atNegotiation,
    close: async () => {
      for (const service of services) await service.close();
    },
  };
}

/**
 * D-68: `deals` concurrent closes won through one key with `closesPerDay: 5` commit exactly 5,
 * whichever instance each goes through; the others are refused (POLICY_LIMIT, each on the
 * record) or held (an approval each), as onLimit says. The key's usage of the day shows the 5.
 */
export async function closesRace(w: PolicyWorld, onLimit: OnLimit, deals = 64): Promise<void> {
  const agents = await w.key(`agent-${onLimit}`, { closesPerDay: 5, onLimit });
  const open = await w.atNegotiation(deals);
  const results = await Promise.all(
    open.map((deal, i) => {
      const at = i % w.services.length;
      const service = w.services[at];
      const advance = service.deals.advanceDeal(deal.id, { advanceTo: 'closed_won' }, undefined, agents[at]);
      return service.run(advance);
    }),
  );
  const closed = results.filter((r) => r.ok && r.value.kind === 'deal');
  assert.equal(closed.length, 5, `${onLimit}: closes committed`);
  const service = w.services[0];
  const keyId = agents[0].keyId as string;
  if (onLimit === 'refuse') {
    const refused = results.filter((r) => !r.ok);
    assert.equal(refused.length, deals - 5);
    for (const r of refused) assert.equal(!r.ok && r.refusal.code, 'POLICY_LIMIT', JSON.stringify(r));
    const records = await service.queries.listProposals({ keyId, code: 'POLICY_LIMIT', limit: 200 });
    assert.equal(records.length, deals - 5, 'every refusal is on the record (D-61)');
  } else {
    const held = results.filter((r) => r.ok && r.value.kind === 'held');
    assert.equal(held.length, deals - 5, JSON.stringify(results.find((r) => !r.ok)));
    const pending = await service.approvals.list({ keyId, status: 'pending', limit: 200 });
    assert.equal(pending.length, deals - 5, 'an approval for each held close');
    for (const approval of pending)
      assert.deepEqual(
        approval.limits.map((l) => l.limit),
        ['closesPerDay'],
      );
  }
  // The deals themselves: five won, the rest where they were.
  const stages = await Promise.all(
    open.map(async (deal) => {
      const found = await service.queries.getDeal(deal.id);
      return found.ok ? found.value.stage : undefined;
    }),
  );
  assert.equal(stages.filter((s) => s === 'closed_won').length, 5);
  assert.equal(stages.filter((s) => s === 'negotiation').length, deals - 5);
  const cents = LIST_VALUE_USD * 100;
  for (const store of w.stores) {
    const usage = await store.read((r) => r.accounts.keyUsage(keyId, RACE_DAY));
    assert.deepEqual(usage, { day: RACE_DAY, closes: 5, closedValueCents: 5 * cents });
  }
}

/**
 * D-70: `approvers` racing final approvals of one held close, each by another key with
 * approvals:decide through the instances in turn, commit the proposal once: one success, every
 * other APPROVAL_DECIDED. The approval is approved, the deal closed once, counted once.
 */
export async function approvalRace(w: PolicyWorld, approvers = 10): Promise<Approval> {
  // closesPerDay 0 holds every close; the approval waives that limit when it commits.
  const agents = await w.key('held-agent', { closesPerDay: 0, onLimit: 'hold' });
  const [deal] = await w.atNegotiation(1);
  const service = w.services[0];
  const proposed = await service.run(
    service.deals.advanceDeal(deal.id, { advanceTo: 'closed_won' }, undefined, agents[0]),
  );
  assert.ok(proposed.ok && proposed.value.kind === 'held', JSON.stringify(proposed));
  const approval = proposed.value.approval;
  assert.equal(approval.status, 'pending');
  const deciders = await Promise.all(
    Array.from({ length: approvers }, (_, i) => w.key(`approver-${i}`, undefined, ['deals:read', 'approvals:decide'])),
  );
  const decisions = await Promise.all(
    deciders.map((callers, i) => {
      const at = i % w.services.length;
      const each = w.services[at];
      return each.run(each.approvals.approve(approval.id, `approver ${i}`, callers[at]));
    }),
  );
  const committed = decisions.filter((d) => d.ok);
  assert.equal(committed.length, 1, JSON.stringify(decisions.filter((d) => !d.ok).slice(0, 2)));
  for (const d of decisions) if (!d.ok) assert.equal(d.refusal.code, 'APPROVAL_DECIDED', JSON.stringify(d));
  const won = committed[0];
  assert.ok(won?.ok && won.value.kind === 'committed' && won.value.outcome.kind === 'deal');
  assert.equal(won.value.outcome.deal.stage, 'closed_won');
  const stored = await service.approvals.get(approval.id);
  assert.ok(stored.ok);
  assert.equal(stored.value.status, 'approved');
  assert.equal(stored.value.approvals.length, 1, 'the one vote that committed it');
  const closedDeal = await service.queries.getDeal(deal.id);
  assert.ok(closedDeal.ok && closedDeal.value.stage === 'closed_won');
  assert.equal(closedDeal.value.version, deal.version + 1, 'moved once');
  const usage = await w.stores[0].read((r) => r.accounts.keyUsage(agents[0].keyId as string, RACE_DAY));
  assert.equal(usage.closes, 1, 'counted once');
  return stored.value;
}
