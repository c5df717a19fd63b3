// D-73: every insight over a known history, built with the decider and a clock that moves a day
// at a time, and checked against arithmetic done by hand (the figures a Seller reads).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { platformFeeCents } from '../../src/domain/gate.ts';
import { funnelInsight, velocityInsight } from '../../src/domain/insights/cohort.ts';
import { dealFacts } from '../../src/domain/insights/deal-facts.ts';
import { days, nearestRank, ratio, weighCents } from '../../src/domain/insights/figures.ts';
import { marketplaceInsight } from '../../src/domain/insights/marketplace.ts';
import { moneyInsight } from '../../src/domain/insights/money.ts';
import { performanceInsight } from '../../src/domain/insights/performance.ts';
import { pipelineInsight } from '../../src/domain/insights/pipeline.ts';
import type { Gig, PayoutLine } from '../../src/domain/records.ts';
import { DAY, HOUR, T0, World } from './world.ts';

/**
 * Four deals, a day apart: A walks to closed_won at 90,000 in five days; B is created a day
 * later and lost from qualified; C stays sourced; D reaches proposal. Then 18 quiet days.
 */
function history() {
  const w = new World();
  const a = w.createDeal({ listValueUsd: 100_000, industry: 'saas' });
  w.tick(DAY).agentTo(a, 'qualified');
  const b = w.createDeal({ listValueUsd: 50_000, industry: 'fintech' });
  w.tick(DAY).agentTo(a, 'meeting').agentTo(b, 'qualified');
  const c = w.createDeal({ listValueUsd: 40_000, industry: 'saas' });
  const d = w.createDeal({ listValueUsd: 60_000, industry: 'saas' });
  w.tick(DAY).agentTo(a, 'proposal').agentTo(d, 'qualified');
  w.advance(b, { advanceTo: 'closed_lost' });
  w.tick(DAY).agentTo(a, 'negotiation').agentTo(d, 'meeting');
  w.tick(DAY).agentTo(d, 'proposal');
  w.advance(a, { advanceTo: 'closed_won', valueUsd: 90_000 });
  w.tick(18 * DAY);
  const facts = [a, b, c, d].map((id) => dealFacts(w.deal(id)));
  return { w, a, b, c, d, facts, now: w.now };
}

describe('insights over a known history (D-73)', () => {
  it("a deal's facts: the time it entered each stage, its close and its accepted moves", () => {
    const { facts } = history();
    const [a, b, c] = facts;
    assert.deepEqual(a?.enteredAt, {
      sourced: T0,
      qualified: T0 + DAY,
      meeting: T0 + 2 * DAY,
      proposal: T0 + 3 * DAY,
      negotiation: T0 + 4 * DAY,
      closed_won: T0 + 5 * DAY,
    });
    assert.equal(a?.moves.length, 5);
    assert.deepEqual(a?.close && { to: a.close.to, by: a.close.by }, { to: 'closed_won', by: 'agent' });
    assert.deepEqual(b?.enteredAt, { sourced: T0 + DAY, qualified: T0 + 2 * DAY, closed_lost: T0 + 3 * DAY });
    assert.equal(c?.close, undefined);
    assert.deepEqual(c?.moves, []);
  });

  it('pipeline: win rates (won + 1) / (closed + 2), weighted values, and the forecast month of each stage', () => {
    const { facts, now } = history();
    const insight = pipelineInsight(facts, now);
    const stage = (name: string) => insight.byStage.find((s) => s.stage === name);
    // Closed: A (won, was at every open stage) and B (lost, was at sourced and qualified).
    assert.deepEqual(stage('sourced')?.winRate, { won: 1, closed: 2 });
    assert.deepEqual(stage('qualified')?.winRate, { won: 1, closed: 2 });
    assert.deepEqual(stage('meeting')?.winRate, { won: 1, closed: 1 });
    assert.deepEqual(stage('negotiation')?.winRate, { won: 1, closed: 1 });
    // C at sourced: 40,000 × 2/4; D at proposal: 60,000 × 2/3.
    assert.deepEqual(stage('sourced'), {
      stage: 'sourced',
      deals: 1,
      listValueCents: 4_000_000,
      winRate: { won: 1, closed: 2 },
      weightedValueCents: 2_000_000,
    });
    assert.equal(stage('proposal')?.weightedValueCents, 4_000_000);
    assert.equal(stage('meeting')?.deals, 0);
    assert.deepEqual(insight.open, { deals: 2, listValueCents: 10_000_000, weightedValueCents: 6_000_000 });
    // A took 5 days from sourced to the win and 2 from proposal: now is 2026-01-28 09:00.
    assert.equal(new Date(now).toISOString(), '2026-01-28T09:00:00.000Z');
    assert.deepEqual(insight.forecast, [
      { month: '2026-01', deals: 1, weightedValueCents: 4_000_000 },
      { month: '2026-02', deals: 1, weightedValueCents: 2_000_000 },
    ]);
  });

  it('pipeline: with no closed deal every rate is 1/2, and every open deal forecast 30 days out', () => {
    const w = new World();
    const id = w.createDeal({ listValueUsd: 1_000.01 });
    const insight = pipelineInsight([dealFacts(w.deal(id))], w.now);
    assert.deepEqual(insight.byStage[0]?.winRate, { won: 0, closed: 0 });
    // 100,001 cents × 1/2 = 50,000.5, half up.
    assert.equal(insight.open.weightedValueCents, 50_001);
    assert.deepEqual(insight.forecast, [{ month: '2026-02', deals: 1, weightedValueCents: 50_001 }]);
  });

  it('funnel: reached, advanced to the next stage, lost from it, over the deals created in the range', () => {
    const { facts } = history();
    const insight = funnelInsight(facts);
    assert.equal(insight.deals, 4);
    assert.deepEqual(insight.stages, [
      { stage: 'sourced', reached: 4, advanced: 3, lost: 0 },
      { stage: 'qualified', reached: 3, advanced: 2, lost: 1 },
      { stage: 'meeting', reached: 2, advanced: 2, lost: 0 },
      { stage: 'proposal', reached: 2, advanced: 1, lost: 0 },
      { stage: 'negotiation', reached: 1, advanced: 1, lost: 0 },
    ]);
  });

  it('velocity: the days at each stage of the deals that left it, and from creation to each close', () => {
    const { facts } = history();
    const insight = velocityInsight(facts);
    const stage = (name: string) => insight.stages.find((s) => s.stage === name);
    // Left sourced: A, B and D, a day each; qualified: A and D a day, B lost a day after.
    assert.deepEqual(stage('sourced'), { stage: 'sourced', deals: 3, p50Ms: DAY, p90Ms: DAY });
    assert.deepEqual(stage('qualified'), { stage: 'qualified', deals: 3, p50Ms: DAY, p90Ms: DAY });
    assert.deepEqual(stage('negotiation'), { stage: 'negotiation', deals: 1, p50Ms: DAY, p90Ms: DAY });
    assert.deepEqual(stage('proposal'), { stage: 'proposal', deals: 1, p50Ms: DAY, p90Ms: DAY }, 'D is there still');
    assert.deepEqual(insight.toWon, { deals: 1, p50Ms: 5 * DAY, p90Ms: 5 * DAY });
    assert.deepEqual(insight.toLost, { deals: 1, p50Ms: 2 * DAY, p90Ms: 2 * DAY });
  });

  it('performance: closes by who closed them, accepted moves and refusals by who made them', () => {
    const { facts, d } = history();
    const refusals = [{ dealId: d, by: 'agent' as const, n: 3 }];
    const [agent] = performanceInsight('executor', facts, refusals);
    assert.deepEqual(agent, {
      group: 'agent',
      deals: 2,
      won: 1,
      lost: 1,
      closedValueCents: 9_000_000,
      // B in 2 days, A in 5: the lower of the two is the nearest-rank median.
      medianMsToClose: 2 * DAY,
      // A 5, B 2, D 3.
      accepted: 10,
      refused: 3,
    });
    const byIndustry = performanceInsight('industry', facts, refusals);
    assert.deepEqual(
      byIndustry.map((row) => [row.group, row.deals, row.won, row.accepted, row.refused]),
      [
        ['fintech', 1, 0, 2, 0],
        ['saas', 1, 1, 8, 3],
      ],
    );
    // The World acts without keys or closers: no such rows.
    assert.deepEqual(performanceInsight('key', facts, refusals), []);
    assert.deepEqual(performanceInsight('closer', facts, refusals), []);
  });

  it('money: the settlements of the deals closed won in the range; a closer its own lines', () => {
    const { facts, a } = history();
    const won = facts.filter((deal) => deal.stage === 'closed_won');
    const line = (closerId: string, kind: 'commission' | 'fee', amountCents: number): PayoutLine => ({
      at: T0,
      closerId,
      gigId: `gig_${closerId}_${kind}`,
      dealId: a,
      role: 'closer',
      kind,
      amountCents,
    });
    const lines = [line('closer_0001', 'commission', 900_000), line('closer_0002', 'fee', 25_000)];
    const fee = platformFeeCents(9_000_000);
    assert.deepEqual(moneyInsight(won, lines), {
      closedWon: { deals: 1, valueCents: 9_000_000 },
      commissionsCents: 900_000,
      feesSettledCents: 25_000,
      platformFeesCents: fee,
      netToSellerCents: 9_000_000 - 900_000 - 25_000 - fee,
    });
    assert.deepEqual(moneyInsight(won, lines, 'closer_0002'), {
      closedWon: { deals: 1, valueCents: 9_000_000 },
      commissionsCents: 0,
      feesSettledCents: 25_000,
      platformFeesCents: null,
      netToSellerCents: null,
    });
    assert.deepEqual(moneyInsight(won, lines, 'closer_0003').closedWon, { deals: 0, valueCents: 0 });
  });

  it('marketplace: posted, ever claimed (a reopened gig too), how it ended, hours to the first claim', () => {
    const gig = (id: string, status: Gig['status'], postedAt: number, firstClaimedAt?: number) =>
      ({ id, status, postedAt, ...(firstClaimedAt !== undefined ? { firstClaimedAt } : {}) }) as Gig;
    const insight = marketplaceInsight([
      gig('gig_0001', 'fulfilled', T0, T0 + HOUR),
      gig('gig_0002', 'open', T0, T0 + 3 * HOUR),
      gig('gig_0003', 'expired', T0),
      gig('gig_0004', 'released', T0, T0 + 2 * HOUR),
    ]);
    assert.deepEqual(insight, {
      gigs: { posted: 4, claimed: 3, fulfilled: 1, released: 1, expired: 1 },
      msToClaim: { p50: 2 * HOUR, p90: 3 * HOUR },
    });
  });
});

describe("the insights' figures (D-73)", () => {
  it('nearest-rank percentiles: the value at rank ceil(p × n)', () => {
    assert.equal(nearestRank([], 50), null);
    assert.equal(nearestRank([7], 90), 7);
    assert.equal(nearestRank([15, 20, 35, 40, 50], 50), 35);
    assert.equal(nearestRank([15, 20, 35, 40, 50], 90), 50);
    assert.equal(nearestRank([1, 2, 3, 4], 50), 2);
    assert.equal(nearestRank([4, 3, 2, 1], 90), 4, 'unsorted input');
  });

  it('days and shares rounded; weighed cents half up and exact past 2^53', () => {
    assert.equal(days(DAY * 1.006), 1.01);
    assert.equal(days(DAY * 1.004), 1);
    assert.equal(days(null), null);
    assert.equal(ratio(2, 3), 0.6667);
    assert.equal(ratio(1, 0), null);
    assert.equal(weighCents(1, 1, 2), 1);
    assert.equal(weighCents(3, 1, 3), 1);
    // 1e14 × 99,999 / 100,001 = 99,998,000,019,999.8 (past 2^53 before the division).
    assert.equal(weighCents(100_000_000_000_000, 99_999, 100_001), 99_998_000_020_000);
  });
});
