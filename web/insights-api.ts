// The Insights page's calls (D-73, D-279): the four insights it charts, read together for the
// same caller, range and Seller. The pipeline (and its forecast) is as of now and takes no range;
// the funnel, the time in stage and the win rates count the deals created in the range, the
// service's default (the last 90 days) when none is given.
import { api } from './api.ts';
import type { components } from './openapi.d.ts';
import { can } from './session.ts';

export type PipelineInsight = components['schemas']['PipelineInsight'];
export type FunnelInsight = components['schemas']['FunnelInsight'];
export type VelocityInsight = components['schemas']['VelocityInsight'];
export type PerformanceInsight = components['schemas']['PerformanceInsight'];

/** What the page asks: a range (`YYYY-MM-DD`, empty for the default) and one Seller (empty: all). */
export interface InsightsQuery {
  from: string;
  to: string;
  sellerId: string;
}

export interface Insights {
  pipeline: PipelineInsight;
  funnel: FunnelInsight;
  velocity: VelocityInsight;
  performance: PerformanceInsight;
}

/** Whether the session may read the insights (D-73: whoever reads deals or gigs; the operator). */
export const readsInsights = (): boolean => can('deals:read') || can('gigs:read') || can('admin');

/** A refused read: the service's error and its status, for the page to say in words. */
export class InsightError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`reading the insights: HTTP ${status}`);
  }
}

function answerOf<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) throw new InsightError(answer.response.status, answer.error);
  return answer.data;
}

/** The four insights for the query, read at once; throws an InsightError when one is refused. */
export async function readInsights(query: InsightsQuery): Promise<Insights> {
  const seller = query.sellerId ? { sellerId: query.sellerId } : {};
  const range = { ...(query.from ? { from: query.from } : {}), ...(query.to ? { to: query.to } : {}), ...seller };
  const [pipeline, funnel, velocity, performance] = await Promise.all([
    api.GET('/insights/pipeline', { params: { query: seller } }).then(answerOf),
    api.GET('/insights/funnel', { params: { query: range } }).then(answerOf),
    api.GET('/insights/velocity', { params: { query: range } }).then(answerOf),
    api.GET('/insights/performance', { params: { query: { by: 'executor', ...range } } }).then(answerOf),
  ]);
  return { pipeline, funnel, velocity, performance };
}

/**
 * Whether the caller has no deal at all (none open, none ever closed): every closed deal was at
 * its first stage, so the pipeline's win rates count them all.
 */
export const noDeals = ({ pipeline }: Insights): boolean =>
  pipeline.open.deals === 0 && pipeline.byStage.every((stage) => stage.winRate.closed === 0);
