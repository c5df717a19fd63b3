// End to end over real HTTP (D-42): webhooks registered on a real service deliver to real
// receivers on real ports, signed as Standard Webhooks says and verified with that package's
// own verifier, as a receiver would. Runs on every store (TEST_STORE=memory|postgres|pglite).
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { isForbiddenAddress } from '../../src/service/webhooks/address-policy.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { assertError, createDeal, enrol } from '../support/marketplace-e2e.ts';
import { freePort, type Receiver, startReceiver, until } from '../support/receiver.ts';

/** Private addresses allowed (the receivers are on loopback), a short schedule and timeout. */
const FAST = { webhookAllowPrivate: true, webhookRetryBaseMs: 100, webhookTimeoutMs: 500 };

interface Created {
  id: string;
  url: string;
  types: string[];
  secret: string;
  createdAt: string;
}

async function subscribe(t: TestServer, url: string, types?: string[]): Promise<Created> {
  const answer = await t.post<Created>('/webhooks', types ? { url, types } : { url });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

const attempts = async (t: TestServer, id: string) => (await t.get(`/webhooks/${id}/deliveries`)).body as any[];
const del = (t: TestServer, id: string) => t.raw('DELETE', `/webhooks/${id}`, undefined);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhooks: subscriptions', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ config: FAST });
  });
  after(() => t.close());

  it('POST answers 201 with id, url, types (all by default), createdAt and the secret, shown only there', async () => {
    const answer = await t.post<Created>('/webhooks', { url: 'http://127.0.0.1:9/hook' });
    assert.equal(answer.status, 201);
    const hook = answer.body;
    assert.match(hook.id, /^whk_\d{4}$/);
    assert.equal(answer.headers.get('location'), `/webhooks/${hook.id}`);
    assert.equal(hook.url, 'http://127.0.0.1:9/hook');
    assert.ok(hook.types.includes('deal.created') && hook.types.includes('demo.reset'));
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(hook.secret.slice(6), 'base64').length, 24);
    assert.ok(!Number.isNaN(Date.parse(hook.createdAt)));
    const { secret, ...shown } = hook;
    assert.deepEqual((await t.get(`/webhooks/${hook.id}`)).body, shown);
    assert.ok(((await t.get('/webhooks')).body as unknown[]).some((h) => JSON.stringify(h) === JSON.stringify(shown)));
    assert.doesNotMatch(JSON.stringify((await t.get('/webhooks')).body), /whsec_/);
    const other = await subscribe(t, 'http://127.0.0.1:9/other', ['deal.closed', 'deal.closed']);
    assert.deepEqual(other.types, ['deal.closed']);
    assert.notEqual(other.secret, secret);
  });

  it('takes an Idempotency-Key: a replay answers the same bytes and creates nothing more', async () => {
    const before = ((await t.get('/webhooks')).body as unknown[]).length;
    const headers = { 'idempotency-key': 'whk-key-1' };
    const first = await t.post('/webhooks', { url: 'http://127.0.0.1:9/keyed' }, headers);
    const again = await t.post('/webhooks', { url: 'http://127.0.0.1:9/keyed' }, headers);
    assert.equal(first.status, 201);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(((await t.get('/webhooks')).body as unknown[]).length, before + 1);
    assertError(await t.post('/webhooks', { url: 'http://127.0.0.1:9/other' }, headers), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('bad input is 400 in the catalogue shape and creates nothing', async () => {
    const before = (await t.get('/webhooks')).body;
    const cases: unknown[] = [
      { url: 'not a url' },
      { url: 'ftp://example.com/hook' },
      { url: 'javascript:alert(1)' },
      { url: `https://example.com/${'a'.repeat(2000)}` },
      { url: '' },
      {},
      { url: 'https://example.com/', types: ['deal.nope'] },
      { url: 'https://example.com/', types: [] },
      { url: 'https://example.com/', extra: true },
      { url: 42 },
    ];
    for (const body of cases) {
      const answer = await t.post('/webhooks', body);
      assertError(answer, 400, 'INVALID_BODY');
      assert.ok(Array.isArray(answer.body.violations), JSON.stringify(body).slice(0, 80));
    }
    assert.deepEqual((await t.get('/webhooks')).body, before);
  });

  it('an unknown id is 404 WEBHOOK_NOT_FOUND on every route; DELETE answers 204 once', async () => {
    for (const id of ['whk_9999', 'nope', 'deal_0001', 'whk_'.padEnd(300, '1')]) {
      assertError(await t.get(`/webhooks/${id}`), 404, 'WEBHOOK_NOT_FOUND');
      assertError(await t.get(`/webhooks/${id}/deliveries`), 404, 'WEBHOOK_NOT_FOUND');
      assertError(await del(t, id), 404, 'WEBHOOK_NOT_FOUND');
    }
    const hook = await subscribe(t, 'http://127.0.0.1:9/gone');
    const deleted = await del(t, hook.id);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, undefined);
    assertError(await del(t, hook.id), 404, 'WEBHOOK_NOT_FOUND');
    assertError(await t.get(`/webhooks/${hook.id}`), 404, 'WEBHOOK_NOT_FOUND');
  });

  it('a reset deletes every webhook', async () => {
    await subscribe(t, 'http://127.0.0.1:9/reset');
    assert.equal((await t.post('/demo/reset')).status, 200);
    assert.deepEqual((await t.get('/webhooks')).body, []);
    assertError(await t.get('/webhooks/whk_0001'), 404, 'WEBHOOK_NOT_FOUND');
    assert.equal((await subscribe(t, 'http://127.0.0.1:9/after')).id, 'whk_0001', 'numbers restart');
  });
});

describe('webhooks: deliveries', () => {
  let t: TestServer;
  const receivers: Receiver[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  before(async () => {
    t = await startTestServer({ config: FAST });
  });
  after(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });

  /** The feed's events after a seq, as GET /events answers them. */
  const feedAfter = async (after: number) => (await t.get(`/events?after=${after}&limit=1000`)).body.events as any[];
  const lastSeq = async () => (await t.get('/events?after=0&limit=1000')).body.nextAfter as number;

  it('every event published after the subscription reaches the receiver, signed and verifiable with standardwebhooks', async () => {
    const r = await receiver();
    const from = await lastSeq();
    const hook = await subscribe(t, r.url);
    await enrol(t, 'Webhook Closer (fictional)', ['saas']);
    await createDeal(t);
    const events = await until('the feed', async () => {
      const found = await feedAfter(from);
      return found.length >= 2 ? found : undefined;
    });
    await until('every event delivered', () => r.received.length >= events.length);
    await pause(300);
    assert.equal(r.received.length, events.length, 'each once');
    const verifier = new Webhook(hook.secret);
    const bySeq = new Map(r.received.map((d) => [d.json.seq, d]));
    for (const event of events) {
      const delivery = bySeq.get(event.seq);
      assert.ok(delivery, `evt_${event.seq} delivered`);
      assert.deepEqual(verifier.verify(delivery.body, delivery.headers), event);
      assert.equal(delivery.headers['webhook-id'], event.id);
      assert.match(delivery.headers['webhook-timestamp'], /^\d{10}$/);
      assert.ok(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000) < 30);
      assert.match(delivery.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
      assert.match(delivery.headers['content-type'], /^application\/json/);
    }
    // Another secret does not verify it: the signature is the webhook's own.
    const stranger = new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`);
    assert.throws(() => stranger.verify(r.received[0].body, r.received[0].headers));
    const log = await attempts(t, hook.id);
    assert.equal(log.length, events.length);
    for (const entry of log) {
      assert.equal(entry.attempt, 1);
      assert.equal(entry.status, 204);
      assert.equal(entry.eventId, `evt_${entry.seq}`);
      assert.equal(entry.nextAttemptAt, undefined);
    }
    await del(t, hook.id);
  });

  it('types filter what a webhook gets', async () => {
    const r = await receiver();
    const hook = await subscribe(t, r.url, ['closer.enrolled']);
    await createDeal(t);
    const closer = await enrol(t, 'Typed Closer (fictional)');
    await until('the enrolment', () => r.received.length >= 1);
    await pause(500);
    assert.deepEqual(
      r.received.map((d) => [d.json.type, (d.json.data as any).closer.id]),
      [['closer.enrolled', closer.id]],
    );
    await del(t, hook.id);
  });

  it('a receiver answering 500 is retried on the schedule until it answers 2xx; the log shows both attempts', async () => {
    const r = await receiver((_req, res, nth) => {
      res.writeHead(nth === 1 ? 500 : 200).end('ok');
    });
    const hook = await subscribe(t, r.url, ['closer.enrolled']);
    await enrol(t, 'Retried Closer (fictional)');
    await until('the retry', () => r.received.length >= 2);
    assert.equal(r.received[0].headers['webhook-id'], r.received[1].headers['webhook-id']);
    const log = await until('both attempts logged', async () => {
      const found = await attempts(t, hook.id);
      return found.length >= 2 ? found : undefined;
    });
    assert.deepEqual(
      log.map((a) => [a.attempt, a.status, a.nextAttemptAt !== undefined]),
      [
        [1, 500, true],
        [2, 200, false],
      ],
    );
    const delay = Date.parse(log[0].nextAttemptAt) - Date.parse(log[0].at);
    assert.ok(delay >= 100 && delay < 1000, `about one retry base later (${delay} ms)`);
    await del(t, hook.id);
  });

  it('a receiver that is down gets what it missed once it is back on the same port', async () => {
    const port = await freePort();
    const hook = await subscribe(t, `http://127.0.0.1:${port}/hook`, ['closer.enrolled']);
    const missed = await enrol(t, 'Missed Closer (fictional)');
    const failed = await until('a refused attempt', async () => {
      const found = await attempts(t, hook.id);
      return found.length >= 2 ? found : undefined;
    });
    assert.ok(
      failed.every((a) => a.status === undefined && /ECONNREFUSED|connect/i.test(a.error)),
      JSON.stringify(failed),
    );
    const r = await receiver(undefined, port);
    await until('the missed event', () => r.received.length >= 1, 20_000);
    assert.equal((r.received[0].json.data as any).closer.id, missed.id);
    assert.doesNotThrow(() => new Webhook(hook.secret).verify(r.received[0].body, r.received[0].headers));
    await del(t, hook.id);
  });

  it('a receiver slower than the attempt timeout is retried', async () => {
    const r = await receiver(async (_req, res, nth) => {
      if (nth === 1) await pause(1500);
      if (!res.destroyed) res.writeHead(200).end();
    });
    const hook = await subscribe(t, r.url, ['closer.enrolled']);
    await enrol(t, 'Slow Closer (fictional)');
    const log = await until('a timed-out attempt, then a delivered one', async () => {
      const found = await attempts(t, hook.id);
      return found.some((a) => a.status === 200) ? found : undefined;
    });
    assert.match(log[0].error, /no answer within 500 ms/);
    assert.equal(log[0].attempt, 1);
    assert.equal(log[log.length - 1].status, 200);
    await del(t, hook.id);
  });

  it('a redirect is not followed: a 3xx is a failed attempt', async () => {
    const target = await receiver();
    const r = await receiver((_req, res) => {
      res.writeHead(307, { location: target.url }).end();
    });
    const hook = await subscribe(t, r.url, ['closer.enrolled']);
    await enrol(t, 'Redirected Closer (fictional)');
    const log = await until('two redirected attempts', async () => {
      const found = await attempts(t, hook.id);
      return found.length >= 2 ? found : undefined;
    });
    assert.deepEqual(
      log.slice(0, 2).map((a) => [a.attempt, a.status, a.nextAttemptAt !== undefined]),
      [
        [1, 307, true],
        [2, 307, true],
      ],
    );
    assert.equal(target.received.length, 0);
    await del(t, hook.id);
  });

  it('a huge answer is read no further than 64 KiB, and the delivery stands', async () => {
    let written = 0;
    let cut = false;
    const total = 64 * 1024 * 1024;
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => {
        cut = written < total;
      });
      pump();
    });
    const hook = await subscribe(t, r.url, ['closer.enrolled']);
    await enrol(t, 'Verbose Closer (fictional)');
    const log = await until('the attempt logged', async () => {
      const found = await attempts(t, hook.id);
      return found.length >= 1 ? found : undefined;
    });
    assert.equal(log[0].status, 200);
    assert.equal(log[0].nextAttemptAt, undefined);
    await until('the answer cut', () => cut);
    assert.ok(written < 16 * 1024 * 1024, `the service stopped reading early (${written} bytes written)`);
    await del(t, hook.id);
  });

  it('DELETE stops deliveries', async () => {
    const r = await receiver();
    const hook = await subscribe(t, r.url, ['closer.enrolled']);
    await enrol(t, 'Before Delete (fictional)');
    await until('the first', () => r.received.length >= 1);
    assert.equal((await del(t, hook.id)).status, 204);
    await enrol(t, 'After Delete (fictional)');
    await pause(800);
    assert.equal(r.received.length, 1);
  });

  it('failures of one receiver never hold up another', async () => {
    const slow = await receiver(async (_req, res) => {
      await pause(2000);
      if (!res.destroyed) res.writeHead(200).end();
    });
    const fast = await receiver();
    const slowHooks = await Promise.all(Array.from({ length: 3 }, () => subscribe(t, slow.url, ['closer.enrolled'])));
    const hook = await subscribe(t, fast.url, ['closer.enrolled']);
    const started = Date.now();
    await enrol(t, 'Busy Closer (fictional)');
    await until('the fast receiver', () => fast.received.length >= 1);
    assert.ok(Date.now() - started < 1500, `delivered in ${Date.now() - started} ms`);
    for (const h of [...slowHooks, hook]) await del(t, h.id);
  });
});

describe('webhooks: the SSRF rule (WEBHOOK_ALLOW_PRIVATE off)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ config: { ...FAST, webhookAllowPrivate: false } });
  });
  after(() => t.close());

  it('refuses a url at a loopback, private or link-local address or name: 422 WEBHOOK_URL_FORBIDDEN, nothing created', async () => {
    for (const url of [
      'http://127.0.0.1/hook',
      'http://127.1.2.3:8080/hook',
      'http://localhost:3000/hook',
      'https://api.localhost/hook',
      'http://10.0.0.8/hook',
      'http://172.16.5.4/hook',
      'http://192.168.1.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      // IPv4 inside IPv6 (D-252): NAT64, 6to4 and IPv4-compatible forms of refused addresses,
      // and any Teredo address.
      'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
      'http://[2002:7f00:1::]/hook',
      'http://[2002:c0a8:101::1]:8080/hook',
      'http://[::127.0.0.1]/hook',
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
      'http://[fe80::1]/hook',
      'http://[fd12:3456::1]/hook',
      'http://0.0.0.0/hook',
      'http://2130706433/hook', // 127.0.0.1 written as a number
      'http://0x7f.1/hook',
    ]) {
      assertError(await t.post('/webhooks', { url }), 422, 'WEBHOOK_URL_FORBIDDEN');
    }
    assert.deepEqual((await t.get('/webhooks')).body, []);
  });

  it('refuses a host name that resolves to such an address', async (context) => {
    const name = hostname();
    const addresses = await lookup(name, { all: true }).catch(() => []);
    if (addresses.length === 0 || !addresses.every((a) => isForbiddenAddress(a.address))) {
      context.skip(`${name} does not resolve to a private address here`);
      return;
    }
    assertError(await t.post('/webhooks', { url: `http://${name}:8080/hook` }), 422, 'WEBHOOK_URL_FORBIDDEN');
  });

  it('checks the address actually connected to at delivery: a name resolving to loopback is never reached', async () => {
    const r = await startReceiver();
    try {
      // As if a name had resolved to a public address at registration and to loopback later
      // (DNS rebinding): the webhooks are stored as they are, past the registration check.
      await t.server.store.transaction(async (uow) => {
        for (const [n, url] of [
          [1, `http://localhost:${r.port}/hook`],
          [2, r.url],
          [3, `http://[2002:7f00:1::]:${r.port}/hook`], // 127.0.0.1 over 6to4 (D-252)
        ] as const) {
          await uow.webhooks.takeNumber();
          await uow.webhooks.put({
            id: `whk_000${n}`,
            url,
            secret: `whsec_${Buffer.alloc(24, n).toString('base64')}`,
            createdAt: Date.now(),
            afterSeq: await uow.webhooks.feedLastSeq(),
          });
        }
      });
      await enrol(t, 'Rebound Closer (fictional)');
      for (const id of ['whk_0001', 'whk_0002', 'whk_0003']) {
        const log = await until(`${id} refused`, async () => {
          const found = await attempts(t, id);
          return found.length >= 1 ? found : undefined;
        });
        assert.equal(log[0].status, undefined);
        assert.match(log[0].error, /loopback, private or link-local/);
        assert.ok(log[0].nextAttemptAt, 'retried later, in case the name resolves elsewhere then');
      }
      assert.equal(r.received.length, 0);
    } finally {
      await r.close();
    }
  });
});
