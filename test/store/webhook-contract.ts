// The webhook part of the store contract (D-42), run by describeStoreContract on every adapter:
// subscriptions, the dispatcher's cursor, deliveries claimed with a lease, attempts recorded.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { PublicEventDraft } from '../../src/domain/public-events.ts';
import type { Webhook } from '../../src/domain/webhooks.ts';
import type { Store } from '../../src/store/store.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');

const hook = (n: number, overrides: Partial<Webhook> = {}): Webhook => ({
  id: `whk_${String(n).padStart(4, '0')}`,
  url: `http://receiver.example/${n}`,
  secret: 'whsec_c2VjcmV0',
  createdAt: T0,
  afterSeq: 0,
  ...overrides,
});

const stalled = (dealId: string): PublicEventDraft => ({ type: 'deal.stalled', at: T0, data: { dealId } });

export function webhookContract(name: string, store: () => Store) {
  it('webhooks: stores, lists, deletes; numbers and webhooks restart on wipe, the cursor does not', async () => {
    await store().transaction(async (uow) => {
      assert.equal(await uow.webhooks.takeNumber(), 1);
      assert.equal(await uow.webhooks.takeNumber(), 2);
      await uow.webhooks.put(hook(1));
      await uow.webhooks.put(hook(2, { types: ['deal.created', 'gig.posted'] }));
      await uow.webhooks.setCursor(7);
    });
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.webhooks.takeNumber();
        await uow.webhooks.put(hook(3));
        throw new Error('rolled back');
      }),
    );
    assert.deepEqual(
      await store().read((r) => r.webhooks.get('whk_0002')),
      hook(2, { types: ['deal.created', 'gig.posted'] }),
    );
    assert.deepEqual(
      (await store().read((r) => r.webhooks.list())).map((h) => h.id),
      ['whk_0001', 'whk_0002'],
    );
    assert.equal(await store().transaction((uow) => uow.webhooks.delete('whk_0001')), true);
    assert.equal(await store().transaction((uow) => uow.webhooks.delete('whk_0001')), false);
    assert.equal(await store().read((r) => r.webhooks.get('whk_0001')), undefined);
    await store().transaction((uow) => uow.wipe());
    assert.deepEqual(await store().read((r) => r.webhooks.list()), []);
    await store().transaction(async (uow) => {
      assert.equal(await uow.webhooks.takeNumber(), 1);
      assert.equal(await uow.webhooks.lockCursor(), 7);
    });
  });

  it('webhooks: deliveries are claimed with a lease, once, and again after the lease ran out', async () => {
    await store().transaction(async (uow) => {
      await uow.publish([stalled('deal_0001'), stalled('deal_0002')], T0);
    });
    const last = await store().lastSeq();
    const events = await store().transaction(async (uow) => {
      await uow.webhooks.put(hook(1));
      assert.equal(await uow.webhooks.feedLastSeq(), last);
      return uow.webhooks.feedAfter(last - 2, 10);
    });
    assert.deepEqual(
      events.map((e) => e.seq),
      [last - 1, last],
    );
    await store().transaction(async (uow) => {
      const rows = events.map((e) => ({ webhookId: 'whk_0001', seq: e.seq, event: e.event }));
      await uow.webhooks.addDeliveries(rows, T0);
      await uow.webhooks.addDeliveries(rows, T0); // made once
    });
    /** When the worker would wake for the next claim (D-249). */
    const nextClaimAt = () => store().transaction((uow) => uow.webhooks.nextClaimAt());
    assert.equal(await nextClaimAt(), T0, 'due at once');
    const first = await store().transaction((uow) => uow.webhooks.claim(T0, T0 + 1000, 10));
    assert.equal(await nextClaimAt(), T0 + 1000, 'both leased: the leases end');
    assert.deepEqual(
      first.map((d) => [d.seq, d.attempt, d.url, d.secret, d.dispatchedAt]),
      [
        [last - 1, 1, 'http://receiver.example/1', 'whsec_c2VjcmV0', T0],
        [last, 1, 'http://receiver.example/1', 'whsec_c2VjcmV0', T0],
      ],
    );
    assert.deepEqual(first[0].event, stalled('deal_0001'));
    // Leased: nobody claims them until the lease runs out.
    assert.deepEqual(await store().transaction((uow) => uow.webhooks.claim(T0 + 999, T0 + 2000, 10)), []);
    // The first is answered: delivered. The second's sender died: claimed again at the lease's end.
    await store().transaction((uow) =>
      uow.webhooks.record({
        deliveryId: first[0].deliveryId,
        webhookId: 'whk_0001',
        seq: first[0].seq,
        attempt: 1,
        at: T0 + 10,
        status: 204,
        delivered: true,
      }),
    );
    assert.equal(await nextClaimAt(), T0 + 1000, 'the delivered one is no longer pending');
    const again = await store().transaction((uow) => uow.webhooks.claim(T0 + 1000, T0 + 3000, 10));
    assert.deepEqual(
      again.map((d) => [d.seq, d.attempt]),
      [[last, 2]],
    );
    // The dead sender's late answer is logged, but the schedule is the latest claim's.
    await store().transaction(async (uow) => {
      await uow.webhooks.record({
        deliveryId: first[1].deliveryId,
        webhookId: 'whk_0001',
        seq: last,
        attempt: 1,
        at: T0 + 1001,
        status: 500,
        delivered: false,
        nextAttemptAt: T0 + 1001,
      });
    });
    assert.deepEqual(await store().transaction((uow) => uow.webhooks.claim(T0 + 1500, T0 + 3000, 10)), []);
    await store().transaction((uow) =>
      uow.webhooks.record({
        deliveryId: again[0].deliveryId,
        webhookId: 'whk_0001',
        seq: last,
        attempt: 2,
        at: T0 + 1600,
        error: 'connect ECONNREFUSED',
        delivered: false,
        nextAttemptAt: T0 + 5000,
      }),
    );
    assert.equal(await nextClaimAt(), T0 + 5000, 'the retry');
    assert.deepEqual(await store().transaction((uow) => uow.webhooks.claim(T0 + 4999, T0 + 9000, 10)), []);
    const third = await store().transaction((uow) => uow.webhooks.claim(T0 + 5000, T0 + 9000, 10));
    assert.deepEqual(
      third.map((d) => [d.seq, d.attempt]),
      [[last, 3]],
    );
    const attempts = await store().read((r) => r.webhooks.attempts('whk_0001', 10));
    assert.deepEqual(attempts, [
      { webhookId: 'whk_0001', seq: last - 1, attempt: 1, at: T0 + 10, status: 204 },
      { webhookId: 'whk_0001', seq: last, attempt: 1, at: T0 + 1001, status: 500, nextAttemptAt: T0 + 1001 },
      {
        webhookId: 'whk_0001',
        seq: last,
        attempt: 2,
        at: T0 + 1600,
        error: 'connect ECONNREFUSED',
        nextAttemptAt: T0 + 5000,
      },
    ]);
    assert.deepEqual(
      (await store().read((r) => r.webhooks.attempts('whk_0001', 1))).map((a) => a.attempt),
      [2],
    );
    // Deleting the webhook drops its deliveries and its log.
    await store().transaction((uow) => uow.webhooks.delete('whk_0001'));
    assert.deepEqual(await store().transaction((uow) => uow.webhooks.claim(T0 + 99_999, T0 + 99_999, 10)), []);
    assert.deepEqual(await store().read((r) => r.webhooks.attempts('whk_0001', 10)), []);
    assert.equal(await nextClaimAt(), undefined, 'nothing pending');
  });

  it('webhooks: racing claims never claim one delivery twice', async () => {
    await store().transaction(async (uow) => {
      await uow.webhooks.put(hook(1));
      const rows = Array.from({ length: 40 }, (_, i) => ({
        webhookId: 'whk_0001',
        seq: i + 1,
        event: stalled(`deal_${i}`),
      }));
      await uow.webhooks.addDeliveries(rows, T0);
    });
    const claims = await Promise.all(
      Array.from({ length: 8 }, () => store().transaction((uow) => uow.webhooks.claim(T0, T0 + 1000, 7))),
    );
    const seqs = claims.flat().map((d) => d.seq);
    assert.equal(seqs.length, 40);
    assert.equal(new Set(seqs).size, 40);
  });

  if (name === 'postgres') {
    it('webhooks: one dispatcher at a time: the cursor is locked, a second unit of work skips it', async () => {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked: () => void = () => undefined;
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const first = store().transaction(async (uow) => {
        assert.equal(typeof (await uow.webhooks.lockCursor()), 'number');
        locked();
        await held;
      });
      await isLocked;
      assert.equal(await store().transaction((uow) => uow.webhooks.lockCursor()), undefined);
      release();
      await first;
      assert.equal(typeof (await store().transaction((uow) => uow.webhooks.lockCursor())), 'number');
    });

    it('webhooks: a unit of work creating a webhook holds the cursor: the dispatcher skips meanwhile', async () => {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let holding: () => void = () => undefined;
      const isHeld = new Promise<void>((resolve) => {
        holding = resolve;
      });
      const creating = store().transaction(async (uow) => {
        await uow.webhooks.holdCursor();
        holding();
        await held;
      });
      await isHeld;
      assert.equal(await store().transaction((uow) => uow.webhooks.lockCursor()), undefined);
      release();
      await creating;
    });
  }
}
