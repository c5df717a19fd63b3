// D-73: the insights as JSON: money in USD with 2 decimals, times in days or hours with 2, shares
// with 4, every time in ISO 8601 UTC. Shared by HTTP and MCP.
import type { Durations, FunnelInsight, Range, VelocityInsight } from '../domain/insights/cohort.ts';
import { days, hours, ratio } from '../domain/insights/figures.ts';
import type { MarketplaceInsight } from '../domain/insights/marketplace.ts';
import type { MoneyInsight } from '../domain/insights/money.ts';
import type { PerformanceBy, PerformanceRow } from '../domain/insights/performance.ts';
import { type PipelineInsight, winRateValue } from '../domain/insights/pipeline.ts';
import { centsToUsd } from '../domain/money.ts';
import { iso } from './records.ts';

const range = ({ from, to }: Range) => ({ from: iso(from), to: iso(to) });

export function pipelineView(insight: PipelineInsight) {
  return {
    asOf: iso(insight.asOf),
    open: {
      deals: insight.open.deals,
      listValueUsd: centsToUsd(insight.open.listValueCents),
      weightedValueUsd: centsToUsd(insight.open.weightedValueCents),
    },
    byStage: insight.byStage.map((stage) => ({
      stage: stage.stage,
      deals: stage.deals,
      listValueUsd: centsToUsd(stage.listValueCents),
      winRate: {
        value: Math.round(winRateValue(stage.winRate) * 10_000) / 10_000,
        won: stage.winRate.won,
        closed: stage.winRate.closed,
      },
      weightedValueUsd: centsToUsd(stage.weightedValueCents),
    })),
    forecast: insight.forecast.map((month) => ({
      month: month.month,
      deals: month.deals,
      weightedValueUsd: centsToUsd(month.weightedValueCents),
    })),
  };
}

export function funnelView(insight: FunnelInsight, within: Range) {
  return {
    ...range(within),
    deals: insight.deals,
    stages: insight.stages.map((stage) => ({ ...stage, conversion: ratio(stage.advanced, stage.reached) })),
  };
}

const durations = (figures: Durations) => ({
  deals: figures.deals,
  daysP50: days(figures.p50Ms),
  daysP90: days(figures.p90Ms),
});

export function velocityView(insight: VelocityInsight, within: Range) {
  return {
    ...range(within),
    stages: insight.stages.map((stage) => ({ stage: stage.stage, ...durations(stage) })),
    toWon: durations(insight.toWon),
    toLost: durations(insight.toLost),
  };
}

export function performanceView(by: PerformanceBy, rows: readonly PerformanceRow[], within: Range) {
  return {
    by,
    ...range(within),
    rows: rows.map((row) => ({
      group: row.group,
      deals: row.deals,
      won: row.won,
      lost: row.lost,
      winRate: ratio(row.won, row.deals),
      closedValueUsd: centsToUsd(row.closedValueCents),
      medianDaysToClose: days(row.medianMsToClose),
      proposals: { accepted: row.accepted, refused: row.refused },
      refusalRate: ratio(row.refused, row.accepted + row.refused),
    })),
  };
}

export function marketplaceView(insight: MarketplaceInsight) {
  return {
    gigs: insight.gigs,
    hoursToClaim: { p50: hours(insight.msToClaim.p50), p90: hours(insight.msToClaim.p90) },
    claimRate: ratio(insight.gigs.claimed, insight.gigs.posted),
  };
}

const usdOrNull = (cents: number | null) => (cents === null ? null : centsToUsd(cents));

export function moneyView(insight: MoneyInsight, within: Range) {
  return {
    ...range(within),
    closedWon: { deals: insight.closedWon.deals, valueUsd: centsToUsd(insight.closedWon.valueCents) },
    commissionsUsd: centsToUsd(insight.commissionsCents),
    platformFeesUsd: usdOrNull(insight.platformFeesCents),
    feesSettledUsd: centsToUsd(insight.feesSettledCents),
    netToSellerUsd: usdOrNull(insight.netToSellerCents),
  };
}
