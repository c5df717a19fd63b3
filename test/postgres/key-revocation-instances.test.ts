// D-52: a key revoked through one instance is refused by every instance within 5 s. Two keys-mode
// services (the same OPERATOR_KEY) over one PostgreSQL schema, each with its own store and key
// ring: a key made on one is accepted by the other, and once revoked (or rolled with no grace)
// on one, the other refuses it within 5 s, however warm its ring was.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, type KeyInfo, makeKey, makeSeller, OP } from '../support/keys.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long until `key` is refused (401 INVALID_KEY) by `t`, asking every 100 ms; fails after `limitMs`. */
async function refusedWithin(t: TestServer, key: string, limitMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    const answer = await as(t, bearer(key)).get(`${t.prefix}/deals`);
    const elapsed = Date.now() - start;
    if (answer.status === 401) {
      assert.equal(answer.body.code, 'INVALID_KEY');
      return elapsed;
    }
    assert.equal(answer.status, 200, answer.text);
    assert.ok(elapsed <= limitMs, `still accepted after ${elapsed} ms`);
    await sleep(100);
  }
}

describe('keys mode on two instances over one PostgreSQL database', { skip: server.skip }, () => {
  let schema: TestSchema;
  let a: TestServer;
  let b: TestServer;
  let seller: string;

  const start = async () =>
    startTestServer({
      config: { auth: 'keys', operatorKey: OP },
      store: await createStore(schema.url, { poolSize: 4 }),
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
});
