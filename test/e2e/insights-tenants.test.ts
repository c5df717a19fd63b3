// D-73 in keys mode: two Sellers never see each other's figures, the operator sees both and
// narrows them to one with ?sellerId=, a closer sees its own; and a Seller's commissions are its
// settlements' (the board read $0.00 after a closer's commission: it added up closers' ledgers
// that a Seller's key may not read).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import { expectStatus, type KeysFixture, keysFixture, OP, startKeysServer } from '../support/keys.ts';

let t: TestServer;
let f: KeysFixture;

async function money(key: string, query = '') {
  const answer = await f.by(key).get(`/insights/money${query}`);
  expectStatus(answer, 200, `GET /insights/money${query}`);
  const { from: _from, to: _to, ...figures } = answer.body;
  return figures;
}

describe('insights in keys mode: each tenant its own (D-73, D-279)', () => {
  before(async () => {
    t = await startKeysServer();
    f = await keysFixture(t);
  });
  after(() => t.close());

  it("a Seller's money: its own settlements, the closer's commission on them included", async () => {
    const a = await money(f.sellerA.key);
    const b = await money(f.sellerB.key);
    assert.equal(a.closedWon.deals, 1, "A's deal closed won by closer 1");
    assert.ok(a.commissionsUsd > 0, `A's commissions: ${JSON.stringify(a)}`);
    const settlement = await f.by(f.sellerA).get(`${t.prefix}/deals/${f.A.wonDealId}/settlement`);
    expectStatus(settlement, 200, 'the settlement');
    assert.equal(a.commissionsUsd, settlement.body.closerCommissionUsd);
    assert.equal(a.platformFeesUsd, settlement.body.platformFeeUsd);
    assert.equal(a.netToSellerUsd, settlement.body.netToSellerUsd);
    assert.equal(b.closedWon.deals, 1, "B's own");
    // The operator: both, and each alone with ?sellerId=.
    const all = await money(OP);
    assert.equal(all.closedWon.deals, 2);
    assert.equal(all.commissionsUsd, a.commissionsUsd + b.commissionsUsd);
    assert.deepEqual(await money(OP, `?sellerId=${f.A.sellerId}`), a);
    assert.deepEqual(await money(OP, `?sellerId=${f.B.sellerId}`), b);
  });

  it("a Seller naming another Seller gets the figures of nothing; B's deals never count for A", async () => {
    const nothing = await money(f.sellerA.key, `?sellerId=${f.B.sellerId}`);
    assert.deepEqual(nothing.closedWon, { deals: 0, valueUsd: 0 });
    const pipeline = await f.by(f.sellerA).get(`/insights/pipeline?sellerId=${f.B.sellerId}`);
    assert.equal(pipeline.body.open.deals, 0);
    const own = await f.by(f.sellerA).get('/insights/pipeline');
    const theirs = await f.by(f.sellerB).get('/insights/pipeline');
    const everyone = await f.by(OP).get('/insights/pipeline');
    assert.equal(own.body.open.deals + theirs.body.open.deals, everyone.body.open.deals);
    const funnelA = await f.by(f.readA).get('/insights/funnel');
    const funnelAll = await f.by(OP).get('/insights/funnel');
    assert.ok(funnelA.body.deals < funnelAll.body.deals, 'a read-only key of A: A only');
  });

  it('a closer: its own earnings and its own row of the closers', async () => {
    const earned = await money(f.closer1.key);
    assert.equal(earned.platformFeesUsd, null);
    assert.equal(earned.netToSellerUsd, null);
    assert.equal(earned.closedWon.deals, 2, 'it closed both won deals');
    const all = await money(OP);
    assert.equal(earned.commissionsUsd, all.commissionsUsd, 'every commission is its');
    assert.deepEqual((await money(f.closer2.key)).closedWon, { deals: 0, valueUsd: 0 });
    const rows = await f.by(f.closer1).get('/insights/performance?by=closer');
    expectStatus(rows, 200, 'performance by closer');
    assert.deepEqual(
      rows.body.rows.map((row: { group: string }) => row.group),
      [f.closer1.principal],
    );
    const market = await f.by(f.closerRead).get('/insights/marketplace');
    expectStatus(market, 200, 'a gigs:read key');
    assert.equal(market.body.gigs.claimed, 2);
  });
});
