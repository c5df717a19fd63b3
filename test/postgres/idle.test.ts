// Idle means idle (D-248, D-249): an instance with no traffic sends PostgreSQL next to nothing, with
// or without webhooks registered, counted where its statements leave the process (a relay in
// front of the server, statement-counter.ts). Its webhook worker is woken instead: by a webhook
// made on another instance (a notification), by a retry falling due (a timer), by its own
// commits; so deliveries are as prompt as when it polled four times a second.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { enrol } from '../support/marketplace-e2e.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';
import { type Receiver, startReceiver, until } from '../support/receiver.ts';
import { countStatements, type StatementCounter } from '../support/statement-counter.ts';

const server = await postgresForTests();
const FAST = { webhookAllowPrivate: true, webhookRetryBaseMs: 200, webhookTimeoutMs: 500 };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * The idle window, and the most statements it may see at worst: the platform timers' reads
 * (three a run, every 5 s: up to three runs, nine), their purge (four, once a minute, D-248) and
 * the worker's fallback look (up to nine with a webhook: the dispatch's five and the claim's four;
 * every 10 s, so up to two in the window, D-249). Typically 15; it was 276 without a webhook and
 * 595 with one before.
 */
const IDLE_MS = 10_000;
const MOST = 9 + 4 + 2 * 9;

if (server.skip !== undefined) {
  describe('an idle instance on PostgreSQL', { skip: server.skip }, () => {});
} else {
  describe('an idle instance on PostgreSQL sends next to nothing (D-249)', () => {
    let schema: TestSchema;
    let counter: StatementCounter;
    let watched: TestServer;
    let other: TestServer;
    let receiver: Receiver;
    before(async () => {
      schema = await createTestSchema(server.url, 'idle');
      counter = await countStatements(schema.url);
      // The watched instance runs the platform timers at their default interval, as `npm start` does.
      watched = await startTestServer({
        store: await createStore(counter.url, { poolSize: 4, ownerUrl: schema.ownerUrl }),
        config: { ...FAST, timerIntervalSeconds: 5 },
      });
      other = await startTestServer({
        store: await createStore(schema.url, { poolSize: 4, ownerUrl: schema.ownerUrl }),
        config: FAST,
      });
      // The first attempt of every event fails; the retry succeeds.
      receiver = await startReceiver((_request, response, nth) => {
        response.statusCode = nth % 2 === 1 ? 500 : 204;
        response.end();
      });
    });
    after(async () => {
      await watched?.close();
      await other?.close();
      await receiver?.close();
      await counter?.close();
      await schema?.drop();
    });

    /** What the watched instance sends in the idle window. */
    async function idle(): Promise<{ sent: number; texts: string }> {
      await pause(1500);
      const from = counter.count();
      await pause(IDLE_MS);
      const sent = counter.count() - from;
      return { sent, texts: counter.texts().slice(-sent).join('\n') };
    }

    it('without a webhook: a few statements in ten seconds (it sent 32 a second)', async (t) => {
      const { sent, texts } = await idle();
      assert.ok(sent <= MOST, `${sent} statements in ${IDLE_MS} ms of idling:\n${texts}`);
      t.diagnostic(`${sent} statements in ${IDLE_MS} ms`);
    });

    it('a webhook made on another instance wakes it at once; a retry is sent when due, not at the next poll', async () => {
      const hook = (await other.post('/webhooks', { url: receiver.url })).body;
      // The watched instance publishes: only it is woken by its commit, and only once it knows
      // of the webhook (the other instance's notification); the fallback poll is 10 s away.
      await pause(300);
      const started = Date.now();
      await enrol(watched, 'Idle Closer (fictional)');
      await until('the first attempt and its retry', () => receiver.received.length >= 2, 5000);
      const took = Date.now() - started;
      assert.ok(took < 3000, `delivered after ${took} ms`);
      // The second attempt's outcome is recorded once its answer is back, a moment after the receiver has it.
      const log = await until('both attempts logged', async () => {
        const found = (await watched.get(`/webhooks/${hook.id}/deliveries`)).body as {
          attempt: number;
          status: number;
        }[];
        return found.length >= 2 ? found : undefined;
      });
      assert.deepEqual(
        log.map((entry) => [entry.attempt, entry.status]),
        [
          [1, 500],
          [2, 204],
        ],
      );
    });

    it('with a webhook registered and nothing pending: still a few statements in ten seconds', async (t) => {
      const { sent, texts } = await idle();
      assert.ok(sent <= MOST, `${sent} statements in ${IDLE_MS} ms of idling:\n${texts}`);
      t.diagnostic(`${sent} statements in ${IDLE_MS} ms`);
    });
  });
}
