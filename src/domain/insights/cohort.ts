// D-73 `funnel` and `velocity`, over a cohort: the deals created within the range [from, to).
// Funnel: how many reached each open stage, went on to the next, or were lost from it. Velocity:
// the time spent at each stage by the deals that left it, and from creation to a close.
import { nextStage, type Stage } from '../stages.ts';
import type { DealFacts } from './deal-facts.ts';
import { nearestRank } from './figures.ts';
import { OPEN_STAGES } from './pipeline.ts';

/** A range of platform time, [from, to). */
export interface Range {
  readonly from: number;
  readonly to: number;
}

export const createdWithin = (range: Range) => (deal: DealFacts) =>
  deal.createdAt >= range.from && deal.createdAt < range.to;

/** The open stage a closed-lost deal was lost from: the last open stage it entered. */
export function lostFrom(deal: DealFacts): Stage | undefined {
  if (deal.enteredAt.closed_lost === undefined) return undefined;
  let from: Stage | undefined;
  for (const stage of OPEN_STAGES) if (deal.enteredAt[stage] !== undefined) from = stage;
  return from;
}

/** When the deal left an open stage (to the next, or lost from it), if it did. */
export function leftAt(deal: DealFacts, stage: Stage): number | undefined {
  const next = nextStage(stage);
  const advanced = next === undefined ? undefined : deal.enteredAt[next];
  if (advanced !== undefined) return advanced;
  return lostFrom(deal) === stage ? deal.enteredAt.closed_lost : undefined;
}

export interface FunnelStage {
  readonly stage: Stage;
  readonly reached: number;
  readonly advanced: number;
  readonly lost: number;
}

export interface FunnelInsight {
  readonly deals: number;
  readonly stages: readonly FunnelStage[];
}

export function funnelInsight(cohort: readonly DealFacts[]): FunnelInsight {
  const stages = OPEN_STAGES.map((stage) => {
    const next = nextStage(stage) as Stage;
    let reached = 0;
    let advanced = 0;
    let lost = 0;
    for (const deal of cohort) {
      if (deal.enteredAt[stage] === undefined) continue;
      reached++;
      if (deal.enteredAt[next] !== undefined) advanced++;
      else if (lostFrom(deal) === stage) lost++;
    }
    return { stage, reached, advanced, lost };
  });
  return { deals: cohort.length, stages };
}

/** A sample of durations: its size and its nearest-rank median and 90th percentile (ms). */
export interface Durations {
  readonly deals: number;
  readonly p50Ms: number | null;
  readonly p90Ms: number | null;
}

export const durationsOf = (values: readonly number[]): Durations => ({
  deals: values.length,
  p50Ms: nearestRank(values, 50),
  p90Ms: nearestRank(values, 90),
});

export interface VelocityInsight {
  readonly stages: readonly ({ readonly stage: Stage } & Durations)[];
  readonly toWon: Durations;
  readonly toLost: Durations;
}

export function velocityInsight(cohort: readonly DealFacts[]): VelocityInsight {
  const stages = OPEN_STAGES.map((stage) => {
    const spent: number[] = [];
    for (const deal of cohort) {
      const entered = deal.enteredAt[stage];
      const left = leftAt(deal, stage);
      if (entered !== undefined && left !== undefined) spent.push(left - entered);
    }
    return { stage, ...durationsOf(spent) };
  });
  const toClose = (stage: 'closed_won' | 'closed_lost') =>
    durationsOf(
      cohort.flatMap((deal) => {
        const closed = deal.enteredAt[stage];
        return closed === undefined ? [] : [closed - deal.createdAt];
      }),
    );
  return { stages, toWon: toClose('closed_won'), toLost: toClose('closed_lost') };
}
