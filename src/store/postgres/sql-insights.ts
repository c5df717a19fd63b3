// The PostgreSQL adapter's insights (D-73): FactInsights over the facts read from the deals' and
// gigs' documents, the refusals' tallies (proposal_counts) and the payout ledger, each of the
// scope (row-level security holds a Seller to its own rows besides). Every insight reads the
// scope's deals whole: correct at any size, and the first thing to make faster (D-73's 300 ms
// at 100,000 deals is not yet measured here).
import { dealFacts } from '../../domain/insights/deal-facts.ts';
import type { RefusalFact } from '../../domain/insights/performance.ts';
import type { Deal, Gig } from '../../domain/records.ts';
import { FactInsights, type InsightFacts, type InsightScope } from '../insights.ts';
import { PAYOUT_COLUMNS, type PayoutRow, payoutFromRow } from './codec.ts';

type Send = <R>(text: string, params?: readonly unknown[]) => Promise<R[]>;

/** The WHERE of a scope (both of its conditions when both are set), and its parameters. */
function scoped(scope: InsightScope, seller: string, closer: (param: string) => string) {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (scope.sellerId !== undefined) {
    params.push(scope.sellerId);
    conditions.push(`${seller} = $${params.length}`);
  }
  if (scope.closerId !== undefined) {
    params.push(scope.closerId);
    conditions.push(closer(`$${params.length}`));
  }
  return { where: conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`, params };
}

type RefusalRow = { deal_id: string; by: 'agent' | 'human'; principal: string; key_id: string; n: string | number };

class SqlInsightFacts implements InsightFacts {
  constructor(private readonly send: Send) {}

  async deals(scope: InsightScope) {
    const { where, params } = scoped(
      scope,
      'seller_id',
      (p) => `id IN (SELECT deal_id FROM gigs WHERE closer_id = ${p})`,
    );
    const rows = await this.send<{ doc: Deal }>(`SELECT doc FROM deals ${where}`, params);
    return rows.map((row) => dealFacts(row.doc));
  }

  async gigs(scope: InsightScope) {
    const { where, params } = scoped(scope, 'seller_id', (p) => `closer_id = ${p}`);
    return (await this.send<{ doc: Gig }>(`SELECT doc FROM gigs ${where}`, params)).map((row) => row.doc);
  }

  async refusals(scope: InsightScope) {
    const { where, params } = scoped(scope, 'seller_id', (p) => `principal = ${p}`);
    const rows = await this.send<RefusalRow>(
      `SELECT deal_id, by, principal, key_id, sum(n) AS n FROM proposal_counts ${where} GROUP BY 1, 2, 3, 4`,
      params,
    );
    return rows.map(
      (row): RefusalFact => ({
        dealId: row.deal_id,
        by: row.by,
        n: Number(row.n),
        ...(row.key_id !== '' ? { keyId: row.key_id } : {}),
        ...(row.principal.startsWith('closer_') ? { closerId: row.principal } : {}),
      }),
    );
  }

  async payouts(dealIds: readonly string[]) {
    if (dealIds.length === 0) return [];
    const rows = await this.send<PayoutRow>(
      `SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE deal_id = ANY($1::text[]) ORDER BY seq`,
      [dealIds],
    );
    return rows.map(payoutFromRow);
  }
}

export const sqlInsights = (send: Send) => new FactInsights(new SqlInsightFacts(send));
