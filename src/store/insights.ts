// The insights part of the store port (D-73): each insight over the deals, gigs, refusals and
// payout lines a scope covers. FactInsights computes them from the facts an adapter lists, with
// the domain's own functions (src/domain/insights); an adapter may answer one faster its own way
// (an aggregate in SQL), held to the same store contract.
import { createdWithin, funnelInsight, type Range, velocityInsight } from '../domain/insights/cohort.ts';
import type { DealFacts } from '../domain/insights/deal-facts.ts';
import { marketplaceInsight } from '../domain/insights/marketplace.ts';
import { closedWonWithin, moneyInsight } from '../domain/insights/money.ts';
import { type PerformanceBy, performanceInsight, type RefusalFact } from '../domain/insights/performance.ts';
import { pipelineInsight } from '../domain/insights/pipeline.ts';
import type { Gig, PayoutLine } from '../domain/records.ts';

/**
 * What an insight covers (D-54): a Seller's deals and their gigs; a closer's deals (those of the
 * gigs it holds or held) and its own gigs, refusals and earnings; everything when neither is set.
 */
export interface InsightScope {
  sellerId?: string;
  closerId?: string;
}

export interface InsightReader {
  pipeline(scope: InsightScope, now: number): Promise<ReturnType<typeof pipelineInsight>>;
  funnel(scope: InsightScope, range: Range): Promise<ReturnType<typeof funnelInsight>>;
  velocity(scope: InsightScope, range: Range): Promise<ReturnType<typeof velocityInsight>>;
  performance(scope: InsightScope, by: PerformanceBy, range: Range): Promise<ReturnType<typeof performanceInsight>>;
  marketplace(scope: InsightScope): Promise<ReturnType<typeof marketplaceInsight>>;
  money(scope: InsightScope, range: Range): Promise<ReturnType<typeof moneyInsight>>;
}

/** The facts an adapter lists for FactInsights, each of a scope. */
export interface InsightFacts {
  deals(scope: InsightScope): Promise<DealFacts[]>;
  gigs(scope: InsightScope): Promise<Gig[]>;
  /** The refusals on the scope's deals (a closer: its own), as tally lines with their deal. */
  refusals(scope: InsightScope): Promise<RefusalFact[]>;
  /** The payout lines of these deals. */
  payouts(dealIds: readonly string[]): Promise<PayoutLine[]>;
}

export class FactInsights implements InsightReader {
  constructor(private readonly facts: InsightFacts) {}

  async pipeline(scope: InsightScope, now: number) {
    return pipelineInsight(await this.facts.deals(scope), now);
  }

  async funnel(scope: InsightScope, range: Range) {
    return funnelInsight((await this.facts.deals(scope)).filter(createdWithin(range)));
  }

  async velocity(scope: InsightScope, range: Range) {
    return velocityInsight((await this.facts.deals(scope)).filter(createdWithin(range)));
  }

  async performance(scope: InsightScope, by: PerformanceBy, range: Range) {
    const cohort = (await this.facts.deals(scope)).filter(createdWithin(range));
    return performanceInsight(by, cohort, await this.facts.refusals(scope));
  }

  async marketplace(scope: InsightScope) {
    return marketplaceInsight(await this.facts.gigs(scope));
  }

  async money(scope: InsightScope, range: Range) {
    const won = (await this.facts.deals(scope)).filter(closedWonWithin(range));
    return moneyInsight(won, await this.facts.payouts(won.map((deal) => deal.id)), scope.closerId);
  }
}

/** The insights of a scope that holds nothing (a Seller's filter naming another Seller). */
export const NO_INSIGHTS: InsightReader = new FactInsights({
  deals: async () => [],
  gigs: async () => [],
  refusals: async () => [],
  payouts: async () => [],
});
