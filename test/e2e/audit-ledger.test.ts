// `audit <base-url>` proves the books (D-82): a live service whose ledger has seen every kind of
// transfer (sells' platform fees, human closes' commissions, a setter's and a nurturer's fees,
// refunds reversing from pending and, after the hold, from available into a clawback, releases,
// two payout runs, a refund refused) audits clean; the same books read from it and then broken by
// hand (a transfer missing, an amount a cent off, a balance a cent off) are not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  balanceFromView,
  closerPayoutFromView,
  refundFromView,
  settlementFromView,
  transferFromView,
} from '../../src/audit/from-views.ts';
import { readDeployment } from '../../src/audit/read-deployment.ts';
import type { Violation } from '../../src/domain/invariants.ts';
import { type Books, checkBooks } from '../../src/domain/ledger/ledger-invariants.ts';
import { cli } from '../support/cli.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  advanceClock,
  advanceGig,
  assertError,
  claim,
  createDeal,
  dealBody,
  escalateDeal,
  MILO,
  negotiatingCloserGig,
  reportSignals,
} from '../support/marketplace-e2e.ts';

interface BalanceView {
  balanceUsd: number;
  pendingUsd?: number;
  availableUsd?: number;
  paidUsd?: number;
}

describe('audit <base-url> checks the books (D-79 to D-82)', () => {
  let t: TestServer;
  const refund = async (dealId: string, amountUsd: number) => {
    const answer = await t.post(`${t.prefix}/deals/${dealId}/refunds`, { amountUsd, reason: 'returned' });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
  };
  const payoutRun = async (reference: string) => {
    const answer = await t.post<{ payouts: { closerId: string }[] }>('/payouts/runs', { reference });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.payouts.map((p) => p.closerId);
  };
  const balance = async (account: string) => {
    const answer = await t.get<BalanceView>(`/ledger/balances?account=${account}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };

  before(async () => {
    t = await startTestServer();
    // Two sells: the agent closes each won at list value, a platform fee and no commission.
    const sells: string[] = [];
    for (const listValueUsd of [10_000, 15_000.55]) {
      const sold = await t.post<{ id: string }>('/pipeline/sell', dealBody({ listValueUsd }));
      assert.equal(sold.status, 201, JSON.stringify(sold.body));
      sells.push(sold.body.id);
    }
    // A human journey: Ada's setter fee (300) and nurturer fee (120.50), Milo's 8% commission.
    const journey = await createDeal(t, {
      listValueUsd: 100_000,
      mandate: {
        staffing: { setter: 'human', closer: 'human' },
        commissionPct: 0.08,
        fees: { setterUsd: 300, nurturerUsd: 120.5 },
      },
    });
    const setterGig = (await escalateDeal(t, journey.id)).gig;
    await claim(t, setterGig.id, ADA);
    await advanceGig(t, setterGig.id, { advanceTo: 'qualified' });
    await advanceGig(t, setterGig.id, { advanceTo: 'meeting' });
    const firstCloserGig = (await escalateDeal(t, journey.id)).gig;
    await claim(t, firstCloserGig.id, MILO);
    await advanceGig(t, firstCloserGig.id, { advanceTo: 'proposal' });
    await reportSignals(t, journey.id, ['gone_dark']);
    const nurturerGig = (await escalateDeal(t, journey.id)).gig;
    await claim(t, nurturerGig.id, ADA);
    assert.equal((await t.post(`/closers/gigs/${nurturerGig.id}/revive`)).status, 200);
    const closerGig = (await escalateDeal(t, journey.id)).gig;
    await claim(t, closerGig.id, MILO);
    await advanceGig(t, closerGig.id, { advanceTo: 'negotiation' });
    await advanceGig(t, closerGig.id, { advanceTo: 'closed_won', valueUsd: 90_000.1 });
    // Ada closes a deal won: her commission.
    const ada = await negotiatingCloserGig(t, ADA, { listValueUsd: 40_000 });
    await advanceGig(t, ada.gig.id, { advanceTo: 'closed_won', valueUsd: 41_000.37 });

    // Refunds while everything is held: a sell's fee and part of Ada's commission, from pending.
    await refund(sells[0] as string, 3_333.33);
    await refund(ada.deal.id, 1_000.01);
    // Past the hold (14 days): the timers release what each earning still holds.
    await advanceClock(t, 15 * 24);
    assert.ok(Number((await balance(`closer:${ADA}`)).availableUsd) > 0, 'the hold released Ada’s earnings');
    // After the release a refund takes from available; then both closers are paid.
    await refund(journey.id, 20_000);
    await refund(ada.deal.id, 0.03);
    assert.deepEqual(await payoutRun('batch-1'), [ADA, MILO]);
    // Milo's commission clawed back past what he was paid: his available goes below zero, and
    // the next run pays nobody.
    await refund(journey.id, 50_000);
    assert.ok(Number((await balance(`closer:${MILO}:available`)).balanceUsd) < 0, 'a clawback');
    assertError(
      await t.post(`${t.prefix}/deals/${journey.id}/refunds`, { amountUsd: 20_000.11, reason: 'too much' }),
      422,
      'REFUND_EXCEEDS_VALUE',
    );
    await refund(sells[1] as string, 15_000.55);
    assert.deepEqual(await payoutRun('batch-2'), []);
  });
  after(() => t.close());

  it('a service whose books saw every kind of transfer audits clean, and says what of them it read', async () => {
    const run = await cli('audit', t.url, '--json');
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report = JSON.parse(run.stdout) as { violations: Violation[]; read: Record<string, number> };
    assert.deepEqual(report.violations, []);
    const transfers = (await t.get<{ kind: string }[]>('/ledger/transfers?limit=1000')).body;
    const kinds = new Set(transfers.map((transfer) => transfer.kind));
    assert.deepEqual([...kinds].sort(), ['commission', 'fee', 'payout', 'platform_fee', 'release', 'reversal']);
    // Sellers' (the demo's one), the platform's and each closer's three.
    assert.deepEqual(
      { transfers: report.read.transfers, accounts: report.read.accounts, refunds: report.read.refunds },
      { transfers: transfers.length, accounts: 8, refunds: 6 },
    );
    assert.equal(report.read.closerPayouts, 2);
    assert.equal((await cli('audit', t.url)).code, 0);
  });

  it('each check of the books catches a ledger broken by hand', async () => {
    const read = await readDeployment(t.url);
    const settlements = new Map([...read.settlements].map(([id, view]) => [id, settlementFromView(view)]));
    const books: Books = {
      transfers: read.transfers.map(transferFromView),
      settlements,
      balances: new Map([...read.balances].map(([account, view]) => [account, balanceFromView(view)])),
      refunds: [...read.refunds.values()].flat().map(refundFromView),
      payouts: read.payouts.map(closerPayoutFromView),
    };
    assert.deepEqual(checkBooks(books), []);
    const caught = (broken: Partial<Books>) => checkBooks({ ...books, ...broken }).map((v) => v.message);
    // A transfer missing: Ada's commission (its deal's settlement, the balances and the releases disagree).
    const commission = books.transfers.findIndex((tr) => tr.kind === 'commission' && tr.credit.includes(ADA));
    const missing = caught({ transfers: books.transfers.filter((_, i) => i !== commission) });
    assert.ok(
      missing.some((m) => /commission is \d+ cents; its transfers book 0/.test(m)),
      missing.join('\n'),
    );
    assert.ok(
      missing.some((m) => /balance is .* its transfers make/.test(m)),
      missing.join('\n'),
    );
    // A reversal a cent off: no longer round-half-up(original × refunded / final).
    const reversal = books.transfers.findIndex((tr) => tr.kind === 'reversal');
    const off = caught({
      transfers: books.transfers.map((tr, i) => (i === reversal ? { ...tr, amountCents: tr.amountCents + 1 } : tr)),
    });
    assert.ok(
      off.some((m) => /is reversed by \d+; refunds of/.test(m)),
      off.join('\n'),
    );
    // A balance answered a cent off: the sum is not zero, and the replay disagrees.
    const balances = new Map(books.balances);
    balances.set('platform:fees', (balances.get('platform:fees') ?? 0n) + 1n);
    const answered = caught({ balances });
    assert.ok(
      answered.some((m) => /sum to 1 cents/.test(m)) && answered.some((m) => /platform:fees's balance/.test(m)),
    );
  });
});
