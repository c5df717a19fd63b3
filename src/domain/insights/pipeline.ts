// D-73 `pipeline`: the open deals now, by stage, each weighed by its stage's win rate learned from
// the caller's own closed deals ((won + 1) / (closed + 2) over those that were ever at the stage),
// and forecast to close in the month of now plus the median time its stage took to reach a win.
import type { Cents } from '../money.ts';
import { isTerminal, STAGES, type Stage } from '../stages.ts';
import { closedAt, type DealFacts } from './deal-facts.ts';
import { DAYS_30_MS, monthOf, nearestRank, weighCents } from './figures.ts';

/** The stages a deal is open at, in order. */
export const OPEN_STAGES = STAGES.filter((stage) => !isTerminal(stage));

/** A stage's win rate: its value is (won + 1) / (closed + 2). */
export interface WinRate {
  readonly won: number;
  readonly closed: number;
}

export interface StageWeight {
  readonly stage: Stage;
  readonly deals: number;
  readonly listValueCents: Cents;
  readonly winRate: WinRate;
  readonly weightedValueCents: Cents;
}

export interface PipelineInsight {
  readonly asOf: number;
  readonly open: { readonly deals: number; readonly listValueCents: Cents; readonly weightedValueCents: Cents };
  readonly byStage: readonly StageWeight[];
  readonly forecast: readonly { readonly month: string; readonly deals: number; readonly weightedValueCents: Cents }[];
}

/** The value of a win rate, as a fraction. */
export const winRateValue = (rate: WinRate): number => (rate.won + 1) / (rate.closed + 2);

/** What the caller's closed deals say of each open stage: its win rate, and its median time to a win. */
export function stageHistory(facts: Iterable<DealFacts>): Map<Stage, { rate: WinRate; toWinMs: number[] }> {
  const history = new Map(OPEN_STAGES.map((stage) => [stage, { won: 0, closed: 0, toWinMs: [] as number[] }]));
  for (const deal of facts) {
    if (closedAt(deal) === undefined) continue;
    const won = deal.enteredAt.closed_won;
    for (const stage of OPEN_STAGES) {
      const entered = deal.enteredAt[stage];
      if (entered === undefined) continue;
      const figures = history.get(stage) as { won: number; closed: number; toWinMs: number[] };
      figures.closed++;
      if (won !== undefined) {
        figures.won++;
        figures.toWinMs.push(won - entered);
      }
    }
  }
  return new Map(
    [...history].map(([stage, f]) => [stage, { rate: { won: f.won, closed: f.closed }, toWinMs: f.toWinMs }]),
  );
}

export function pipelineInsight(facts: readonly DealFacts[], now: number): PipelineInsight {
  const history = stageHistory(facts);
  const byStage: StageWeight[] = [];
  const months = new Map<string, { deals: number; weightedValueCents: number }>();
  for (const stage of OPEN_STAGES) {
    const open = facts.filter((deal) => deal.stage === stage);
    const { rate, toWinMs } = history.get(stage) as { rate: WinRate; toWinMs: number[] };
    const listValueCents = open.reduce((sum, deal) => sum + deal.listValueCents, 0);
    const weightedValueCents = weighCents(listValueCents, rate.won + 1, rate.closed + 2);
    byStage.push({ stage, deals: open.length, listValueCents, winRate: rate, weightedValueCents });
    if (open.length === 0) continue;
    // Every open deal of a stage is forecast to the same month: now plus the stage's median.
    const month = monthOf(now + (nearestRank(toWinMs, 50) ?? DAYS_30_MS));
    const into = months.get(month) ?? { deals: 0, weightedValueCents: 0 };
    into.deals += open.length;
    into.weightedValueCents += weightedValueCents;
    months.set(month, into);
  }
  const sum = (key: 'deals' | 'listValueCents' | 'weightedValueCents') =>
    byStage.reduce((total, stage) => total + stage[key], 0);
  return {
    asOf: now,
    open: { deals: sum('deals'), listValueCents: sum('listValueCents'), weightedValueCents: sum('weightedValueCents') },
    byStage,
    forecast: [...months.keys()]
      .sort()
      .map((month) => ({ month, ...(months.get(month) as { deals: number; weightedValueCents: number }) })),
  };
}
