// The console's session in keys mode (D-59, D-232..D-234), over real keys-mode servers: a key is
// traded once for a cookie that holds no key (HttpOnly, SameSite=Strict, Path=/, 12 hours, Secure
// over https); the cookie authenticates reads and writes with the key's scopes; another origin's
// request carrying it is refused whatever its method; signing out, revoking the key or 12 hours
// end it; a session made on one instance is good on another of the same deployment. In the demo
// the session's paths are not routes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, dealBody, enrolCloser, makeKey, makeSeller, OP, wrongKey } from '../support/keys.ts';

const HOUR = 3_600_000;

/** The session cookie of a sign-in's answer, and its Set-Cookie header as sent. */
function cookieOf(headers: Headers): { cookie: string; setCookie: string } {
  const [setCookie] = headers.getSetCookie();
  assert.ok(setCookie, 'the answer sets a cookie');
  return { cookie: setCookie.split(';')[0], setCookie };
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('the console’s session in keys mode (D-59)', () => {
  let t: TestServer;
  let now = Date.UTC(2031, 0, 6, 9);
  let sellerId: string;
  let otherSellerId: string;
  let sellerKey: { id: string; key: string };
  let otherKey: { id: string; key: string };
  let closerId: string;
  let closerKey: { id: string; key: string };
  const anon = () => as(t, {});

  before(async () => {
    t = await startTestServer({
      clock: { now: () => now },
      config: { auth: 'keys', operatorKey: OP, allowedOrigins: ['http://listed.example'] },
    });
    sellerId = await makeSeller(t, 'Acme Fictional Sales');
    otherSellerId = await makeSeller(t, 'Other Fictional Sales');
    sellerKey = await makeKey(t, OP, { name: 'console', principal: sellerId });
    otherKey = await makeKey(t, OP, { name: 'other', principal: otherSellerId });
    closerId = await enrolCloser(t, 'Cleo Fictional');
    closerKey = await makeKey(t, OP, { name: 'desk', principal: closerId });
  });
  after(() => t?.close());

  const signIn = async (key: string, headers: Record<string, string> = {}) => {
    const answer = await anon().post('/console/session', { key }, headers);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return { answer, ...cookieOf(answer.headers) };
  };

  it('trades a key for a cookie that holds no key: HttpOnly, SameSite=Strict, Path=/, 12 hours, not Secure over http', async () => {
    const { answer, cookie, setCookie } = await signIn(sellerKey.key);
    assert.deepEqual(
      { ...answer.body, expiresAt: undefined },
      {
        principal: sellerId,
        kind: 'seller',
        name: 'Acme Fictional Sales',
        keyId: sellerKey.id,
        scopes: [
          'deals:read',
          'deals:write',
          'deals:propose',
          'events:read',
          'webhooks:manage',
          'keys:manage',
          'users:manage',
          'approvals:decide',
        ],
        expiresAt: undefined,
      },
    );
    assert.equal(answer.body.expiresAt, new Date(now + 12 * HOUR).toISOString());
    const attributes = setCookie.split(';').map((part) => part.trim().toLowerCase());
    // D-232: a random token, 32 bytes (the store keeps only its SHA-256).
    assert.match(cookie, /^sp_console=[\w-]{43}$/);
    for (const flag of ['httponly', 'samesite=strict', 'path=/', 'max-age=43200'])
      assert.ok(attributes.includes(flag), `${flag} in ${setCookie}`);
    assert.ok(!attributes.includes('secure'), `no Secure over http: ${setCookie}`);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    // Nothing of the key is in the cookie (nor in the answer).
    assert.ok(!setCookie.includes(sellerKey.key.slice(6, 20)), 'the key is not in the cookie');
    assert.ok(!answer.text.includes(sellerKey.key), 'the key is not in the answer');
    // GET /console/session says the same.
    const again = await anon().get('/console/session', { cookie });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, answer.body);
  });

  it('over https it is __Host-sp_console: Secure, Path=/, no Domain (the page’s Origin, or a proxy’s x-forwarded-proto) (D-78)', async () => {
    const host = new URL(t.url).host;
    for (const headers of [{ origin: `https://${host}` }, { 'x-forwarded-proto': 'https' }] as Record<
      string,
      string
    >[]) {
      const { cookie, setCookie } = await signIn(sellerKey.key, headers);
      assert.match(cookie, /^__Host-sp_console=[\w-]{43}$/, setCookie);
      assert.match(setCookie, /;\s*Secure/i);
      assert.match(setCookie, /;\s*Path=\/(;|$)/i);
      assert.doesNotMatch(setCookie, /Domain=/i);
      // Read back over https, whether the request says so or not (a GET carries no Origin).
      assert.equal((await as(t, { cookie, 'x-forwarded-proto': 'https' }).get(`${t.prefix}/deals`)).status, 200);
      assert.equal((await as(t, { cookie }).get(`${t.prefix}/deals`)).status, 200);
      // Signing out over https clears the __Host- cookie.
      const end = await as(t, { cookie, 'x-forwarded-proto': 'https' }).post('/console/session/end');
      assert.match(end.headers.getSetCookie()[0], /^__Host-sp_console=;.*Secure/i);
    }
  });

  it('over https a session under the plain name (as a sibling host could plant it) is not taken (D-78)', async () => {
    const { cookie } = await signIn(sellerKey.key);
    assert.match(cookie, /^sp_console=/);
    const overHttps = await as(t, { cookie, 'x-forwarded-proto': 'https' }).get(`${t.prefix}/deals`);
    assert.equal(overHttps.status, 401, 'the plain name is not read over https');
    // Beside a __Host- cookie, the __Host- one is what counts.
    const secure = await signIn(otherKey.key, { 'x-forwarded-proto': 'https' });
    const both = `${cookie}; ${secure.cookie}`;
    const session = await as(t, { cookie: both }).get('/console/session');
    assert.equal(session.body.principal, otherSellerId);
  });

  it('names the closer and the operator', async () => {
    const closer = await signIn(closerKey.key);
    assert.equal(closer.answer.body.kind, 'closer');
    assert.equal(closer.answer.body.name, 'Cleo Fictional');
    assert.equal(closer.answer.body.principal, closerId);
    const operator = await signIn(OP);
    assert.equal(operator.answer.body.kind, 'operator');
    assert.equal(operator.answer.body.name, 'Operator');
    assert.deepEqual(operator.answer.body.scopes, ['admin']);
  });

  it('refuses a wrong key (401 INVALID_KEY) and a body without one (400 INVALID_BODY), setting no cookie', async () => {
    for (const key of [wrongKey(), 'short', `${OP}x`]) {
      const answer = await anon().post('/console/session', { key });
      assert.equal(answer.status, 401, key);
      assert.equal(answer.body.code, 'INVALID_KEY');
      assert.deepEqual(answer.headers.getSetCookie(), []);
    }
    const missing = await anon().post('/console/session', {});
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'INVALID_BODY');
    const none = await anon().get('/console/session');
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'UNAUTHENTICATED');
  });

  it('authenticates reads and writes as the key, with its scopes and what it may see', async () => {
    const { cookie } = await signIn(sellerKey.key);
    const seller = as(t, { cookie });
    const made = await seller.post(`${t.prefix}/deals`, dealBody('Session Fictional'));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.sellerId, sellerId);
    const theirs = await as(t, bearer(otherKey.key)).post(`${t.prefix}/deals`, dealBody('Theirs Fictional'));
    assert.equal(theirs.status, 201);
    const listed = await seller.get(`${t.prefix}/deals`);
    assert.equal(listed.status, 200);
    const names = listed.body.map((deal: { account: { name: string } }) => deal.account.name);
    assert.ok(names.includes('Session Fictional'));
    assert.ok(!names.includes('Theirs Fictional'), 'another Seller’s deal is not shown');
    assert.equal((await seller.get(`${t.prefix}/deals/${theirs.body.id}`)).status, 404);
    // The operator's operations stay the operator's.
    const sellers = await seller.post('/sellers', { name: 'Nope' });
    assert.equal(sellers.status, 403);
    assert.equal(sellers.body.code, 'INSUFFICIENT_SCOPE');
    // A read-only key's session reads and cannot write.
    const reader = await makeKey(t, OP, { name: 'reader', principal: sellerId, scopes: ['deals:read'] });
    const readOnly = as(t, { cookie: (await signIn(reader.key)).cookie });
    assert.equal((await readOnly.get(`${t.prefix}/deals`)).status, 200);
    const refused = await readOnly.post(`${t.prefix}/deals`, dealBody('Nope'));
    assert.equal(refused.status, 403);
    assert.equal(refused.body.requiredScope, 'deals:write');
  });

  it('a bearer key, when sent, is what counts: the cookie is read only without Authorization', async () => {
    const { cookie } = await signIn(sellerKey.key);
    const operator = await as(t, { cookie, ...bearer(OP) }).get('/sellers');
    assert.equal(operator.status, 200);
    assert.ok(operator.body.length >= 2, 'the operator sees every Seller');
    const wrong = await as(t, { cookie, ...bearer(wrongKey()) }).get(`${t.prefix}/deals`);
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.code, 'INVALID_KEY');
  });

  it('refuses another origin’s request carrying the cookie whatever its method, even a listed origin; no Origin or its own is served', async () => {
    const { cookie } = await signIn(sellerKey.key);
    const own = `http://${new URL(t.url).host}`;
    for (const origin of ['http://evil.example', 'http://listed.example', 'null', `https://evil.example`]) {
      const read = await as(t, { cookie, origin }).get(`${t.prefix}/deals`);
      assert.equal(read.status, 403, `GET from ${origin}`);
      assert.equal(read.body.code, 'ORIGIN_NOT_ALLOWED');
      const write = await as(t, { cookie, origin }).post(`${t.prefix}/deals`, dealBody('Forged Fictional'));
      assert.equal(write.status, 403, `POST from ${origin}`);
      assert.equal(write.body.code, 'ORIGIN_NOT_ALLOWED');
      const session = await as(t, { cookie, origin }).get('/console/session');
      assert.equal(session.status, 403, `GET /console/session from ${origin}`);
    }
    const listedSignIn = await anon().post(
      '/console/session',
      { key: sellerKey.key },
      { origin: 'http://listed.example' },
    );
    assert.equal(listedSignIn.status, 403, 'a listed origin cannot sign in either');
    assert.deepEqual(listedSignIn.headers.getSetCookie(), []);
    assert.equal((await as(t, { cookie }).get(`${t.prefix}/deals`)).status, 200, 'no Origin');
    assert.equal((await as(t, { cookie, origin: own }).get(`${t.prefix}/deals`)).status, 200, 'its own origin');
    const write = await as(t, { cookie, origin: own }).post(`${t.prefix}/deals`, dealBody('Own Fictional'));
    assert.equal(write.status, 201, 'a write from its own origin');
    // The listed origin still drives the API with a key of its own (D-49), just not the cookie.
    const keyed = await as(t, { ...bearer(sellerKey.key), origin: 'http://listed.example' }).get(`${t.prefix}/deals`);
    assert.equal(keyed.status, 200);
  });

  it('signing out ends the session: the answer clears the cookie and the old value is refused', async () => {
    const { cookie } = await signIn(sellerKey.key);
    assert.equal((await as(t, { cookie }).get(`${t.prefix}/deals`)).status, 200);
    const end = await as(t, { cookie }).post('/console/session/end');
    assert.equal(end.status, 204);
    const [cleared] = end.headers.getSetCookie();
    assert.match(cleared, /^sp_console=;/);
    assert.match(cleared, /Max-Age=0/i);
    const after = await as(t, { cookie }).get(`${t.prefix}/deals`);
    assert.equal(after.status, 401);
    assert.equal(after.body.code, 'UNAUTHENTICATED');
    assert.match(after.body.error, /sign in again/);
    assert.equal((await as(t, { cookie }).get('/console/session')).status, 401);
    // Signing out again, or without a session, is answered the same.
    assert.equal((await as(t, { cookie }).post('/console/session/end')).status, 204);
    assert.equal((await anon().post('/console/session/end')).status, 204);
  });

  it('a forged or altered cookie is refused', async () => {
    const { cookie } = await signIn(sellerKey.key);
    const [name, value] = cookie.split('=');
    const forged = [
      `${name}=${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`,
      `${name}=${value}x`,
      `${name}=${value.slice(1)}`,
      `${name}=key_0001.1999999999999.${value.slice(0, 22)}.${value}`,
      `${name}=${sellerKey.key}`,
      `${name}=${B64URL.slice(0, 43)}`,
    ];
    for (const bad of forged) {
      const answer = await as(t, { cookie: bad }).get(`${t.prefix}/deals`);
      assert.equal(answer.status, 401, bad);
      assert.equal(answer.body.code, 'UNAUTHENTICATED');
    }
  });

  it('revoking the key ends its sessions (401 INVALID_KEY)', async () => {
    const key = await makeKey(t, OP, { name: 'to revoke', principal: sellerId });
    const { cookie } = await signIn(key.key);
    assert.equal((await as(t, { cookie }).get(`${t.prefix}/deals`)).status, 200);
    assert.equal((await as(t, bearer(OP)).post(`/keys/${key.id}/revoke`)).status, 200);
    const answer = await as(t, { cookie }).get(`${t.prefix}/deals`);
    assert.equal(answer.status, 401);
    assert.equal(answer.body.code, 'INVALID_KEY');
    assert.match(answer.body.error, /sign in again/);
    assert.equal((await as(t, { cookie }).get('/console/session')).status, 401);
  });

  it('ends by itself 12 hours after sign-in (machine time)', async () => {
    const { cookie } = await signIn(sellerKey.key);
    now += 12 * HOUR - 1;
    assert.equal((await as(t, { cookie }).get(`${t.prefix}/deals`)).status, 200);
    now += 1;
    const answer = await as(t, { cookie }).get(`${t.prefix}/deals`);
    assert.equal(answer.status, 401);
    assert.equal(answer.body.code, 'UNAUTHENTICATED');
  });

  it('the page names the mode', async () => {
    const html = await (await fetch(`${t.url}/console`)).text();
    assert.match(html, /<meta name="auth" content="keys">/);
  });
});

describe('a console session across two instances of one deployment (D-232)', () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    const store = new MemoryStore();
    a = await startTestServer({ store, config: { auth: 'keys', operatorKey: OP } });
    b = await startTestServer({ store, config: { auth: 'keys', operatorKey: OP } });
  });
  after(async () => {
    await a?.close();
    await b?.close();
  });

  it('a session made on one instance is good on the other, and a revocation through either ends it within 5 s', async () => {
    const sellerId = await makeSeller(a, 'Twin Fictional');
    const key = await makeKey(a, OP, { name: 'twin', principal: sellerId });
    const signIn = await as(a, {}).post('/console/session', { key: key.key });
    assert.equal(signIn.status, 200);
    const { cookie } = cookieOf(signIn.headers);
    // Made on a a moment ago: b reads it from the store when it meets it.
    assert.equal((await as(b, { cookie }).get(`${b.prefix}/deals`)).status, 200);
    assert.equal((await as(a, bearer(OP)).post(`/keys/${key.id}/revoke`)).status, 200);
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 6_000) {
      status = (await as(b, { cookie }).get(`${b.prefix}/deals`)).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 401);
    assert.ok(Date.now() - started <= 5_000, `refused after ${Date.now() - started} ms`);
  });

  it('signing out through one instance ends the session on the other within 5 s (D-63)', async () => {
    const sellerId = await makeSeller(a, 'Twin Out Fictional');
    const key = await makeKey(a, OP, { name: 'twin out', principal: sellerId });
    const signIn = await as(a, {}).post('/console/session', { key: key.key });
    const { cookie } = cookieOf(signIn.headers);
    assert.equal((await as(b, { cookie }).get(`${b.prefix}/deals`)).status, 200, 'b holds the session now');
    assert.equal((await as(a, { cookie }).post('/console/session/end')).status, 204);
    const started = Date.now();
    let answer = await as(b, { cookie }).get(`${b.prefix}/deals`);
    while (answer.status === 200 && Date.now() - started < 6_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await as(b, { cookie }).get(`${b.prefix}/deals`);
    }
    assert.equal(answer.status, 401);
    assert.equal(answer.body.code, 'UNAUTHENTICATED');
    assert.ok(Date.now() - started <= 5_000, `refused after ${Date.now() - started} ms`);
    // The key itself still works: only the session ended.
    assert.equal((await as(b, bearer(key.key)).get(`${b.prefix}/deals`)).status, 200);
  });
});

describe('the demo has no console session (D-59)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t?.close());

  it('answers /console/session and /console/session/end 404, and the page says demo', async () => {
    assert.equal((await t.post('/console/session', { key: OP })).status, 404);
    assert.equal((await t.get('/console/session')).status, 404);
    assert.equal((await t.post('/console/session/end')).status, 404);
    const html = await (await fetch(`${t.url}/console`)).text();
    assert.match(html, /<meta name="auth" content="demo">/);
  });
});
