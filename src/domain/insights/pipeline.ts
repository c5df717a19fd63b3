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

/**
 * What a pipeline is made of, stage by stage: the open deals at it and their list value, its win
 * rate, and the median time its won deals took from it to the win (null: none was won). A store
 * may add these up its own way (SQL); pipelineOf makes the insight of them.
 */
export interface StageFigures {
  readonly stage: Stage;
  readonly deals: number;
  readonly listValueCents: Cents;
  readonly rate: WinRate;
  readonly toWinMs: number | null;
}

/** Each open stage's figures, from the deals' facts. */
export function stageFiguresOf(facts: readonly DealFacts[]): StageFigures[] {
  const figures = new Map(
    OPEN_STAGES.map((stage) => [stage, { deals: 0, listValueCents: 0, won: 0, closed: 0, toWinMs: [] as number[] }]),
  );
  for (const deal of facts) {
    const open = figures.get(deal.stage);
    if (open !== undefined) {
      open.deals++;
      open.listValueCents += deal.listValueCents;
    }
    if (closedAt(deal) === undefined) continue;
    const won = deal.enteredAt.closed_won;
    for (const stage of OPEN_STAGES) {
      const entered = deal.enteredAt[stage];
      if (entered === undefined) continue;
      const of = figures.get(stage) as NonNullable<ReturnType<typeof figures.get>>;
      of.closed++;
      if (won !== undefined) {
        of.won++;
        of.toWinMs.push(won - entered);
      }
    }
  }
  return OPEN_STAGES.map((stage) => {
    const f = figures.get(stage) as NonNullable<ReturnType<typeof figures.get>>;
    const rate = { won: f.won, closed: f.closed };
    return { stage, deals: f.deals, listValueCents: f.listValueCents, rate, toWinMs: nearestRank(f.toWinMs, 50) };
  });
}

/** The pipeline of its stages' figures, as of now. */
export function pipelineOf(stages: readonly StageFigures[], now: number): PipelineInsight {
  const byStage: StageWeight[] = [];
  const months = new Map<string, { deals: number; weightedValueCents: number }>();
  for (const { stage, deals, listValueCents, rate, toWinMs } of stages) {
    const weightedValueCents = weighCents(listValueCents, rate.won + 1, rate.closed + 2);
    byStage.push({ stage, deals, listValueCents, winRate: rate, weightedValueCents });
    if (deals === 0) continue;
    // Every open deal of a stage is forecast to the same month: now plus the stage's median.
    const month = monthOf(now + (toWinMs ?? DAYS_30_MS));
    const into = months.get(month) ?? { deals: 0, weightedValueCents: 0 };
    into.deals += deals;
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

export const pipelineInsight = (facts: readonly DealFacts[], now: number): PipelineInsight =>
  pipelineOf(stageFiguresOf(facts), now);
