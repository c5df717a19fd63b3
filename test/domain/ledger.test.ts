// The ledger's pure rules (D-79, D-80, D-82, D-280): what a decision's events book, what a
// release moves, and statements that add up to the cent. Refunds: ledger-refunds.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineEvent } from '../../src/domain/events.ts';
import { closerAccount, PLATFORM_FEES, sellerAccount } from '../../src/domain/ledger/accounts.ts';
import { releaseOf } from '../../src/domain/ledger/holds.ts';
import { closerStatement, monthRange, owedAccounts, sellerStatement } from '../../src/domain/ledger/statements.ts';
import { balanceOf, bookedTransfers, type Transfer } from '../../src/domain/ledger/transfers.ts';
import { type Books, CLOSER, createdDeal, line, wonDeal } from './ledger-books.ts';
import { claimedNurturerGig, claimedSetterGig, DAY, T0, World } from './world.ts';

const PENDING = closerAccount(CLOSER, 'pending');
const AVAILABLE = closerAccount(CLOSER, 'available');

/** A human closer's deal, owned by `sellerId` when given, closed won by the closer at `valueUsd`. */
function humanClose(valueUsd: number, sellerId?: string) {
  const w = new World();
  const closerId = w.enrol();
  const created = w.run({
    type: 'CreateDeal',
    account: { name: 'Acme Fictional Ltd', actor: 'B2B', industry: 'saas' },
    listValueUsd: 100_000,
    mandate: { staffing: { closer: 'human' } },
    ...(sellerId !== undefined ? { sellerId } : {}),
  }).events[0];
  assert.ok(created?.type === 'DealCreated');
  const dealId = created.deal.id;
  w.agentTo(dealId, 'meeting');
  const gigId = w.escalate(dealId);
  w.claim(gigId, closerId).gigAdvance(gigId, 'proposal').gigAdvance(gigId, 'negotiation').tick(DAY);
  const won = w.run({ type: 'AdvanceGig', gigId, advanceTo: 'closed_won', valueUsd });
  return { w, dealId, gigId, closerId, booked: bookedTransfers(won.events, w.state, w.now) };
}

describe('D-79 bookedTransfers: what a decision books', () => {
  it("D-79: an agent's close won books the platform fee, 5%, seller:none → platform:fees, keyed by the deal", () => {
    const w = new World();
    const dealId = w.createDeal();
    w.agentTo(dealId, 'negotiation').tick(DAY);
    const won = w.advance(dealId, { valueUsd: 85_000 });
    assert.equal(w.deal(dealId).stage, 'closed_won');
    assert.deepEqual(bookedTransfers(won.events, w.state, w.now), [
      {
        key: `platform_fee:${dealId}`,
        at: w.now,
        debit: 'seller:none',
        credit: PLATFORM_FEES,
        amountCents: 425_000,
        kind: 'platform_fee',
        dealId,
      },
    ]);
  });

  it("D-79: a human close books the fee then the commission (seller → closer:pending, keyed commission:<gig>), from the deal's Seller", () => {
    const { dealId, gigId, closerId, w, booked } = humanClose(90_000, 'seller_0001');
    const owner = { debit: 'seller:seller_0001', dealId, sellerId: 'seller_0001' };
    assert.deepEqual(booked, [
      {
        key: `platform_fee:${dealId}`,
        at: w.now,
        credit: PLATFORM_FEES,
        amountCents: 450_000,
        kind: 'platform_fee',
        ...owner,
      },
      {
        key: `commission:${gigId}`,
        at: w.now,
        credit: `closer:${closerId}:pending`,
        amountCents: 900_000,
        kind: 'commission',
        gigId,
        closerId,
        ...owner,
      },
    ]);
    // Without a Seller the same close books to seller:none and names no Seller.
    const demo = humanClose(90_000).booked;
    assert.deepEqual(
      demo.map((t) => [t.key, t.debit, t.sellerId]),
      [
        ['platform_fee:deal_0001', 'seller:none', undefined],
        ['commission:gig_0001', 'seller:none', undefined],
      ],
    );
  });

  it("D-79: a setter's and a nurturer's fee are booked at their gig's fulfilment, keyed fee:<gig>", () => {
    const setter = claimedSetterGig();
    setter.w.gigAdvance(setter.gigId, 'qualified');
    const met = setter.w.run({ type: 'AdvanceGig', gigId: setter.gigId, advanceTo: 'meeting' });
    const nurturer = claimedNurturerGig();
    const revived = nurturer.w.run({ type: 'ClearGoneDark', gigId: nurturer.gigId });
    for (const [world, decision, amountCents] of [
      [setter, met, 25_000],
      [nurturer, revived, 15_000],
    ] as const) {
      const { w, dealId, gigId, closerId } = world;
      assert.deepEqual(bookedTransfers(decision.events, w.state, w.now), [
        {
          key: `fee:${gigId}`,
          at: w.now,
          debit: 'seller:none',
          credit: `closer:${closerId}:pending`,
          amountCents,
          kind: 'fee',
          dealId,
          gigId,
          closerId,
        },
      ]);
    }
  });

  it('D-79: nothing of zero is booked: a platform fee that rounds to 0, a line of 0', () => {
    const { w, dealId } = createdDeal();
    const closed = (finalValueCents: number): PipelineEvent => ({
      type: 'DealMoved',
      dealId,
      to: 'closed_won',
      finalValueCents,
      closedBy: 'human',
    });
    // 5% of 9 cents is 0.45: no fee. Of 10 cents, 0.5, rounded half up: a fee of one cent.
    assert.deepEqual(bookedTransfers([closed(9), line(dealId, 'gig_0001', 'commission', 0)], w.state, T0), []);
    assert.deepEqual(
      bookedTransfers([closed(10), line(dealId, 'gig_0001', 'fee', 1)], w.state, T0).map((t) => [t.key, t.amountCents]),
      [
        [`platform_fee:${dealId}`, 1],
        ['fee:gig_0001', 1],
      ],
    );
  });

  it('D-79: a close lost, and every move short of a close won, books nothing', () => {
    const w = new World();
    const dealId = w.createDeal();
    assert.deepEqual(bookedTransfers(w.advance(dealId).events, w.state, w.now), [], 'sourced → qualified');
    const lost = w.advance(dealId, { advanceTo: 'closed_lost' });
    assert.equal(w.deal(dealId).stage, 'closed_lost');
    assert.deepEqual(bookedTransfers(lost.events, w.state, w.now), []);
  });
});

describe('D-80 releaseOf: an earning moved from pending to available', () => {
  it('D-80: moves the whole earning, naming it, with its deal, gig and Seller (D-280)', () => {
    const books = wonDeal({ valueCents: 9_000_000, commissionCents: 900_000, sellerId: 'seller_0001' });
    const earning = books.keyed('commission:gig_0009');
    assert.deepEqual(releaseOf(earning, books.transfers, T0 + 14 * DAY), {
      key: `release:${earning.id}`,
      at: T0 + 14 * DAY,
      debit: PENDING,
      credit: AVAILABLE,
      amountCents: 900_000,
      kind: 'release',
      releases: earning.id,
      closerId: CLOSER,
      dealId: books.deal.id,
      gigId: 'gig_0009',
      sellerId: 'seller_0001',
    });
  });

  it("D-280: moves what refunds left of the earning itself; the closer's other held earnings are not its", () => {
    const books = wonDeal({
      valueCents: 9_000_000,
      commissionCents: 900_000,
      fees: [{ amountCents: 25_000, closerId: CLOSER }],
    });
    books.refunded(2_700_000); // 30%: 270,000 of the commission, from pending
    const [fee, commission] = [books.keyed('fee:gig_0001'), books.keyed('commission:gig_0009')];
    assert.equal(releaseOf(commission, books.transfers, T0)?.amountCents, 630_000);
    // The fee held beside it is not reversed (D-81), so it is released whole.
    assert.equal(releaseOf(fee, books.transfers, T0)?.amountCents, 25_000);
    assert.equal(balanceOf(books.transfers, [PENDING]), 655_000n);
  });

  it('D-280: nothing when refunds emptied the earning while held, or once it was released', () => {
    const emptied = wonDeal({ valueCents: 9_000_000, commissionCents: 900_000 });
    emptied.refunded(9_000_000);
    assert.equal(releaseOf(emptied.keyed('commission:gig_0009'), emptied.transfers, T0), undefined);

    const released = wonDeal({ valueCents: 9_000_000, commissionCents: 900_000 });
    const earning = released.keyed('commission:gig_0009');
    assert.equal(released.release(earning.id)?.amountCents, 900_000);
    assert.equal(releaseOf(earning, released.transfers, T0 + DAY), undefined);
    released.refunded(4_500_000);
    assert.equal(releaseOf(earning, released.transfers, T0 + DAY), undefined, 'a refund after it changes nothing');
  });
});

describe('D-82 statements add up to the cent', () => {
  const [JAN, FEB] = ['2026-01', '2026-02'];
  /** A closer's commission of 900,000 on a deal of 9,000,000 and a setter's fee, then refunds, a release and a payout. */
  function months(): Books {
    const books = wonDeal({ valueCents: 9_000_000, commissionCents: 900_000, fees: [{ amountCents: 25_000 }] });
    books.refunded(900_000, Date.parse('2026-01-10T00:00:00Z')); // 10%: 90,000 of pending, 45,000 of the fee
    books.release(books.keyed('commission:gig_0009').id, T0 + 14 * DAY); // 810,000 on 19 January
    books.payout(CLOSER, 810_000, Date.parse('2026-02-02T00:00:00Z'));
    books.refunded(1_800_000, Date.parse('2026-02-10T00:00:00Z')); // 30% in all: 180,000 clawed back
    books.refunded(900_000, Date.parse('2026-03-01T00:00:00Z')); // March's, outside February
    return books;
  }
  const inMonth = (books: Books, month: string): Transfer[] => {
    const { from, to } = monthRange(month);
    return books.transfers.filter((t) => t.at >= from && t.at < to);
  };
  const openingOf = (books: Books, accounts: string[], month: string) =>
    balanceOf(books.transfers, accounts, monthRange(month).from - 1);
  const closingOf = (books: Books, accounts: string[], month: string) =>
    balanceOf(books.transfers, accounts, monthRange(month).to - 1);
  const sum = (lines: readonly { effectCents: bigint }[]) => lines.reduce((s, l) => s + l.effectCents, 0n);

  it("D-82: a closer's statement is of pending and available: opening + earned − clawed back − paid = closing", () => {
    const books = months();
    const owed = owedAccounts(CLOSER);
    const jan = closerStatement(CLOSER, JAN, openingOf(books, owed, JAN), inMonth(books, JAN));
    assert.deepEqual(
      [jan.openingCents, jan.earnedCents, jan.clawedBackCents, jan.paidCents, jan.closingCents],
      [0n, 900_000n, 90_000n, 0n, 810_000n],
    );
    // The release moved money between the two accounts: it is no line of the statement.
    assert.deepEqual(
      jan.lines.map((l) => [l.transfer.kind, l.effectCents]),
      [
        ['commission', 900_000n],
        ['reversal', -90_000n],
      ],
    );
    const feb = closerStatement(CLOSER, FEB, openingOf(books, owed, FEB), inMonth(books, FEB));
    assert.deepEqual(
      [feb.openingCents, feb.earnedCents, feb.clawedBackCents, feb.paidCents, feb.closingCents],
      [810_000n, 0n, 180_000n, 810_000n, -180_000n],
    );
    for (const [month, statement] of [
      [JAN, jan],
      [FEB, feb],
    ] as const) {
      assert.equal(statement.closingCents, closingOf(books, owed, month), `${month}: closing is the balance`);
      assert.equal(sum(statement.lines), statement.closingCents - statement.openingCents, `${month}: the lines add up`);
      assert.ok(!statement.lines.some((l) => l.transfer.kind === 'release'));
    }
  });

  it("D-82: a Seller's statement: opening − commissions − platform fees − fees + refunds = closing", () => {
    const books = months();
    const seller = [sellerAccount(undefined)];
    const jan = sellerStatement('none', JAN, openingOf(books, seller, JAN), inMonth(books, JAN));
    assert.deepEqual(
      [
        jan.openingCents,
        jan.commissionsCents,
        jan.platformFeesCents,
        jan.feesCents,
        jan.refundsCents,
        jan.closingCents,
      ],
      [0n, 900_000n, 450_000n, 25_000n, 135_000n, -1_240_000n],
    );
    const feb = sellerStatement('none', FEB, openingOf(books, seller, FEB), inMonth(books, FEB));
    // The payout and the release are not the Seller's: only the refund's reversals are lines.
    assert.deepEqual(
      feb.lines.map((l) => [l.transfer.kind, l.effectCents]),
      [
        ['reversal', 90_000n],
        ['reversal', 180_000n],
      ],
    );
    assert.equal(feb.closingCents, -970_000n);
    for (const [month, statement] of [
      [JAN, jan],
      [FEB, feb],
    ] as const) {
      assert.equal(statement.closingCents, closingOf(books, seller, month), `${month}: closing is the balance`);
      assert.equal(sum(statement.lines), statement.closingCents - statement.openingCents, `${month}: the lines add up`);
    }
  });

  it('D-280: a month is UTC platform time, [first millisecond, first of the next); December ends at the new year', () => {
    assert.deepEqual(monthRange('2026-12'), {
      from: Date.parse('2026-12-01T00:00:00.000Z'),
      to: Date.parse('2027-01-01T00:00:00.000Z'),
    });
    assert.deepEqual(monthRange('2026-02'), {
      from: Date.parse('2026-02-01T00:00:00.000Z'),
      to: Date.parse('2026-03-01T00:00:00.000Z'),
    });
  });
});
