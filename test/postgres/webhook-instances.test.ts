// Webhooks across instances (D-42): two service instances, each with its own pool and its own
// webhook worker, on one PostgreSQL schema, and one receiver. Each event is delivered exactly
// once when all goes well (one dispatcher at a time, deliveries claimed with SKIP LOCKED), and
// a delivery whose sender died mid-attempt (its lease taken, no answer recorded) is made again
// once the lease ran out: at least once, never lost.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createStore } from '../../src/store/create-store.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { enrol } from '../support/marketplace-e2e.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';
import { type Receiver, startReceiver, until } from '../support/receiver.ts';

const server = await postgresForTests();
const FAST = { webhookAllowPrivate: true, webhookRetryBaseMs: 100, webhookTimeoutMs: 500 };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

if (server.skip !== undefined) {
  describe('webhooks on two instances', { skip: server.skip }, () => {});
} else {
  const baseUrl = server.url;
  describe('webhooks on two instances over one PostgreSQL database', () => {
    let schema: TestSchema;
    let a: TestServer;
    let b: TestServer;
    let receiver: Receiver;
    before(async () => {
      schema = await createTestSchema(baseUrl, 'webhooks');
      const options = { poolSize: 5, ownerUrl: schema.ownerUrl };
      a = await startTestServer({ store: await createStore(schema.url, options), config: FAST });
      b = await startTestServer({ store: await createStore(schema.url, options), config: FAST });
      receiver = await startReceiver();
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await receiver?.close();
      await schema?.drop();
    });

    it('delivers each event exactly once, whichever instance published it', async () => {
      const from = (await a.get('/events?limit=1000')).body.nextAfter as number;
      const hook = (await a.post('/webhooks', { url: receiver.url })).body;
      assert.equal((await b.get(`/webhooks/${hook.id}`)).status, 200, 'both instances see it');
      await Promise.all(Array.from({ length: 20 }, (_, i) => enrol(i % 2 ? a : b, `Closer ${i} (fictional)`)));
      const events = (await a.get(`/events?after=${from}&limit=1000`)).body.events as { id: string }[];
      assert.equal(events.length, 20);
      await until('every event', () => receiver.received.length >= 20, 20_000);
      await pause(1000);
      const ids = receiver.received.map((d) => d.headers['webhook-id']).sort();
      assert.deepEqual(ids, events.map((e) => e.id).sort(), 'each once');
      const verifier = new Webhook(hook.secret);
      for (const d of receiver.received) verifier.verify(d.body, d.headers);
      const log = (await b.get(`/webhooks/${hook.id}/deliveries`)).body as { attempt: number; status: number }[];
      assert.equal(log.length, 20);
      assert.ok(log.every((entry) => entry.attempt === 1 && entry.status === 204));
      assert.equal((await a.raw('DELETE', `/webhooks/${hook.id}`, undefined)).status, 204);
    });

    it('a delivery whose sender died mid-attempt is made again once its lease ran out', async () => {
      receiver.received.length = 0;
      const closer = await enrol(a, 'Before The Crash (fictional)');
      // Read from the feed first: the enrolment is sequenced before the webhook is created (an
      // event committed before a webhook but sequenced after it would be delivered to it).
      await a.get('/events?limit=1');
      const hook = (await a.post('/webhooks', { url: receiver.url })).body;
      // A third instance's sender claims a delivery of that earlier event (before the webhook:
      // no dispatcher makes it) and dies: its lease is taken, no answer is ever recorded.
      const dead = await createStore(schema.url, { poolSize: 1, ownerUrl: schema.ownerUrl });
      const leaseMs = 1500;
      const claimedAt = Date.now();
      try {
        await dead.transaction(async (uow) => {
          const [event] = (await uow.webhooks.feedAfter(0, 1000)).filter(
            (e) => e.event.type === 'closer.enrolled' && e.event.data.closer.id === closer.id,
          );
          await uow.webhooks.addDeliveries([{ webhookId: hook.id, seq: event.seq, event: event.event }], claimedAt);
          const claimed = await uow.webhooks.claim(claimedAt, claimedAt + leaseMs, 10);
          assert.deepEqual(
            claimed.map((c) => [c.seq, c.attempt]),
            [[event.seq, 1]],
          );
        });
      } finally {
        await dead.close();
      }
      await pause(800);
      assert.equal(receiver.received.length, 0, 'nobody sends it while the lease holds');
      await until('the delivery made again', () => receiver.received.length >= 1, 10_000);
      assert.ok(Date.now() - claimedAt >= leaseMs);
      await pause(800);
      assert.equal(receiver.received.length, 1, 'by one instance');
      assert.equal((receiver.received[0].json.data as { closer: { id: string } }).closer.id, closer.id);
      const log = (await a.get(`/webhooks/${hook.id}/deliveries`)).body as { attempt: number; status: number }[];
      assert.deepEqual(
        log.map((entry) => [entry.attempt, entry.status]),
        [[2, 204]],
        'the dead attempt counted, the next one logged',
      );
    });
  });
}
