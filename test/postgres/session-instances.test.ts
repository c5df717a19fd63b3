// D-63: the console's sessions are stored, so a sign-out through one instance ends the session on
// every instance within 5 s (it was remembered only by the instance that answered it, and the
// other took the cookie until it expired). Two keys-mode services over one PostgreSQL schema,
// each with its own store and key ring.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, makeKey, makeSeller, OP } from '../support/keys.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('console sessions on two instances over one PostgreSQL database (D-63)', { skip: server.skip }, () => {
  let schema: TestSchema;
  let a: TestServer;
  let b: TestServer;
  let seller: string;

  const start = async () =>
    startTestServer({
      config: { auth: 'keys', operatorKey: OP },
      store: await createStore(schema.url, { poolSize: 4, ownerUrl: schema.ownerUrl }),
    });

  const signIn = async (t: TestServer, key: string) => {
    const answer = await as(t, {}).post('/console/session', { key });
    assert.equal(answer.status, 200, answer.text);
    return answer.headers.getSetCookie()[0].split(';')[0];
  };

  before(async () => {
    schema = await createTestSchema(server.url as string, 'sessions');
    a = await start();
    b = await start();
    seller = await makeSeller(a, 'Session Seller');
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  it('a sign-out through either instance is refused by the other within 5 s, the key still good', async () => {
    for (const [through, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const key = await makeKey(through, OP, { name: 'console', principal: seller });
      const cookie = await signIn(through, key.key);
      for (const t of [a, b]) assert.equal((await as(t, { cookie }).get(`${t.prefix}/deals`)).status, 200);
      assert.equal((await as(through, { cookie }).post('/console/session/end')).status, 204);
      assert.equal((await as(through, { cookie }).get(`${through.prefix}/deals`)).status, 401, 'at once here');
      const started = Date.now();
      let answer = await as(other, { cookie }).get(`${other.prefix}/deals`);
      while (answer.status === 200) {
        assert.ok(Date.now() - started <= 5_000, `still accepted after ${Date.now() - started} ms`);
        await sleep(100);
        answer = await as(other, { cookie }).get(`${other.prefix}/deals`);
      }
      assert.equal(answer.status, 401, answer.text);
      assert.equal(answer.body.code, 'UNAUTHENTICATED');
      assert.equal((await as(other, bearer(key.key)).get(`${other.prefix}/deals`)).status, 200);
    }
  });

  it('the store keeps a session’s token only as its SHA-256', async () => {
    const key = await makeKey(a, OP, { name: 'kept', principal: seller });
    const cookie = await signIn(a, key.key);
    const token = cookie.split('=')[1];
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
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(token).digest('hex');
    assert.ok(
      rows.some((row) => row.includes(hash)),
      'its hash is',
    );
  });
});
