// D-81 over HTTP in the demo: a partial refund reverses the same share of the commission and the
// platform fee (partial refunds to the cent what one refund of their sum would), appends an
// activity entry (a new version), publishes deal.refunded and shows on the settlement; a refund
// past the final value or of a deal not won changes nothing. A refund while the commission is
// held takes from pending; after the payout, from available, below zero: a clawback the next run
// does not pay and the closer's next earning nets. Tests run in order: each builds on the last.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  allTransfers,
  cents,
  closerCents,
  closerStatementsAddUp,
  monthsOf,
  type PayoutRunView,
  type RefundView,
  replayCents,
  reversedCents,
  sellerStatementsAddUp,
} from '../support/ledger-e2e.ts';
import {
  ADA,
  advanceClock,
  advanceDeal,
  advanceGig,
  assertError,
  createDeal,
  type DealView,
  dealBody,
  getDeal,
  negotiatingCloserGig,
  type SettlementView,
} from '../support/marketplace-e2e.ts';

let t: TestServer;

async function settlement(dealId: string): Promise<SettlementView & { refundedUsd?: number }> {
  const answer = await t.get(`${t.prefix}/deals/${dealId}/settlement`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

async function refund(dealId: string, amountUsd: number, reason = 'the customer returned part'): Promise<RefundView> {
  const answer = await t.post<RefundView>(`${t.prefix}/deals/${dealId}/refunds`, { amountUsd, reason });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

async function run(): Promise<PayoutRunView> {
  const answer = await t.post<PayoutRunView>('/payouts/runs', {});
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** A deal closed won by Ada at valueUsd: its id and commission (cents). */
async function adaWins(valueUsd: number): Promise<{ id: string; commission: number }> {
  const { gig, deal } = await negotiatingCloserGig(t, ADA, { listValueUsd: valueUsd });
  await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd });
  const figures = await settlement(deal.id);
  assert.ok(figures.closerCommissionUsd > 0);
  return { id: deal.id, commission: cents(figures.closerCommissionUsd) };
}

/** What a refusal must leave as it was: every transfer, the deal's refunds, its version, the feed. */
async function state(dealId: string) {
  const events = await t.get(`/events?after=0&limit=1000`);
  const refunds = await t.get(`${t.prefix}/deals/${dealId}/refunds`);
  return {
    transfers: await allTransfers(t),
    refunds: refunds.status === 200 ? refunds.body : refunds.status,
    version: (await getDeal(t, dealId)).version,
    lastSeq: events.body.events.at(-1)?.seq,
  };
}

describe('refunds and clawbacks over HTTP in the demo (D-81)', () => {
  before(async () => {
    t = await startTestServer({ config: { payoutHoldDays: 14, eventRetentionHours: 24 * 3650 } });
  });
  after(() => t.close());

  let sold: DealView;
  it('partial refunds answer 201 with their reversals, a new version, deal.refunded and refundedUsd', async () => {
    const answer = await t.post<DealView>(`${t.prefix}/sell`, dealBody({ listValueUsd: 10_000 }));
    assert.equal(answer.status, 201);
    sold = answer.body;
    const before = await settlement(sold.id);
    assert.equal('refundedUsd' in before, false, 'absent before a refund');
    const [fee] = await allTransfers(t, `dealId=${sold.id}`);
    assert.equal(fee?.kind, 'platform_fee');
    assert.equal(fee?.amountUsd, 500);

    const key = { 'idempotency-key': 'ledger-e2e-refund-1' };
    const body = { amountUsd: 3333.33, reason: 'the customer returned part' };
    const made = await t.post<RefundView>(`${t.prefix}/deals/${sold.id}/refunds`, body, key);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const first = made.body;
    const replayed = await t.post<RefundView>(`${t.prefix}/deals/${sold.id}/refunds`, body, key);
    assert.deepEqual([replayed.status, replayed.headers.get('idempotent-replayed')], [201, 'true']);
    assert.deepEqual(replayed.body, first, 'the replay answers the same and refunds nothing more');
    assert.equal(first.id, 'rfd_0001');
    assert.deepEqual([first.dealId, first.amountUsd, first.reason], [sold.id, 3333.33, 'the customer returned part']);
    assert.deepEqual(
      first.transfers.map(({ kind, debit, credit, amountUsd, reverses, refundId }) => ({
        kind,
        debit,
        credit,
        amountUsd,
        reverses,
        refundId,
      })),
      [
        {
          kind: 'reversal',
          debit: 'platform:fees',
          credit: 'seller:none',
          amountUsd: 166.67,
          reverses: fee?.id,
          refundId: first.id,
        },
      ],
    );
    const deal = await getDeal(t, sold.id);
    assert.equal(deal.version, sold.version + 1, 'a new version');
    assert.equal(deal.activity.length, sold.activity.length + 1, 'an activity entry');
    assert.match(deal.activity.at(-1)?.note ?? '', /Refunded \$3,333\.33/);
    const events = (await t.get(`/events?dealId=${sold.id}&limit=1000`)).body.events;
    const refunded = events.filter((e: { type: string }) => e.type === 'deal.refunded');
    assert.deepEqual(
      refunded.map((e: { data: unknown }) => e.data),
      [{ dealId: sold.id, refund: first, refundedUsd: 3333.33 }],
    );
    assert.equal((await settlement(sold.id)).refundedUsd, 3333.33);

    // The rest in two more: the reversals add up to the whole fee, to the cent.
    const second = await refund(sold.id, 3333.33);
    assert.equal(second.transfers[0]?.amountUsd, 166.66, '333.33 in all, less the 166.67 before');
    const third = await refund(sold.id, 3333.34);
    assert.equal(third.transfers[0]?.amountUsd, 166.67);
    const reversals = (await allTransfers(t, `dealId=${sold.id}`)).filter((line) => line.kind === 'reversal');
    assert.equal(
      reversals.reduce((sum, line) => sum + cents(line.amountUsd), 0),
      50_000,
    );
    const figures = await settlement(sold.id);
    assert.equal(figures.refundedUsd, 10_000);
    const { refundedUsd: _refunded, ...unchanged } = figures;
    const { refundedUsd: _none, ...original } = before;
    assert.deepEqual(unchanged, original, "the settlement's figures are as they were");
    const listed = await t.get<RefundView[]>(`${t.prefix}/deals/${sold.id}/refunds`);
    assert.deepEqual(listed.body, [first, second, third], 'oldest first');
  });

  it('a refund past the final value is 422 REFUND_EXCEEDS_VALUE and changes nothing', async () => {
    const before = await state(sold.id);
    const refused = assertError(
      await t.post(`${t.prefix}/deals/${sold.id}/refunds`, { amountUsd: 0.01, reason: 'one cent more' }),
      422,
      'REFUND_EXCEEDS_VALUE',
    );
    assert.match(JSON.stringify(refused.violations), /at most \$0\.00/);
    assert.deepEqual(await state(sold.id), before);
  });

  it('only a closed_won deal is refunded: 409 DEAL_NOT_CLOSED_WON; an unknown one is 404', async () => {
    const open = await createDeal(t);
    const lost = await createDeal(t);
    await advanceDeal(t, lost.id, { advanceTo: 'closed_lost' });
    for (const deal of [open, lost]) {
      const before = await state(deal.id);
      assertError(
        await t.post(`${t.prefix}/deals/${deal.id}/refunds`, { amountUsd: 100, reason: 'not won' }),
        409,
        'DEAL_NOT_CLOSED_WON',
      );
      assert.deepEqual(await state(deal.id), before, `${deal.id} is as it was`);
    }
    assertError(
      await t.post(`${t.prefix}/deals/deal_9999/refunds`, { amountUsd: 100, reason: 'none' }),
      404,
      'DEAL_NOT_FOUND',
    );
  });

  it('a refund while the commission is held takes from pending; its release moves what is left', async () => {
    const held = await adaWins(10_000);
    const part = await refund(held.id, 1_000);
    assert.equal(part.id, 'rfd_0004', 'the refused refunds took no number');
    const commission = (await allTransfers(t, `dealId=${held.id}`)).find((line) => line.kind === 'commission');
    const taken = part.transfers.find((line) => line.reverses === commission?.id);
    assert.equal(taken?.debit, `closer:${ADA}:pending`);
    const reversed = reversedCents(held.commission / 100, 1_000, 10_000);
    assert.equal(cents(taken?.amountUsd ?? NaN), reversed);
    // A deal refunded whole while held: its earning is emptied in pending, and never released (D-280).
    const gone = await adaWins(5_000);
    const whole = await refund(gone.id, 5_000);
    assert.deepEqual(
      whole.transfers
        .filter((line) => line.debit.startsWith('closer:'))
        .map((line) => [line.debit, cents(line.amountUsd)]),
      [[`closer:${ADA}:pending`, gone.commission]],
    );
    assert.deepEqual(await closerCents(t, ADA), { pending: held.commission - reversed, available: 0, paid: 0 });
    await advanceClock(t, 14 * 24 + 1);
    assert.deepEqual(
      (await allTransfers(t, `dealId=${gone.id}`)).filter((line) => line.kind === 'release'),
      [],
      'nothing of it left to release',
    );
    const release = (await allTransfers(t, `dealId=${held.id}`)).find((line) => line.kind === 'release');
    assert.equal(release?.releases, commission?.id);
    assert.equal(cents(release?.amountUsd ?? NaN), held.commission - reversed, 'what the earning still holds');
    assert.deepEqual(await closerCents(t, ADA), { pending: 0, available: held.commission - reversed, paid: 0 });
  });

  it('a refund after the payout claws back from available; the next run skips the closer; its next earning nets it', async () => {
    const owed = (await closerCents(t, ADA)).available;
    const paid = await run();
    assert.deepEqual(
      paid.payouts.map((p) => [p.closerId, cents(p.amountUsd)]),
      [[ADA, owed]],
    );
    const big = await adaWins(20_000);
    await advanceClock(t, 14 * 24 + 1);
    const second = await run();
    assert.deepEqual(
      second.payouts.map((p) => [p.closerId, cents(p.amountUsd)]),
      [[ADA, big.commission]],
    );

    const clawback = await refund(big.id, 5_000, 'a quarter returned');
    const clawed = reversedCents(big.commission / 100, 5_000, 20_000);
    const line = clawback.transfers.find((l) => l.debit.startsWith('closer:'));
    assert.deepEqual([line?.debit, cents(line?.amountUsd ?? NaN)], [`closer:${ADA}:available`, clawed]);
    const after = await closerCents(t, ADA);
    assert.equal(after.available, -clawed, 'below zero: a clawback');
    assert.equal(after.paid, owed + big.commission);
    const skipped = await run();
    assert.deepEqual([skipped.payouts, skipped.totalUsd], [[], 0], 'nothing paid to a negative balance');

    const next = await adaWins(30_000);
    assert.ok(next.commission > clawed);
    await advanceClock(t, 14 * 24 + 1);
    const netted = await run();
    assert.deepEqual(
      netted.payouts.map((p) => [p.closerId, cents(p.amountUsd)]),
      [[ADA, next.commission - clawed]],
      'the next earning less the clawback',
    );
    const final = await closerCents(t, ADA);
    assert.deepEqual([final.pending, final.available], [0, 0]);
  });

  it('the statements add up across the refunds, and the books still sum to zero', async () => {
    const all = await allTransfers(t);
    const balances = replayCents(all);
    assert.equal(
      [...balances.values()].reduce((sum, value) => sum + value, 0),
      0,
    );
    const months = monthsOf(all);
    const owed = await closerStatementsAddUp(t, ADA, months);
    assert.equal(owed, (balances.get(`closer:${ADA}:pending`) ?? 0) + (balances.get(`closer:${ADA}:available`) ?? 0));
    const seller = await sellerStatementsAddUp(t, 'none', months);
    assert.equal(seller.closing, balances.get('seller:none'));
    const reversed = all
      .filter((line) => line.kind === 'reversal')
      .reduce((sum, line) => sum + cents(line.amountUsd), 0);
    assert.equal(seller.refunds, reversed, "a Seller's refunds are the reversals it got back");
  });
});
