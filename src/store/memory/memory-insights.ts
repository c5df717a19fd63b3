// The memory adapter's insights (D-73): FactInsights over the deals, gigs, tallies and payout
// lines in memory. A deal's facts are kept per record (records are never changed, only
// replaced), so a request reads each deal's activity once per version, not once per request.
import { type DealFacts, dealFacts } from '../../domain/insights/deal-facts.ts';
import type { RefusalFact } from '../../domain/insights/performance.ts';
import type { Deal, Gig } from '../../domain/records.ts';
import { FactInsights, type InsightFacts, type InsightScope } from '../insights.ts';
import type { Data } from './memory-data.ts';

const factsOf = new WeakMap<Deal, DealFacts>();

function factsOfDeal(deal: Deal): DealFacts {
  let facts = factsOf.get(deal);
  if (facts === undefined) {
    facts = dealFacts(deal);
    factsOf.set(deal, facts);
  }
  return facts;
}

/** Whether a principal names a closer (a refusal a closer made through its key, D-56). */
const isCloser = (principal: string | undefined) => principal?.startsWith('closer_') === true;

class MemoryInsightFacts implements InsightFacts {
  constructor(private readonly data: Data) {}

  private inScope(deal: Deal, scope: InsightScope): boolean {
    if (scope.sellerId !== undefined && deal.sellerId !== scope.sellerId) return false;
    if (scope.closerId === undefined) return true;
    const gigs = this.data.gigsByDeal.get(deal.id) ?? [];
    return gigs.some((id) => this.data.gigs.get(id)?.closerId === scope.closerId);
  }

  async deals(scope: InsightScope) {
    const facts: DealFacts[] = [];
    for (const deal of this.data.deals.values()) if (this.inScope(deal, scope)) facts.push(factsOfDeal(deal));
    return facts;
  }

  async gigs(scope: InsightScope) {
    const gigs: Gig[] = [];
    for (const gig of this.data.gigs.values()) {
      if (scope.sellerId !== undefined && gig.sellerId !== scope.sellerId) continue;
      if (scope.closerId !== undefined && gig.closerId !== scope.closerId) continue;
      gigs.push(gig);
    }
    return gigs;
  }

  async refusals(scope: InsightScope) {
    const facts: RefusalFact[] = [];
    for (const [dealId, tally] of this.data.proposals.tallies) {
      if (scope.sellerId !== undefined && tally.sellerId !== scope.sellerId) continue;
      for (const line of tally.lines.values()) {
        if (line.code === undefined) continue;
        if (scope.closerId !== undefined && line.principal !== scope.closerId) continue;
        facts.push({
          dealId,
          by: line.by,
          n: line.n,
          ...(line.keyId !== undefined ? { keyId: line.keyId } : {}),
          ...(isCloser(line.principal) ? { closerId: line.principal } : {}),
        });
      }
    }
    return facts;
  }

  async payouts(dealIds: readonly string[]) {
    return dealIds.flatMap((id) => this.data.payoutsByDeal.get(id) ?? []);
  }
}

export const memoryInsights = (data: Data) => new FactInsights(new MemoryInsightFacts(data));
