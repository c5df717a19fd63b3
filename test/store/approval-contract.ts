// The approvals part of the store contract (D-69, D-70) and a key's daily usage (D-68), run by
// describeStoreContract on every adapter: approvals numbered and read back unchanged, replaced,
// listed newest first by each filter a page at a time, each deal's pending one, what the sweep
// ends (past its time, or its deal moved), and what a rollback and a wipe keep. A wipe deletes
// the approvals (and restarts their numbers, as it does the deals'), so each test starts with
// none; but it keeps keys and their usage, so on a durable store the usage tests name their keys
// by numbers they take (never restarted), as the people part does its users.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Approval, ApprovalDraft } from '../../src/domain/approvals.ts';
import type { DailyLimits, KeyUsage } from '../../src/domain/policy.ts';
import type { ApprovalFilter } from '../../src/store/approvals.ts';
import type { Store } from '../../src/store/store.ts';
import { putCreated, sampleDeal } from './contract.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');
const HOUR = 3_600_000;
const [DAY1, DAY2] = ['2026-01-05', '2026-01-06'];

const pad = (n: number) => String(n).padStart(4, '0');
const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);

/** A pending approval of `dealId` with every optional field left out. */
export const sampleApproval = (dealId: string, overrides: Partial<ApprovalDraft> = {}): ApprovalDraft => ({
  dealId,
  keyId: 'key_0001',
  principal: 'seller_0001',
  actor: { principal: 'seller_0001', keyId: 'key_0001' },
  proposal: {},
  limits: [{ limit: 'closesPerDay', allowed: 5, value: 6, used: 5, within: false }],
  dealVersion: 1,
  approvalsRequired: 1,
  approvals: [],
  status: 'pending',
  requestedAt: T0,
  expiresAt: T0 + 24 * HOUR,
  sellerId: 'seller_0001',
  ...overrides,
});

/** Every field an approval may hold, votes with and without notes, limits with allowed stages. */
const fullApproval = (dealId: string): ApprovalDraft =>
  sampleApproval(dealId, {
    gigId: 'gig_0007',
    keyId: 'key_0002',
    principal: 'seller_0002',
    keyCreatedBy: 'usr_0003',
    actor: { principal: 'seller_0002', keyId: 'key_0002', userId: 'usr_0009', name: 'Agent "Smith" é' },
    proposal: { advanceTo: 'closed_won', valueUsd: 45_000.5, note: 'Signed — at last' },
    limits: [
      { limit: 'allowedMoves', allowed: ['closed_lost', 'negotiation'], value: 'closed_won', within: false },
      { limit: 'minCloseValuePct', allowed: 0.95, value: 0.9, within: false },
      { limit: 'closedValuePerDayUsd', allowed: 10_000_000, value: 14_500_000, used: 10_000_000, within: false },
      { limit: 'maxDealValueUsd', allowed: 99_000_000, value: 5_000_000, within: true },
    ],
    dealVersion: 7,
    approvalsRequired: 3,
    approvals: [
      { by: { userId: 'usr_0004', name: 'Dee "the boss"' }, at: T0 + 1, note: 'fine \u0000 by me' },
      { by: { keyId: 'key_0005', name: 'approver key' }, at: T0 + 2 },
    ],
    requestedAt: T0 + 10,
    expiresAt: T0 + 168 * HOUR,
    sellerId: 'seller_0002',
  });

/** A key id no earlier test used (key numbers are never restarted, not even by a wipe). */
const freshKey = async (store: Store) => `key_${pad(await store.transaction((uow) => uow.accounts.takeNumber('key')))}`;

const usage = (day: string, closes: number, closedValueCents: number): KeyUsage => ({ day, closes, closedValueCents });

export function approvalContract(_name: string, store: () => Store) {
  it('approvals: create numbers each apr_NNNN in turn, and reads it back unchanged, every field', async () => {
    const [full, bare] = [fullApproval('deal_0001'), sampleApproval('deal_0002')];
    const [first, second] = await store().transaction(async (uow) => {
      const made = [await uow.approvals.create(full), await uow.approvals.create(bare)];
      assert.deepEqual(await uow.approvals.get(made[0].id), made[0], 'a unit reads its own writes');
      return made;
    });
    // A wipe (before each test) deletes the approvals and restarts their numbers.
    assert.deepEqual([first.id, second.id], ['apr_0001', 'apr_0002']);
    assert.deepEqual(first, { id: first.id, ...full });
    assert.deepEqual(second, { id: second.id, ...bare });
    await store().read(async (r) => {
      assert.deepEqual(await r.approvals.get(first.id), first);
      assert.deepEqual(await r.approvals.get(second.id), second);
      assert.equal(await r.approvals.get('apr_9999'), undefined);
    });
    const third = await store().transaction((uow) => uow.approvals.create(sampleApproval('deal_0003')));
    assert.equal(third.id, 'apr_0003');
  });

  it('approvals: put replaces the stored approval: its votes, then its status, time and reason once decided', async () => {
    const held = await store().transaction((uow) => uow.approvals.create(fullApproval('deal_0001')));
    const voted: Approval = {
      ...held,
      approvals: [...held.approvals, { by: { userId: 'usr_0006', name: 'Third' }, at: T0 + 3, note: 'ok' }],
    };
    await store().transaction((uow) => uow.approvals.put(voted));
    assert.deepEqual(await store().read((r) => r.approvals.get(held.id)), voted);
    const denied: Approval = { ...voted, status: 'denied', decidedAt: T0 + HOUR, reason: 'Too early in the quarter' };
    await store().transaction(async (uow) => {
      await uow.approvals.put(denied);
      assert.deepEqual(await uow.approvals.get(held.id), denied, 'a unit reads its own writes');
    });
    await store().read(async (r) => {
      assert.deepEqual(await r.approvals.get(held.id), denied);
      assert.deepEqual(ids(await r.approvals.list({ limit: 10 })), [held.id], 'one copy');
      assert.deepEqual(await r.approvals.list({ status: 'pending', limit: 10 }), []);
      assert.deepEqual(ids(await r.approvals.list({ status: 'denied', limit: 10 })), [held.id]);
      assert.equal(await r.approvals.pendingOfDeal('deal_0001'), undefined);
    });
  });

  it('approvals: list is newest first, by status, deal, key and Seller, a page at a time before an id', async () => {
    const made = await store().transaction(async (uow) => {
      const drafts: ApprovalDraft[] = [
        sampleApproval('deal_0001'),
        sampleApproval('deal_0002', { status: 'approved', decidedAt: T0 + 1 }),
        sampleApproval('deal_0003', { keyId: 'key_0002', principal: 'seller_0002', sellerId: 'seller_0002' }),
        sampleApproval('deal_0001', { status: 'denied', decidedAt: T0 + 2, reason: 'no' }),
        sampleApproval('deal_0002', { keyId: 'key_0002', principal: 'seller_0002', sellerId: 'seller_0002' }),
        sampleApproval('deal_0004', { status: 'expired', decidedAt: T0 + 3, reason: 'late' }),
      ];
      const out: Approval[] = [];
      for (const draft of drafts) out.push(await uow.approvals.create(draft));
      return out.map((a) => a.id);
    });
    // The numbers in the order made: apr(1) is the first.
    const apr = (n: number) => made[n - 1];
    await store().read(async (r) => {
      const list = async (filter: Partial<ApprovalFilter>) => ids(await r.approvals.list({ limit: 10, ...filter }));
      assert.deepEqual(await list({}), [6, 5, 4, 3, 2, 1].map(apr));
      assert.deepEqual(await list({ limit: 2 }), [apr(6), apr(5)]);
      assert.deepEqual(await list({ beforeId: apr(5), limit: 2 }), [apr(4), apr(3)]);
      assert.deepEqual(await list({ beforeId: apr(2) }), [apr(1)]);
      assert.deepEqual(await list({ beforeId: apr(1) }), []);
      assert.deepEqual(await list({ status: 'pending' }), [5, 3, 1].map(apr));
      assert.deepEqual(await list({ status: 'approved' }), [apr(2)]);
      assert.deepEqual(await list({ status: 'refused' }), []);
      assert.deepEqual(await list({ dealId: 'deal_0001' }), [apr(4), apr(1)]);
      assert.deepEqual(await list({ dealId: 'deal_0404' }), []);
      assert.deepEqual(await list({ keyId: 'key_0002' }), [apr(5), apr(3)]);
      assert.deepEqual(await list({ sellerId: 'seller_0001' }), [6, 4, 2, 1].map(apr));
      assert.deepEqual(await list({ sellerId: 'seller_0404' }), []);
      // Filters together, and with a page.
      assert.deepEqual(await list({ sellerId: 'seller_0001', status: 'pending' }), [apr(1)]);
      assert.deepEqual(await list({ keyId: 'key_0001', dealId: 'deal_0002' }), [apr(2)]);
      assert.deepEqual(await list({ sellerId: 'seller_0001', beforeId: apr(4), limit: 1 }), [apr(2)]);
      assert.deepEqual(await list({ status: 'pending', beforeId: apr(5), limit: 5 }), [apr(3), apr(1)]);
      // Whole records, not ids only.
      assert.deepEqual((await r.approvals.list({ limit: 1 }))[0], await r.approvals.get(apr(6)));
    });
  });

  it("approvals: pendingOfDeal is the deal's pending approval, and none once decided", async () => {
    const [pending, decided] = await store().transaction(async (uow) => [
      await uow.approvals.create(sampleApproval('deal_0001')),
      await uow.approvals.create(sampleApproval('deal_0002', { status: 'approved', decidedAt: T0 })),
    ]);
    await store().read(async (r) => {
      assert.deepEqual(await r.approvals.pendingOfDeal('deal_0001'), pending);
      assert.equal(await r.approvals.pendingOfDeal('deal_0002'), undefined, decided.id);
      assert.equal(await r.approvals.pendingOfDeal('deal_0404'), undefined);
    });
    // Superseded, and another held at the deal's new version, in one unit (as holds.ts does).
    const next = await store().transaction(async (uow) => {
      await uow.approvals.put({ ...pending, status: 'superseded', decidedAt: T0 + 1, reason: 'moved' });
      assert.equal(await uow.approvals.pendingOfDeal('deal_0001'), undefined);
      const made = await uow.approvals.create(sampleApproval('deal_0001', { dealVersion: 2 }));
      assert.deepEqual(await uow.approvals.pendingOfDeal('deal_0001'), made, 'a unit reads its own writes');
      return made;
    });
    assert.deepEqual(await store().read((r) => r.approvals.pendingOfDeal('deal_0001')), next);
  });

  it('approvals: due are the pending ones past their time or whose deal moved, oldest first, at most limit', async () => {
    await store().transaction((uow) =>
      putCreated(
        uow,
        sampleDeal('deal_0001'),
        sampleDeal('deal_0002', { version: 3 }),
        sampleDeal('deal_0004'),
        sampleDeal('deal_0005'),
      ),
    );
    const [expiring, moved, gone, decided, later] = await store().transaction(async (uow) => [
      await uow.approvals.create(sampleApproval('deal_0001', { expiresAt: T0 + 1000 })),
      await uow.approvals.create(sampleApproval('deal_0002', { dealVersion: 2 })),
      // No such deal: its version is none of the approval's either.
      await uow.approvals.create(sampleApproval('deal_0003')),
      await uow.approvals.create(sampleApproval('deal_0004', { status: 'denied', decidedAt: T0, expiresAt: T0 })),
      await uow.approvals.create(sampleApproval('deal_0005', { expiresAt: T0 + 10_000 })),
    ]);
    const due = async (now: number, limit = 10) => ids(await store().read((r) => r.approvals.due(now, limit)));
    assert.deepEqual(await due(T0), ids([moved, gone]));
    assert.deepEqual(await due(T0 + 999), ids([moved, gone]));
    assert.deepEqual(await due(T0 + 1000), ids([expiring, moved, gone]), 'due at its expiresAt');
    assert.deepEqual(await due(T0 + 1000, 2), ids([expiring, moved]));
    assert.deepEqual(await due(T0 + 10_000), ids([expiring, moved, gone, later]));
    assert.ok(!(await due(T0 + 100 * HOUR)).includes(decided.id), 'a decided approval is never due');
    // The deal moves on: its approval held at the old version is due at once, in the same unit too.
    await store().transaction(async (uow) => {
      await uow.putDeal(sampleDeal('deal_0005', { version: 2, stage: 'qualified' }));
      assert.deepEqual(ids(await uow.approvals.due(T0, 10)), ids([moved, gone, later]));
    });
    assert.deepEqual(await due(T0), ids([moved, gone, later]));
    // Ended by the sweep: due no more.
    await store().transaction(async (uow) => {
      for (const ended of [moved, gone, later])
        await uow.approvals.put({ ...ended, status: 'superseded', decidedAt: T0, reason: 'moved' });
    });
    assert.deepEqual(await due(T0), []);
    assert.deepEqual(await due(T0 + 1000), ids([expiring]));
  });

  it('approvals: a unit that throws keeps none of its approvals, changes or usage', async () => {
    const key = await freshKey(store());
    const kept = await store().transaction(async (uow) => {
      await uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY1, 1, 100));
      return uow.approvals.create(sampleApproval('deal_0001'));
    });
    let lost: Approval | undefined;
    await assert.rejects(
      store().transaction(async (uow) => {
        lost = await uow.approvals.create(sampleApproval('deal_0002'));
        await uow.approvals.create(sampleApproval('deal_0003', { status: 'approved', decidedAt: T0 }));
        await uow.approvals.put({ ...kept, status: 'denied', decidedAt: T0, reason: 'lost' });
        await uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY1, 1, 200));
        await uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY2, 1, 300));
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    await store().read(async (r) => {
      assert.equal(await r.approvals.get((lost as Approval).id), undefined);
      assert.deepEqual(ids(await r.approvals.list({ limit: 10 })), [kept.id]);
      assert.deepEqual(await r.approvals.get(kept.id), kept, 'still pending');
      assert.deepEqual(await r.approvals.pendingOfDeal('deal_0001'), kept);
      assert.equal(await r.approvals.pendingOfDeal('deal_0002'), undefined);
      assert.deepEqual(await r.accounts.keyUsage(key, DAY1), usage(DAY1, 1, 100));
      assert.deepEqual(await r.accounts.keyUsage(key, DAY2), usage(DAY2, 0, 0));
    });
    // A number taken by the unit is never handed out again, or (memory) given back whole.
    const next = await store().transaction((uow) => uow.approvals.create(sampleApproval('deal_0004')));
    assert.ok(next.id === 'apr_0002' || next.id === 'apr_0004', next.id);
  });

  it('key usage: zeros for a day with none; adds accumulate within a unit and across units; days and keys apart (D-68)', async () => {
    const [key, other] = [await freshKey(store()), await freshKey(store())];
    assert.deepEqual(await store().read((r) => r.accounts.keyUsage(key, DAY1)), usage(DAY1, 0, 0));
    await store().transaction(async (uow) => {
      await uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY1, 1, 5_000_000));
      // Two adds with no read between them, then read within the unit.
      await uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY1, 1, 2_500_000));
      await uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY1, 1, 0));
      assert.deepEqual(await uow.accounts.keyUsage(key, DAY1), usage(DAY1, 3, 7_500_000), 'a unit reads its own adds');
      await uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY1, 1, 1));
    });
    assert.deepEqual(await store().read((r) => r.accounts.keyUsage(key, DAY1)), usage(DAY1, 4, 7_500_001));
    // Across units; a value past 32 bits is kept exactly.
    await store().transaction((uow) => uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY1, 1, 300_000_000_000)));
    assert.deepEqual(await store().read((r) => r.accounts.keyUsage(key, DAY1)), usage(DAY1, 5, 300_007_500_001));
    // Another key's usage is its own.
    assert.deepEqual(await store().read((r) => r.accounts.keyUsage(other, DAY1)), usage(DAY1, 0, 0));
    await store().transaction((uow) => uow.accounts.addKeyUsage(other, 'seller_0002', usage(DAY1, 2, 40)));
    await store().read(async (r) => {
      assert.deepEqual(await r.accounts.keyUsage(other, DAY1), usage(DAY1, 2, 40));
      assert.deepEqual(await r.accounts.keyUsage(key, DAY1), usage(DAY1, 5, 300_007_500_001));
    });
    // The next day starts from none: the day before does not carry over.
    assert.deepEqual(await store().read((r) => r.accounts.keyUsage(key, DAY2)), usage(DAY2, 0, 0));
    await store().transaction((uow) => uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY2, 1, 7)));
    assert.deepEqual(await store().read((r) => r.accounts.keyUsage(key, DAY2)), usage(DAY2, 1, 7));
    assert.deepEqual(await store().read((r) => r.accounts.keyUsage(other, DAY2)), usage(DAY2, 0, 0));
    // Every day is kept: a platform clock set back (a demo reset) finds the earlier day's closes.
    assert.deepEqual(await store().read((r) => r.accounts.keyUsage(key, DAY1)), usage(DAY1, 5, 300_007_500_001));
  });

  it('key usage within daily limits (D-278): added only within them, the closes added without counted; over them the unit adds nothing', async () => {
    const key = await freshKey(store());
    const add = (closes: number, cents: number, within?: DailyLimits) =>
      store().transaction((uow) => uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY1, closes, cents), within));
    const used = () => store().read((r) => r.accounts.keyUsage(key, DAY1));
    // Closes made before a policy counted the day, then through it.
    await add(1, 40);
    await add(1, 60);
    await add(1, 50, { closes: 3, closedValueCents: 150 });
    assert.deepEqual(await used(), usage(DAY1, 3, 150), 'at both limits exactly');
    await assert.rejects(add(1, 0, { closes: 3 }), 'one close over closesPerDay');
    await assert.rejects(add(0, 1, { closedValueCents: 150 }), 'one cent over the value of the day');
    await assert.rejects(
      store().transaction(async (uow) => {
        // Two closes in one unit count together.
        await uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY1, 1, 0), { closes: 4 });
        await uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY1, 1, 0), { closes: 4 });
      }),
    );
    assert.deepEqual(await used(), usage(DAY1, 3, 150), 'nothing added by a unit over its limits');
    // No limit left (an approval passed them): added whatever the day's usage.
    await add(1, 1, {});
    await add(1, 1);
    assert.deepEqual(await used(), usage(DAY1, 5, 152));
    await add(1, 8, { closes: 6 });
    assert.deepEqual(await used(), usage(DAY1, 6, 160));
    assert.deepEqual(await store().read((r) => r.accounts.keyUsage(key, DAY2)), usage(DAY2, 0, 0), 'the day apart');
  });

  it('approvals: a wipe deletes the approvals and restarts their numbers, but keeps key usage', async () => {
    const key = await freshKey(store());
    await store().transaction(async (uow) => {
      await uow.approvals.create(sampleApproval('deal_0001'));
      await uow.approvals.create(sampleApproval('deal_0002'));
      await uow.accounts.addKeyUsage(key, 'seller_0001', usage(DAY1, 2, 90));
    });
    await store().transaction((uow) => uow.wipe());
    await store().read(async (r) => {
      assert.equal(await r.approvals.get('apr_0001'), undefined);
      assert.deepEqual(await r.approvals.list({ limit: 10 }), []);
      assert.equal(await r.approvals.pendingOfDeal('deal_0001'), undefined);
      assert.deepEqual(await r.approvals.due(T0 + 100 * HOUR, 10), []);
      assert.deepEqual(await r.accounts.keyUsage(key, DAY1), usage(DAY1, 2, 90));
    });
    const made = await store().transaction((uow) => uow.approvals.create(sampleApproval('deal_0001')));
    assert.equal(made.id, 'apr_0001');
  });
}
