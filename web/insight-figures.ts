// The Insights page's four tables (D-73, D-279), each made from its insight as the service
// answered it, with no figure recomputed here: the funnel by stage, the weighted forecast by
// month, the time in stage (and from creation to a win or a loss), and the win rate by executor.
// Each says when it has nothing to chart, so that the page says so rather than drawing empty axes.
import type { FigureTable } from './figure-table.tsx';
import type { FunnelInsight, PerformanceInsight, PipelineInsight, VelocityInsight } from './insights-api.ts';
import { EXECUTOR_WORDS } from './proposal-words.ts';
import { stageLabel } from './words.ts';

export function funnelTable(funnel: FunnelInsight): FigureTable {
  return {
    caption: 'Funnel by stage',
    head: 'Stage',
    columns: [
      { label: 'Reached', format: 'count' },
      { label: 'Advanced', format: 'count' },
      { label: 'Lost', format: 'count' },
      { label: 'Conversion', format: 'share' },
    ],
    rows: funnel.stages.map((s) => ({
      head: stageLabel(s.stage),
      values: [s.reached, s.advanced, s.lost, s.conversion],
    })),
  };
}

const monthWords = new Intl.DateTimeFormat('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' });

/** `2026-12` → `Dec 2026`. */
export const monthLabel = (month: string): string => monthWords.format(new Date(`${month}-01T00:00:00Z`));

export function forecastTable(pipeline: PipelineInsight): FigureTable {
  return {
    caption: 'Weighted forecast by month',
    head: 'Month',
    columns: [
      { label: 'Deals', format: 'count' },
      { label: 'Weighted value', format: 'usd' },
    ],
    rows: pipeline.forecast.map((m) => ({
      head: monthLabel(m.month),
      csvHead: m.month,
      values: [m.deals, m.weightedValueUsd],
    })),
  };
}

export function velocityTable(velocity: VelocityInsight): FigureTable {
  const durations = (d: VelocityInsight['toWon']) => [d.deals, d.daysP50, d.daysP90];
  return {
    caption: 'Time in stage',
    head: 'Stage',
    columns: [
      { label: 'Deals measured', format: 'count' },
      { label: 'Days p50', format: 'days' },
      { label: 'Days p90', format: 'days' },
    ],
    rows: [
      ...velocity.stages.map((s) => ({ head: stageLabel(s.stage), values: durations(s) })),
      { head: 'Creation to won', values: durations(velocity.toWon) },
      { head: 'Creation to lost', values: durations(velocity.toLost) },
    ],
  };
}

/** An executor as people read it: the agent, or people (closers, and the Seller's own). */
export const executorLabel = (group: string | null): string =>
  group === 'agent' || group === 'human' ? EXECUTOR_WORDS[group] : (group ?? 'None given');

export function performanceTable(performance: PerformanceInsight): FigureTable {
  return {
    caption: 'Win rate by executor',
    head: 'Executor',
    columns: [
      { label: 'Deals closed', format: 'count' },
      { label: 'Won', format: 'count' },
      { label: 'Lost', format: 'count' },
      { label: 'Win rate', format: 'share' },
      { label: 'Closed value', format: 'usd' },
      { label: 'Proposals accepted', format: 'count' },
      { label: 'Proposals refused', format: 'count' },
      { label: 'Refusal rate', format: 'share' },
    ],
    rows: performance.rows.map((r) => ({
      head: executorLabel(r.group),
      values: [
        r.deals,
        r.won,
        r.lost,
        r.winRate,
        r.closedValueUsd,
        r.proposals.accepted,
        r.proposals.refused,
        r.refusalRate,
      ],
    })),
  };
}

/** Whether a table has nothing to chart: no row, or no row measured anything. */
export const nothingIn = (table: FigureTable): boolean =>
  table.rows.every((row) => row.values.every((value) => value === null || value === 0));

const dayWords = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' });

/** A range as the page says it: `from Sep 1, 2026 to Nov 28, 2026` (UTC; `to` excluded). */
export const rangeWords = ({ from, to }: { from: string; to: string }): string =>
  `from ${dayWords.format(new Date(from))} to ${dayWords.format(new Date(to))}`;
