// D-52: a key revoked through one instance is refused by every instance within 5 s. Two keys-mode
// services (the same OPERATOR_KEY) over one PostgreSQL schema, each with its own store and key
// ring: a key made on one is accepted by the other, and once revoked (or rolled with no grace)
// on one, the other refuses it within 5 s, however warm its ring was. D-76: so does the MCP door
// (stateless: each call is authenticated anew), and an event stream opened on the other instance
// with the key, or with a console session of it, ends within 5 s and is sent nothing once that
// instance refuses the key. D-63: a sign-out through one instance is refused by the other within 5 s.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, type KeyInfo, makeKey, makeSeller, OP } from '../support/keys.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';
import { openStream, type SseMessage, type Stream } from '../support/sse.ts';

const server = await postgresForTests();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Refusal = { status: number; code?: string; text: string };

/** How long until `request` is refused 401 (`code`), asking every 100 ms; fails after `limitMs`. */
async function refusedBy(request: () => Promise<Refusal>, limitMs: number, code = 'INVALID_KEY'): Promise<number> {
  const start = Date.now();
  for (;;) {
    const answer = await request();
    const elapsed = Date.now() - start;
    if (answer.status === 401) {
      assert.equal(answer.code, code);
      return elapsed;
    }
    assert.equal(answer.status, 200, answer.text);
    assert.ok(elapsed <= limitMs, `still accepted after ${elapsed} ms`);
    await sleep(100);
  }
}

/** How long until `key` is refused (401 INVALID_KEY) by `t`, asking every 100 ms; fails after `limitMs`. */
function refusedWithin(t: TestServer, key: string, limitMs: number): Promise<number> {
  return refusedBy(async () => {
    const answer = await as(t, bearer(key)).get(`${t.prefix}/deals`);
    return { status: answer.status, code: answer.body?.code, text: answer.text };
  }, limitMs);
}

/** An MCP call (tools/list) on the demo's door with `key`: its status and the error's code. */
async function mcpCall(t: TestServer, key: string): Promise<Refusal> {
  const answer = await fetch(`${t.url}/demo/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const text = await answer.text();
  return { status: answer.status, code: answer.status === 401 ? JSON.parse(text).code : undefined, text };
}

/** The deal a stream message's event is about. */
function dealOf(message: SseMessage): string | undefined {
  const { data } = JSON.parse(message.data as string);
  return data.dealId ?? data.deal?.id ?? data.gig?.dealId;
}

describe('keys mode on two instances over one PostgreSQL database', { skip: server.skip }, () => {
  let schema: TestSchema;
  let a: TestServer;
  let b: TestServer;
  let seller: string;

  const start = async () =>
    startTestServer({
      config: { auth: 'keys', operatorKey: OP },
      store: await createStore(schema.url, { poolSize: 4, ownerUrl: schema.ownerUrl }),
    });

  /** A Seller's key made on `on`, used on both instances until each holds it. */
  const warmKey = async (on: TestServer, name: string): Promise<KeyInfo> => {
    const key = await makeKey(on, OP, { name, principal: seller });
    for (const t of [a, b, a, b]) {
      const answer = await as(t, bearer(key.key)).get(`${t.prefix}/deals`);
      assert.equal(answer.status, 200, `${name} works on both instances: ${answer.text}`);
    }
    return key;
  };

  before(async () => {
    schema = await createTestSchema(server.url as string, 'keyring');
    a = await start();
    b = await start();
    seller = await makeSeller(a, 'Two-instance Seller');
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  it('both instances accept the same OPERATOR_KEY, and a key made on one is accepted by the other at once', async () => {
    for (const t of [a, b]) assert.equal((await as(t, bearer(OP)).get('/sellers')).status, 200);
    const key = await makeKey(a, OP, { name: 'made on a', principal: seller });
    const onB = await as(b, bearer(key.key)).get(`${b.prefix}/deals`);
    assert.equal(onB.status, 200, onB.text);
    const keyOnB = await makeKey(b, OP, { name: 'made on b', principal: seller });
    assert.equal((await as(a, bearer(keyOnB.key)).get(`${a.prefix}/deals`)).status, 200);
  });

  it('a key revoked through one instance is refused by the other within 5 s (both ways)', async () => {
    for (const [through, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const key = await warmKey(through, 'to revoke');
      const revoke = await as(through, bearer(OP)).post(`/keys/${key.id}/revoke`, {});
      assert.equal(revoke.status, 200, revoke.text);
      assert.equal(
        (await as(through, bearer(key.key)).get(`${through.prefix}/deals`)).status,
        401,
        'refused at once where it was revoked',
      );
      const ms = await refusedWithin(other, key.key, 5_000);
      assert.ok(ms <= 5_000, `the other instance refused it after ${ms} ms`);
      // And it stays refused.
      await sleep(300);
      assert.equal((await as(other, bearer(key.key)).get(`${other.prefix}/deals`)).status, 401);
    }
  });

  it('a key revoked by its own Seller on one instance: the other refuses it within 5 s', async () => {
    const key = await warmKey(a, 'self-revoked');
    const revoke = await as(a, bearer(key.key)).post(`/keys/${key.id}/revoke`, {});
    assert.equal(revoke.status, 200, revoke.text);
    await refusedWithin(b, key.key, 5_000);
  });

  it('a key rolled with graceSeconds 0 on one instance: the other refuses the old key within 5 s and accepts the new', async () => {
    const key = await warmKey(a, 'to roll');
    const roll = await as(a, bearer(OP)).post(`/keys/${key.id}/roll`, { graceSeconds: 0 });
    assert.equal(roll.status, 201, roll.text);
    assert.equal((await as(b, bearer(roll.body.key)).get(`${b.prefix}/deals`)).status, 200, 'the new key on b');
    await refusedWithin(b, key.key, 5_000);
    await refusedWithin(a, key.key, 5_000);
  });

  // D-76: the MCP door is stateless (each POST its own server and transport, authenticated by
  // the door's hook), so no MCP session can outlive its key: every call asks the ring anew.
  it('an MCP call with a key revoked through one instance is refused by the other within 5 s', async () => {
    const key = await warmKey(a, 'mcp');
    assert.equal((await mcpCall(b, key.key)).status, 200, 'served on b before');
    const revoke = await as(a, bearer(OP)).post(`/keys/${key.id}/revoke`, {});
    assert.equal(revoke.status, 200, revoke.text);
    assert.equal((await mcpCall(a, key.key)).status, 401, 'refused at once where it was revoked');
    const ms = await refusedBy(() => mcpCall(b, key.key), 5_000);
    assert.ok(ms <= 5_000, `b's MCP door refused it after ${ms} ms`);
  });

  /**
   * D-76: a stream on b opened with `headers` (a key of the Seller's, or a console session),
   * shown live by a sale; then its credential is ended through a (`end`) while another key of the
   * Seller sells through a every 200 ms. The stream ends within 5 s, and no event of a sale made
   * once b refuses the credential (`learned`: b knows of the end) reaches it. Answers how long
   * the stream took to end.
   */
  const streamOnBEnds = async (
    headers: Record<string, string>,
    end: () => Promise<void>,
    learned: () => Promise<number>,
  ): Promise<number> => {
    const writer = await warmKey(a, 'writer');
    const sell = async (name: string): Promise<string> => {
      const sold = await as(a, bearer(writer.key)).post(`${a.prefix}/sell`, {
        account: account({ name }),
        listValueUsd: 30_000,
      });
      assert.equal(sold.status, 201, sold.text);
      return sold.body.id;
    };
    const newest = (await as(b, bearer(OP)).get('/events?limit=1')).body.lastSeq as number;
    const stream: Stream = await openStream(b, `/events/stream?after=${newest}`, headers);
    try {
      assert.equal(stream.response.statusCode, 200);
      const first = await sell('Before the revocation');
      await stream.waitFor((m) => m.some((x) => dealOf(x) === first));
      const endedAt = Date.now();
      await end();
      // When b is seen refusing the credential: it knew of the end by then.
      const knownOnB = learned().then(() => Date.now());
      knownOnB.catch(() => undefined);
      const sales: { dealId: string; at: number }[] = [];
      while (!stream.isEnded()) {
        const elapsed = Date.now() - endedAt;
        assert.ok(elapsed <= 5_000, `the stream is still open ${elapsed} ms after its credential ended`);
        sales.push({ dealId: await sell('Sold meanwhile'), at: Date.now() });
        await sleep(200);
      }
      const endedMs = Date.now() - endedAt;
      const learnedAt = await knownOnB;
      sales.push({ dealId: await sell('After the end'), at: Date.now() });
      await sleep(1_000); // more than b's poll of the feed (STREAM_POLL_MS)
      const late = new Set(sales.filter(({ at }) => at > learnedAt).map(({ dealId }) => dealId));
      assert.deepEqual(
        stream.messages.filter((m) => late.has(dealOf(m) as string)).map((m) => m.id),
        [],
        'no event of a sale made once b refused the credential',
      );
      return endedMs;
    } finally {
      stream.close();
    }
  };

  /** The key revoked through a, and b seen refusing it. */
  const revocation = (key: KeyInfo) => ({
    end: async () => {
      const revoke = await as(a, bearer(OP)).post(`/keys/${key.id}/revoke`, {});
      assert.equal(revoke.status, 200, revoke.text);
    },
    learned: () => refusedWithin(b, key.key, 5_000),
  });

  /** A console session of `key`, signed in through a: its cookie. */
  const signIn = async (key: KeyInfo): Promise<string> => {
    const answer = await as(a, {}).post('/console/session', { key: key.key });
    assert.equal(answer.status, 200, answer.text);
    return answer.headers.getSetCookie()[0].split(';')[0];
  };

  it("a stream opened on one instance with a key ends within 5 s of the key's revocation through the other, and is sent nothing after", async () => {
    const key = await warmKey(b, 'streaming');
    const { end, learned } = revocation(key);
    const ms = await streamOnBEnds(bearer(key.key), end, learned);
    assert.ok(ms <= 5_000, `ended after ${ms} ms`);
  });

  it("a console session's stream on one instance ends within 5 s of its key's revocation through the other", async () => {
    const key = await warmKey(b, 'console');
    const { end, learned } = revocation(key);
    const ms = await streamOnBEnds({ cookie: await signIn(key) }, end, learned);
    assert.ok(ms <= 5_000, `ended after ${ms} ms`);
  });

  it("a console session's stream on one instance ends within 5 s of the sign-out through the other", async () => {
    const key = await warmKey(b, 'signed out');
    const cookie = await signIn(key);
    const ms = await streamOnBEnds(
      { cookie },
      async () => {
        assert.equal((await as(a, { cookie }).post('/console/session/end')).status, 204);
      },
      () =>
        refusedBy(
          async () => {
            const answer = await as(b, { cookie }).get('/console/session');
            return { status: answer.status, code: answer.body?.code, text: answer.text };
          },
          5_000,
          'UNAUTHENTICATED',
        ),
    );
    assert.ok(ms <= 5_000, `ended after ${ms} ms`);
  });
  it('a sign-out through either instance is refused by the other within 5 s, the key still good (D-63)', async () => {
    for (const [through, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const key = await makeKey(through, OP, { name: 'console', principal: seller });
      const answer = await as(through, {}).post('/console/session', { key: key.key });
      assert.equal(answer.status, 200, answer.text);
      const cookie = answer.headers.getSetCookie()[0].split(';')[0];
      for (const t of [a, b]) assert.equal((await as(t, { cookie }).get(`${t.prefix}/deals`)).status, 200);
      assert.equal((await as(through, { cookie }).post('/console/session/end')).status, 204);
      assert.equal((await as(through, { cookie }).get(`${through.prefix}/deals`)).status, 401, 'at once here');
      const started = Date.now();
      let refused = await as(other, { cookie }).get(`${other.prefix}/deals`);
      while (refused.status === 200) {
        assert.ok(Date.now() - started <= 5_000, `still accepted after ${Date.now() - started} ms`);
        await sleep(100);
        refused = await as(other, { cookie }).get(`${other.prefix}/deals`);
      }
      assert.equal(refused.status, 401, refused.text);
      assert.equal(refused.body.code, 'UNAUTHENTICATED');
      assert.equal((await as(other, bearer(key.key)).get(`${other.prefix}/deals`)).status, 200);
    }
  });

  it('the store keeps a console session’s token only as its SHA-256 (D-63)', async () => {
    const key = await makeKey(a, OP, { name: 'kept', principal: seller });
    const token = (await signIn(key)).split('=')[1];
    const rows = await sqlOn(schema.url, async (client) => {
      await client.query('BEGIN');
      await client.query("SELECT set_config('pipeline.principal', 'platform', true)");
      const result = await client.query('SELECT s::text AS t FROM console_sessions s');
      await client.query('COMMIT');
      return result.rows.map((row) => row.t as string);
    });
    assert.ok(rows.length >= 1);
    assert.ok(
      rows.every((row) => !row.includes(token)),
      'no token in any row',
    );
    assert.ok(
      rows.some((row) => row.includes(createHash('sha256').update(token).digest('hex'))),
      'its hash is',
    );
  });
});
