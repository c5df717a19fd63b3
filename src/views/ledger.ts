// The ledger's records → the API's JSON (D-79 to D-82): cents become USD, epoch ms ISO 8601. A
// transfer's key and owners are the store's; a balance past 2^53 cents keeps its exact digits.
import type { Payout } from '../domain/ledger/payouts.ts';
import type { Refund } from '../domain/ledger/refunds.ts';
import type { CloserStatement, SellerStatement, StatementLine } from '../domain/ledger/statements.ts';
import type { Transfer } from '../domain/ledger/transfers.ts';
import { centsToUsd } from '../domain/money.ts';
import type { PayoutRun } from '../service/ledger-commands.ts';
import type { Balance } from '../service/ledger-queries.ts';
import { usdOfBigCents } from './exact-json.ts';
import { iso } from './records.ts';

export function transferView(t: Transfer) {
  return {
    id: t.id,
    at: iso(t.at),
    debit: t.debit,
    credit: t.credit,
    amountUsd: centsToUsd(t.amountCents),
    kind: t.kind,
    ...(t.dealId !== undefined ? { dealId: t.dealId } : {}),
    ...(t.gigId !== undefined ? { gigId: t.gigId } : {}),
    ...(t.payoutId !== undefined ? { payoutId: t.payoutId } : {}),
    ...(t.refundId !== undefined ? { refundId: t.refundId } : {}),
    ...(t.reverses !== undefined ? { reverses: t.reverses } : {}),
    ...(t.releases !== undefined ? { releases: t.releases } : {}),
  };
}

export function refundView(r: Refund) {
  return {
    id: r.id,
    dealId: r.dealId,
    amountUsd: centsToUsd(r.amountCents),
    reason: r.reason,
    at: iso(r.at),
    transfers: r.transfers.map(transferView),
  };
}

export function payoutView(p: Payout) {
  return {
    id: p.id,
    closerId: p.closerId,
    amountUsd: centsToUsd(p.amountCents),
    status: p.status,
    paidAt: iso(p.paidAt),
    reference: p.reference,
    transfers: p.transfers.map(transferView),
  };
}

export function payoutRunView(run: PayoutRun) {
  return {
    at: iso(run.at),
    reference: run.reference,
    payouts: run.payouts.map(payoutView),
    totalUsd: usdOfBigCents(run.payouts.reduce((sum, p) => sum + BigInt(p.amountCents), 0n)),
  };
}

export function balanceView(b: Balance) {
  return {
    account: b.account,
    balanceUsd: usdOfBigCents(b.balanceCents),
    asOf: iso(b.asOf),
    ...(b.closer
      ? {
          pendingUsd: usdOfBigCents(b.closer.pendingCents),
          availableUsd: usdOfBigCents(b.closer.availableCents),
          paidUsd: usdOfBigCents(b.closer.paidCents),
        }
      : {}),
  };
}

const lineView = (line: StatementLine) => ({
  transfer: transferView(line.transfer),
  effectUsd: usdOfBigCents(line.effectCents),
});

export function closerStatementView(s: CloserStatement) {
  return {
    closerId: s.closerId,
    month: s.month,
    openingUsd: usdOfBigCents(s.openingCents),
    earnedUsd: usdOfBigCents(s.earnedCents),
    clawedBackUsd: usdOfBigCents(s.clawedBackCents),
    paidUsd: usdOfBigCents(s.paidCents),
    closingUsd: usdOfBigCents(s.closingCents),
    lines: s.lines.map(lineView),
  };
}

export function sellerStatementView(s: SellerStatement) {
  return {
    sellerId: s.sellerId,
    month: s.month,
    openingUsd: usdOfBigCents(s.openingCents),
    commissionsUsd: usdOfBigCents(s.commissionsCents),
    platformFeesUsd: usdOfBigCents(s.platformFeesCents),
    feesUsd: usdOfBigCents(s.feesCents),
    refundsUsd: usdOfBigCents(s.refundsCents),
    closingUsd: usdOfBigCents(s.closingCents),
    lines: s.lines.map(lineView),
  };
}
