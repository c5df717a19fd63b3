// D-73: the insights' queries and answers. Money in USD with 2 decimals, days and hours with 2,
// shares with 4; a figure over nothing is null.
import { Type } from '@sinclair/typebox';
import { PERFORMANCE_BY } from '../domain/insights/performance.ts';
import { STAGES } from '../domain/stages.ts';
import { PATTERN_WORDS, Timestamp } from './common.ts';

const OPEN = STAGES.filter((stage) => stage !== 'closed_won' && stage !== 'closed_lost');

const Instant = (what: string) =>
  Type.String({
    pattern:
      '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])(T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:\\d{2}))?$',
    [PATTERN_WORDS]: 'must be an ISO 8601 date (2026-11-01) or time (2026-11-01T09:30:00Z)',
    description: what,
  });

const SellerFilter = Type.String({
  maxLength: 64,
  description: "one Seller's figures, `seller_<NNNN>` (a Seller's key: its own; any other id: figures of nothing)",
  examples: ['seller_0001'],
});

/** `?sellerId=` alone (the insights without a range). */
export const InsightQuery = Type.Object({ sellerId: Type.Optional(SellerFilter) }, { additionalProperties: false });

/** `?from=&to=` ([from, to), UTC; default the last 90 days) and `?sellerId=`. */
export const RangeQuery = Type.Object(
  {
    from: Type.Optional({
      ...Instant('the range starts here (included); default 90 days before `to`'),
      examples: ['2026-09-01'],
    }),
    to: Type.Optional({
      ...Instant('the range ends here (excluded); default now, the platform clock'),
      examples: ['2026-12-01T00:00:00Z'],
    }),
    sellerId: Type.Optional(SellerFilter),
  },
  { additionalProperties: false },
);

export const PerformanceQuery = Type.Object(
  {
    by: Type.Union(
      PERFORMANCE_BY.map((by) => Type.Literal(by)),
      { description: 'executor (agent or human), closer, key, or the account industry', examples: ['executor'] },
    ),
    ...RangeQuery.properties,
  },
  { additionalProperties: false },
);

const Share = (what: string) =>
  Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: what });
const Days = (what: string) => Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: what });
const Count = (what: string) => Type.Integer({ minimum: 0, description: what });
const Usd = (what: string) => Type.Number({ description: what });
const Stage = Type.Union(OPEN.map((stage) => Type.Literal(stage)));
const Range = { from: Timestamp, to: Timestamp };

export const PipelineInsightSchema = Type.Object(
  {
    asOf: Timestamp,
    open: Type.Object({
      deals: Count('open deals'),
      listValueUsd: Usd('their list values added up'),
      weightedValueUsd: Usd("each stage's list value times its win rate, added up"),
    }),
    byStage: Type.Array(
      Type.Object({
        stage: Stage,
        deals: Count('open deals at the stage'),
        listValueUsd: Usd('their list values added up'),
        winRate: Type.Object({
          value: Type.Number({ description: '(won + 1) / (closed + 2), 4 decimals' }),
          won: Count('closed deals that were ever at the stage and were won'),
          closed: Count('closed deals that were ever at the stage'),
        }),
        weightedValueUsd: Usd('the list value times the win rate, rounded half up to the cent'),
      }),
    ),
    forecast: Type.Array(
      Type.Object({
        month: Type.String({ pattern: '^\\d{4}-\\d{2}$', description: 'YYYY-MM, UTC' }),
        deals: Count('open deals forecast to close in the month'),
        weightedValueUsd: Usd('their weighted values added up'),
      }),
      {
        description: "a month for each stage's open deals: now plus the stage's median days to a win (30 without wins)",
      },
    ),
  },
  {
    $id: 'PipelineInsight',
    description: 'the open pipeline now, weighed by win rates learned from the closed deals (D-73)',
    examples: [
      {
        asOf: '2026-11-28T12:00:00.000Z',
        open: { deals: 2, listValueUsd: 90000, weightedValueUsd: 52500 },
        byStage: [
          {
            stage: 'sourced',
            deals: 1,
            listValueUsd: 40000,
            winRate: { value: 0.5, won: 1, closed: 2 },
            weightedValueUsd: 20000,
          },
          {
            stage: 'qualified',
            deals: 0,
            listValueUsd: 0,
            winRate: { value: 0.5, won: 1, closed: 2 },
            weightedValueUsd: 0,
          },
          {
            stage: 'meeting',
            deals: 0,
            listValueUsd: 0,
            winRate: { value: 0.6667, won: 1, closed: 1 },
            weightedValueUsd: 0,
          },
          {
            stage: 'proposal',
            deals: 1,
            listValueUsd: 50000,
            winRate: { value: 0.6667, won: 1, closed: 1 },
            weightedValueUsd: 33333.33,
          },
          {
            stage: 'negotiation',
            deals: 0,
            listValueUsd: 0,
            winRate: { value: 0.6667, won: 1, closed: 1 },
            weightedValueUsd: 0,
          },
        ],
        forecast: [{ month: '2026-12', deals: 2, weightedValueUsd: 53333.33 }],
      },
    ],
  },
);

export const FunnelInsightSchema = Type.Object(
  {
    ...Range,
    deals: Count('deals created in the range'),
    stages: Type.Array(
      Type.Object({
        stage: Stage,
        reached: Count('of them, ever at the stage'),
        advanced: Count('of those, later at the next stage'),
        lost: Count('of those, closed lost from it'),
        conversion: Share('advanced / reached, 4 decimals'),
      }),
    ),
  },
  {
    $id: 'FunnelInsight',
    description: 'the deals created in the range, stage by stage (D-73)',
    examples: [
      {
        from: '2026-09-01T00:00:00.000Z',
        to: '2026-11-28T12:00:00.000Z',
        deals: 4,
        stages: [
          { stage: 'sourced', reached: 4, advanced: 3, lost: 1, conversion: 0.75 },
          { stage: 'qualified', reached: 3, advanced: 3, lost: 0, conversion: 1 },
          { stage: 'meeting', reached: 3, advanced: 2, lost: 0, conversion: 0.6667 },
          { stage: 'proposal', reached: 2, advanced: 1, lost: 1, conversion: 0.5 },
          { stage: 'negotiation', reached: 1, advanced: 1, lost: 0, conversion: 1 },
        ],
      },
    ],
  },
);

const Durations = (what: string) =>
  Type.Object(
    {
      deals: Count('the deals measured'),
      daysP50: Days('nearest-rank median, days'),
      daysP90: Days('nearest-rank 90th percentile, days'),
    },
    { description: what },
  );

export const VelocityInsightSchema = Type.Object(
  {
    ...Range,
    stages: Type.Array(
      Type.Object(
        { stage: Stage, ...Durations('').properties },
        { description: 'the days spent at the stage by the deals that left it' },
      ),
    ),
    toWon: Durations('days from creation to closed_won'),
    toLost: Durations('days from creation to closed_lost'),
  },
  {
    $id: 'VelocityInsight',
    description: 'how long the deals created in the range took (D-73)',
    examples: [
      {
        from: '2026-09-01T00:00:00.000Z',
        to: '2026-11-28T12:00:00.000Z',
        stages: [
          { stage: 'sourced', deals: 4, daysP50: 1.5, daysP90: 3 },
          { stage: 'qualified', deals: 3, daysP50: 2, daysP90: 4.25 },
          { stage: 'meeting', deals: 2, daysP50: 5, daysP90: 7 },
          { stage: 'proposal', deals: 2, daysP50: 3, daysP90: 6 },
          { stage: 'negotiation', deals: 1, daysP50: 2, daysP90: 2 },
        ],
        toWon: { deals: 1, daysP50: 13.5, daysP90: 13.5 },
        toLost: { deals: 2, daysP50: 4, daysP90: 9 },
      },
    ],
  },
);

export const PerformanceInsightSchema = Type.Object(
  {
    by: Type.Union(PERFORMANCE_BY.map((by) => Type.Literal(by))),
    ...Range,
    rows: Type.Array(
      Type.Object({
        group: Type.Union([Type.String(), Type.Null()], {
          description: 'agent or human; a closer id; a key id; an industry (null: none given)',
        }),
        deals: Count('deals created in the range that the group closed'),
        won: Count('of them, won'),
        lost: Count('of them, lost'),
        winRate: Share('won / deals'),
        closedValueUsd: Usd('the final values of the won ones'),
        medianDaysToClose: Days('nearest-rank median, creation to close'),
        proposals: Type.Object({
          accepted: Count("moves the group made on the range's deals"),
          refused: Count('proposals of the group the gate refused on them'),
        }),
        refusalRate: Share('refused / (accepted + refused)'),
      }),
    ),
  },
  {
    $id: 'PerformanceInsight',
    description: 'who wins, over the deals created in the range (D-73)',
    examples: [
      {
        by: 'executor',
        from: '2026-09-01T00:00:00.000Z',
        to: '2026-11-28T12:00:00.000Z',
        rows: [
          {
            group: 'agent',
            deals: 3,
            won: 2,
            lost: 1,
            winRate: 0.6667,
            closedValueUsd: 81000,
            medianDaysToClose: 6.5,
            proposals: { accepted: 14, refused: 2 },
            refusalRate: 0.125,
          },
        ],
      },
    ],
  },
);

export const MarketplaceInsightSchema = Type.Object(
  {
    gigs: Type.Object({
      posted: Count('gigs posted'),
      claimed: Count('of them, ever claimed'),
      fulfilled: Count('fulfilled'),
      released: Count('released'),
      expired: Count('expired'),
    }),
    hoursToClaim: Type.Object({
      p50: Days('nearest-rank median hours from posting to the first claim'),
      p90: Days('nearest-rank 90th percentile'),
    }),
    claimRate: Share('claimed / posted'),
  },
  {
    $id: 'MarketplaceInsight',
    description: "the gigs of the caller's deals (a closer: its own) and how fast they were claimed (D-73)",
    examples: [
      {
        gigs: { posted: 5, claimed: 4, fulfilled: 2, released: 1, expired: 1 },
        hoursToClaim: { p50: 2.5, p90: 20 },
        claimRate: 0.8,
      },
    ],
  },
);

export const MoneyInsightSchema = Type.Object(
  {
    ...Range,
    closedWon: Type.Object({ deals: Count('deals closed won in the range'), valueUsd: Usd('their final values') }),
    commissionsUsd: Usd("closers' commissions on them (a closer: its own)"),
    platformFeesUsd: Type.Union([Type.Number(), Type.Null()], {
      description: "the platform's fees (null for a closer)",
    }),
    feesSettledUsd: Usd('fees paid to closers for those deals (a closer: its own)'),
    netToSellerUsd: Type.Union([Type.Number(), Type.Null()], {
      description: 'what is left to the Seller (null for a closer)',
    }),
  },
  {
    $id: 'MoneyInsight',
    description: 'the settlements of the deals closed won in the range, added up (D-73); default all time',
    examples: [
      {
        from: '1970-01-01T00:00:00.000Z',
        to: '2026-11-28T12:00:00.000Z',
        closedWon: { deals: 2, valueUsd: 130000 },
        commissionsUsd: 9000,
        platformFeesUsd: 3900,
        feesSettledUsd: 400,
        netToSellerUsd: 116700,
      },
    ],
  },
);
