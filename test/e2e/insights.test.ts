// D-73 end to end: a known history made over HTTP with the demo clock, every insight read back,
// and each recomputed from `GET /events` alone (every event kept) by test/support/insights-from-feed.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  type FeedEvent,
  funnelFromFeed,
  marketplaceFromFeed,
  moneyFromFeed,
  performanceByExecutorFromFeed,
  pipelineFromFeed,
  replay,
  velocityFromFeed,
} from '../support/insights-from-feed.ts';
import {
  ADA,
  advanceDeal,
  advanceGig,
  assertError,
  createDeal,
  negotiatingCloserGig,
} from '../support/marketplace-e2e.ts';
import { demoMcp } from '../support/mcp-client.ts';

let t: TestServer;

async function clock(hours: number) {
  const answer = await t.post('/demo/clock', { advanceHours: hours });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

async function feed(): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for (let after = 0; ; ) {
    const page = await t.get(`/events?after=${after}&limit=1000`);
    assert.equal(page.status, 200);
    events.push(...page.body.events);
    if (page.body.events.length === 0) return events;
    after = page.body.nextAfter;
  }
}

async function insight(path: string) {
  const answer = await t.get(path);
  assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** A: walked to a win over 5 days; B: lost from qualified; C: sourced, one refused proposal; E: a closer's win. */
async function history() {
  const a = await createDeal(t, { listValueUsd: 100_000, account: { industry: 'saas' } });
  const b = await createDeal(t, { listValueUsd: 50_000, account: { industry: 'fintech' } });
  await clock(24);
  await advanceDeal(t, a.id);
  await advanceDeal(t, b.id);
  await clock(30);
  await advanceDeal(t, a.id);
  await advanceDeal(t, b.id, { advanceTo: 'closed_lost' });
  const c = await createDeal(t, { listValueUsd: 40_000.5 });
  await clock(12);
  await advanceDeal(t, a.id);
  const refused = await t.post(`${t.prefix}/deals/${c.id}/advance`, { advanceTo: 'meeting' });
  assertError(refused, 422, 'GATE_ILLEGAL_MOVE');
  await clock(48);
  await advanceDeal(t, a.id);
  await clock(6.5);
  await advanceDeal(t, a.id, { advanceTo: 'closed_won', valueUsd: 95_000 });
  const { gig } = await negotiatingCloserGig(t, ADA, { listValueUsd: 20_000 });
  await clock(3);
  await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd: 19_999.99 });
  return { a, b, c };
}

describe('insights over HTTP, each recomputed from the feed (D-73)', () => {
  before(async () => {
    t = await startTestServer({ config: { eventRetentionHours: 24 * 3650 } });
    await history();
  });
  after(() => t.close());

  it('pipeline: open deals by stage, learned win rates, weighted values and the forecast', async () => {
    const answer = await insight('/insights/pipeline');
    const { asOf, ...figures } = answer;
    assert.deepEqual(figures, pipelineFromFeed(replay(await feed()), Date.parse(asOf)));
    // By hand: C is open at sourced (40,000.50); closed: A, E (won), B (lost).
    assert.equal(answer.open.deals, 1);
    assert.deepEqual(answer.byStage[0].winRate, { value: 0.6, won: 2, closed: 3 });
    assert.equal(answer.byStage[0].weightedValueUsd, 24000.3);
  });

  it('funnel and velocity: the deals created in the range, the default one and one given', async () => {
    const events = replay(await feed());
    const all = await insight('/insights/funnel');
    const { from, to, ...figures } = all;
    assert.deepEqual(figures, funnelFromFeed(events, Date.parse(from), Date.parse(to)));
    assert.equal(all.deals, 4);
    assert.equal(Date.parse(to) - Date.parse(from), 90 * 86_400_000, 'the last 90 days to now');
    // Only the deals created from the second day on: C and E.
    const later = events.deals.map((deal) => deal.created).sort((x, y) => x - y)[2] as number;
    const since = new Date(later).toISOString();
    const some = await insight(`/insights/funnel?from=${since}&to=2100-01-01`);
    assert.equal(some.deals, 2);
    assert.deepEqual(some.stages, funnelFromFeed(events, later, Date.parse('2100-01-01')).stages);
    const velocity = await insight('/insights/velocity');
    const { from: vFrom, to: vTo, ...speeds } = velocity;
    assert.deepEqual(speeds, velocityFromFeed(events, Date.parse(vFrom), Date.parse(vTo)));
    // A entered qualified after 24 hours and left it after 54: 1.25 days, as B (lost after 54).
    assert.equal(velocity.toWon.deals, 2);
    assert.deepEqual(velocity.stages[1].daysP90, 1.25);
  });

  it('performance by executor: closes, moves accepted and proposals refused', async () => {
    const answer = await insight('/insights/performance?by=executor');
    assert.deepEqual(
      answer.rows,
      performanceByExecutorFromFeed(replay(await feed()), Date.parse(answer.from), Date.parse(answer.to)),
    );
    const agent = answer.rows.find((row: { group: string }) => row.group === 'agent');
    assert.deepEqual(agent.proposals.refused, 1, "C's illegal move");
    const human = answer.rows.find((row: { group: string }) => row.group === 'human');
    assert.deepEqual([human.deals, human.won, human.closedValueUsd], [1, 1, 19_999.99]);
  });

  it('marketplace and money, the platform fees as the settlements say', async () => {
    const events = replay(await feed());
    assert.deepEqual(await insight('/insights/marketplace'), marketplaceFromFeed(events));
    const money = await insight('/insights/money');
    const fees = new Map<string, number>();
    for (const deal of events.deals.filter((d) => d.stage === 'closed_won')) {
      const settlement = await insight(`${t.prefix}/deals/${deal.id}/settlement`);
      fees.set(deal.id, settlement.platformFeeUsd);
    }
    const { from, to, ...figures } = money;
    assert.equal(from, '1970-01-01T00:00:00.000Z', 'all time by default');
    assert.deepEqual(figures, moneyFromFeed(events, fees, Date.parse(from), Date.parse(to)));
    assert.deepEqual(money.closedWon, { deals: 2, valueUsd: 114_999.99 });
    assert.ok(money.commissionsUsd > 0, "the closer's commission");
  });

  it('bad input: a bad time or performance without by is 400 INVALID_QUERY; an unknown Seller narrows to nothing', async () => {
    assertError(await t.get('/insights/funnel?from=yesterday'), 400, 'INVALID_QUERY');
    assertError(await t.get('/insights/performance'), 400, 'INVALID_QUERY');
    assertError(await t.get('/insights/performance?by=mood'), 400, 'INVALID_QUERY');
    assertError(await t.get('/insights/pipeline?from=2026-01-01'), 400, 'INVALID_QUERY');
    const none = await insight('/insights/money?sellerId=seller_0999');
    assert.deepEqual([none.closedWon, none.commissionsUsd], [{ deals: 0, valueUsd: 0 }, 0]);
    assert.equal((await insight('/insights/pipeline?sellerId=deal_0001')).open.deals, 0);
  });

  it('MCP get_insights answers what HTTP answers', async () => {
    const mcp = await demoMcp(t, 'insights-test');
    try {
      const range = { from: '2020-01-01', to: '2100-01-01' };
      const viaTool = await mcp.call('get_insights', { kind: 'performance', by: 'industry', ...range });
      assert.equal(viaTool.isError, undefined);
      const byIndustry = await insight('/insights/performance?by=industry&from=2020-01-01&to=2100-01-01');
      assert.deepEqual(viaTool.structuredContent, byIndustry);
      const money = await mcp.call('get_insights', { kind: 'money', ...range });
      assert.deepEqual(money.structuredContent, await insight('/insights/money?from=2020-01-01&to=2100-01-01'));
      const market = await mcp.call('get_insights', { kind: 'marketplace' });
      assert.deepEqual(market.structuredContent, await insight('/insights/marketplace'));
      const wrong = await mcp.call('get_insights', { kind: 'performance' });
      assert.equal(wrong.isError, true);
      const [block] = wrong.content as { type: string; text: string }[];
      assert.equal(JSON.parse(block?.text ?? '{}').code, 'INVALID_QUERY');
    } finally {
      await mcp.client.close();
    }
  });
});
