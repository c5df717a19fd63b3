// The books' invariants (src/domain/ledger/ledger-invariants.ts, ledger-records.ts): a ledger made
// by the domain's own functions (a won deal's platform fee, commission and setter fee, two
// refunds, one before the releases and one after, two payouts) passes every check; each check
// then fails on a ledger broken one way: a transfer missing, an amount a cent off, a balance a
// cent off, a line written twice, a refund taking what it may not, a record without its transfers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Violation } from '../../src/domain/invariants.ts';
import { closerAccount, PLATFORM_FEES, sellerAccount } from '../../src/domain/ledger/accounts.ts';
import { releaseOf } from '../../src/domain/ledger/holds.ts';
import {
  type Books,
  checkBooks,
  checkOnce,
  checkReplay,
  checkSettlements,
  checkZeroSum,
  visibleKey,
} from '../../src/domain/ledger/ledger-invariants.ts';
import { checkRecords } from '../../src/domain/ledger/ledger-records.ts';
import { type Payout, payoutTransfer } from '../../src/domain/ledger/payouts.ts';
import { type Refund, refundTransfers } from '../../src/domain/ledger/refunds.ts';
import { replay, type Transfer, type TransferDraft } from '../../src/domain/ledger/transfers.ts';
import type { Deal, PayoutLine } from '../../src/domain/records.ts';
import type { Settlement } from '../../src/domain/settlement.ts';

const T0 = Date.parse('2030-03-04T09:00:00.000Z');
const DEAL = 'deal_0001';
const [CLOSER, SETTER] = ['closer_0001', 'closer_0002'];
const SELLER = sellerAccount(undefined);
const FINAL = 1_000_000; // $10,000.00

/** A won deal's books, written as the service writes them: each transfer numbered as it is posted. */
function wonDealBooks(): Books {
  const transfers: Transfer[] = [];
  const post = (drafts: readonly TransferDraft[]) =>
    drafts.map((draft) => {
      const transfer = { id: `txn_${String(transfers.length + 1).padStart(4, '0')}`, ...draft };
      transfers.push(transfer);
      return transfer;
    });
  const earning = (kind: 'commission' | 'fee', gigId: string, closerId: string, amountCents: number) => ({
    key: `${kind}:${gigId}`,
    at: T0,
    debit: SELLER,
    credit: closerAccount(closerId, 'pending'),
    amountCents,
    kind,
    dealId: DEAL,
    gigId,
    closerId,
  });
  // The setter's fee at meeting, then the close: the platform's 5% and the closer's 10%.
  post([earning('fee', 'gig_0001', SETTER, 30_000)]);
  post([
    {
      key: `platform_fee:${DEAL}`,
      at: T0,
      debit: SELLER,
      credit: PLATFORM_FEES,
      amountCents: 50_000,
      kind: 'platform_fee',
      dealId: DEAL,
    },
    earning('commission', 'gig_0002', CLOSER, 100_000),
  ]);
  const deal = { id: DEAL, stage: 'closed_won', finalValueCents: FINAL } as Deal;
  const refunds: Refund[] = [];
  const refund = (amountCents: number, at: number) => {
    const id = `rfd_000${refunds.length + 1}`;
    const refundedCents = refunds.reduce((sum, r) => sum + r.amountCents, 0);
    const drafts = refundTransfers({
      deal,
      refundId: id,
      amountCents,
      dealTransfers: [...transfers],
      refundedCents,
      now: at,
    });
    assert.ok(Array.isArray(drafts));
    refunds.push({ id, dealId: DEAL, amountCents, reason: 'returned', at, transfers: post(drafts) });
  };
  refund(333_333, T0 + 1); // held: the commission's share from pending
  for (const held of transfers.filter((t) => t.kind === 'fee' || t.kind === 'commission'))
    post([releaseOf(held, transfers, T0 + 2) as TransferDraft]);
  refund(100_000, T0 + 3); // released: from available
  const payouts: Payout[] = [CLOSER, SETTER].map((closerId, i) => {
    const id = `po_000${i + 1}`;
    const available = replay(transfers).get(closerAccount(closerId, 'available')) ?? 0n;
    const [paid] = post([payoutTransfer(closerId, Number(available), id, T0 + 4)]);
    return {
      id,
      closerId,
      amountCents: Number(available),
      status: 'paid',
      paidAt: T0 + 4,
      reference: null,
      transfers: [paid as Transfer],
    };
  });
  const settlement: Settlement = {
    dealId: DEAL,
    finalValueCents: FINAL,
    closedBy: 'human',
    closerCommissionCents: 100_000,
    platformFeeCents: 50_000,
    feesSettledCents: 30_000,
    netToSellerCents: FINAL - 180_000,
    fees: [{ gigId: 'gig_0001', role: 'setter', closerId: SETTER, amountCents: 30_000 }],
    refundedCents: 433_333,
  };
  const lines: PayoutLine[] = [
    { at: T0, closerId: SETTER, gigId: 'gig_0001', dealId: DEAL, role: 'setter', kind: 'fee', amountCents: 30_000 },
    {
      at: T0,
      closerId: CLOSER,
      gigId: 'gig_0002',
      dealId: DEAL,
      role: 'closer',
      kind: 'commission',
      amountCents: 100_000,
    },
  ];
  return {
    transfers,
    settlements: new Map([[DEAL, settlement]]),
    balances: replay(transfers),
    lines,
    refunds,
    payouts,
  };
}

const BOOKS = wonDealBooks();
const of = (kind: string, n = 0) => BOOKS.transfers.filter((t) => t.kind === kind)[n] as Transfer;
const without = (gone: Transfer) => BOOKS.transfers.filter((t) => t !== gone);
const replaced = (old: Transfer, changed: Partial<Transfer>) =>
  BOOKS.transfers.map((t) => (t === old ? { ...t, ...changed } : t));
const messages = (violations: Violation[]) => violations.map((v) => `${v.invariant}: ${v.message}`);
/** That a check found something, each finding under `books`, one of them matching `pattern`. */
function fails(violations: Violation[], pattern: RegExp) {
  assert.ok(violations.length > 0, 'the check found nothing');
  assert.ok(violations.every((v) => v.invariant === 'books'));
  assert.ok(
    violations.some((v) => pattern.test(v.message)),
    `none matches ${pattern}:\n${messages(violations).join('\n')}`,
  );
}

describe('the books: a ledger as the domain writes it', () => {
  it('passes every check; its refunds reversed from pending, then from available', () => {
    assert.deepEqual(messages(checkBooks(BOOKS)), []);
    const kinds = BOOKS.transfers.map(
      (t) => `${t.kind}${t.kind === 'reversal' ? `:${visibleKey(t).split(':')[3]}` : ''}`,
    );
    assert.deepEqual(kinds, [
      'fee',
      'platform_fee',
      'commission',
      'reversal:fee',
      'reversal:pending',
      'release',
      'release',
      'reversal:fee',
      'reversal:available',
      'payout',
      'payout',
    ]);
    // Every key is the one D-79 gives the line.
    for (const t of BOOKS.transfers) assert.equal(visibleKey(t), t.key);
  });
});

describe('(a) the balances sum to zero; each transfer a well-formed move', () => {
  it('a balance a cent off: the sum is not zero', () => {
    const balances = new Map(BOOKS.balances);
    balances.set(PLATFORM_FEES, (balances.get(PLATFORM_FEES) ?? 0n) - 1n);
    fails(checkZeroSum({ ...BOOKS, balances }), /sum to -1 cents, not 0/);
  });
  it('an amount of no cents, a move its kind never makes, transfers out of id order', () => {
    fails(checkZeroSum({ ...BOOKS, transfers: replaced(of('release'), { amountCents: 0 }) }), /moves 0 cents/);
    const commission = of('commission');
    fails(
      checkZeroSum({ ...BOOKS, transfers: replaced(commission, { credit: closerAccount(CLOSER, 'available') }) }),
      /\(commission\) moves from seller:none to closer:closer_0001:available/,
    );
    fails(checkZeroSum({ ...BOOKS, transfers: [...BOOKS.transfers].reverse() }), /not in id order/);
  });
});

describe('(b) every won deal’s settlement equals its transfers', () => {
  it('a transfer missing: the platform fee, the commission, a fee, a reversal', () => {
    fails(
      checkSettlements({ ...BOOKS, transfers: without(of('platform_fee')) }),
      /platform fee is 50000 cents; its transfers book \[\]/,
    );
    fails(
      checkSettlements({ ...BOOKS, transfers: without(of('commission')) }),
      /commission is 100000 cents; its transfers book 0/,
    );
    fails(checkSettlements({ ...BOOKS, transfers: without(of('fee')) }), /fee of gig_0001 is 30000 cents/);
    fails(
      checkSettlements({ ...BOOKS, transfers: without(of('reversal', 3)) }),
      /is reversed by 33333; refunds of 433333 of 1000000 reverse 43333/,
    );
  });
  it('an amount a cent off: the platform fee, a reversal', () => {
    fails(
      checkSettlements({ ...BOOKS, transfers: replaced(of('platform_fee'), { amountCents: 50_001 }) }),
      /platform fee is 50000 cents; its transfers book \[50001\]/,
    );
    fails(
      checkSettlements({ ...BOOKS, transfers: replaced(of('reversal'), { amountCents: 16_668 }) }),
      /reversed by 21668; refunds of 433333 of 1000000 reverse 21667/,
    );
  });
  it('a platform fee booked for a deal not won; a reversal of a fee, which stays earned', () => {
    fails(
      checkSettlements({ ...BOOKS, settlements: new Map() }),
      /\(platform_fee\) is of deal_0001, which was not won/,
    );
    const fee = of('fee');
    fails(
      checkSettlements({ ...BOOKS, transfers: replaced(of('reversal'), { reverses: fee.id }) }),
      /reverses txn_0001, no commission or platform fee/,
    );
  });
});

describe('(c) replaying the transfers gives every balance', () => {
  it('a balance a cent off, or a transfer the balances never saw', () => {
    const balances = new Map(BOOKS.balances);
    balances.set(closerAccount(CLOSER, 'paid'), (balances.get(closerAccount(CLOSER, 'paid')) ?? 0n) + 1n);
    fails(
      checkReplay({ ...BOOKS, balances }),
      /closer:closer_0001:paid's balance is \d+ cents; its transfers make \d+/,
    );
    fails(checkReplay({ ...BOOKS, transfers: without(of('release')) }), /pending's balance/);
  });
});

describe('(d) nothing written twice; no release or refund takes more than its earning held', () => {
  it('a release written twice, or a cent more than its earning held', () => {
    const release = of('release');
    fails(
      checkOnce({ ...BOOKS, transfers: [...BOOKS.transfers, { ...release, id: 'txn_0099' }] }),
      /both release:txn_0001: a line written twice/,
    );
    fails(
      checkOnce({ ...BOOKS, transfers: replaced(of('release', 1), { amountCents: 66_668 }) }),
      /releases 66668 cents of txn_0003, which held 66667/,
    );
  });
  it('a refund from pending after the release, or from available while the earning still held some', () => {
    // The commission's two reversals: the first refund's from pending, the second's from available.
    const [early, late] = BOOKS.transfers.filter((t) => t.reverses === of('commission').id) as [Transfer, Transfer];
    assert.deepEqual([early.debit, late.debit], [closerAccount(CLOSER, 'pending'), closerAccount(CLOSER, 'available')]);
    fails(
      checkOnce({ ...BOOKS, transfers: replaced(late, { debit: closerAccount(CLOSER, 'pending') }) }),
      /takes from pending what txn_0007 released/,
    );
    fails(
      checkOnce({ ...BOOKS, transfers: replaced(early, { debit: closerAccount(CLOSER, 'available') }) }),
      /takes from available while txn_0003 still holds 100000 cents/,
    );
  });
  it('a payout of other than the whole available balance; a store key not D-79’s', () => {
    fails(
      checkOnce({ ...BOOKS, transfers: replaced(of('payout'), { amountCents: of('payout').amountCents - 1 }) }),
      /pays \d+ cents of closer:closer_0001:available, which held \d+/,
    );
    fails(
      checkOnce({ ...BOOKS, transfers: replaced(of('payout'), { key: 'payout:again' }) }),
      /is keyed payout:again, not payout:po_0001/,
    );
  });
});

describe('the records hold their transfers whole', () => {
  it('a payout line without its earning; a refund or a payout without its transfers, or transfers without them', () => {
    fails(
      checkRecords({ ...BOOKS, transfers: without(of('fee')) }),
      /the fee of gig_0001 \(30000 cents to closer_0002\) is booked as \[\]/,
    );
    fails(
      checkRecords({ ...BOOKS, transfers: without(of('reversal', 3)) }),
      /rfd_0002 lists \[txn_0008 txn_0009\] but the reversals naming it are \[txn_0008\]/,
    );
    fails(checkRecords({ ...BOOKS, refunds: BOOKS.refunds?.slice(0, 1) }), /names rfd_0002, which is no refund/);
    fails(checkRecords({ ...BOOKS, payouts: [] }), /names po_0001, which is no payout/);
    // The refunded total a cent off its refunds (a cent too little to change a reversal's rounding).
    const settlement = { ...(BOOKS.settlements.get(DEAL) as Settlement), refundedCents: 433_334 };
    assert.deepEqual(checkSettlements({ ...BOOKS, settlements: new Map([[DEAL, settlement]]) }), []);
    fails(
      checkRecords({ ...BOOKS, settlements: new Map([[DEAL, settlement]]) }),
      /refunds add up to 433333 cents; its settlement says 433334/,
    );
    fails(
      checkRecords({ ...BOOKS, transfers: replaced(of('payout'), { amountCents: 1 }) }),
      /po_0001 pays \d+ cents to closer_0001; the ledger has \[txn_0010 1 from/,
    );
  });
});
