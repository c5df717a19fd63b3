// End to end over real HTTP: no web page can drive the service through a visitor's browser
// (D-49, D-194). A request whose Host the service does not answer to is 403 HOST_NOT_ALLOWED on
// every surface (DNS rebinding); a demo write or a demo preflight from a page on a foreign Origin
// (`null` included) is 403 ORIGIN_NOT_ALLOWED and changes nothing; the own origin, a listed one and
// no Origin at all are served; ROOT, its MCP door included, answers every origin with `*`.
// Requests that set Host go through node's http.request (fetch may not set it); the others
// through the harness's client, which holds every answer to the served contract. A request with
// two Host headers is 400 DUPLICATE_HOST (D-203, RFC 9112), sent over a raw socket.
import assert from 'node:assert/strict';
import { type IncomingHttpHeaders, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Config } from '../../src/config.ts';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { createDeal, dealBody, getDeal } from '../support/marketplace-e2e.ts';
import { rawRequest } from '../support/raw-socket.ts';

const FOREIGN = 'https://evil.example';
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

interface Sent {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

/** One request with exactly these headers (Host included), over a fresh connection. */
function send(url: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  const { hostname, port } = new URL(url);
  return new Promise<Sent>((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers: { connection: 'close', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A refusal in the catalogue's shape, with the request's id. */
function assertRefused(answer: { status: number; body: any }, code: string, what: string) {
  assert.equal(answer.status, 403, `${what}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body?.code, code, what);
  assert.equal(typeof answer.body.error, 'string', what);
  assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'error'], what);
}

const sellCall = (name: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'sell', arguments: { account: account({ name }), listValueUsd: 5000 } },
  });

describe('the Host rule: a name the service does not answer to is 403 HOST_NOT_ALLOWED (DNS rebinding)', () => {
  let t: TestServer;
  let port: string;
  before(async () => {
    t = await startTestServer();
    port = new URL(t.url).port;
  });
  after(() => t?.close());

  it('a loopback service answers localhost, 127.0.0.1 and [::1] on any port, in any case', async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LocalHost:${port}`, 'localhost']) {
      const answer = await send(t.url, 'GET', '/health', { host });
      assert.equal(answer.status, 200, host);
    }
  });

  it('Host: evil.example is refused on every surface, before the body is read, with the request id', async () => {
    const hosts = ['evil.example', `evil.example:${port}`, `localhost.evil.example:${port}`, `127.0.0.2:${port}`];
    const requests: [string, string, Record<string, string>, string | undefined][] = [
      ['GET', '/health', {}, undefined],
      ['GET', '/deals', {}, undefined],
      ['GET', '/console', {}, undefined],
      ['GET', '/no/such/path', {}, undefined],
      [
        'POST',
        '/mcp',
        { 'content-type': 'application/json', ...MCP_ACCEPT },
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      ],
      ['POST', '/demo/mcp', { 'content-type': 'application/json', ...MCP_ACCEPT }, sellCall('Rebound Ltd')],
      ['POST', `${t.prefix}/deals`, { 'content-type': 'application/json' }, JSON.stringify(dealBody())],
      ['POST', '/demo/reset', {}, undefined],
      // A body it could not take (over 64 KiB, not JSON): still 403, never 413 or 415.
      ['POST', `${t.prefix}/deals`, { 'content-type': 'text/plain' }, 'x'.repeat(70 * 1024)],
      ['OPTIONS', '/demo/reset', { origin: 'http://evil.example', 'access-control-request-method': 'POST' }, undefined],
    ];
    const before = await createDeal(t, { account: account({ name: 'Kept Before Rebinding' }) });
    const health = (await t.get('/health')).body;
    for (const host of hosts) {
      for (const [method, path, headers, body] of requests) {
        const answer = await send(t.url, method, path, { host, ...headers }, body);
        assertRefused(answer, 'HOST_NOT_ALLOWED', `${method} ${path} Host: ${host}`);
        assert.match(String(answer.headers['x-request-id']), /^\S+$/, 'the answer carries its request id');
        if (path !== '/deals' && path !== '/mcp') {
          assert.equal(answer.headers['access-control-allow-origin'], undefined, 'nothing readable by the page');
        }
      }
    }
    assert.deepEqual((await t.get('/health')).body, health, 'nothing was created, nothing reset');
    assert.equal((await getDeal(t, before.id)).id, before.id);
  });
});

describe('the Origin rule on the demo: only the own origin (or none) may write', () => {
  let t: TestServer;
  let own: string;
  before(async () => {
    t = await startTestServer();
    own = t.url;
  });
  after(() => t?.close());

  it('POST /demo/reset from a foreign page (also Origin: null) is 403 and resets nothing', async () => {
    const kept = await createDeal(t, { account: account({ name: 'Kept Through The Visit' }) });
    const localhostPage = `http://localhost:${new URL(t.url).port}`; // another origin than 127.0.0.1's
    for (const origin of [FOREIGN, 'null', 'http://127.0.0.1', localhostPage]) {
      assertRefused(await t.post('/demo/reset', undefined, { origin }), 'ORIGIN_NOT_ALLOWED', origin);
      // As a page's no-cors "simple" POST would send it: text/plain, any body.
      const simple = await t.raw('POST', '/demo/reset', 'x'.repeat(70 * 1024), {
        origin,
        'content-type': 'text/plain',
      });
      assertRefused(simple, 'ORIGIN_NOT_ALLOWED', `${origin}: the body is never read`);
    }
    assert.equal((await getDeal(t, kept.id)).account.name, 'Kept Through The Visit', 'the deal is still there');
    // The own origin, http or https, and no Origin at all are served.
    const cases: Record<string, string>[] = [{ origin: own }, { origin: own.replace('http:', 'https:') }, {}];
    for (const headers of cases) {
      const before = await createDeal(t);
      const reset = await t.post('/demo/reset', undefined, headers);
      assert.equal(reset.status, 200, JSON.stringify(headers));
      assert.equal((await t.get(`${t.prefix}/deals/${before.id}`)).status, 404, 'the reset happened');
    }
  });

  it('a demo write (POST /pipeline/deals) from a foreign page is 403 and creates nothing; the own origin is served', async () => {
    const deals = (await t.get('/health')).body.deals;
    const refused = await t.post(`${t.prefix}/deals`, dealBody(), { origin: FOREIGN, 'idempotency-key': 'k-foreign' });
    assertRefused(refused, 'ORIGIN_NOT_ALLOWED', 'foreign');
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    assert.equal((await t.get('/health')).body.deals, deals, 'no deal was created');

    const mine = await t.post(`${t.prefix}/deals`, dealBody(), { origin: own });
    assert.equal(mine.status, 201);
    assert.equal(mine.headers.get('access-control-allow-origin'), own, 'its own page may read it');
    const none = await t.post(`${t.prefix}/deals`, dealBody());
    assert.equal(none.status, 201, 'no Origin: a client, not a page');
    assert.equal(none.headers.get('access-control-allow-origin'), null);
    // The key the refused request carried was never recorded: it works for its first request.
    const keyed = await t.post(`${t.prefix}/deals`, dealBody(), { 'idempotency-key': 'k-foreign' });
    assert.equal(keyed.status, 201);
    assert.equal(keyed.headers.get('idempotent-replayed'), null);
  });

  it('a demo read from a foreign page is answered without CORS headers (its browser withholds it)', async () => {
    const answer = await t.raw('GET', `${t.prefix}/deals`, undefined, { origin: FOREIGN });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('access-control-allow-origin'), null);
  });

  it('POST /demo/mcp (a sell tool call) from a foreign page is 403 and sells nothing; the own origin is served', async () => {
    const deals = (await t.get('/health')).body.deals;
    for (const origin of [FOREIGN, 'null']) {
      const answer = await t.raw('POST', '/demo/mcp', sellCall('Sold By A Page Ltd'), {
        origin,
        'content-type': 'application/json',
        ...MCP_ACCEPT,
      });
      assertRefused(answer, 'ORIGIN_NOT_ALLOWED', origin);
    }
    assert.equal((await t.get('/health')).body.deals, deals, 'no deal was sold');
    const mine = await t.raw('POST', '/demo/mcp', sellCall('Sold At Home Ltd'), {
      origin: own,
      'content-type': 'application/json',
      ...MCP_ACCEPT,
    });
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.notEqual(mine.body.result.isError, true, JSON.stringify(mine.body));
    assert.equal(mine.headers.get('access-control-allow-origin'), own, 'the transport’s own answer carries it too');
    assert.equal((await t.get('/health')).body.deals, deals + 1);
  });

  it('a DEMO preflight succeeds only for the own origin: the origin echoed, its methods and the headers a write needs', async () => {
    for (const path of ['/demo/reset', `${t.prefix}/deals`, '/demo/mcp']) {
      for (const origin of [FOREIGN, 'null']) {
        const refused = await t.raw('OPTIONS', path, undefined, {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        });
        assertRefused(refused, 'ORIGIN_NOT_ALLOWED', `OPTIONS ${path} from ${origin}`);
      }
      const answer = await t.raw('OPTIONS', path, undefined, {
        origin: own,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, idempotency-key',
      });
      assert.equal(answer.status, 204, path);
      assert.equal(answer.headers.get('access-control-allow-origin'), own, path);
      assert.match(answer.headers.get('vary') ?? '', /origin/i, path);
      assert.match(answer.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/, path);
      const allowed = answer.headers.get('access-control-allow-headers') ?? '';
      for (const header of ['content-type', 'idempotency-key', 'if-match']) assert.ok(allowed.includes(header), path);
    }
  });
});

describe('ROOT answers every origin, its MCP door included', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t?.close());

  it('ROOT reads from any origin (null included) are answered with access-control-allow-origin: *', async () => {
    for (const origin of [FOREIGN, 'null', t.url]) {
      for (const path of ['/deals', '/gigs', '/deals/deal_0001', '/pricing']) {
        const answer = await t.raw('GET', path, undefined, { origin });
        assert.equal(answer.status, 200, `${path} from ${origin}`);
        assert.equal(answer.headers.get('access-control-allow-origin'), '*');
      }
    }
  });

  it('POST /mcp (a read tool call) from any origin is answered, with *; its preflight too', async () => {
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'listDeals', arguments: {} },
    });
    for (const origin of [FOREIGN, 'null']) {
      const answer = await t.raw('POST', '/mcp', call, { origin, 'content-type': 'application/json', ...MCP_ACCEPT });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.notEqual(answer.body.result.isError, true);
      assert.equal(answer.headers.get('access-control-allow-origin'), '*');
      const preflight = await t.raw('OPTIONS', '/mcp', undefined, {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version',
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    }
  });

  it('a write method on a ROOT path from a foreign page is still 405: ROOT has nothing to write', async () => {
    const answer = await t.raw('POST', '/deals', '{}', { origin: FOREIGN, 'content-type': 'application/json' });
    assert.equal(answer.status, 405);
    assert.equal(answer.body.code, 'METHOD_NOT_ALLOWED');
  });
});

describe('ALLOWED_HOSTS and ALLOWED_ORIGINS', () => {
  let t: TestServer;
  const LISTED = 'https://app.example';
  before(async () => {
    t = await startTestServer({
      config: { allowedHosts: ['127.0.0.1', 'pipeline.test', 'ported.test:1234'], allowedOrigins: [LISTED] },
    });
  });
  after(() => t?.close());

  it('a listed host is answered, without a port on any port, with a port only on it; the list replaces the defaults', async () => {
    const port = new URL(t.url).port;
    for (const host of [
      'pipeline.test',
      `PIPELINE.test:${port}`,
      'pipeline.test:9',
      'ported.test:1234',
      `127.0.0.1:${port}`,
    ]) {
      assert.equal((await send(t.url, 'GET', '/health', { host })).status, 200, host);
    }
    for (const host of ['ported.test', 'ported.test:1235', `localhost:${port}`, 'evil.example']) {
      assertRefused(await send(t.url, 'GET', '/health', { host }), 'HOST_NOT_ALLOWED', host);
    }
  });

  it('a page on a listed origin may write and read the answer; its preflight succeeds; other origins stay refused', async () => {
    for (const origin of [LISTED, 'https://APP.example']) {
      const created = await t.post(`${t.prefix}/deals`, dealBody(), { origin });
      assert.equal(created.status, 201, origin);
      assert.equal(created.headers.get('access-control-allow-origin'), origin);
      assert.match(created.headers.get('vary') ?? '', /origin/i);
      const exposed = created.headers.get('access-control-expose-headers') ?? '';
      for (const header of ['etag', 'location', 'idempotent-replayed']) assert.ok(exposed.includes(header), header);
    }
    const preflight = await t.raw('OPTIONS', '/demo/reset', undefined, {
      origin: LISTED,
      'access-control-request-method': 'POST',
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), LISTED);
    for (const origin of ['https://app.example:8443', 'http://app.example', 'https://sub.app.example', FOREIGN]) {
      assertRefused(await t.post('/demo/reset', undefined, { origin }), 'ORIGIN_NOT_ALLOWED', origin);
    }
  });

  it('a page on a listed host is its own origin there', async () => {
    const answer = await send(
      t.url,
      'POST',
      `${t.prefix}/deals`,
      {
        host: 'pipeline.test',
        origin: 'https://pipeline.test',
        'content-type': 'application/json',
      },
      JSON.stringify(dealBody()),
    );
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const elsewhere = await send(t.url, 'POST', '/demo/reset', { host: 'pipeline.test', origin: 'https://other.test' });
    assertRefused(elsewhere, 'ORIGIN_NOT_ALLOWED', 'another page on a listed host');
  });
});

describe('two Host headers on one request are 400 DUPLICATE_HOST (D-203, RFC 9112 section 3.2)', () => {
  const served: [string, Partial<Config>][] = [
    ['the default loopback names', {}],
    ['both names listed', { allowedHosts: ['127.0.0.1', 'localhost', 'evil.example'] }],
  ];
  for (const [what, config] of served) {
    it(`${what}: refused whichever name comes first, nothing changed, with the request id`, async () => {
      const t = await startTestServer({ config });
      try {
        const before = (await t.get(`${t.prefix}/deals`)).body;
        const body = JSON.stringify(dealBody());
        for (const hosts of [
          ['127.0.0.1', 'evil.example'],
          ['evil.example', '127.0.0.1'],
          ['127.0.0.1', '127.0.0.1'],
          ['localhost', 'LOCALHOST'],
        ]) {
          const lines = hosts.map((host) => `Host: ${host}\r\n`).join('');
          const answer = await rawRequest(
            t.url,
            `POST ${t.prefix}/deals HTTP/1.1\r\n${lines}Content-Type: application/json\r\n` +
              `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
          );
          assert.equal(answer.status, 400, `${hosts}: ${JSON.stringify(answer.body)}`);
          assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'error'], `${hosts}`);
          assert.equal(answer.body.code, 'DUPLICATE_HOST', `${hosts}`);
          assert.ok(answer.headers['x-request-id'], `${hosts}: the answer carries its request's id`);
          const read = await rawRequest(t.url, `GET /health HTTP/1.1\r\n${lines}Connection: close\r\n\r\n`);
          assert.equal(read.status, 400, `GET ${hosts}`);
          assert.equal(read.body.code, 'DUPLICATE_HOST', `GET ${hosts}`);
        }
        assert.deepEqual((await t.get(`${t.prefix}/deals`)).body, before, 'no deal was created');
        // One Host is served as before.
        const one = await rawRequest(t.url, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
        assert.equal(one.status, 200);
      } finally {
        await t.close();
      }
    });
  }
});
