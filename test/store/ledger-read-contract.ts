// The ledger's reads in the store contract (D-80, D-82, D-280), on every adapter: balances as of
// a time, pages of transfers by each filter in id order, the earnings still held (by time, until
// released or emptied by refunds while held) and the closers payable. Run by ledgerContract.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { TransferDraft } from '../../src/domain/ledger/transfers.ts';
import type { TransferFilter } from '../../src/store/ledger.ts';
import type { Store } from '../../src/store/store.ts';
import { earning, ids, payoutOf, platformFee, release, reversal, T0, txn } from './ledger-samples.ts';

export function ledgerReadContract(_name: string, store: () => Store) {
  const post = (drafts: TransferDraft[]) => store().transaction((uow) => uow.ledger.post(drafts));
  const page = (filter: Partial<TransferFilter> = {}) =>
    store().read(async (r) => ids(await r.ledger.transfers({ limit: 100, ...filter })));

  it('ledger: balances as of a time sum the transfers at or before it, per account, 0 for one without any', async () => {
    await post([
      platformFee('deal_0001', 500, T0),
      earning('commission:gig_0001', 1_000, { at: T0 + 10 }),
      release(2, 1_000, 'closer_0001', T0 + 20),
      payoutOf('closer_0001', 1, 600, T0 + 30),
    ]);
    const balances = (accounts: string[], asOf: number) => store().read((r) => r.ledger.balances(accounts, asOf));
    const accounts = ['seller:none', 'platform:fees', 'closer:closer_0001:pending', 'closer:closer_0001:available'];
    const each = async (asOf: number) => {
      const found = await balances(accounts, asOf);
      return accounts.map((account) => found.get(account));
    };
    assert.deepEqual(
      await balances([...accounts, 'closer:closer_0404:paid'], T0 + 10),
      new Map([
        ['seller:none', -1_500n],
        ['platform:fees', 500n],
        ['closer:closer_0001:pending', 1_000n],
        ['closer:closer_0001:available', 0n],
        ['closer:closer_0404:paid', 0n],
      ]),
    );
    assert.deepEqual(await each(T0 - 1), [0n, 0n, 0n, 0n], 'before any');
    assert.deepEqual(await each(T0 + 29), [-1_500n, 500n, 0n, 1_000n]);
    assert.deepEqual(await each(T0 + 30), [-1_500n, 500n, 0n, 400n], 'at asOf counts');
    assert.deepEqual(
      await balances(['closer:closer_0001:paid'], T0 + 1_000),
      new Map([['closer:closer_0001:paid', 600n]]),
    );
    assert.deepEqual(await balances([], T0), new Map());
  });

  it('ledger: transfers page in id order by account, deal, time, Seller, closer, after an id, up to a limit', async () => {
    await post([
      platformFee('deal_0001', 500, T0), // 1
      earning('commission:gig_0001', 1_000, { at: T0 + 10, sellerId: 'seller_0001', debit: 'seller:seller_0001' }), // 2
      platformFee('deal_0002', 300, T0 + 20), // 3
      earning('fee:gig_0002', 200, {
        kind: 'fee',
        dealId: 'deal_0002',
        gigId: 'gig_0002',
        closerId: 'closer_0002',
        credit: 'closer:closer_0002:pending',
        at: T0 + 30,
      }), // 4
      release(2, 1_000, 'closer_0001', T0 + 40), // 5
    ]);
    const t = (...ns: number[]) => ns.map(txn);
    assert.deepEqual(await page(), t(1, 2, 3, 4, 5));
    assert.deepEqual(await page({ limit: 2 }), t(1, 2));
    assert.deepEqual(await page({ afterId: txn(2), limit: 2 }), t(3, 4));
    assert.deepEqual(await page({ afterId: txn(5) }), []);
    assert.deepEqual(await page({ accounts: ['platform:fees'] }), t(1, 3));
    assert.deepEqual(await page({ accounts: ['closer:closer_0001:pending'] }), t(2, 5), 'credited or debited');
    assert.deepEqual(await page({ accounts: ['closer:closer_0001:available', 'closer:closer_0002:pending'] }), t(4, 5));
    assert.deepEqual(await page({ accounts: ['seller:none'] }), t(1, 3, 4));
    assert.deepEqual(await page({ accounts: ['closer:closer_0404:paid'] }), []);
    assert.deepEqual(await page({ accounts: [] }), []);
    assert.deepEqual(await page({ dealId: 'deal_0001' }), t(1, 2, 5));
    assert.deepEqual(await page({ dealId: 'deal_0002' }), t(3, 4));
    assert.deepEqual(await page({ from: T0 + 10 }), t(2, 3, 4, 5), 'from is inclusive');
    assert.deepEqual(await page({ to: T0 + 30 }), t(1, 2, 3), 'to is exclusive');
    assert.deepEqual(await page({ from: T0 + 10, to: T0 + 31 }), t(2, 3, 4));
    assert.deepEqual(await page({ sellerId: 'seller_0001' }), t(2));
    assert.deepEqual(await page({ closerId: 'closer_0001' }), t(2, 5));
    // Filters together, and with a page.
    assert.deepEqual(await page({ accounts: ['seller:none'], dealId: 'deal_0002', from: T0 + 25 }), t(4));
    assert.deepEqual(await page({ dealId: 'deal_0001', afterId: txn(1), limit: 1 }), t(2));
    assert.deepEqual(await page({ accounts: ['closer:closer_0001:pending'], afterId: txn(2) }), t(5));
  });

  it('ledger: heldEarnings lists the earnings booked by a time, oldest first; a release drops one, and so do refunds that empty it while held', async () => {
    const e = (n: number, at: number, amountCents = 1_000, kind: 'commission' | 'fee' = 'commission') =>
      earning(`${kind}:gig_000${n}`, amountCents, { at, kind, gigId: `gig_000${n}` });
    // Booked out of time order: listed by time, not by number.
    await post([e(1, T0 + 20), platformFee('deal_0001', 500, T0), e(2, T0, 300, 'fee'), e(3, T0 + 10)]);
    const held = (bookedBy: number, limit = 10) =>
      store().read(async (r) => ids(await r.ledger.heldEarnings(bookedBy, limit)));
    assert.deepEqual(await held(T0 + 100), [txn(3), txn(4), txn(1)]);
    assert.deepEqual(await held(T0 + 10), [txn(3), txn(4)], 'booked at or before');
    assert.deepEqual(await held(T0 - 1), []);
    assert.deepEqual(await held(T0 + 100, 2), [txn(3), txn(4)]);
    const [whole] = await store().read((r) => r.ledger.heldEarnings(T0, 1));
    assert.deepEqual(whole, { id: txn(3), ...e(2, T0, 300, 'fee') }, 'the whole transfer');
    // Released: held no more. Emptied by two reversals from pending: held no more. Partly reversed: still held.
    await post([release(4, 1_000, 'closer_0001', T0 + 50)]);
    await post([reversal('rfd_0001', 3, 'pending', 100), reversal('rfd_0001', 1, 'pending', 999)]);
    assert.deepEqual(await held(T0 + 100), [txn(3), txn(1)]);
    await post([reversal('rfd_0002', 3, 'pending', 200)]);
    assert.deepEqual(await held(T0 + 100), [txn(1)]);
    // Taken back and the unit thrown: held again as it was.
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.ledger.post([reversal('rfd_0003', 1, 'pending', 1), release(1, 1)]);
        assert.deepEqual(ids(await uow.ledger.heldEarnings(T0 + 100, 10)), []);
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.deepEqual(await held(T0 + 100), [txn(1)]);
  });

  it('ledger: payable is each closer with releases less payouts and reversals from available above zero, in closer id order', async () => {
    await post([
      release(1, 500, 'closer_0002'),
      payoutOf('closer_0002', 1, 200),
      release(2, 100, 'closer_0001'),
      reversal('rfd_0001', 2, 'available', 150), // clawed back below zero
      release(3, 7, 'closer_10000'),
      release(4, 3_000_000_000, 'closer_9999'),
      release(5, 40, 'closer_0003'),
      payoutOf('closer_0003', 2, 40), // paid to zero
      earning('commission:gig_0009', 900, { closerId: 'closer_0004', credit: 'closer:closer_0004:pending' }),
    ]);
    assert.deepEqual(await store().read((r) => r.ledger.payable()), [
      { closerId: 'closer_0002', availableCents: 300n },
      { closerId: 'closer_9999', availableCents: 3_000_000_000n },
      { closerId: 'closer_10000', availableCents: 7n },
    ]);
  });
}
