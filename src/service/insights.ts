// D-73: the insights, for what the caller may see (D-54): a Seller its own, a closer its deals and
// its own acts and earnings, the operator everything; `sellerId` narrows it to one Seller's. Each
// is one read of the store; `now` and the default range come from the platform clock (a range
// whose `from` is not before its `to` holds nothing).
import { type Caller, visibilityOf } from '../domain/access.ts';
import type { Range } from '../domain/insights/cohort.ts';
import type { PerformanceBy } from '../domain/insights/performance.ts';
import { type InsightReader, type InsightScope, NO_INSIGHTS } from '../store/insights.ts';
import type { Store } from '../store/store.ts';
import type { PlatformClock } from './platform-clock.ts';
import { as } from './queries.ts';
import { ok, type Result } from './result.ts';

/** D-73: a range not given is the last 90 days to now. */
const DEFAULT_DAYS = 90;
const DAY_MS = 86_400_000;

/** A range as asked: ISO 8601 times or dates (UTC), either or both left out. */
export interface RangeQuery {
  from?: string;
  to?: string;
  /** Narrows what the caller sees to one Seller's (D-279): another's, for a Seller, to nothing. */
  sellerId?: string;
}

export class Insights {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
  ) {}

  pipeline(query: RangeQuery, caller?: Caller) {
    return this.read(query, caller, async (insights, scope) => insights.pipeline(scope, await this.clock.now()));
  }

  funnel(query: RangeQuery, caller?: Caller) {
    return this.inRange(query, caller, (insights, scope, range) => insights.funnel(scope, range));
  }

  velocity(query: RangeQuery, caller?: Caller) {
    return this.inRange(query, caller, (insights, scope, range) => insights.velocity(scope, range));
  }

  async performance(by: PerformanceBy, query: RangeQuery, caller?: Caller) {
    const result = await this.inRange(query, caller, (insights, scope, range) =>
      insights.performance(scope, by, range),
    );
    if (!result.ok) return result;
    // A closer's key sees its own row only of the closers' (D-73).
    const closerId = visibilityOf(caller).closerId;
    const figures =
      by === 'closer' && closerId !== undefined
        ? result.value.figures.filter((row) => row.group === closerId)
        : result.value.figures;
    return ok({ ...result.value, figures, by });
  }

  marketplace(query: RangeQuery, caller?: Caller) {
    return this.read(query, caller, (insights, scope) => insights.marketplace(scope));
  }

  money(query: RangeQuery, caller?: Caller) {
    // Money adds up every settlement unless a range is asked: the board's totals are all time.
    return this.inRange(query, caller, (insights, scope, range) => insights.money(scope, range), 0);
  }

  /** The range asked, or its defaults: to now, from `DEFAULT_DAYS` before (or `since`). */
  private async rangeOf(query: RangeQuery, since?: number): Promise<Range> {
    const to = query.to === undefined ? (await this.clock.now()) + 1 : Date.parse(query.to);
    const from = query.from === undefined ? (since ?? to - DEFAULT_DAYS * DAY_MS) : Date.parse(query.from);
    return { from, to };
  }

  private async inRange<T>(
    query: RangeQuery,
    caller: Caller | undefined,
    figure: (insights: InsightReader, scope: InsightScope, range: Range) => Promise<T>,
    since?: number,
  ): Promise<Result<{ figures: T; range: Range }>> {
    const range = await this.rangeOf(query, since);
    const result = await this.read(query, caller, (insights, scope) => figure(insights, scope, range));
    return result.ok ? ok({ figures: result.value, range }) : result;
  }

  private read<T>(
    query: RangeQuery,
    caller: Caller | undefined,
    figure: (insights: InsightReader, scope: InsightScope) => Promise<T>,
  ): Promise<Result<T>> {
    const scope: InsightScope = { ...visibilityOf(caller) };
    const { sellerId } = query;
    // D-279: `sellerId` narrows what the caller sees to one Seller's; for a Seller any other id
    // (or an unknown one, for anyone) narrows it to nothing.
    const nothing = sellerId !== undefined && scope.sellerId !== undefined && sellerId !== scope.sellerId;
    if (sellerId !== undefined) scope.sellerId = sellerId;
    return this.store.read(
      async (reader) => ok(await figure(nothing ? NO_INSIGHTS : reader.insights, scope)),
      as(caller),
    );
  }
}
