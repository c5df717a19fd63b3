// The ledger part of the store contract (D-79 to D-82, D-280), run by describeStoreContract on
// every adapter: transfers numbered as they are written and read back unchanged, each key booked
// once (post throws, book fails its unit, and nothing of the unit stays), refunds and payouts,
// what a rollback and a wipe leave, amounts past 32 bits; the reads by time, account and hold are
// ledger-read-contract.ts. A wipe (before each test) empties the ledger and restarts its numbers;
// a rolled-back unit's numbers may be gone (a database's sequence) or not.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Payout } from '../../src/domain/ledger/payouts.ts';
import type { Refund } from '../../src/domain/ledger/refunds.ts';
import type { Transfer, TransferDraft } from '../../src/domain/ledger/transfers.ts';
import { DuplicateTransferError, type TransferFilter } from '../../src/store/ledger.ts';
import type { Store } from '../../src/store/store.ts';
import { ledgerReadContract } from './ledger-read-contract.ts';
import { earning, fullDraft, ids, paidOut, platformFee, refundOf, release, T0, txn } from './ledger-samples.ts';

export function ledgerContract(name: string, store: () => Store) {
  const post = (drafts: TransferDraft[]) => store().transaction((uow) => uow.ledger.post(drafts));
  const page = (filter: Partial<TransferFilter> = {}) =>
    store().read(async (r) => ids(await r.ledger.transfers({ limit: 100, ...filter })));

  it('ledger: post answers each transfer numbered txn_NNNN in turn, read back unchanged, every field', async () => {
    const drafts = [earning('commission:gig_0001', 90_000), fullDraft, platformFee('deal_0001', 45_000)];
    const posted = await store().transaction(async (uow) => {
      const made = await uow.ledger.post(drafts);
      assert.deepEqual(await uow.ledger.getTransfer(txn(2)), made[1], 'a unit reads its own writes');
      return made;
    });
    assert.deepEqual(
      posted,
      drafts.map((draft, i) => ({ id: txn(i + 1), ...draft })),
    );
    await store().read(async (r) => {
      for (const transfer of posted) assert.deepEqual(await r.ledger.getTransfer(transfer.id), transfer);
      assert.equal(await r.ledger.getTransfer('txn_9999'), undefined);
      assert.deepEqual(await r.ledger.transfersOfDeal('deal_0001'), [posted[0], posted[2]]);
      assert.deepEqual(await r.ledger.transfersOfDeal('deal_0404'), []);
    });
    const [next] = await post([platformFee('deal_0002', 1)]);
    assert.equal(next?.id, txn(4));
    assert.deepEqual(await store().transaction((uow) => uow.ledger.post([])), [], 'nothing to post');
  });

  it("ledger: book writes with the unit's write, numbered in the order booked, read after commit", async () => {
    await store().transaction(async (uow) => {
      await uow.ledger.book([platformFee('deal_0001', 500), earning('commission:gig_0001', 1_000)]);
      await uow.ledger.book([]);
      // A post after a book is numbered after it.
      const [posted] = await uow.ledger.post([platformFee('deal_0002', 7)]);
      assert.equal(posted?.id, txn(3));
    });
    const transfers = await store().read((r) => r.ledger.transfers({ limit: 10 }));
    assert.deepEqual(
      transfers.map((t) => [t.id, t.key]),
      [
        [txn(1), 'platform_fee:deal_0001'],
        [txn(2), 'commission:gig_0001'],
        [txn(3), 'platform_fee:deal_0002'],
      ],
    );
    assert.deepEqual(transfers[1], { id: txn(2), ...earning('commission:gig_0001', 1_000) });
  });

  it('ledger: a key is booked once: post throws DuplicateTransferError, book fails its unit; nothing of the unit stays', async () => {
    const [kept] = await post([earning('commission:gig_0001', 1_000)]);
    const again = earning('commission:gig_0001', 2_000, { at: T0 + 5 });
    const duplicate = (error: unknown) => error instanceof DuplicateTransferError && error.key === again.key;
    await assert.rejects(post([again]), duplicate);
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.ledger.post([platformFee('deal_0001', 50)]);
        await uow.ledger.post([platformFee('deal_0002', 60), again]);
      }),
      duplicate,
    );
    // Two of one key in one post, neither booked before.
    const twice = platformFee('deal_0003', 70);
    await assert.rejects(
      post([twice, twice]),
      (error: unknown) => error instanceof DuplicateTransferError && error.key === twice.key,
    );
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.ledger.book([platformFee('deal_0004', 80), again]);
      }),
    );
    await assert.rejects(store().transaction((uow) => uow.ledger.book([twice, twice])));
    const left = await store().read((r) => r.ledger.transfers({ limit: 10 }));
    assert.deepEqual(left, [kept], 'only the first booking of the key, and nothing of the failed units');
  });

  it('ledger: a unit that throws keeps none of its transfers, refunds or payouts; the numbers it took do not matter', async () => {
    let lost: Transfer[] = [];
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.ledger.book([earning('commission:gig_0001', 1_000)]);
        lost = await uow.ledger.post([platformFee('deal_0001', 50), release(1, 1_000)]);
        const refundId = await uow.ledger.takeRefundId();
        await uow.ledger.putRefund(refundOf(refundId, lost));
        const payoutId = await uow.ledger.takePayoutId();
        await uow.ledger.putPayout(paidOut(payoutId, 'closer_0001', 1_000, lost));
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal(lost.length, 2);
    await store().read(async (r) => {
      assert.deepEqual(await r.ledger.transfers({ limit: 10 }), []);
      for (const t of lost) assert.equal(await r.ledger.getTransfer(t.id), undefined);
      assert.deepEqual(await r.ledger.transfersOfDeal('deal_0001'), []);
      assert.deepEqual(await r.ledger.refundsOfDeal('deal_0001'), []);
      assert.deepEqual(await r.ledger.payouts({ limit: 10 }), []);
      assert.deepEqual(await r.ledger.heldEarnings(T0, 10), []);
      assert.deepEqual(await r.ledger.payable(), []);
      assert.deepEqual(
        await r.ledger.balances(['closer:closer_0001:pending'], T0),
        new Map([['closer:closer_0001:pending', 0n]]),
      );
    });
    // The same keys are free again; whatever number the ledger goes on from, it is one more each time.
    const again = await post([earning('commission:gig_0001', 1_000), platformFee('deal_0001', 50)]);
    assert.match(again[0]?.id as string, /^txn_\d{4}$/);
    assert.equal(Number(again[1]?.id.slice(4)), Number(again[0]?.id.slice(4)) + 1);
    assert.deepEqual(await page(), ids(again));
  });

  it('ledger: refunds and payouts are numbered, stored and listed: refunds by deal, payouts newest first, by closer, before an id', async () => {
    const posted = await post([platformFee('deal_0001', 500), earning('commission:gig_0001', 1_000)]);
    const [first, second] = await store().transaction(async (uow) => {
      const made = [refundOf(await uow.ledger.takeRefundId(), posted), refundOf(await uow.ledger.takeRefundId(), [])];
      for (const refund of made) await uow.ledger.putRefund(refund);
      return made as [Refund, Refund];
    });
    assert.deepEqual([first.id, second.id], ['rfd_0001', 'rfd_0002']);
    const other: Refund = {
      ...refundOf('rfd_0003', []),
      dealId: 'deal_0002',
      sellerId: 'seller_0001',
      reason: 'é "quoted"',
    };
    await store().transaction(async (uow) => {
      assert.equal(await uow.ledger.takeRefundId(), 'rfd_0003');
      await uow.ledger.putRefund(other);
    });
    await store().read(async (r) => {
      assert.deepEqual(await r.ledger.refundsOfDeal('deal_0001'), [first, second]);
      assert.deepEqual(await r.ledger.refundsOfDeal('deal_0002'), [other]);
      assert.deepEqual(await r.ledger.refundsOfDeal('deal_0404'), []);
    });
    const payouts = await store().transaction(async (uow) => {
      const made: Payout[] = [];
      for (const [closerId, reference] of [
        ['closer_0001', null],
        ['closer_0002', 'wire 7'],
        ['closer_0001', 'wire 8'],
      ] as const) {
        const id = await uow.ledger.takePayoutId();
        const payout = { ...paidOut(id, closerId, 1_000 + made.length, posted), reference };
        await uow.ledger.putPayout(payout);
        made.push(payout);
      }
      return made;
    });
    assert.deepEqual(ids(payouts), ['po_0001', 'po_0002', 'po_0003']);
    await store().read(async (r) => {
      const list = async (filter: { closerId?: string; afterId?: string; limit?: number }) =>
        ids(await r.ledger.payouts({ limit: 10, ...filter }));
      assert.deepEqual(await r.ledger.payouts({ limit: 10 }), [...payouts].reverse(), 'whole, newest first');
      assert.deepEqual(await list({ limit: 2 }), ['po_0003', 'po_0002']);
      assert.deepEqual(await list({ afterId: 'po_0003' }), ['po_0002', 'po_0001']);
      assert.deepEqual(await list({ afterId: 'po_0001' }), []);
      assert.deepEqual(await list({ closerId: 'closer_0001' }), ['po_0003', 'po_0001']);
      assert.deepEqual(await list({ closerId: 'closer_0001', afterId: 'po_0003', limit: 1 }), ['po_0001']);
      assert.deepEqual(await list({ closerId: 'closer_0404' }), []);
    });
  });

  it('ledger: a wipe empties the ledger, its refunds and payouts, and restarts their numbers', async () => {
    const posted = await post([platformFee('deal_0001', 500), earning('commission:gig_0001', 1_000)]);
    await store().transaction(async (uow) => {
      await uow.ledger.putRefund(refundOf(await uow.ledger.takeRefundId(), posted));
      await uow.ledger.putPayout(paidOut(await uow.ledger.takePayoutId(), 'closer_0001', 1_000, []));
    });
    await store().transaction((uow) => uow.wipe());
    await store().read(async (r) => {
      assert.deepEqual(await r.ledger.transfers({ limit: 10 }), []);
      assert.equal(await r.ledger.getTransfer(txn(1)), undefined);
      assert.deepEqual(await r.ledger.refundsOfDeal('deal_0001'), []);
      assert.deepEqual(await r.ledger.payouts({ limit: 10 }), []);
      assert.deepEqual(await r.ledger.heldEarnings(T0, 10), []);
      assert.deepEqual(await r.ledger.balances(['platform:fees'], T0), new Map([['platform:fees', 0n]]));
    });
    const [again] = await post([platformFee('deal_0001', 500)]);
    assert.equal(again?.id, txn(1), 'the same key is free again');
    assert.deepEqual(
      await store().transaction(async (uow) => [await uow.ledger.takeRefundId(), await uow.ledger.takePayoutId()]),
      ['rfd_0001', 'po_0001'],
    );
  });

  it('ledger: amounts past 2^31 and 2^53 in sum are kept exactly', async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const posted = await post([
      earning('commission:gig_0001', 3_000_000_001),
      earning('commission:gig_0002', max, { gigId: 'gig_0002' }),
      release(2, max),
      release(1, 3_000_000_001),
    ]);
    assert.deepEqual(
      await store().read(async (r) => (await r.ledger.transfers({ limit: 10 })).map((t) => t.amountCents)),
      [3_000_000_001, max, max, 3_000_000_001],
    );
    const total = BigInt(max) + 3_000_000_001n;
    await store().read(async (r) => {
      assert.deepEqual(await r.ledger.getTransfer(posted[1]?.id as string), posted[1]);
      assert.deepEqual(
        await r.ledger.balances(['seller:none', 'closer:closer_0001:available'], T0),
        new Map([
          ['seller:none', -total],
          ['closer:closer_0001:available', total],
        ]),
      );
      assert.deepEqual(await r.ledger.payable(), [{ closerId: 'closer_0001', availableCents: total }]);
    });
  });

  ledgerReadContract(name, store);
}
