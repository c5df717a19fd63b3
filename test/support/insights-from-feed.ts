// D-73's proof: the insights as a reader recomputes them from `GET /events` alone (every event
// kept) and its own arithmetic, written apart from src/domain/insights so that the two agree only
// if both are right. Figures as the API answers them: USD, days and hours with 2 decimals, shares
// with 4, nearest-rank percentiles.

const DAY = 86_400_000;
const HOUR = 3_600_000;
const OPEN = ['sourced', 'qualified', 'meeting', 'proposal', 'negotiation'];
const NEXT: Record<string, string> = {
  sourced: 'qualified',
  qualified: 'meeting',
  meeting: 'proposal',
  proposal: 'negotiation',
  negotiation: 'closed_won',
};

export interface FeedEvent {
  type: string;
  at: string;
  data: any;
  actor?: { principal: string; keyId?: string };
}

interface FeedDeal {
  id: string;
  created: number;
  listCents: number;
  industry: string | null;
  stage: string;
  entered: Record<string, number>;
  finalCents?: number;
  closedBy?: string;
  moves: { by: string }[];
}

const cents = (usd: number) => Math.round(usd * 100);
const usd = (c: number) => c / 100;
const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;
const share = (part: number, whole: number) => (whole === 0 ? null : round(part / whole, 4));
const rank = (values: number[], p: number) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p * sorted.length) / 100)) - 1] as number;
};
const inDays = (ms: number | null) => (ms === null ? null : round(ms / DAY, 2));
const halfUp = (num: bigint, den: bigint) => Number((num * 2n + den) / (den * 2n));

export function replay(events: readonly FeedEvent[]) {
  const deals = new Map<string, FeedDeal>();
  const gigs = new Map<string, { posted: number; firstClaim?: number; status: string }>();
  const lines: { dealId: string; kind: string; cents: number }[] = [];
  const refusals: { dealId: string; by: string }[] = [];
  for (const event of events) {
    const at = Date.parse(event.at);
    const d = event.data;
    switch (event.type) {
      case 'deal.created':
        deals.set(d.deal.id, {
          id: d.deal.id,
          created: at,
          listCents: cents(d.deal.listValueUsd),
          industry: d.deal.account.industry ?? null,
          stage: d.deal.stage,
          entered: { [d.deal.stage]: at },
          moves: [],
        });
        break;
      case 'deal.updated': {
        const deal = deals.get(d.dealId) as FeedDeal;
        if (d.changes.listValueUsd) deal.listCents = cents(d.changes.listValueUsd.to);
        break;
      }
      case 'deal.stage_changed': {
        const deal = deals.get(d.dealId) as FeedDeal;
        deal.entered[d.to] = at;
        deal.stage = d.to;
        if (d.by === 'agent' || d.by === 'human') deal.moves.push({ by: d.by });
        break;
      }
      case 'deal.closed': {
        const deal = deals.get(d.dealId) as FeedDeal;
        deal.closedBy = d.closedBy;
        if (d.finalValueUsd !== undefined) deal.finalCents = cents(d.finalValueUsd);
        break;
      }
      case 'gig.posted':
        gigs.set(d.gig.id, { posted: at, status: 'open' });
        break;
      case 'gig.claimed': {
        const gig = gigs.get(d.gigId) as { posted: number; firstClaim?: number; status: string };
        gig.firstClaim ??= at;
        gig.status = 'claimed';
        break;
      }
      case 'gig.fulfilled':
      case 'gig.released':
      case 'gig.expired':
        (gigs.get(d.gigId) as { status: string }).status = event.type.slice('gig.'.length);
        break;
      case 'gig.reopened':
        (gigs.get(d.gigId) as { status: string }).status = 'open';
        break;
      case 'payout.posted':
        lines.push({ dealId: d.dealId, kind: d.kind, cents: cents(d.amountUsd) });
        break;
      case 'proposal.refused':
        refusals.push({ dealId: d.dealId, by: d.by });
        break;
    }
  }
  return { deals: [...deals.values()], gigs: [...gigs.values()], lines, refusals };
}

type Replayed = ReturnType<typeof replay>;
const closed = (deal: FeedDeal) => deal.entered.closed_won ?? deal.entered.closed_lost;

export function pipelineFromFeed({ deals }: Replayed, now: number) {
  const won = deals.filter((deal) => deal.entered.closed_won !== undefined);
  const byStage = OPEN.map((stage) => {
    const wereThere = deals.filter((deal) => closed(deal) !== undefined && deal.entered[stage] !== undefined);
    const wonThere = wereThere.filter((deal) => deal.entered.closed_won !== undefined);
    const open = deals.filter((deal) => deal.stage === stage);
    const list = open.reduce((sum, deal) => sum + deal.listCents, 0);
    const weighted = halfUp(BigInt(list) * BigInt(wonThere.length + 1), BigInt(wereThere.length + 2));
    const toWin = rank(
      won.map((deal) => (deal.entered.closed_won as number) - (deal.entered[stage] as number)),
      50,
    );
    const month = new Date(now + (toWin ?? 30 * DAY)).toISOString().slice(0, 7);
    return {
      stage,
      deals: open.length,
      listValueUsd: usd(list),
      winRate: {
        value: round((wonThere.length + 1) / (wereThere.length + 2), 4),
        won: wonThere.length,
        closed: wereThere.length,
      },
      weightedValueUsd: usd(weighted),
      month,
      weighted,
    };
  });
  const months = new Map<string, { deals: number; weighted: number }>();
  for (const stage of byStage) {
    if (stage.deals === 0) continue;
    const into = months.get(stage.month) ?? { deals: 0, weighted: 0 };
    into.deals += stage.deals;
    into.weighted += stage.weighted;
    months.set(stage.month, into);
  }
  return {
    open: {
      deals: byStage.reduce((sum, s) => sum + s.deals, 0),
      listValueUsd: usd(byStage.reduce((sum, s) => sum + cents(s.listValueUsd), 0)),
      weightedValueUsd: usd(byStage.reduce((sum, s) => sum + s.weighted, 0)),
    },
    byStage: byStage.map(({ month: _m, weighted: _w, ...stage }) => stage),
    forecast: [...months.keys()].sort().map((month) => ({
      month,
      deals: months.get(month)?.deals,
      weightedValueUsd: usd(months.get(month)?.weighted ?? 0),
    })),
  };
}

const lostFrom = (deal: FeedDeal) =>
  deal.entered.closed_lost === undefined ? undefined : OPEN.filter((stage) => deal.entered[stage] !== undefined).at(-1);

export function funnelFromFeed({ deals }: Replayed, from: number, to: number) {
  const cohort = deals.filter((deal) => deal.created >= from && deal.created < to);
  return {
    deals: cohort.length,
    stages: OPEN.map((stage) => {
      const reached = cohort.filter((deal) => deal.entered[stage] !== undefined);
      const advanced = reached.filter((deal) => deal.entered[NEXT[stage] as string] !== undefined).length;
      const lost = reached.filter((deal) => lostFrom(deal) === stage).length;
      return { stage, reached: reached.length, advanced, lost, conversion: share(advanced, reached.length) };
    }),
  };
}

const durations = (values: number[]) => ({
  deals: values.length,
  daysP50: inDays(rank(values, 50)),
  daysP90: inDays(rank(values, 90)),
});

export function velocityFromFeed({ deals }: Replayed, from: number, to: number) {
  const cohort = deals.filter((deal) => deal.created >= from && deal.created < to);
  const toClose = (stage: string) =>
    durations(
      cohort.filter((deal) => deal.entered[stage] !== undefined).map((deal) => deal.entered[stage] - deal.created),
    );
  return {
    stages: OPEN.map((stage) => {
      const spent: number[] = [];
      for (const deal of cohort) {
        const left =
          deal.entered[NEXT[stage] as string] ?? (lostFrom(deal) === stage ? deal.entered.closed_lost : undefined);
        if (deal.entered[stage] !== undefined && left !== undefined) spent.push(left - deal.entered[stage]);
      }
      return { stage, ...durations(spent) };
    }),
    toWon: toClose('closed_won'),
    toLost: toClose('closed_lost'),
  };
}

/** Performance by executor (the demo's acts name no key). */
export function performanceByExecutorFromFeed({ deals, refusals }: Replayed, from: number, to: number) {
  const cohort = deals.filter((deal) => deal.created >= from && deal.created < to);
  const ids = new Set(cohort.map((deal) => deal.id));
  return ['agent', 'human']
    .map((by) => {
      const closes = cohort.filter((deal) => deal.closedBy === by);
      const won = closes.filter((deal) => deal.entered.closed_won !== undefined);
      const accepted = cohort.reduce((sum, deal) => sum + deal.moves.filter((move) => move.by === by).length, 0);
      const refused = refusals.filter((r) => r.by === by && ids.has(r.dealId)).length;
      return {
        group: by,
        deals: closes.length,
        won: won.length,
        lost: closes.length - won.length,
        winRate: share(won.length, closes.length),
        closedValueUsd: usd(won.reduce((sum, deal) => sum + (deal.finalCents ?? 0), 0)),
        medianDaysToClose: inDays(
          rank(
            closes.map((deal) => (closed(deal) as number) - deal.created),
            50,
          ),
        ),
        proposals: { accepted, refused },
        refusalRate: share(refused, accepted + refused),
      };
    })
    .filter((row) => row.deals > 0 || row.proposals.accepted > 0 || row.proposals.refused > 0);
}

export function marketplaceFromFeed({ gigs }: Replayed) {
  const claimed = gigs.filter((gig) => gig.firstClaim !== undefined);
  const waits = claimed.map((gig) => (gig.firstClaim as number) - gig.posted);
  const hours = (ms: number | null) => (ms === null ? null : round(ms / HOUR, 2));
  return {
    gigs: {
      posted: gigs.length,
      claimed: claimed.length,
      fulfilled: gigs.filter((gig) => gig.status === 'fulfilled').length,
      released: gigs.filter((gig) => gig.status === 'released').length,
      expired: gigs.filter((gig) => gig.status === 'expired').length,
    },
    hoursToClaim: { p50: hours(rank(waits, 50)), p90: hours(rank(waits, 90)) },
    claimRate: share(claimed.length, gigs.length),
  };
}

/** Money: the platform's fee of each deal is what its settlement says (`fees`: deal id → USD). */
export function moneyFromFeed({ deals, lines }: Replayed, fees: Map<string, number>, from: number, to: number) {
  const won = deals.filter((deal) => {
    const at = deal.entered.closed_won;
    return at !== undefined && at >= from && at < to;
  });
  const ids = new Set(won.map((deal) => deal.id));
  const sum = (kind: string) =>
    lines.filter((l) => l.kind === kind && ids.has(l.dealId)).reduce((s, l) => s + l.cents, 0);
  const value = won.reduce((s, deal) => s + (deal.finalCents ?? 0), 0);
  const platform = won.reduce((s, deal) => s + cents(fees.get(deal.id) ?? Number.NaN), 0);
  return {
    closedWon: { deals: won.length, valueUsd: usd(value) },
    commissionsUsd: usd(sum('commission')),
    platformFeesUsd: usd(platform),
    feesSettledUsd: usd(sum('fee')),
    netToSellerUsd: usd(value - sum('commission') - platform - sum('fee')),
  };
}
