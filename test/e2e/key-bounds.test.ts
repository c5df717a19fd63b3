// D-75: a principal holds at most KEYS_PER_PRINCIPAL keys that are neither revoked nor expired,
// made or rolled, so that minting keys cannot multiply a per-key rate limit. Racing requests for
// the last places get exactly as many as there are. On the store TEST_STORE names.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import { as, bearer, makeSeller, OP, startKeysServer } from '../support/keys.ts';

const BOUND = 4;

describe('keys mode: KEYS_PER_PRINCIPAL bounds the live keys of a principal (D-75)', () => {
  let t: TestServer;
  let seller: string;
  let sellerKey: string;
  let sellerKeyId: string;
  const op = () => as(t, bearer(OP));
  const liveKeys = async (principal: string) =>
    (await op().get(`/keys?principal=${principal}&limit=1000`)).body.filter(
      (k: any) => k.revokedAt === undefined && (k.expiresAt === null || Date.parse(k.expiresAt) > Date.now()),
    );

  before(async () => {
    t = await startKeysServer({ keysPerPrincipal: BOUND });
    seller = await makeSeller(t, 'Bounded Seller');
    const made = await op().post('/keys', { name: 'first', principal: seller });
    sellerKey = made.body.key;
    sellerKeyId = made.body.id;
  });
  after(() => t?.close());

  it('one key past the bound is 409 TOO_MANY_KEYS, made by the principal or by the operator; nothing is made', async () => {
    for (let i = 1; i < BOUND; i++) {
      const made = await as(t, bearer(sellerKey)).post('/keys', { name: `more ${i}`, scopes: ['deals:read'] });
      assert.equal(made.status, 201, made.text);
    }
    assert.equal((await liveKeys(seller)).length, BOUND);
    for (const [who, client, body] of [
      ['the Seller', as(t, bearer(sellerKey)), { name: 'one too many' }],
      ['the operator', op(), { name: 'one too many', principal: seller }],
    ] as const) {
      const refused = await client.post('/keys', body);
      assert.equal(refused.status, 409, `${who}: ${refused.text}`);
      assert.equal(refused.body.code, 'TOO_MANY_KEYS');
      assert.match(refused.body.error, new RegExp(`KEYS_PER_PRINCIPAL ${BOUND}`));
      assert.equal('key' in refused.body, false);
    }
    assert.equal((await liveKeys(seller)).length, BOUND, 'nothing made');
  });

  it('at the bound a roll with grace is refused; with graceSeconds 0 it replaces its key', async () => {
    const withGrace = await as(t, bearer(sellerKey)).post(`/keys/${sellerKeyId}/roll`, { graceSeconds: 60 });
    assert.equal(withGrace.status, 409, withGrace.text);
    assert.equal(withGrace.body.code, 'TOO_MANY_KEYS');
    const stillWorks = await as(t, bearer(sellerKey)).get(`${t.prefix}/deals`);
    assert.equal(stillWorks.status, 200, 'the refused roll left the old key as it was');
    assert.equal((await op().get(`/keys/${sellerKeyId}`)).body.expiresAt, null);
    const replaced = await as(t, bearer(sellerKey)).post(`/keys/${sellerKeyId}/roll`, { graceSeconds: 0 });
    assert.equal(replaced.status, 201, replaced.text);
    sellerKey = replaced.body.key;
    sellerKeyId = replaced.body.id;
    assert.equal((await liveKeys(seller)).length, BOUND);
  });

  it('a revoked key makes room; an expired one too', async () => {
    const mine = await liveKeys(seller);
    const victim = mine.find((k: any) => k.id !== sellerKeyId);
    assert.equal((await as(t, bearer(sellerKey)).post(`/keys/${victim.id}/revoke`)).status, 200);
    const short = await as(t, bearer(sellerKey)).post('/keys', {
      name: 'short-lived',
      scopes: ['deals:read'],
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    assert.equal(short.status, 201, short.text);
    assert.equal((await as(t, bearer(sellerKey)).post('/keys', { name: 'no room' })).status, 409);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const after = await as(t, bearer(sellerKey)).post('/keys', { name: 'room again', scopes: ['deals:read'] });
    assert.equal(after.status, 201, after.text);
  });

  it('requests racing for the last places get exactly as many as there are', async () => {
    const other = await makeSeller(t, 'Racing Seller');
    const first = await op().post('/keys', { name: 'racer', principal: other });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        as(t, bearer(first.body.key)).post('/keys', { name: `race ${i}`, scopes: ['deals:read'] }),
      ),
    );
    const made = answers.filter((a) => a.status === 201).length;
    assert.equal(made, BOUND - 1, answers.map((a) => a.status).join(' '));
    assert.ok(answers.every((a) => a.status === 201 || a.body.code === 'TOO_MANY_KEYS'));
    assert.equal((await liveKeys(other)).length, BOUND);
  });
});
