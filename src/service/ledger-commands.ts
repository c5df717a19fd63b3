// The ledger's writes (D-80, D-81): a refund of a won deal, a payout run, and the release of a
// held earning (the platform's timers). Each is one unit of work that takes the ledger's lock
// first, so that refunds, releases and payout runs, on any number of instances, see each other's
// transfers whole: a run reads the available balances only once the run before it committed, and
// pays each available cent once. The close's own transfers take no lock: they only add.
import { actorOf, type Caller } from '../domain/access.ts';
import { releaseOf } from '../domain/ledger/holds.ts';
import { type Payout, payoutTransfer } from '../domain/ledger/payouts.ts';
import { type Refund, refundTransfers } from '../domain/ledger/refunds.ts';
import { formatUsd, usdToCents } from '../domain/money.ts';
import type { Deal } from '../domain/records.ts';
import { isRefusal } from '../domain/refusal.ts';
import type { UnitOfWork } from '../store/store.ts';
import { RefusedError } from './result.ts';
import type { Steps } from './steps.ts';
import type { UnitCommand } from './unit-command.ts';

/** The lock every unit that moves money out of a closer's pending or available account takes. */
const LEDGER_LOCK = 'ledger';

export interface RefundInput {
  amountUsd: number;
  reason: string;
}

export interface RefundOutcome {
  refund: Refund;
  /** The deal after the refund's activity entry (its version is one more). */
  deal: Deal;
}

export interface PayoutRun {
  at: number;
  reference: string | null;
  payouts: Payout[];
}

export class LedgerCommands {
  constructor(private readonly steps: Steps) {}

  /** D-81: `deals:write` of the deal's Seller (the demo: anyone). */
  refund(dealId: string, input: RefundInput, caller?: Caller): UnitCommand<RefundOutcome> {
    return {
      work: async (uow) => {
        await uow.lock(LEDGER_LOCK);
        const { state, now } = await this.steps.onDeal(uow, dealId, undefined, caller);
        const deal = state.deals.get(dealId) as Deal;
        const [dealTransfers, refunds] = await Promise.all([
          uow.ledger.transfersOfDeal(dealId),
          uow.ledger.refundsOfDeal(dealId),
        ]);
        const refundedCents = refunds.reduce((sum, r) => sum + r.amountCents, 0);
        const amountCents = usdToCents(input.amountUsd);
        const request = { deal, amountCents, dealTransfers, refundedCents, now };
        // Checked before an id is taken: a refused refund takes no number.
        const check = refundTransfers({ ...request, refundId: 'rfd_0' });
        if (isRefusal(check)) throw new RefusedError(check);
        const refundId = await uow.ledger.takeRefundId();
        const drafts = refundTransfers({ ...request, refundId }) as Exclude<typeof check, { kind: string }>;
        const transfers = await uow.ledger.post(drafts);
        const refund: Refund = {
          id: refundId,
          dealId,
          ...(deal.sellerId !== undefined ? { sellerId: deal.sellerId } : {}),
          amountCents,
          reason: input.reason,
          at: now,
          transfers,
        };
        await uow.ledger.putRefund(refund);
        const total = refundedCents + amountCents;
        const note = `Refunded ${formatUsd(amountCents)} (${formatUsd(total)} of ${formatUsd(deal.finalValueCents as number)} in all): ${input.reason}`;
        const actor = actorOf(caller);
        const applied = await this.steps.apply(uow, state, { type: 'RecordRefund', dealId, note }, now, actor);
        const clawedBack = transfers.find((t) => t.closerId !== undefined)?.closerId;
        await uow.publish(
          [
            {
              type: 'deal.refunded',
              at: now,
              data: { dealId, refund, refundedCents: total },
              ...(deal.sellerId !== undefined ? { sellerId: deal.sellerId } : {}),
              // D-280: the closer whose commission it reverses is told too (its clawback).
              ...(clawedBack !== undefined ? { closerId: clawedBack } : {}),
              ...(actor !== undefined ? { actor } : {}),
            },
          ],
          this.steps.recordedAt(),
        );
        return { refund, deal: applied.state.deals.get(dealId) as Deal };
      },
    };
  }

  /** D-80: pays every closer whose available balance is above zero, the whole of it. */
  payoutRun(reference: string | undefined, caller?: Caller): UnitCommand<PayoutRun> {
    return {
      work: async (uow) => {
        await uow.lock(LEDGER_LOCK);
        const now = await this.steps.now(uow);
        const payouts: Payout[] = [];
        const actor = actorOf(caller);
        for (const { closerId, availableCents } of await uow.ledger.payable()) {
          const payoutId = await uow.ledger.takePayoutId();
          const transfers = await uow.ledger.post([payoutTransfer(closerId, Number(availableCents), payoutId, now)]);
          const payout: Payout = {
            id: payoutId,
            closerId,
            amountCents: Number(availableCents),
            status: 'paid',
            paidAt: now,
            reference: reference ?? null,
            transfers,
          };
          await uow.ledger.putPayout(payout);
          payouts.push(payout);
        }
        if (payouts.length > 0)
          await uow.publish(
            payouts.map((payout) => ({
              type: 'payout.paid' as const,
              at: now,
              data: { payout },
              closerId: payout.closerId,
              ...(actor !== undefined ? { actor } : {}),
            })),
            this.steps.recordedAt(),
          );
        return { at: now, reference: reference ?? null, payouts };
      },
    };
  }

  /**
   * D-80: moves a held earning whose hold ended to its closer's available account (what the
   * earning still holds: refunds may have taken part of it). False when there was nothing to move.
   */
  async release(uow: UnitOfWork, earningId: string, now: number): Promise<boolean> {
    await uow.lock(LEDGER_LOCK);
    const earning = await uow.ledger.getTransfer(earningId);
    if (earning?.dealId === undefined) return false;
    const draft = releaseOf(earning, await uow.ledger.transfersOfDeal(earning.dealId), now);
    if (draft === undefined) return false;
    await uow.ledger.post([draft]);
    return true;
  }
}
