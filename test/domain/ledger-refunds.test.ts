// Refunds and clawbacks (D-81, D-280): what a refund refuses, what its reversals take and from
// where, exactly, whatever the size of the amounts; and, as a property over seeded random deals,
// that any sequence of partial refunds reverses to the cent what one refund of their sum would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closerAccount, PLATFORM_FEES } from '../../src/domain/ledger/accounts.ts';
import { refundTransfers } from '../../src/domain/ledger/refunds.ts';
import { closerStatement, owedAccounts } from '../../src/domain/ledger/statements.ts';
import { balanceOf, replay, type Transfer } from '../../src/domain/ledger/transfers.ts';
import type { Refusal } from '../../src/domain/refusal.ts';
import { type Books, CLOSER, intIn, mulberry32, SETTER, share, wonDeal } from './ledger-books.ts';
import { T0 } from './world.ts';

const PENDING = closerAccount(CLOSER, 'pending');
const AVAILABLE = closerAccount(CLOSER, 'available');
const PAID = closerAccount(CLOSER, 'paid');

/** A deal of 10,000.00 USD: a platform fee of 500.00 (txn_0003), a commission of 1,000.00 (txn_0004), fees of 250.00 and 150.00 before. */
const tenThousand = () =>
  wonDeal({
    valueCents: 1_000_000,
    commissionCents: 100_000,
    fees: [{ amountCents: 25_000 }, { amountCents: 15_000, closerId: 'closer_0003' }],
  });

const refused = (result: Transfer[] | Refusal): Refusal => {
  if (Array.isArray(result)) assert.fail(`expected a refusal, got ${result.length} transfers`);
  return result;
};

describe('D-81 refundTransfers: what a refund refuses', () => {
  it('D-81: only a closed_won deal is refunded (409 DEAL_NOT_CLOSED_WON)', () => {
    const books = tenThousand();
    for (const stage of ['negotiation', 'closed_lost'] as const) {
      const { finalValueCents: _, ...deal } = books.deal;
      books.deal = { ...deal, stage };
      const refusal = refused(books.refund(100));
      assert.deepEqual([refusal.kind, refusal.code], ['conflict', 'DEAL_NOT_CLOSED_WON']);
      assert.match(refusal.message, new RegExp(`is ${stage}; only a closed_won deal is refunded`));
    }
    assert.equal(books.transfers.length, 4, 'nothing booked');
  });

  it('D-81: refunds together never pass the final value (422 REFUND_EXCEEDS_VALUE, saying what is left)', () => {
    const books = tenThousand();
    books.refunded(600_000);
    const booked = books.transfers.length;
    const refusal = refused(books.refund(400_001));
    assert.deepEqual([refusal.kind, refusal.code], ['rule', 'REFUND_EXCEEDS_VALUE']);
    assert.deepEqual(refusal.violations, [
      'amountUsd: at most $4,000.00 is left to refund of $10,000.00 ($6,000.00 refunded)',
    ]);
    assert.equal(books.transfers.length, booked, 'nothing booked');
    books.refunded(400_000);
    assert.deepEqual(refused(books.refund(1)).violations, [
      'amountUsd: at most $0.00 is left to refund of $10,000.00 ($10,000.00 refunded)',
    ]);
  });

  it('D-81: a refund is at least one cent (INVALID_BODY)', () => {
    for (const cents of [0, -100]) {
      const refusal = refused(tenThousand().refund(cents));
      assert.deepEqual([refusal.kind, refusal.code], ['invalid', 'INVALID_BODY']);
    }
  });
});

describe('D-81 refundTransfers: what a refund reverses, and from where', () => {
  it('D-81: reverses round-half-up(A × R / V) of the commission and of the platform fee, each line keyed once; never the fees', () => {
    const books = tenThousand();
    const [fee, commission] = [books.keyed('platform_fee:deal_0001'), books.keyed('commission:gig_0009')];
    const reversal = { at: T0 + 1, credit: 'seller:none', kind: 'reversal', dealId: 'deal_0001', refundId: 'rfd_0001' };
    const drafts = refundTransfers({
      deal: books.deal,
      refundId: 'rfd_0001',
      amountCents: 333_333,
      dealTransfers: books.transfers,
      refundedCents: 0,
      now: T0 + 1,
    });
    // 500.00 × 3,333.33 / 10,000 = 166.6665 → 166.67; 1,000.00 × the same share = 333.333 → 333.33.
    assert.deepEqual(drafts, [
      {
        key: `refund:rfd_0001:${fee.id}:fee`,
        debit: PLATFORM_FEES,
        amountCents: 16_667,
        reverses: fee.id,
        ...reversal,
      },
      {
        key: `refund:rfd_0001:${commission.id}:pending`,
        debit: PENDING,
        amountCents: 33_333,
        reverses: commission.id,
        closerId: CLOSER,
        ...reversal,
      },
    ]);
    // The whole of the rest: what was reversed in all is the whole fee and commission, and no fee of work.
    books.refunded(333_333);
    books.refunded(666_667);
    assert.deepEqual([books.reversedOf(fee).total, books.reversedOf(commission).total], [50_000, 100_000]);
    assert.equal(balanceOf(books.transfers, [closerAccount(SETTER, 'pending')]), 25_000n);
    assert.equal(balanceOf(books.transfers, [closerAccount('closer_0003', 'pending')]), 15_000n);
    assert.equal(balanceOf(books.transfers, [PLATFORM_FEES]), 0n);
  });

  it('D-81: a half cent is rounded up, and a share that rounds to nothing books no line', () => {
    const books = tenThousand();
    // 5 cents of 10,000.00: 0.5 cent of the commission (→ 1), 0.25 of the platform fee (→ none).
    const lines = books.refunded(5);
    assert.deepEqual(
      lines.map((t) => [t.debit, t.amountCents]),
      [[PENDING, 1]],
    );
  });

  it("D-280: takes first what the earning itself still holds in pending, then from available once it was released; never the closer's other held earnings", () => {
    const books = wonDeal({
      valueCents: 1_000_000,
      commissionCents: 100_000,
      fees: [{ amountCents: 25_000, closerId: CLOSER }],
    });
    const commission = books.keyed('commission:gig_0009');
    assert.deepEqual(
      books.refunded(100_000).map((t) => [t.key, t.debit, t.amountCents]),
      [
        [`refund:rfd_0001:txn_0002:fee`, PLATFORM_FEES, 5_000],
        [`refund:rfd_0001:${commission.id}:pending`, PENDING, 10_000],
      ],
    );
    assert.equal(books.release(commission.id)?.amountCents, 90_000);
    // The closer's fee still held in pending is not the commission's: the reversal takes from available.
    assert.deepEqual(
      books.refunded(250_000).map((t) => [t.key, t.debit, t.amountCents]),
      [
        [`refund:rfd_0002:txn_0002:fee`, PLATFORM_FEES, 12_500],
        [`refund:rfd_0002:${commission.id}:available`, AVAILABLE, 25_000],
      ],
    );
    assert.deepEqual(
      [PENDING, AVAILABLE].map((a) => balanceOf(books.transfers, [a])),
      [25_000n, 65_000n],
    );
  });

  it('D-81: a released and paid earning is clawed back from available, which goes below zero', () => {
    const books = wonDeal({ valueCents: 1_000_000, commissionCents: 100_000 });
    books.release(books.keyed('commission:gig_0009').id);
    books.payout(CLOSER, 100_000);
    books.refunded(400_000);
    assert.deepEqual(
      [PENDING, AVAILABLE, PAID].map((a) => balanceOf(books.transfers, [a])),
      [0n, -40_000n, 100_000n],
    );
  });

  it('D-81: exact with amounts whose products pass 2^53 (bigint inside)', () => {
    // Floating point would answer A × R / V = 1,514,676,574,585,817.4… as …818: one cent too many.
    const [V, A, R] = [3_325_719_826_435_509, 2_326_034_699_352_693, 2_165_655_532_197_916];
    const books = wonDeal({ valueCents: V, commissionCents: A });
    const [fee, commission] = [books.keyed('platform_fee:deal_0001'), books.keyed('commission:gig_0009')];
    const part = 1_000_000_000_000_001;
    books.refunded(part);
    books.refunded(R - part);
    assert.equal(books.reversedOf(commission).total, 1_514_676_574_585_817);
    assert.equal(books.reversedOf(fee).total, share(fee.amountCents, R, V));
    books.refunded(V - R);
    assert.deepEqual([books.reversedOf(commission).total, books.reversedOf(fee).total], [A, fee.amountCents]);
    assert.equal(balanceOf(books.transfers, ['seller:none']), 0n);
  });
});

/** `total` cut into `count` parts of at least a cent each (fewer when there are not that many cents). */
function partsOf(random: () => number, total: number, count: number): number[] {
  const parts: number[] = [];
  let left = total;
  for (let n = Math.min(count, total); n > 1; n--) {
    const part = intIn(random, 1, left - (n - 1));
    parts.push(part);
    left -= part;
  }
  return [...parts, left];
}

describe('D-81 property: partial refunds reverse what one refund of their sum would', () => {
  it('D-81, D-280: 400 seeded deals, refund sequences, releases and payouts between them: every cent where it should be', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const random = mulberry32(seed);
      const label = `seed ${seed}`;
      // Values of one digit to sixteen: a platform fee of zero, and products far past 2^53.
      const V = intIn(random, 1, Math.min(10 ** intIn(random, 1, 16), Number.MAX_SAFE_INTEGER));
      const deal = {
        valueCents: V,
        commissionCents: random() < 0.15 ? 0 : intIn(random, 1, V),
        fees: random() < 0.5 ? [] : [{ amountCents: intIn(random, 1, V), closerId: CLOSER }, { amountCents: 1 }],
      };
      const books = wonDeal(deal);
      const R = random() < 0.2 ? V : intIn(random, 1, V);
      const parts = partsOf(random, R, intIn(random, 1, 6));
      // Before which refund the closer's earnings are released (parts.length: after the last; -1: never).
      const releaseAt = intIn(random, -1, parts.length);
      const pay = random() < 0.5;
      const earnings = books.transfers.filter((t) => t.closerId === CLOSER);
      parts.forEach((part, i) => {
        if (i === releaseAt) releaseAll(books, earnings, pay);
        books.refunded(part, T0 + i);
      });
      if (releaseAt === parts.length) releaseAll(books, earnings, pay);

      const one = wonDeal(deal);
      one.refunded(R);
      const originals = books.transfers.filter((t) => ['commission', 'fee', 'platform_fee'].includes(t.kind));
      for (const original of originals) {
        const expected = original.kind === 'fee' ? 0 : share(original.amountCents, R, V);
        assert.equal(books.reversedOf(original).total, expected, `${label}: ${original.key}`);
        assert.equal(one.reversedOf(one.keyed(original.key)).total, expected, `${label}: ${original.key} at once`);
      }
      // Each earning: its release moved exactly what pending reversals left of it, and the rest came from available.
      let pending = 0;
      let owed = 0;
      for (const earning of earnings) {
        const { total, fromPending } = books.reversedOf(earning);
        const release = books.transfers.find((t) => t.releases === earning.id);
        if (release) assert.equal(release.amountCents + fromPending, earning.amountCents, `${label}: release`);
        else assert.equal(fromPending, total, `${label}: nothing taken from available while held`);
        if (!release) pending += earning.amountCents - total;
        owed += earning.amountCents - total;
      }
      const balance = (account: string) => balanceOf(books.transfers, [account]);
      assert.equal(balance(PENDING), BigInt(pending), `${label}: pending`);
      assert.equal(balance(PENDING) + balance(AVAILABLE) + balance(PAID), BigInt(owed), `${label}: the closer's three`);
      let sum = 0n;
      for (const b of replay(books.transfers).values()) sum += b;
      assert.equal(sum, 0n, `${label}: the books balance`);
      const statement = closerStatement(CLOSER, '2026-01', 0n, books.transfers);
      assert.equal(statement.closingCents, balanceOf(books.transfers, owedAccounts(CLOSER)), `${label}: statement`);
    }
  });
});

/** Releases each earning there is a release of, and pays the closer's available balance when `pay` and above zero. */
function releaseAll(books: Books, earnings: readonly Transfer[], pay: boolean): void {
  for (const earning of earnings) books.release(earning.id, T0);
  const available = balanceOf(books.transfers, [AVAILABLE]);
  if (pay && available > 0n) books.payout(CLOSER, Number(available), T0);
}
