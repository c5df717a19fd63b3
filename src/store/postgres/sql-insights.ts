// The PostgreSQL adapter's insights (D-73): each added up in SQL over the deals' facts (columns of
// each deal's row, migration 027, written with it), the refusals' tallies (proposal_counts) and the payout ledger, of
// the scope (row-level security holds a Seller to its own rows besides), so that an insight of
// 100,000 deals sends the service a few rows. Percentiles are percentile_disc: the nearest rank.
// The domain assembles what SQL added up (pipelineOf, performanceOf), as it does in memory.
import type { FunnelInsight, Range, VelocityInsight } from '../../domain/insights/cohort.ts';
import { marketplaceInsight } from '../../domain/insights/marketplace.ts';
import type { MoneyInsight } from '../../domain/insights/money.ts';
import { type GroupCount, type PerformanceBy, performanceOf } from '../../domain/insights/performance.ts';
import { OPEN_STAGES, pipelineOf } from '../../domain/insights/pipeline.ts';
import { PLATFORM } from '../../domain/mandate.ts';
import type { Gig } from '../../domain/records.ts';
import { nextStage, type Stage } from '../../domain/stages.ts';
import type { InsightReader, InsightScope } from '../insights.ts';
import type { Send } from './sql-database.ts';

type Num = string | number | null;
const num = (value: Num) => (value === null ? null : Number(value));

/** The platform's fee as millionths (applyFraction's exact path: the fee has at most 6 decimals). */
const FEE_MILLIONTHS = Math.round(PLATFORM.platformFeePct * 1_000_000);

/** A query's conditions and parameters, built up in order. */
class Where {
  readonly params: unknown[] = [];
  private readonly conditions: string[] = [];

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  and(condition: string): this {
    this.conditions.push(condition);
    return this;
  }

  /** A scope's deals (`f`, with their facts' columns): a Seller's, and those of a closer's gigs. */
  scope(scope: InsightScope): this {
    if (scope.sellerId !== undefined) this.and(`f.seller_id = ${this.param(scope.sellerId)}`);
    if (scope.closerId !== undefined)
      this.and(`f.id IN (SELECT deal_id FROM gigs WHERE closer_id = ${this.param(scope.closerId)})`);
    return this;
  }

  /** The cohort: the deals created within the range. */
  created(range: Range): this {
    return this.and(`f.created_at >= ${this.param(range.from)} AND f.created_at < ${this.param(range.to)}`);
  }

  toString() {
    return this.conditions.length === 0 ? '' : `WHERE ${this.conditions.join(' AND ')}`;
  }
}

const entered = (stage: Stage) => `f.e_${stage}`;
/** When a deal left an open stage: to the next, or lost from it. */
const left = (stage: Stage) =>
  `coalesce(${entered(nextStage(stage) as Stage)}, CASE WHEN f.lost_from = '${stage}' THEN f.e_closed_lost END)`;

/** What each grouping groups a close, a move (`m`) and a refusal (`pc`) by. */
const GROUPS: Record<PerformanceBy, { close: string; move: string; refusal: string }> = {
  executor: { close: 'f.close_by', move: "m->>'by'", refusal: 'pc.by' },
  closer: {
    close: 'f.close_closer_id',
    move: "m->>'closer'",
    refusal: "CASE WHEN pc.principal LIKE 'closer\\_%' THEN pc.principal END",
  },
  key: { close: 'f.close_key_id', move: "m->>'key'", refusal: "nullif(pc.key_id, '')" },
  industry: { close: 'f.industry', move: 'f.industry', refusal: 'f.industry' },
};

export class SqlInsights implements InsightReader {
  constructor(private readonly send: Send) {}

  async pipeline(scope: InsightScope, now: number) {
    const where = new Where().scope(scope);
    // One pass, a column per stage and figure: no row per deal and stage to group (that
    // unpivot took most of the time at 100,000 deals).
    const closed = '(f.e_closed_won IS NOT NULL OR f.e_closed_lost IS NOT NULL)';
    const columns = OPEN_STAGES.map(
      (stage, i) =>
        `count(*) FILTER (WHERE f.stage = '${stage}') AS deals${i},
         coalesce(sum(f.list_value_cents) FILTER (WHERE f.stage = '${stage}'), 0) AS list${i},
         count(*) FILTER (WHERE ${entered(stage)} IS NOT NULL AND ${closed}) AS closed${i},
         count(*) FILTER (WHERE ${entered(stage)} IS NOT NULL AND f.e_closed_won IS NOT NULL) AS won${i},
         percentile_disc(0.5) WITHIN GROUP (ORDER BY f.e_closed_won - ${entered(stage)}) AS to_win${i}`,
    );
    const [row] = await this.send<Record<string, Num>>(
      `SELECT ${columns.join(', ')} FROM deals f ${where}`,
      where.params,
    );
    return pipelineOf(
      OPEN_STAGES.map((stage, i) => ({
        stage,
        deals: Number(row?.[`deals${i}`] ?? 0),
        listValueCents: Number(row?.[`list${i}`] ?? 0),
        rate: { won: Number(row?.[`won${i}`] ?? 0), closed: Number(row?.[`closed${i}`] ?? 0) },
        toWinMs: num(row?.[`to_win${i}`] ?? null),
      })),
      now,
    );
  }

  async funnel(scope: InsightScope, range: Range): Promise<FunnelInsight> {
    const where = new Where().scope(scope).created(range);
    const [row] = await this.send<Record<string, Num>>(
      `SELECT count(*) AS deals, ${OPEN_STAGES.map(
        (stage, i) =>
          `count(${entered(stage)}) AS r${i}, count(${entered(nextStage(stage) as Stage)}) AS a${i}, ` +
          `count(*) FILTER (WHERE f.lost_from = '${stage}') AS l${i}`,
      ).join(', ')} FROM deals f ${where}`,
      where.params,
    );
    return {
      deals: Number(row?.deals ?? 0),
      stages: OPEN_STAGES.map((stage, i) => ({
        stage,
        reached: Number(row?.[`r${i}`] ?? 0),
        advanced: Number(row?.[`a${i}`] ?? 0),
        lost: Number(row?.[`l${i}`] ?? 0),
      })),
    };
  }

  async velocity(scope: InsightScope, range: Range): Promise<VelocityInsight> {
    const where = new Where().scope(scope).created(range);
    // One pass; each span's two percentiles from one sort (percentile_disc of an array).
    const spans: [string, string][] = [
      ...OPEN_STAGES.map((stage): [string, string] => [stage, `${left(stage)} - ${entered(stage)}`]),
      ['won', 'f.e_closed_won - f.created_at'],
      ['lost', 'f.e_closed_lost - f.created_at'],
    ];
    const [row] = await this.send<Record<string, Num | Num[]>>(
      `SELECT ${spans
        .map(
          ([, value], i) =>
            `count(${value}) AS n${i}, percentile_disc(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY ${value}) AS p${i}`,
        )
        .join(', ')} FROM deals f ${where}`,
      where.params,
    );
    const durations = (i: number) => {
      const [p50, p90] = (row?.[`p${i}`] as Num[] | null) ?? [null, null];
      return { deals: Number(row?.[`n${i}`] ?? 0), p50Ms: num(p50 ?? null), p90Ms: num(p90 ?? null) };
    };
    return {
      stages: OPEN_STAGES.map((stage, i) => ({ stage, ...durations(i) })),
      toWon: durations(OPEN_STAGES.length),
      toLost: durations(OPEN_STAGES.length + 1),
    };
  }

  async performance(scope: InsightScope, by: PerformanceBy, range: Range) {
    const group = GROUPS[by];
    // A close, move or refusal of no closer or no key is of no row; a deal of no industry is.
    const grouped = (expression: string) => (by === 'industry' ? 'true' : `${expression} IS NOT NULL`);
    const closesWhere = new Where().scope(scope).created(range).and('f.close_by IS NOT NULL').and(grouped(group.close));
    const movesWhere = new Where().scope(scope).created(range).and(grouped(group.move));
    const refusalsWhere = new Where().scope(scope).created(range).and(grouped(group.refusal));
    if (scope.closerId !== undefined) refusalsWhere.and(`pc.principal = ${refusalsWhere.param(scope.closerId)}`);
    type Count = { g: string | null; n: Num };
    const [closes, moves, refusals] = await Promise.all([
      this.send<{ g: string | null; won: Num; lost: Num; value: Num; median: Num }>(
        `SELECT ${group.close} AS g, count(f.e_closed_won) AS won, count(f.e_closed_lost) AS lost,
           coalesce(sum(f.final_value_cents) FILTER (WHERE f.e_closed_won IS NOT NULL), 0) AS value,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY coalesce(f.e_closed_won, f.e_closed_lost) - f.created_at) AS median
         FROM deals f ${closesWhere} GROUP BY 1`,
        closesWhere.params,
      ),
      this.send<Count>(
        `SELECT ${group.move} AS g, sum((m->>'n')::bigint) AS n
         FROM deals f CROSS JOIN LATERAL jsonb_array_elements(f.moves) AS m ${movesWhere} GROUP BY 1`,
        movesWhere.params,
      ),
      this.send<Count>(
        `SELECT ${group.refusal} AS g, sum(pc.n) AS n
         FROM proposal_counts pc JOIN deals f ON f.id = pc.deal_id ${refusalsWhere} GROUP BY 1`,
        refusalsWhere.params,
      ),
    ]);
    const counts = (rows: Count[]): GroupCount[] => rows.map((row) => ({ group: row.g, n: Number(row.n) }));
    return performanceOf(
      closes.map((row) => ({
        group: row.g,
        won: Number(row.won),
        lost: Number(row.lost),
        closedValueCents: Number(row.value),
        medianMsToClose: num(row.median),
      })),
      counts(moves),
      counts(refusals),
    );
  }

  async marketplace(scope: InsightScope) {
    // A scope's gigs are few beside its deals: read whole, weighed by the domain.
    const where = new Where();
    if (scope.sellerId !== undefined) where.and(`seller_id = ${where.param(scope.sellerId)}`);
    if (scope.closerId !== undefined) where.and(`closer_id = ${where.param(scope.closerId)}`);
    const gigs = await this.send<{ doc: Gig }>(`SELECT doc FROM gigs ${where}`, where.params);
    return marketplaceInsight(gigs.map((row) => row.doc));
  }

  async money(scope: InsightScope, range: Range): Promise<MoneyInsight> {
    const where = new Where().scope(scope);
    where.and(`f.e_closed_won >= ${where.param(range.from)} AND f.e_closed_won < ${where.param(range.to)}`);
    const closer = scope.closerId === undefined ? undefined : where.param(scope.closerId);
    // A closer's own: the settlements that pay it, and only its lines.
    if (closer !== undefined)
      where.and(`EXISTS (SELECT 1 FROM payouts p WHERE p.deal_id = f.id AND p.closer_id = ${closer})`);
    const fee = where.param(FEE_MILLIONTHS);
    const [row] = await this.send<{ deals: Num; value: Num; fees: Num; commissions: Num; settled: Num }>(
      `WITH won AS (SELECT f.id, f.final_value_cents FROM deals f ${where}),
       lines AS (SELECT p.kind, sum(p.amount_cents) AS cents FROM payouts p JOIN won ON won.id = p.deal_id
         ${closer === undefined ? '' : `WHERE p.closer_id = ${closer}`} GROUP BY p.kind)
       SELECT (SELECT count(*) FROM won) AS deals,
         (SELECT coalesce(sum(final_value_cents), 0) FROM won) AS value,
         (SELECT coalesce(sum(div(coalesce(final_value_cents, 0)::numeric * ${fee} + 500000, 1000000)), 0) FROM won) AS fees,
         coalesce((SELECT cents FROM lines WHERE kind = 'commission'), 0) AS commissions,
         coalesce((SELECT cents FROM lines WHERE kind = 'fee'), 0) AS settled`,
      where.params,
    );
    const value = Number(row?.value ?? 0);
    const commissionsCents = Number(row?.commissions ?? 0);
    const feesSettledCents = Number(row?.settled ?? 0);
    const closedWon = { deals: Number(row?.deals ?? 0), valueCents: value };
    if (closer !== undefined)
      return { closedWon, commissionsCents, feesSettledCents, platformFeesCents: null, netToSellerCents: null };
    const platformFeesCents = Number(row?.fees ?? 0);
    return {
      closedWon,
      commissionsCents,
      feesSettledCents,
      platformFeesCents,
      netToSellerCents: value - commissionsCents - platformFeesCents - feesSettledCents,
    };
  }
}
