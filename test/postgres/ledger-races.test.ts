// D-80, D-81 on two service instances over one PostgreSQL database: only the ledger's lock
// (`ledger`, an advisory lock of the database) keeps their units apart. With PAYOUT_HOLD_DAYS=0
// the timers both instances sweep release each earning at once; then ten payout runs racing on
// both pay each closer exactly its available balance, once. Refunds of one deal racing on both
// never pass its final value in all, and reverse in all exactly what one refund of their sum would.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Answer } from '../support/http.ts';
import { type Instance, startInstance } from '../support/instances.ts';
import {
  allTransfers,
  cents,
  closerCents,
  type LedgerPayoutView,
  type PayoutRunView,
  type RefundView,
  replayCents,
  reversedCents,
} from '../support/ledger-e2e.ts';
import { ADA, advanceGig, enrol, getDeal, negotiatingCloserGig } from '../support/marketplace-e2e.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();

const statuses = (answers: Answer[]) => answers.map((x) => x.status).join(',');
const number = (id: string) => Number(id.replace(/^\w+_/, ''));

describe('the ledger on two instances over one PostgreSQL database (D-80, D-81)', { skip: server.skip }, () => {
  let schema: TestSchema;
  let a: Instance;
  let b: Instance;
  /** Both instances, alternately: request i goes to instance i mod 2. */
  const across = (i: number) => (i % 2 === 0 ? a : b);

  before(async () => {
    schema = await createTestSchema(server.url as string, 'ledger');
    [a, b] = await Promise.all([
      startInstance(schema, { PAYOUT_HOLD_DAYS: '0' }),
      startInstance(schema, { PAYOUT_HOLD_DAYS: '0' }),
    ]);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  /** A deal closed won by the closer at valueUsd (the writes spread over both): its id and commission (cents). */
  async function wins(i: number, closerId: string, valueUsd: number) {
    const { gig, deal } = await negotiatingCloserGig(across(i), closerId, { listValueUsd: valueUsd });
    await advanceGig(across(i + 1), gig.id, { advanceTo: 'closed_won', valueUsd });
    const settlement = await across(i).get(`/pipeline/deals/${deal.id}/settlement`);
    assert.equal(settlement.status, 200);
    return { dealId: deal.id, commission: cents(settlement.body.closerCommissionUsd) };
  }

  /** Waits (up to 20 s) until the timers released every earning: nothing pending, `available` as given. */
  async function released(expected: Map<string, number>) {
    const start = Date.now();
    for (;;) {
      const now = await Promise.all([...expected.keys()].map((closerId, i) => closerCents(across(i), closerId)));
      if ([...expected.values()].every((amount, i) => now[i]?.pending === 0 && now[i]?.available === amount)) return;
      assert.ok(Date.now() - start < 20_000, `not released after 20 s: ${JSON.stringify(now)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('ten payout runs racing on both instances pay each closer exactly its available balance, once', async () => {
    const closers = [ADA];
    for (let i = 0; i < 5; i++) closers.push((await enrol(across(i), `Ledger Racer ${i} (fictional)`, ['saas'])).id);
    const earned = new Map<string, number>(closers.map((id) => [id, 0]));
    for (const [i, closerId] of closers.entries()) {
      // Some closers win twice: their available balance is two releases.
      for (let k = 0; k <= i % 2; k++) {
        const { commission } = await wins(i + k, closerId, 10_000 + 1_234.56 * i + 77.77 * k);
        earned.set(closerId, (earned.get(closerId) ?? 0) + commission);
      }
    }
    await released(earned);

    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => across(i).post<PayoutRunView>('/payouts/runs', { reference: `race-${i}` })),
    );
    assert.deepEqual(new Set(answers.map((x) => x.status)), new Set([200]), statuses(answers));
    const payouts = answers.flatMap((x) => x.body.payouts);
    assert.deepEqual(payouts.map((p) => p.closerId).sort(), [...closers].sort(), 'each closer paid once');
    for (const payout of payouts) assert.equal(cents(payout.amountUsd), earned.get(payout.closerId), payout.closerId);
    const total = answers.reduce((sum, x) => sum + cents(x.body.totalUsd), 0);
    assert.equal(
      total,
      [...earned.values()].reduce((sum, amount) => sum + amount, 0),
      'the runs paid what was released',
    );
    const numbers = payouts.map((p) => number(p.id)).sort((x, y) => x - y);
    assert.deepEqual(
      numbers,
      closers.map((_, i) => i + 1),
      'payout ids distinct and gap-free',
    );

    for (const instance of [a, b]) {
      const listed = await instance.get<LedgerPayoutView[]>('/payouts');
      assert.deepEqual(listed.body.map((p) => p.id).sort(), payouts.map((p) => p.id).sort());
    }
    for (const [i, [closerId, amount]] of [...earned].entries())
      assert.deepEqual(await closerCents(across(i), closerId), { pending: 0, available: 0, paid: amount }, closerId);
    const transfers = await allTransfers(b);
    assert.equal(transfers.filter((t) => t.kind === 'payout').length, closers.length, 'one payout transfer each');
    assert.equal(
      [...replayCents(transfers).values()].reduce((sum, value) => sum + value, 0),
      0,
      'the books sum to zero',
    );
    const events = (await a.get('/events?after=0&limit=1000')).body.events as { type: string }[];
    assert.equal(events.filter((e) => e.type === 'payout.paid').length, closers.length);
  });

  it('refunds of one deal racing on both instances never pass its final value in all', async () => {
    const racer = (await enrol(a, 'Refund Racer (fictional)', ['saas'])).id;
    const { dealId } = await wins(0, racer, 10_000);
    const versionBefore = (await getDeal(a, dealId)).version;
    const refundOf = (i: number, amountUsd: number) =>
      across(i).post<RefundView>(`/pipeline/deals/${dealId}/refunds`, { amountUsd, reason: `race ${i}` });

    // 12 of $1,500 against $10,000: six fit.
    const first = await Promise.all(Array.from({ length: 12 }, (_, i) => refundOf(i, 1_500)));
    assert.equal(first.filter((x) => x.status === 201).length, 6, statuses(first));
    for (const refused of first.filter((x) => x.status !== 201)) {
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.equal((refused.body as unknown as { code: string }).code, 'REFUND_EXCEEDS_VALUE');
    }
    // Then 8 of $250 against the $1,000 left: four fit, to exactly the final value.
    const second = await Promise.all(Array.from({ length: 8 }, (_, i) => refundOf(i + 1, 250)));
    assert.equal(second.filter((x) => x.status === 201).length, 4, statuses(second));
    assert.ok(
      second.every((x) => x.status === 201 || x.status === 422),
      statuses(second),
    );

    const refunds = (await b.get<RefundView[]>(`/pipeline/deals/${dealId}/refunds`)).body;
    assert.equal(refunds.length, 10);
    assert.equal(new Set(refunds.map((r) => r.id)).size, 10, 'distinct ids');
    assert.equal(
      refunds.reduce((sum, r) => sum + cents(r.amountUsd), 0),
      1_000_000,
    );
    const settlement = (await a.get(`/pipeline/deals/${dealId}/settlement`)).body;
    assert.equal(settlement.refundedUsd, 10_000);
    const deal = await getDeal(b, dealId);
    assert.equal(deal.version, versionBefore + 10, 'one version per refund');
    assert.equal(deal.activity.filter((entry) => /^Refunded /.test(entry.note)).length, 10);

    // Each original is reversed exactly once in all, whatever the order the refunds committed in.
    const lines = await allTransfers(a, `dealId=${dealId}`);
    for (const original of lines.filter((t) => t.kind === 'commission' || t.kind === 'platform_fee')) {
      const reversed = lines.filter((t) => t.reverses === original.id).reduce((sum, t) => sum + cents(t.amountUsd), 0);
      assert.equal(reversed, reversedCents(original.amountUsd, 10_000, 10_000), original.kind);
      assert.equal(reversed, cents(original.amountUsd));
    }
    const events = (await b.get(`/events?dealId=${dealId}&limit=1000`)).body.events as {
      type: string;
      data: { refundedUsd: number };
    }[];
    const totals = events.filter((e) => e.type === 'deal.refunded').map((e) => cents(e.data.refundedUsd));
    assert.deepEqual(
      [...totals].sort((x, y) => x - y),
      [1, 2, 3, 4, 5, 6].map((n) => n * 150_000).concat([1, 2, 3, 4].map((n) => 900_000 + n * 25_000)),
      "each refund's running total once",
    );
  });
});
