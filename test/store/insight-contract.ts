// The store contract's part for D-73: every adapter answers the insights over the records of a
// scope (a Seller's, a closer's, everything), with the refusals' tallies and the payout ledger,
// figure for figure as the domain computes them from the same deals.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ActivityEntry, Deal, PayoutLine } from '../../src/domain/records.ts';
import type { Stage } from '../../src/domain/stages.ts';
import type { Store } from '../../src/store/store.ts';
import { putCreated, sampleDeal, sampleGig } from './contract.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');
const DAY = 86_400_000;

/** A deal that entered each stage a day after the last, the moves by `by` through a key. */
function walked(id: string, sellerId: string, stages: Stage[], extra: Partial<Deal> = {}): Deal {
  const activity: ActivityEntry[] = stages.map((stage, i) => ({
    at: T0 + i * DAY,
    by: i === 0 ? 'service' : 'agent',
    stage,
    note: i === 0 ? 'created' : `moved to ${stage}`,
    ...(i === 0 ? {} : { actor: { principal: sellerId, keyId: `key_${sellerId.slice(-4)}` } }),
  }));
  const stage = stages.at(-1) as Stage;
  return sampleDeal(id, {
    sellerId,
    stage,
    activity,
    ...(stage === 'closed_won' ? { finalValueCents: 9_000_000, closedBy: 'agent' } : {}),
    ...(stage === 'closed_lost' ? { closedBy: 'agent' } : {}),
    ...extra,
  });
}

const WON: Stage[] = ['sourced', 'qualified', 'meeting', 'proposal', 'negotiation', 'closed_won'];

export function insightContract(_name: string, store: () => Store) {
  it('insights (D-73): each over its scope, the tallies of refusals and the payout lines counted', async () => {
    const now = T0 + 40 * DAY;
    const range = { from: T0 - DAY, to: now };
    await store().transaction(async (uow) => {
      await putCreated(
        uow,
        walked('deal_0001', 'seller_0001', WON),
        walked('deal_0002', 'seller_0001', ['sourced', 'qualified', 'closed_lost']),
        walked('deal_0003', 'seller_0001', ['sourced', 'qualified'], { listValueCents: 3_000_000 }),
        walked('deal_0004', 'seller_0002', ['sourced'], { listValueCents: 7_000_000 }),
      );
      await uow.putGig(
        sampleGig('gig_0001', 'deal_0003', {
          sellerId: 'seller_0001',
          status: 'claimed',
          closerId: 'closer_0001',
          postedAt: T0,
          claimedAt: T0 + DAY / 2,
          firstClaimedAt: T0 + DAY / 2,
        }),
      );
      await uow.proposals.record({
        dealId: 'deal_0003',
        by: 'agent',
        proposal: { advanceTo: 'proposal' },
        stage: 'qualified',
        code: 'GATE_ILLEGAL_MOVE',
        reason: 'Qualified moves to meeting, not proposal.',
        at: T0 + 2 * DAY,
        sellerId: 'seller_0001',
        actor: { principal: 'seller_0001', keyId: 'key_0001' },
      });
      const line: PayoutLine = {
        at: T0 + 5 * DAY,
        closerId: 'closer_0001',
        gigId: 'gig_0009',
        dealId: 'deal_0001',
        role: 'closer',
        kind: 'fee',
        amountCents: 25_000,
      };
      await uow.appendPayout(line);
    });
    await store().read(async (reader) => {
      const one = { sellerId: 'seller_0001' };
      const pipeline = await reader.insights.pipeline(one, now);
      assert.deepEqual(pipeline.open, { deals: 1, listValueCents: 3_000_000, weightedValueCents: 1_500_000 });
      assert.deepEqual(pipeline.byStage[1]?.winRate, { won: 1, closed: 2 }, 'qualified: deals 1 and 2');
      const other = await reader.insights.pipeline({ sellerId: 'seller_0002' }, now);
      assert.deepEqual(other.open, { deals: 1, listValueCents: 7_000_000, weightedValueCents: 3_500_000 });
      assert.equal((await reader.insights.pipeline({}, now)).open.deals, 2, 'everything');
      const funnel = await reader.insights.funnel(one, range);
      assert.equal(funnel.deals, 3);
      assert.deepEqual(funnel.stages[1], { stage: 'qualified', reached: 3, advanced: 1, lost: 1 });
      assert.equal((await reader.insights.funnel(one, { from: T0 + DAY, to: now })).deals, 0, 'created before');
      const velocity = await reader.insights.velocity(one, range);
      assert.deepEqual(velocity.toWon, { deals: 1, p50Ms: 5 * DAY, p90Ms: 5 * DAY });
      const byKey = await reader.insights.performance(one, 'key', range);
      assert.deepEqual(
        byKey.map((row) => [row.group, row.deals, row.won, row.accepted, row.refused]),
        [['key_0001', 2, 1, 8, 1]],
      );
      const market = await reader.insights.marketplace(one);
      assert.deepEqual(market.gigs, { posted: 1, claimed: 1, fulfilled: 0, released: 0, expired: 0 });
      assert.deepEqual(market.msToClaim, { p50: DAY / 2, p90: DAY / 2 });
      assert.equal((await reader.insights.marketplace({ sellerId: 'seller_0002' })).gigs.posted, 0);
      const money = await reader.insights.money(one, range);
      assert.deepEqual(
        [money.closedWon, money.feesSettledCents, money.commissionsCents],
        [{ deals: 1, valueCents: 9_000_000 }, 25_000, 0],
      );
      // A closer: the deals of its gigs, its own gigs, refusals and lines.
      const closer = { closerId: 'closer_0001' };
      assert.equal((await reader.insights.funnel(closer, range)).deals, 1);
      assert.equal((await reader.insights.marketplace(closer)).gigs.posted, 1);
      const earned = await reader.insights.money(closer, range);
      assert.deepEqual([earned.closedWon.deals, earned.platformFeesCents], [0, null], 'deal 1 is not of its gigs');
    });
  });
}
