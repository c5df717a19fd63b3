// D-73: the six insights, each a read of what the caller may see. Whoever reads deals or gigs
// reads the figures of them (a closer: of its deals, and its own acts and earnings).
import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import {
  FunnelInsightSchema,
  InsightQuery,
  MarketplaceInsightSchema,
  MoneyInsightSchema,
  PerformanceInsightSchema,
  PerformanceQuery,
  PipelineInsightSchema,
  RangeQuery,
  VelocityInsightSchema,
} from '../schemas/insights.ts';
import {
  funnelView,
  marketplaceView,
  moneyView,
  performanceView,
  pipelineView,
  velocityView,
} from '../views/insights.ts';
import { read } from './operation.ts';

const READ_INSIGHTS = ['deals:read', 'gigs:read', 'admin'] as const;

const common = {
  method: 'GET',
  mount: 'root',
  tag: 'insights',
  // An unknown sellerId narrows to nothing (D-279): no 404.
  errors: [400],
  scope: READ_INSIGHTS,
} as const;

const pipeline = read({
  ...common,
  id: 'getPipelineInsight',
  path: '/insights/pipeline',
  summary: 'The open pipeline now, by stage, weighed by learned win rates, and its forecast by month',
  query: InsightQuery,
  responses: { 200: Type.Ref(PipelineInsightSchema) },
  read: (service, { query, caller }) => service.insights.pipeline(query as Static<typeof InsightQuery>, caller),
  view: pipelineView,
});

const funnel = read({
  ...common,
  id: 'getFunnelInsight',
  path: '/insights/funnel',
  summary: 'The deals created in a range, stage by stage: reached, advanced, lost, conversion',
  query: RangeQuery,
  responses: { 200: Type.Ref(FunnelInsightSchema) },
  read: (service, { query, caller }) => service.insights.funnel(query as Static<typeof RangeQuery>, caller),
  view: ({ figures, range }) => funnelView(figures, range),
});

const velocity = read({
  ...common,
  id: 'getVelocityInsight',
  path: '/insights/velocity',
  summary: 'Days at each stage, and from creation to a close, of the deals created in a range',
  query: RangeQuery,
  responses: { 200: Type.Ref(VelocityInsightSchema) },
  read: (service, { query, caller }) => service.insights.velocity(query as Static<typeof RangeQuery>, caller),
  view: ({ figures, range }) => velocityView(figures, range),
});

const performance = read({
  ...common,
  id: 'getPerformanceInsight',
  path: '/insights/performance',
  summary: 'Who wins: the closes and proposals of each executor, closer, key or industry',
  query: PerformanceQuery,
  responses: { 200: Type.Ref(PerformanceInsightSchema) },
  read: (service, { query, caller }) => {
    const { by, ...range } = query as Static<typeof PerformanceQuery>;
    return service.insights.performance(by, range, caller);
  },
  view: ({ figures, range, by }) => performanceView(by, figures, range),
});

const marketplace = read({
  ...common,
  id: 'getMarketplaceInsight',
  path: '/insights/marketplace',
  summary: 'The gigs posted, claimed and ended, and how fast they were claimed',
  query: InsightQuery,
  responses: { 200: Type.Ref(MarketplaceInsightSchema) },
  read: (service, { query, caller }) => service.insights.marketplace(query as Static<typeof InsightQuery>, caller),
  view: marketplaceView,
});

const money = read({
  ...common,
  id: 'getMoneyInsight',
  path: '/insights/money',
  summary: 'The settlements of the deals closed won in a range (default: all time), added up',
  query: RangeQuery,
  responses: { 200: Type.Ref(MoneyInsightSchema) },
  read: (service, { query, caller }) => service.insights.money(query as Static<typeof RangeQuery>, caller),
  view: ({ figures, range }) => moneyView(figures, range),
});

export const INSIGHT_OPERATIONS = [pipeline, funnel, velocity, performance, marketplace, money];
