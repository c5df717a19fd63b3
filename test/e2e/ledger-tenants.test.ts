// D-54 and D-82 for the ledger in keys mode: a Seller sees its own account, a closer its own
// three, the operator everything; another's account, statement or deal is answered exactly as an
// unknown one, and lists hold only the caller's own lines. Refunds are the deal's Seller's
// (deals:write), payout runs the operator's (admin). Fixture: test/support/keys.ts (Seller A's and
// Seller B's deals each closed won by closer 1). PAYOUT_HOLD_DAYS=0: the demo clock's timers
// release the earnings. Tests run in order: each builds on the last.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import { expectStatus, type KeyedAnswer, type KeysFixture, keysFixture, OP, startKeysServer } from '../support/keys.ts';
import {
  allTransfers,
  type BalanceView,
  balance,
  cents,
  closerCents,
  closerStatementsAddUp,
  type LedgerPayoutView,
  monthsOf,
  type PayoutRunView,
  sellerStatementsAddUp,
  type TransferView,
} from '../support/ledger-e2e.ts';

let t: TestServer;
let f: KeysFixture;

/** The same answer with the id it was about written as <id>: another's is answered as an unknown one. */
const idless = (answer: KeyedAnswer, id: string) => ({
  status: answer.status,
  body: answer.text.replaceAll(id, '<id>'),
});

const balancePath = (account: string) => `/ledger/balances?account=${encodeURIComponent(account)}`;

async function settlementOf(dealId: string) {
  const answer = await f.by(OP).get(`${t.prefix}/deals/${dealId}/settlement`);
  expectStatus(answer, 200, 'settlement');
  return answer.body as { closerCommissionUsd: number; platformFeeUsd: number; refundedUsd?: number };
}

const touches = (line: TransferView, accounts: readonly string[]) =>
  accounts.includes(line.debit) || accounts.includes(line.credit);

describe('the ledger in keys mode: each tenant its own (D-54, D-79 to D-82)', () => {
  let closer1: string;
  let closer2: string;
  before(async () => {
    t = await startKeysServer({ payoutHoldDays: 0, demoControls: true });
    f = await keysFixture(t);
    closer1 = f.closer1.principal;
    closer2 = f.closer2.principal;
  });
  after(() => t.close());

  it("a Seller sees its own account; another Seller's is answered as an unknown one; platform:fees is the operator's", async () => {
    const [a, b] = [await settlementOf(f.A.wonDealId), await settlementOf(f.B.wonDealId)];
    const own = await f.by(f.sellerA).get<BalanceView>(balancePath(`seller:${f.A.sellerId}`));
    expectStatus(own, 200, "Seller A's own account");
    assert.equal(cents(own.body.balanceUsd), -cents(a.closerCommissionUsd) - cents(a.platformFeeUsd));
    assert.equal(own.body.pendingUsd, undefined, 'no buckets for a Seller');
    assert.equal((await balance(f.by(f.readA), `seller:${f.A.sellerId}`)).balanceUsd, own.body.balanceUsd);

    const theirs = await f.by(f.sellerA).get(balancePath(`seller:${f.B.sellerId}`));
    const unknown = await f.by(f.sellerA).get(balancePath('seller:seller_9999'));
    expectStatus(theirs, 404, "Seller B's account to Seller A");
    assert.equal(theirs.body.code, 'ACCOUNT_NOT_FOUND');
    assert.deepEqual(idless(theirs, f.B.sellerId), idless(unknown, 'seller_9999'), 'exactly as an unknown account');

    for (const who of [f.sellerA, f.readA, f.sellerB, f.closer1, f.closerRead]) {
      const fees = await f.by(who).get(balancePath('platform:fees'));
      expectStatus(fees, 404, `platform:fees to ${who.principal}`);
      assert.equal(fees.body.code, 'ACCOUNT_NOT_FOUND');
    }
    const closerToSeller = await f.by(f.closer1).get(balancePath(`seller:${f.A.sellerId}`));
    expectStatus(closerToSeller, 404, "a Seller's account to a closer");
    const sellerToCloser = await f.by(f.sellerA).get(balancePath(`closer:${closer1}`));
    expectStatus(sellerToCloser, 404, "a closer's account to a Seller");

    // The operator: every account.
    const fees = await balance(f.by(OP), 'platform:fees');
    assert.equal(cents(fees.balanceUsd), cents(a.platformFeeUsd) + cents(b.platformFeeUsd));
    assert.equal(
      cents((await balance(f.by(OP), `seller:${f.B.sellerId}`)).balanceUsd),
      -cents(b.closerCommissionUsd) - cents(b.platformFeeUsd),
    );
  });

  it("a closer sees its own balances, statement and payouts, never another closer's", async () => {
    const [a, b] = [await settlementOf(f.A.wonDealId), await settlementOf(f.B.wonDealId)];
    const earned = cents(a.closerCommissionUsd) + cents(b.closerCommissionUsd);
    // PAYOUT_HOLD_DAYS=0: the next timers' run releases both earnings.
    expectStatus(await f.by(OP).post('/demo/clock', { advanceHours: 0 }), 200, 'the timers run');
    assert.deepEqual(await closerCents(f.by(f.closer1), closer1), { pending: 0, available: earned, paid: 0 });
    assert.deepEqual(await closerCents(f.by(f.closerRead), closer1), { pending: 0, available: earned, paid: 0 });
    const another = await f.by(f.closer2).get(balancePath(`closer:${closer1}:available`));
    const unknown = await f.by(f.closer2).get(balancePath('closer:closer_9999:available'));
    expectStatus(another, 404, "closer 1's account to closer 2");
    assert.deepEqual(idless(another, closer1), idless(unknown, 'closer_9999'));

    const ran = await f.by(OP).post<PayoutRunView>('/payouts/runs', { reference: 'tenants-1' });
    expectStatus(ran, 200, 'the operator runs payouts');
    const [payout, ...none] = ran.body.payouts;
    assert.deepEqual(none, []);
    assert.deepEqual([payout?.closerId, cents(payout?.amountUsd ?? NaN)], [closer1, earned]);

    const mine = await f.by(f.closer1).get<LedgerPayoutView[]>('/payouts');
    expectStatus(mine, 200, "closer 1's payouts");
    assert.deepEqual(mine.body, [payout]);
    assert.deepEqual((await f.by(f.closerRead).get('/payouts')).body, [payout], 'a gigs:read key of closer 1');
    assert.deepEqual((await f.by(f.closer2).get('/payouts')).body, [], 'closer 2 has none');
    const asked = await f.by(f.closer2).get(`/payouts?closerId=${closer1}`);
    expectStatus(asked, 200, "closer 2 asking for closer 1's");
    assert.deepEqual(asked.body, [], 'an empty page');
    assert.deepEqual((await f.by(OP).get(`/payouts?closerId=${closer1}`)).body, [payout]);
    for (const seller of [f.sellerA, f.readA]) {
      const refused = await f.by(seller).get('/payouts');
      expectStatus(refused, 403, 'a Seller has no payouts to read');
      assert.equal(refused.body.code, 'INSUFFICIENT_SCOPE');
    }

    const month = (payout?.paidAt ?? '').slice(0, 7);
    const statement = `/closers/closers/${closer1}/statement?month=${month}`;
    expectStatus(await f.by(f.closer1).get(statement), 200, 'its own statement');
    const theirs = await f.by(f.closer2).get(statement);
    const nobody = await f.by(f.closer2).get(`/closers/closers/closer_9999/statement?month=${month}`);
    expectStatus(theirs, 404, "closer 1's statement to closer 2");
    assert.equal(theirs.body.code, 'CLOSER_NOT_FOUND');
    assert.deepEqual(idless(theirs, closer1), idless(nobody, 'closer_9999'));
    assert.equal((await f.by(f.sellerA).get(statement)).status, 403, 'a Seller key has no gigs:read');
    expectStatus(await f.by(OP).get(statement), 200, 'the operator');
  });

  it("the transfers list holds only the caller's own lines; the operator's holds them all", async () => {
    const all = await allTransfers(f.by(OP));
    const sellerA = [`seller:${f.A.sellerId}`];
    const sellerB = [`seller:${f.B.sellerId}`];
    const ofCloser1 = ['pending', 'available', 'paid'].map((bucket) => `closer:${closer1}:${bucket}`);
    const expect = async (who: Parameters<KeysFixture['by']>[0], accounts: string[], query = '') =>
      assert.deepEqual(
        await allTransfers(f.by(who), query),
        all.filter((line) => touches(line, accounts)),
        `${typeof who === 'string' ? 'operator' : who.principal} ${query}`,
      );
    await expect(f.sellerA, sellerA);
    await expect(f.readA, sellerA);
    await expect(f.sellerB, sellerB);
    await expect(f.closer1, ofCloser1);
    await expect(f.closerRead, ofCloser1);
    assert.deepEqual(await allTransfers(f.by(f.closer2)), [], 'closer 2 earned nothing');
    assert.ok(all.some((line) => line.kind === 'payout') && all.some((line) => line.kind === 'platform_fee'));
    // Filters outside one's own: an empty page.
    assert.deepEqual(await allTransfers(f.by(f.sellerA), `account=${sellerB[0]}`), []);
    assert.deepEqual(await allTransfers(f.by(f.sellerA), 'account=platform:fees'), []);
    assert.deepEqual(await allTransfers(f.by(f.sellerA), `dealId=${f.B.wonDealId}`), []);
    assert.deepEqual(await allTransfers(f.by(f.closer1), `account=closer:${closer2}`), []);
    await expect(f.sellerA, sellerA, `dealId=${f.A.wonDealId}`);
  });

  it("a refund is the deal's Seller's: Seller B's is an unknown deal, a closer's key lacks the scope", async () => {
    const path = `${t.prefix}/deals/${f.A.wonDealId}/refunds`;
    const body = { amountUsd: 2_000, reason: 'a tenth returned' };
    const before = (await allTransfers(f.by(OP))).length;
    const theirs = await f.by(f.sellerB).post(path, body);
    const unknown = await f.by(f.sellerB).post(`${t.prefix}/deals/deal_9999/refunds`, body);
    expectStatus(theirs, 404, "Seller B refunding Seller A's deal");
    assert.equal(theirs.body.code, 'DEAL_NOT_FOUND');
    assert.deepEqual(idless(theirs, f.A.wonDealId), idless(unknown, 'deal_9999'));
    for (const who of [f.closer1, f.agentA, f.readA]) {
      const refused = await f.by(who).post(path, body);
      expectStatus(refused, 403, `${who.principal} without deals:write`);
      assert.deepEqual([refused.body.code, refused.body.requiredScope], ['INSUFFICIENT_SCOPE', 'deals:write']);
    }
    assert.equal((await allTransfers(f.by(OP))).length, before, 'the refusals booked nothing');

    const made = await f.by(f.sellerA).post(path, body);
    expectStatus(made, 201, 'Seller A refunds its own deal');
    // The closer of the deal reads its refunds and its settlement's refundedUsd (D-280); others do not.
    const listed = await f.by(f.closer1).get(path);
    expectStatus(listed, 200, 'the closer of the deal');
    assert.deepEqual(listed.body, [made.body]);
    expectStatus(await f.by(f.closer2).get(path), 404, 'another closer');
    expectStatus(await f.by(f.sellerB).get(path), 404, 'another Seller');
    const settlement = await f.by(f.closer1).get(`${t.prefix}/deals/${f.A.wonDealId}/settlement`);
    assert.equal(settlement.body.refundedUsd, 2_000);
    // Paid already: the commission's share comes out of closer 1's available balance.
    const clawed = made.body.transfers.find((line: TransferView) => line.debit === `closer:${closer1}:available`);
    assert.ok(clawed, JSON.stringify(made.body));
    assert.equal((await closerCents(f.by(f.closer1), closer1)).available, -cents(clawed.amountUsd));
    assert.deepEqual(await allTransfers(f.by(f.sellerB), `dealId=${f.A.wonDealId}`), []);
    // The feed: deal.refunded to the deal's Seller and to the closer it claws back from (D-280),
    // payout.paid to its closer; neither to the others.
    const types = async (who: Parameters<KeysFixture['by']>[0]) => {
      const page = await f.by(who).get('/events?after=0&limit=1000');
      expectStatus(page, 200, 'GET /events');
      return (page.body.events as { type: string }[]).map((event) => event.type);
    };
    assert.ok((await types(f.sellerA)).includes('deal.refunded'));
    assert.ok(!(await types(f.sellerB)).includes('deal.refunded'), 'not to Seller B');
    assert.ok((await types(f.closer1)).includes('deal.refunded'), 'to the closer whose commission it reverses');
    assert.ok(!(await types(f.closer2)).includes('deal.refunded'), 'not to closer 2');
    assert.ok((await types(f.closer1)).includes('payout.paid'));
    assert.ok(!(await types(f.closer2)).includes('payout.paid'), 'not to closer 2');
    assert.ok(!(await types(f.sellerA)).includes('payout.paid'), "not to the Seller: the closer's money");
  });

  it('only the operator runs payouts', async () => {
    const before = (await f.by(OP).get('/payouts')).body.length;
    for (const who of [f.sellerA, f.closer1, f.closerRead]) {
      const refused = await f.by(who).post('/payouts/runs', {});
      expectStatus(refused, 403, `${who.principal} runs payouts`);
      assert.deepEqual([refused.body.code, refused.body.requiredScope], ['INSUFFICIENT_SCOPE', 'admin']);
    }
    expectStatus(await f.by(OP).post('/payouts/runs', {}), 200, 'the operator');
    assert.equal((await f.by(OP).get('/payouts')).body.length, before, 'a clawed-back closer is paid nothing');
  });

  it("a Seller's statement is its own; another's is an unknown Seller; the statements add up", async () => {
    const own = await allTransfers(f.by(f.sellerA));
    const months = monthsOf(own);
    const a = await sellerStatementsAddUp(f.by(f.sellerA), f.A.sellerId, months);
    assert.equal(a.closing, cents((await balance(f.by(f.sellerA), `seller:${f.A.sellerId}`)).balanceUsd));
    const month = months[0] as string;
    const theirs = await f.by(f.sellerA).get(`/sellers/${f.B.sellerId}/statement?month=${month}`);
    const nobody = await f.by(f.sellerA).get(`/sellers/seller_9999/statement?month=${month}`);
    expectStatus(theirs, 404, "Seller B's statement to Seller A");
    assert.equal(theirs.body.code, 'SELLER_NOT_FOUND');
    assert.deepEqual(idless(theirs, f.B.sellerId), idless(nobody, 'seller_9999'));
    expectStatus(await f.by(OP).get(`/sellers/none/statement?month=${month}`), 404, 'no demo Seller in keys mode');
    expectStatus(await f.by(f.closer1).get(`/sellers/${f.A.sellerId}/statement?month=${month}`), 403, 'a closer');
    // The operator: every Seller's and every closer's.
    await sellerStatementsAddUp(f.by(OP), f.B.sellerId, months);
    const owed = await closerStatementsAddUp(f.by(OP), closer1, monthsOf(await allTransfers(f.by(OP))));
    const now = await closerCents(f.by(OP), closer1);
    assert.equal(owed, now.pending + now.available);
  });
});
