// D-79, D-80, D-82 over HTTP in the demo: a close books its settlement as transfers, fees are
// booked at their gig's fulfilment, earnings are held PAYOUT_HOLD_DAYS of demo time, a payout run
// pays each available balance whole once (a replay and a second run pay nothing), balances
// answer any past time, the transfers export as CSV, statements add up and the books sum to zero.
// Refunds and clawbacks: ledger-refunds.test.ts. Tests run in order: each builds on the last.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  allTransfers,
  balance,
  cents,
  closerCents,
  closerStatementsAddUp,
  type LedgerPayoutView,
  monthsOf,
  nextPage,
  type PayoutRunView,
  replayCents,
  sellerStatementsAddUp,
  type TransferView,
} from '../support/ledger-e2e.ts';
import {
  ADA,
  advanceClock,
  advanceGig,
  claim,
  claimedCloserGig,
  createDeal,
  DAY,
  type DealView,
  dealBody,
  escalateDeal,
  HOUR,
  MILO,
  negotiatingCloserGig,
  reportSignals,
  type SettlementView,
} from '../support/marketplace-e2e.ts';

const HUMAN_SETTER = { staffing: { setter: 'human' } };

let t: TestServer;
/** What each closer earned (cents), and when the earnings were still held. */
const earned = new Map<string, number>([
  [ADA, 0],
  [MILO, 0],
]);
let heldAt = '';

const dealTransfers = async (dealId: string) => allTransfers(t, `dealId=${dealId}`);

async function settlement(dealId: string): Promise<SettlementView & { refundedUsd?: number }> {
  const answer = await t.get(`${t.prefix}/deals/${dealId}/settlement`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

async function run(body: unknown = {}, headers: Record<string, string> = {}) {
  const answer = await t.post<PayoutRunView>('/payouts/runs', body, headers);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer;
}

async function eventsAfter(seq: number) {
  const page = await t.get(`/events?after=${seq}&limit=1000`);
  assert.equal(page.status, 200);
  return page.body.events as { seq: number; type: string; data: any }[];
}

async function lastSeq(): Promise<number> {
  return (await eventsAfter(0)).at(-1)?.seq ?? 0;
}

describe('the ledger over HTTP in the demo (D-79, D-80, D-82)', () => {
  before(async () => {
    t = await startTestServer({ config: { payoutHoldDays: 14, eventRetentionHours: 24 * 3650 } });
  });
  after(() => t.close());

  it("a human closer's win books the commission and the platform fee: the settlement is its transfers", async () => {
    const { gig, deal } = await negotiatingCloserGig(t, ADA, { listValueUsd: 20_000 });
    assert.deepEqual(await dealTransfers(deal.id), [], 'nothing is booked before the close');
    await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd: 19_000 });
    const figures = await settlement(deal.id);
    assert.equal('refundedUsd' in figures, false, 'no refundedUsd before a refund');
    assert.ok(figures.closerCommissionUsd > 0 && figures.platformFeeUsd > 0, JSON.stringify(figures));
    const lines = await dealTransfers(deal.id);
    assert.deepEqual(
      lines.map(({ kind, debit, credit, amountUsd, gigId }) => ({ kind, debit, credit, amountUsd, gigId })),
      [
        {
          kind: 'platform_fee',
          debit: 'seller:none',
          credit: 'platform:fees',
          amountUsd: figures.platformFeeUsd,
          gigId: undefined,
        },
        {
          kind: 'commission',
          debit: 'seller:none',
          credit: `closer:${ADA}:pending`,
          amountUsd: figures.closerCommissionUsd,
          gigId: gig.id,
        },
      ],
    );
    earned.set(ADA, (earned.get(ADA) ?? 0) + cents(figures.closerCommissionUsd));

    // The agent's sale: a platform fee of 5% of the list value, no commission.
    const sold = await t.post<DealView>(`${t.prefix}/sell`, dealBody({ listValueUsd: 10_000 }));
    assert.equal(sold.status, 201, JSON.stringify(sold.body));
    assert.equal(sold.body.stage, 'closed_won');
    const agent = await settlement(sold.body.id);
    assert.deepEqual([agent.closerCommissionUsd, agent.platformFeeUsd], [0, 500]);
    const agentLines = await dealTransfers(sold.body.id);
    assert.deepEqual(
      agentLines.map(({ kind, amountUsd }) => ({ kind, amountUsd })),
      [{ kind: 'platform_fee', amountUsd: 500 }],
    );
  });

  it("a setter's and a nurturer's fees are booked at their gig's fulfilment", async () => {
    // A setter gig: nothing until the gig is fulfilled at meeting.
    const setterDeal = await createDeal(t, { mandate: HUMAN_SETTER });
    const { gig: setterGig } = await escalateDeal(t, setterDeal.id);
    assert.equal(setterGig.pricing.kind, 'fee');
    await claim(t, setterGig.id, MILO);
    await advanceGig(t, setterGig.id, { advanceTo: 'qualified' });
    assert.deepEqual(await dealTransfers(setterDeal.id), [], 'the gig is not fulfilled yet');
    const done = await advanceGig(t, setterGig.id, { advanceTo: 'meeting' });
    assert.equal(done.gig.status, 'fulfilled');
    const setterFee = setterGig.pricing.kind === 'fee' ? setterGig.pricing.amountUsd : NaN;
    const [setterLine, ...noMore] = await dealTransfers(setterDeal.id);
    assert.deepEqual(noMore, []);
    assert.deepEqual(
      { kind: setterLine?.kind, gigId: setterLine?.gigId, credit: setterLine?.credit, amount: setterLine?.amountUsd },
      { kind: 'fee', gigId: setterGig.id, credit: `closer:${MILO}:pending`, amount: setterFee },
    );

    // A nurturer gig: a closer gig gone dark, its nurturer revives the deal.
    const { deal } = await claimedCloserGig(t, MILO);
    await reportSignals(t, deal.id, ['gone_dark']);
    const { gig: nurturerGig } = await escalateDeal(t, deal.id);
    assert.equal(nurturerGig.role, 'nurturer');
    await claim(t, nurturerGig.id, MILO);
    assert.deepEqual(await dealTransfers(deal.id), []);
    const revived = await t.post(`/closers/gigs/${nurturerGig.id}/revive`, { note: 'They replied.' });
    assert.equal(revived.status, 200, JSON.stringify(revived.body));
    const nurturerFee = nurturerGig.pricing.kind === 'fee' ? nurturerGig.pricing.amountUsd : NaN;
    const lines = await dealTransfers(deal.id);
    assert.deepEqual(
      lines.map(({ kind, gigId, credit, amountUsd }) => ({ kind, gigId, credit, amountUsd })),
      [{ kind: 'fee', gigId: nurturerGig.id, credit: `closer:${MILO}:pending`, amountUsd: nurturerFee }],
    );
    earned.set(MILO, cents(setterFee) + cents(nurturerFee));
  });

  it('earnings stay pending for PAYOUT_HOLD_DAYS of demo time, then the timers make them available', async () => {
    for (const [closerId, amount] of earned)
      assert.deepEqual(await closerCents(t, closerId), { pending: amount, available: 0, paid: 0 }, closerId);
    const nothing = await run();
    assert.deepEqual([nothing.body.payouts, nothing.body.totalUsd], [[], 0], 'nothing is available yet');

    heldAt = new Date(await advanceClock(t, 13 * 24)).toISOString();
    for (const [closerId, amount] of earned)
      assert.equal((await closerCents(t, closerId)).pending, amount, `${closerId}: still held after 13 days`);
    await advanceClock(t, 24);
    for (const [closerId, amount] of earned)
      assert.deepEqual(await closerCents(t, closerId), { pending: 0, available: amount, paid: 0 }, closerId);
    // One release per earning, naming it.
    const all = await allTransfers(t);
    const earnings = all.filter((line) => line.kind === 'commission' || line.kind === 'fee');
    const releases = all.filter((line) => line.kind === 'release');
    assert.deepEqual(releases.map((line) => line.releases).sort(), earnings.map((line) => line.id).sort());
    for (const line of releases) assert.ok(Date.parse(line.at) > Date.parse(heldAt), 'released after 14 days');
  });

  it('a payout run pays each available balance whole and publishes payout.paid; a replay and a second run pay nothing', async () => {
    const seq = await lastSeq();
    const key = { 'idempotency-key': 'ledger-e2e-run-1' };
    const first = await run({ reference: 'batch-1' }, key);
    const payouts = [...first.body.payouts].sort((x, y) => x.id.localeCompare(y.id));
    assert.deepEqual(
      payouts.map((p) => p.id),
      ['po_0001', 'po_0002'],
    );
    assert.deepEqual(new Set(payouts.map((p) => p.closerId)), new Set([ADA, MILO]));
    for (const payout of payouts) {
      assert.equal(cents(payout.amountUsd), earned.get(payout.closerId), payout.closerId);
      assert.deepEqual([payout.status, payout.reference, payout.paidAt], ['paid', 'batch-1', first.body.at]);
      assert.deepEqual(
        payout.transfers.map(({ kind, debit, credit, amountUsd, payoutId }) => ({
          kind,
          debit,
          credit,
          amountUsd,
          payoutId,
        })),
        [
          {
            kind: 'payout',
            debit: `closer:${payout.closerId}:available`,
            credit: `closer:${payout.closerId}:paid`,
            amountUsd: payout.amountUsd,
            payoutId: payout.id,
          },
        ],
      );
    }
    assert.equal(cents(first.body.totalUsd), cents(payouts[0]?.amountUsd ?? 0) + cents(payouts[1]?.amountUsd ?? 0));
    const published = (await eventsAfter(seq)).filter((event) => event.type === 'payout.paid');
    assert.deepEqual(
      published
        .map((event) => event.data.payout)
        .sort((x: LedgerPayoutView, y: LedgerPayoutView) => x.id.localeCompare(y.id)),
      payouts,
    );

    const transfersBefore = (await allTransfers(t)).length;
    const replay = await run({ reference: 'batch-1' }, key);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replay.body, first.body, 'the replay answers the same');
    const second = await run({ reference: 'batch-2' });
    assert.deepEqual([second.body.payouts, second.body.totalUsd], [[], 0], 'nothing left to pay');
    assert.equal((await allTransfers(t)).length, transfersBefore, 'neither booked a transfer');
    assert.deepEqual((await eventsAfter(seq)).filter((event) => event.type === 'payout.paid').length, 2);

    const listed = await t.get<LedgerPayoutView[]>('/payouts');
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.map((p) => p.id),
      ['po_0002', 'po_0001'],
      'newest first',
    );
    // A page at a time: the Link names the next, older one.
    const firstPage = await t.get<LedgerPayoutView[]>('/payouts?limit=1');
    const next = nextPage(firstPage);
    assert.ok(next, 'a Link to the next page');
    const secondPage = await t.get<LedgerPayoutView[]>(next);
    assert.deepEqual([...firstPage.body, ...secondPage.body], listed.body);
    assert.equal(nextPage(secondPage), undefined, 'the last page');
    const ada = await t.get<LedgerPayoutView[]>(`/payouts?closerId=${ADA}`);
    assert.deepEqual(
      ada.body,
      payouts.filter((p) => p.closerId === ADA),
    );
    for (const [closerId, amount] of earned)
      assert.deepEqual(await closerCents(t, closerId), { pending: 0, available: 0, paid: amount }, closerId);
  });

  it('a balance as of a past time is the balance then; a later time answers now', async () => {
    const then = await balance(t, `closer:${ADA}`, heldAt);
    assert.equal(then.asOf, heldAt);
    assert.deepEqual(
      [then.pendingUsd, then.availableUsd, then.paidUsd].map((usd) => cents(usd ?? NaN)),
      [earned.get(ADA), 0, 0],
    );
    const beginning = await balance(t, 'platform:fees', '2000-01-01');
    assert.equal(beginning.balanceUsd, 0);
    const feesNow = await balance(t, 'platform:fees');
    assert.ok(feesNow.balanceUsd > 0);
    const later = await balance(t, 'platform:fees', '2999-01-01T00:00:00Z');
    assert.ok(Date.parse(later.asOf) < Date.parse('2999-01-01'), `asOf is now: ${later.asOf}`);
    assert.equal(later.balanceUsd, feesNow.balanceUsd);
  });

  it('GET /ledger/transfers filters by account and time; with Accept: text/csv it answers CSV', async () => {
    const json = await allTransfers(t);
    const since = json.filter((line) => line.at >= heldAt);
    assert.ok(since.length > 0 && since.length < json.length);
    assert.deepEqual(await allTransfers(t, `from=${heldAt}`), since, 'from: at or after');
    assert.deepEqual(
      await allTransfers(t, `to=${heldAt}`),
      json.filter((line) => line.at < heldAt),
      'to: before',
    );
    assert.deepEqual(
      await allTransfers(t, `account=closer:${MILO}`),
      json.filter((line) => [line.debit, line.credit].some((name) => name.startsWith(`closer:${MILO}:`))),
      "a closer's name alone: its three accounts",
    );

    const answer = await t.get<string>('/ledger/transfers?limit=2', { accept: 'text/csv' });
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
    const rows = parse(answer.body, { columns: true }) as Record<string, string>[];
    assert.equal(rows.length, json.length, 'every page');
    for (const [i, row] of rows.entries()) {
      const line = json[i] as TransferView;
      assert.deepEqual(
        [row.id, row.at, row.debit, row.credit, Number(row.amountUsd), row.kind, row.dealId, row.releases],
        [line.id, line.at, line.debit, line.credit, line.amountUsd, line.kind, line.dealId ?? '', line.releases ?? ''],
      );
    }
  });

  it("a closer's and the demo Seller's statements add up, month by month, to their balances", async () => {
    const all = await allTransfers(t);
    const months = monthsOf(all);
    for (const closerId of [ADA, MILO]) {
      const closing = await closerStatementsAddUp(t, closerId, months);
      const now = await closerCents(t, closerId);
      assert.equal(closing, now.pending + now.available, `${closerId}: the last closing is what is owed now`);
    }
    const seller = await sellerStatementsAddUp(t, 'none', months);
    assert.equal(seller.closing, cents((await balance(t, 'seller:none')).balanceUsd));
    // The month before anything: nothing.
    const empty = await t.get(`/sellers/none/statement?month=2000-01`);
    assert.deepEqual([empty.body.openingUsd, empty.body.closingUsd, empty.body.lines], [0, 0, []]);
  });

  it('the sum over all accounts is zero, and each account is the sum of its transfers', async () => {
    const all = await allTransfers(t, '', 3);
    assert.deepEqual(
      all.map((line) => line.id),
      all.map((_, i) => `txn_${String(i + 1).padStart(4, '0')}`),
      'every page, in id order, gap-free',
    );
    const balances = replayCents(all);
    let sum = 0;
    for (const value of balances.values()) sum += value;
    assert.equal(sum, 0);
    for (const [account, value] of balances)
      assert.equal(cents((await balance(t, account)).balanceUsd), value, account);
    // Nothing is ever booked of zero, and the clock only moved forward.
    for (const line of all) assert.ok(line.amountUsd > 0, line.id);
    assert.ok(Date.parse(all.at(-1)?.at ?? '') - Date.parse(all[0]?.at ?? '') >= 14 * DAY - HOUR);
  });
});
