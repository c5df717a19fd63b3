// Books for the ledger's domain tests (D-79 to D-82): a won deal whose settlement is booked by
// bookedTransfers itself, numbered as a store numbers transfers (txn_0001 on), and the refunds,
// releases and payouts that follow, each made by the domain's own function from the deal's
// transfers so far. An independent half-up share (bigint, written here) is what the tests check
// the domain's reversals against, and a seeded PRNG drives the property tests repeatably.
import assert from 'node:assert/strict';
import type { PipelineEvent } from '../../src/domain/events.ts';
import { formatId } from '../../src/domain/ids.ts';
import { releaseOf } from '../../src/domain/ledger/holds.ts';
import { payoutTransfer } from '../../src/domain/ledger/payouts.ts';
import { refundTransfers } from '../../src/domain/ledger/refunds.ts';
import { bookedTransfers, type Transfer, type TransferDraft } from '../../src/domain/ledger/transfers.ts';
import type { Deal, PayoutLine } from '../../src/domain/records.ts';
import { isRefusal, type Refusal } from '../../src/domain/refusal.ts';
import { T0, World } from './world.ts';

export const CLOSER = 'closer_0001';
export const SETTER = 'closer_0002';

/** A deal created in a World (so that its state knows it), owned by `sellerId` when given. */
export function createdDeal(sellerId?: string): { w: World; dealId: string } {
  const w = new World();
  const decision = w.run({
    type: 'CreateDeal',
    account: { name: 'Acme Fictional Ltd', actor: 'B2B', industry: 'saas' },
    listValueUsd: 100_000,
    ...(sellerId !== undefined ? { sellerId } : {}),
  });
  const created = decision.events[0];
  assert.ok(created?.type === 'DealCreated');
  return { w, dealId: created.deal.id };
}

/** A payout line of the deal, as the decider posts it. */
export const line = (
  dealId: string,
  gigId: string,
  kind: PayoutLine['kind'],
  amountCents: number,
  closerId = CLOSER,
): PipelineEvent => ({
  type: 'PayoutPosted',
  line: { at: T0, closerId, gigId, dealId, role: kind === 'commission' ? 'closer' : 'setter', kind, amountCents },
});

/** The ledger of one deal as the service keeps it: its transfers in number order and its refunds. */
export class Books {
  readonly transfers: Transfer[] = [];
  refundedCents = 0;
  private refunds = 0;
  private payouts = 0;

  constructor(public deal: Deal) {}

  /** Numbers drafts as a store does; a key booked twice fails, as it does in every store. */
  post(drafts: readonly TransferDraft[]): Transfer[] {
    const posted = drafts.map((draft) => {
      assert.ok(!this.transfers.some((t) => t.key === draft.key), `key ${draft.key} booked twice`);
      assert.ok(draft.amountCents > 0, `a transfer of ${draft.amountCents} (${draft.key})`);
      const transfer = { id: formatId('txn', this.transfers.length + 1), ...draft };
      this.transfers.push(transfer);
      return transfer;
    });
    return posted;
  }

  /** A refund of `amountCents` now: its transfers, posted, or its refusal (nothing posted). */
  refund(amountCents: number, now = T0): Transfer[] | Refusal {
    const drafts = refundTransfers({
      deal: this.deal,
      refundId: formatId('rfd', this.refunds + 1),
      amountCents,
      dealTransfers: this.transfers,
      refundedCents: this.refundedCents,
      now,
    });
    if (isRefusal(drafts)) return drafts;
    this.refunds++;
    this.refundedCents += amountCents;
    return this.post(drafts);
  }

  /** A refund that must be accepted. */
  refunded(amountCents: number, now = T0): Transfer[] {
    const posted = this.refund(amountCents, now);
    assert.ok(!isRefusal(posted), `refund of ${amountCents} refused: ${JSON.stringify(posted)}`);
    return posted;
  }

  /** The earning's release if there is one to make, posted. */
  release(earningId: string, now = T0): Transfer | undefined {
    const draft = releaseOf(this.get(earningId), this.transfers, now);
    return draft && (this.post([draft])[0] as Transfer);
  }

  /** Pays the closer's available balance, as a payout run does. */
  payout(closerId: string, availableCents: number, now = T0): Transfer {
    this.payouts++;
    return this.post([payoutTransfer(closerId, availableCents, formatId('po', this.payouts), now)])[0] as Transfer;
  }

  get(id: string): Transfer {
    const found = this.transfers.find((t) => t.id === id);
    assert.ok(found, `no transfer ${id}`);
    return found;
  }

  /** The transfer booked under `key`. */
  keyed(key: string): Transfer {
    const found = this.transfers.find((t) => t.key === key);
    assert.ok(found, `no transfer keyed ${key}`);
    return found;
  }

  /** What the refunds reversed of an original in all, and the part of it taken from pending. */
  reversedOf(original: Transfer): { total: number; fromPending: number } {
    let total = 0;
    let fromPending = 0;
    for (const t of this.transfers) {
      if (t.reverses !== original.id) continue;
      total += t.amountCents;
      if (t.debit.endsWith(':pending')) fromPending += t.amountCents;
    }
    return { total, fromPending };
  }
}

export interface WonDeal {
  valueCents: number;
  /** The closer's commission (closer_0001, gig_0009); none when 0. */
  commissionCents?: number;
  /** Setter or nurturer fees booked before the close (gig_0001 on, to `closerId`, default closer_0002). */
  fees?: readonly { amountCents: number; closerId?: string }[];
  sellerId?: string;
}

/** A deal closed won, its settlement and fees booked by bookedTransfers: fees, the platform fee, the commission. */
export function wonDeal({ valueCents, commissionCents = 0, fees = [], sellerId }: WonDeal): Books {
  const { w, dealId } = createdDeal(sellerId);
  const events: PipelineEvent[] = [
    ...fees.map((fee, i) => line(dealId, formatId('gig', i + 1), 'fee', fee.amountCents, fee.closerId ?? SETTER)),
    { type: 'DealMoved', dealId, to: 'closed_won', finalValueCents: valueCents, closedBy: 'human' },
    ...(commissionCents > 0 ? [line(dealId, 'gig_0009', 'commission', commissionCents)] : []),
  ];
  const books = new Books({ ...w.deal(dealId), stage: 'closed_won', finalValueCents: valueCents, closedBy: 'human' });
  books.post(bookedTransfers(events, w.state, T0));
  return books;
}

/** round-half-up(A × R / V), written apart from the domain's: what D-81 says a refund reverses in all. */
export function share(original: number, refunded: number, finalValue: number): number {
  const [a, r, v] = [BigInt(original), BigInt(refunded), BigInt(finalValue)];
  return Number((2n * a * r + v) / (2n * v));
}

/** mulberry32: a small seeded PRNG, so that a failing case is found again by its seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A whole number in [min, max], both safe integers, from the PRNG (exact past 2^32). */
export function intIn(random: () => number, min: number, max: number): number {
  const span = max - min + 1;
  // Two draws make 53 bits, so a span past 2^32 is still covered evenly enough for a test.
  const draw = Math.floor(random() * 2 ** 21) * 2 ** 32 + Math.floor(random() * 2 ** 32);
  return min + (draw % span);
}
