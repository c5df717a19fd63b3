// End to end over real HTTP: the conventions every answer of both surfaces keeps (D-5, D-30,
// D-38, D-39): Location on a 201, x-request-id on every answer, 405 with Allow and OPTIONS, Vary
// on negotiated answers, the one-line request log and the start-up line, and malformed query
// strings, path ids and requests the HTTP parser refuses, all answered in the catalogue's shape:
// never 500, never the framework's own body. Runs on the store TEST_STORE names (memory, pglite,
// postgres), like every end-to-end file.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type IncomingHttpHeaders, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { describeStore } from '../../src/store/create-store.ts';
import { type Answer, startTestServer, type TestServer } from '../support/http.ts';
import { NPM_START } from '../support/instances.ts';
import {
  ADA,
  createDeal,
  type DealView,
  dealBody,
  fixedClock,
  HUMAN_CLOSER,
  openCloserGig,
} from '../support/marketplace-e2e.ts';
import { createTestSchema } from '../support/postgres.ts';
import { parse, sample } from '../support/prometheus.ts';

const JSON_TYPE = /^application\/json/;
const WELL_FORMED_ID = /^[\x21-\x7e]{1,128}$/;

/** Asserts an error in the catalogue's shape: JSON {error, code, violations?} and nothing of the framework's. */
function assertCatalogue(
  answer: { status: number; body: unknown; type: string | null },
  status: number,
  codes: string[],
) {
  const what = JSON.stringify(answer.body);
  assert.equal(answer.status, status, what);
  assert.match(answer.type ?? '', JSON_TYPE, what);
  const body = answer.body as Record<string, unknown>;
  assert.equal(typeof body, 'object', what);
  assert.equal(typeof body.error, 'string', what);
  assert.ok((body.error as string).length > 0, what);
  assert.ok(codes.includes(body.code as string), `code ${String(body.code)} is one of ${codes.join(', ')}`);
  for (const key of Object.keys(body)) assert.ok(['error', 'code', 'violations'].includes(key), `no ${key}: ${what}`);
}

/** A fetch answer with its content type, for assertCatalogue. */
const typed = (answer: Answer) => ({ ...answer, type: answer.headers.get('content-type') });

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: unknown;
  type: string | null;
}

/** One request over node:http, which sends any method (fetch refuses TRACE). */
function send(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const sent = request(`${url}${path}`, { method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: keep the text
        }
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text,
          body: parsed,
          type: response.headers['content-type'] ?? null,
        });
      });
    });
    sent.on('error', reject);
    if (body !== undefined) sent.write(body);
    sent.end();
  });
}

/**
 * Bytes sent as they are over a socket (node:http refuses to send what the server's parser must
 * refuse): the answer's status, headers and body.
 */
function sendBytes(url: string, bytes: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () => socket.end(bytes, 'latin1'));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers: IncomingHttpHeaders = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = rest.join('\r\n\r\n');
      let parsed: unknown = body;
      try {
        parsed = JSON.parse(body);
      } catch {
        // not JSON: keep the text
      }
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        text: body,
        body: parsed,
        type: (headers['content-type'] as string | undefined) ?? null,
      });
    });
  });
}

/** The set of methods an Allow header lists. */
const allowed = (allow: string | string[] | null | undefined) =>
  new Set(
    String(allow ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean),
  );

describe('conventions: Location on every 201 (D-38)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  /** The Location names the created record, and GET on it answers that record. */
  async function followLocation(answer: Answer, expected: string) {
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const location = answer.headers.get('location');
    assert.equal(location, expected);
    const got = await t.get(location as string);
    assert.equal(got.status, 200, `GET ${location}`);
    return got.body;
  }

  it('create deal → /pipeline/deals/{id}', async () => {
    const created = await t.post<DealView>(`${t.prefix}/deals`, dealBody());
    const got = await followLocation(created, `${t.prefix}/deals/${created.body.id}`);
    assert.deepEqual(got, created.body);
  });

  it('sell, the deal shape → the deal', async () => {
    const sold = await t.post<DealView>(`${t.prefix}/sell`, dealBody());
    assert.equal(sold.body.stage, 'closed_won', 'the agent closed it: the deal shape');
    const got = await followLocation(sold, `${t.prefix}/deals/${sold.body.id}`);
    assert.deepEqual(got, sold.body);
  });

  it('sell, the escalation shape → the deal it escalated', async () => {
    const sold = await t.post(`${t.prefix}/sell`, dealBody({ mandate: HUMAN_CLOSER }));
    assert.equal(sold.body.escalated, true, 'a human closer: the escalation shape');
    const got = await followLocation(sold, `${t.prefix}/deals/${sold.body.deal.id}`);
    assert.equal(got.id, sold.body.deal.id);
  });

  it('reengage → the new deal', async () => {
    const lost = await createDeal(t);
    assert.equal((await t.post(`${t.prefix}/deals/${lost.id}/advance`, { advanceTo: 'closed_lost' })).status, 200);
    const revived = await t.post<DealView>(`${t.prefix}/deals/${lost.id}/reengage`);
    assert.notEqual(revived.body.id, lost.id);
    const got = await followLocation(revived, `${t.prefix}/deals/${revived.body.id}`);
    assert.deepEqual(got.lineage, { revivedFrom: lost.id });
  });

  it('enrol closer → /closers/closers/{id}', async () => {
    const enrolled = await t.post('/closers/closers', { name: 'Lou Fictional', industries: ['saas'] });
    const got = await followLocation(enrolled, `/closers/closers/${enrolled.body.id}`);
    assert.deepEqual(got, enrolled.body);
  });

  it('a replay under the same Idempotency-Key carries the same Location', async () => {
    const headers = { 'idempotency-key': 'conventions-location-1' };
    const first = await t.post(`${t.prefix}/deals`, dealBody(), headers);
    const replay = await t.post(`${t.prefix}/deals`, dealBody(), headers);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.headers.get('location'), first.headers.get('location'));
    await followLocation(replay, `${t.prefix}/deals/${first.body.id}`);
  });

  it('answers that create nothing carry no Location', async () => {
    const deal = await createDeal(t);
    for (const answer of [
      await t.get(`${t.prefix}/deals/${deal.id}`),
      await t.post(`${t.prefix}/deals/${deal.id}/advance`),
      await t.post(`${t.prefix}/deals`, {}),
      await t.get('/deals'),
    ]) {
      assert.notEqual(answer.status, 201);
      assert.equal(answer.headers.get('location'), null);
    }
  });
});

describe('conventions: x-request-id on every answer (D-38)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  /** One request of each kind of answer, with the given x-request-id header (if any). */
  const kinds = (headers: Record<string, string> = {}): [string, () => Promise<RawAnswer>][] => [
    ['200', () => send(t.url, 'GET', '/health', headers)],
    ['ROOT 200', () => send(t.url, 'GET', '/deals?limit=1', headers)],
    [
      '201',
      () =>
        send(t.url, 'POST', '/closers/closers', { ...headers, 'content-type': 'application/json' }, '{"name":"Id"}'),
    ],
    ['400', () => send(t.url, 'POST', `${t.prefix}/deals`, { ...headers, 'content-type': 'application/json' }, '{}')],
    ['404 record', () => send(t.url, 'GET', `${t.prefix}/deals/deal_9999`, headers)],
    ['404 route', () => send(t.url, 'GET', '/no/such/route', headers)],
    ['404 malformed URL', () => send(t.url, 'GET', `${t.prefix}/deals/%zz`, headers)],
    ['405', () => send(t.url, 'DELETE', '/deals', headers)],
    ['204 OPTIONS', () => send(t.url, 'OPTIONS', '/deals', headers)],
  ];

  it('every kind of answer carries one; none sent: a fresh, well-formed one', async () => {
    for (const [kind, call] of kinds()) {
      const answer = await call();
      const id = answer.headers['x-request-id'];
      assert.equal(typeof id, 'string', `${kind}: x-request-id`);
      assert.match(id as string, WELL_FORMED_ID, kind);
    }
  });

  it("the caller's id when well formed: 1 to 128 visible ASCII characters", async () => {
    const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    for (const sent of ['abc-123', '!', '~', visible.slice(0, 128), 'x'.repeat(128), 'Req:42/"quoted";{}']) {
      for (const [kind, call] of kinds({ 'x-request-id': sent })) {
        const answer = await call();
        assert.equal(answer.headers['x-request-id'], sent, `${kind} echoes ${sent}`);
      }
    }
  });

  it('a fresh one when the sent id is too long, empty, or holds a space, a tab or a non-ASCII character', async () => {
    for (const sent of ['x'.repeat(129), 'x'.repeat(1000), '', 'a b', 'a\tb', 'caf\u00e9']) {
      for (const [kind, call] of kinds({ 'x-request-id': sent })) {
        const answer = await call();
        const id = answer.headers['x-request-id'] as string;
        assert.match(id, WELL_FORMED_ID, `${kind}: ${JSON.stringify(sent)}`);
        assert.notEqual(id, sent.trim(), `${kind}: ${JSON.stringify(sent)} is not taken`);
      }
    }
  });

  it('fresh ids are unique across requests, in parallel too', async () => {
    const seen: string[] = [];
    for (const [, call] of kinds()) seen.push((await call()).headers['x-request-id'] as string);
    const parallel = await Promise.all(Array.from({ length: 50 }, () => send(t.url, 'GET', '/health')));
    seen.push(...parallel.map((answer) => answer.headers['x-request-id'] as string));
    assert.equal(new Set(seen).size, seen.length, 'no id answered twice');
  });
});

describe('conventions: 405 with Allow on a known path, OPTIONS 204 (D-38)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  const P = '/pipeline';
  const READ = ['GET', 'HEAD', 'OPTIONS'];
  /** Known paths of both surfaces and the methods each serves (Allow). */
  const PATHS: [string, string[], 'root' | 'demo'][] = [
    ['/deals', READ, 'root'],
    ['/deals/deal_0001', READ, 'root'],
    ['/gigs', READ, 'root'],
    ['/openapi.json', READ, 'root'],
    ['/verify', READ, 'root'],
    ['/mcp', ['POST', 'OPTIONS'], 'root'],
    ['/', READ, 'demo'],
    ['/health', READ, 'demo'],
    [`${P}/deals`, ['GET', 'HEAD', 'POST', 'OPTIONS'], 'demo'],
    // D-67: a deal is edited with PATCH.
    [`${P}/deals/deal_0001`, ['GET', 'HEAD', 'PATCH', 'OPTIONS'], 'demo'],
    [`${P}/deals/deal_0001/advance`, ['POST', 'OPTIONS'], 'demo'],
    [`${P}/deals/deal_0001/settlement`, READ, 'demo'],
    [`${P}/sell`, ['POST', 'OPTIONS'], 'demo'],
    ['/closers/closers', ['GET', 'HEAD', 'POST', 'OPTIONS'], 'demo'],
    ['/closers/gigs/gig_0001/claim', ['POST', 'OPTIONS'], 'demo'],
    ['/demo/clock', ['POST', 'OPTIONS'], 'demo'],
    ['/demo/mcp', ['POST', 'OPTIONS'], 'demo'],
  ];
  const ALL = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'QUERY'];

  it('every method a path does not serve is 405 {error, code: METHOD_NOT_ALLOWED} with its Allow, TRACE and QUERY included', async () => {
    for (const [path, methods] of PATHS) {
      for (const method of ALL.filter((m) => !methods.includes(m))) {
        const answer = await send(t.url, method, path);
        const what = `${method} ${path}`;
        assert.equal(answer.status, 405, what);
        assert.deepEqual(allowed(answer.headers.allow), new Set(methods), `${what}: Allow`);
        assert.match(answer.headers['x-request-id'] as string, WELL_FORMED_ID, what);
        if (method === 'HEAD') continue; // a HEAD answer has no body
        assertCatalogue(answer, 405, ['METHOD_NOT_ALLOWED']);
        assert.ok((answer.body as { error: string }).error.includes(path), `${what}: the message names the path`);
      }
    }
  });

  it('QUERY is 405 with or without a content type and a body', async () => {
    for (const path of ['/deals', '/gigs', '/mcp', `${P}/deals`, '/closers/closers', '/demo/clock']) {
      for (const [headers, body] of [
        [{}, undefined],
        [{ 'content-type': 'application/json' }, '{"stage":"sourced"}'],
        [{ 'content-type': 'text/plain' }, 'stage=sourced'],
        [{ 'content-type': 'application/json' }, '{not json'],
      ] as [Record<string, string>, string | undefined][]) {
        const answer = await send(t.url, 'QUERY', path, headers, body);
        assertCatalogue(answer, 405, ['METHOD_NOT_ALLOWED']);
        assert.ok(answer.headers.allow, `QUERY ${path}: Allow`);
      }
    }
  });

  it('an unknown path is 404 ROUTE_NOT_FOUND whatever the method and the body, never 400, 405, 413 or 415', async () => {
    const bodies: [Record<string, string>, string | undefined][] = [
      [{}, undefined],
      [{ 'content-type': 'application/json' }, '{"a":1}'],
      [{ 'content-type': 'application/json' }, '{not json'],
      [{ 'content-type': 'application/json' }, 'null'],
      [{ 'content-type': 'text/plain' }, 'hello'],
      [{ 'content-type': 'application/json' }, JSON.stringify({ pad: 'x'.repeat(70 * 1024) })],
    ];
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'QUERY', 'OPTIONS']) {
      for (const [headers, body] of bodies) {
        if ((method === 'GET' || method === 'TRACE') && body !== undefined) continue; // bodiless methods
        const answer = await send(t.url, method, '/no/such/path', headers, body);
        assertCatalogue(answer, 404, ['ROUTE_NOT_FOUND']);
        assert.match(answer.headers['x-request-id'] as string, WELL_FORMED_ID);
      }
    }
  });

  it('OPTIONS on a known path is 204 with Allow; ROOT paths and /mcp add the CORS preflight headers for any origin, DEMO paths only for their own (D-49)', async () => {
    const own = t.url;
    for (const [path, methods, surface] of PATHS) {
      const preflight = (origin: string) =>
        send(t.url, 'OPTIONS', path, {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        });
      const answer = await preflight(surface === 'root' ? 'https://elsewhere.example' : own);
      assert.equal(answer.status, 204, `OPTIONS ${path}`);
      assert.equal(answer.text, '', 'no body');
      assert.deepEqual(allowed(answer.headers.allow), new Set(methods), `OPTIONS ${path}: Allow`);
      assert.deepEqual(allowed(answer.headers['access-control-allow-methods']), new Set(methods), path);
      const headers = String(answer.headers['access-control-allow-headers'] ?? '');
      if (surface === 'root') {
        assert.equal(answer.headers['access-control-allow-origin'], '*', path);
        for (const header of ['content-type', 'accept', 'mcp-protocol-version']) {
          assert.ok(headers.includes(header), `${path}: may send ${header}`);
        }
      } else {
        assert.equal(answer.headers['access-control-allow-origin'], own, `${path}: its own origin, echoed`);
        for (const header of ['content-type', 'idempotency-key', 'if-match']) {
          assert.ok(headers.includes(header), `${path}: may send ${header}`);
        }
        // Another origin's preflight is refused, and a bare OPTIONS (no preflight) has no CORS.
        assertCatalogue(await preflight('https://elsewhere.example'), 403, ['ORIGIN_NOT_ALLOWED']);
        const bare = await send(t.url, 'OPTIONS', path);
        assert.equal(bare.status, 204, path);
        assert.equal(bare.headers['access-control-allow-origin'], undefined, `${path}: no CORS without Origin`);
        assert.equal(bare.headers['access-control-allow-methods'], undefined, path);
      }
    }
  });
});

describe('conventions: Vary: Accept where the format is negotiated', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('/verify answers markdown or JSON by Accept, and says so with Vary: Accept', async () => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [{}, '', /^text\/markdown/],
      [{ accept: 'text/markdown' }, '', /^text\/markdown/],
      [{ accept: 'application/json' }, '', JSON_TYPE],
      [{}, '?format=json', JSON_TYPE],
    ];
    for (const [headers, query, type] of cases) {
      const answer = await send(t.url, 'GET', `/verify${query}`, headers);
      assert.equal(answer.status, 200);
      assert.match(answer.type ?? '', type, JSON.stringify(headers));
      assert.match(String(answer.headers.vary ?? ''), /\bAccept\b/i, `${JSON.stringify(headers)}${query}`);
    }
  });
});

describe('conventions: malformed query strings on every list (D-30, D-39)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  const P = '/pipeline';
  /** Each list, with a filter it takes (to repeat). */
  const LISTS: [string, string][] = [
    [`${P}/deals`, 'stage=sourced&stage=qualified'],
    ['/closers/gigs', 'status=open&status=claimed'],
    ['/closers/closers', 'limit=1&limit=2'],
    ['/deals', 'stage=sourced&stage=meeting'],
    ['/gigs', 'role=closer&role=setter'],
  ];

  it('an unknown parameter → 400 INVALID_QUERY naming it', async () => {
    for (const [path] of LISTS) {
      for (const query of ['x=1', 'limit=1&x=1', 'LIMIT=1', 'stage[]=sourced', 'x']) {
        const answer = typed(await t.get(`${path}?${query}`));
        assertCatalogue(answer, 400, ['INVALID_QUERY']);
      }
      const named = await t.get(`${path}?nonsense=1`);
      assert.ok(
        named.body.violations.some((v: string) => v.startsWith('nonsense:')),
        JSON.stringify(named.body),
      );
    }
  });

  it('a repeated parameter → 400 INVALID_QUERY', async () => {
    for (const [path, repeated] of LISTS) {
      assertCatalogue(typed(await t.get(`${path}?${repeated}`)), 400, ['INVALID_QUERY']);
      assertCatalogue(typed(await t.get(`${path}?limit=5&limit=5`)), 400, ['INVALID_QUERY']);
    }
  });

  it('a malformed limit → 400 INVALID_QUERY', async () => {
    for (const [path] of LISTS) {
      const max = path.startsWith('/deals') || path.startsWith('/gigs') ? 100 : 1000;
      for (const limit of ['abc', '0', '-1', '1.5', '', '1e2x', String(max + 1), '99999999999999999999']) {
        assertCatalogue(typed(await t.get(`${path}?limit=${limit}`)), 400, ['INVALID_QUERY']);
      }
      assert.equal((await t.get(`${path}?limit=${max}`)).status, 200, `${path}: limit ${max} is allowed`);
    }
  });

  it('a cursor the service never issued → 400 INVALID_CURSOR (or INVALID_QUERY when too long to be one)', async () => {
    for (const [path] of LISTS) {
      for (const cursor of ['garbage', '', '%00', 'ZGVhbF8wMDAx!!', Buffer.from('deal_0001\0').toString('base64url')]) {
        const answer = typed(await t.get(`${path}?cursor=${cursor}`));
        assertCatalogue(answer, 400, ['INVALID_CURSOR']);
      }
      assertCatalogue(typed(await t.get(`${path}?cursor=${'A'.repeat(300)}`)), 400, [
        'INVALID_CURSOR',
        'INVALID_QUERY',
      ]);
    }
  });
});

describe('conventions: an unknown query parameter on any demo route → 400 INVALID_QUERY, and nothing happens (D-38)', () => {
  let t: TestServer;
  let dealId: string;
  before(async () => {
    t = await startTestServer({ clock: fixedClock }); // a fixed clock: the test sees whether it moved
    dealId = (await createDeal(t)).id;
  });
  after(() => t.close());

  it('reads: index, health, a deal, its settlement, a closer, a gig, the ROOT deal', async () => {
    const escalation = await openCloserGig(t);
    for (const path of [
      '/',
      '/health',
      `${t.prefix}/deals/${dealId}`,
      `${t.prefix}/deals/${dealId}/settlement`,
      `/closers/closers/${ADA}`,
      `/closers/gigs/${escalation.gig.id}`,
      '/deals/deal_0001',
    ]) {
      for (const query of ['x=1', 'limit=1', 'x']) {
        const answer = typed(await t.get(`${path}?${query}`));
        assertCatalogue(answer, 400, ['INVALID_QUERY']);
      }
    }
  });

  it('writes: refused before anything is done (no deal, no move, no reset, no clock move)', async () => {
    const health = (await t.get('/health')).body;
    const deal = (await t.get(`${t.prefix}/deals/${dealId}`)).body as DealView;
    const clock = await t.post('/demo/clock', { advanceHours: 0 });
    const cases: [string, unknown][] = [
      [`${t.prefix}/deals?x=1`, dealBody()],
      [`${t.prefix}/sell?dryRun=yes`, dealBody()],
      [`${t.prefix}/sell?dryRun=true&x=1`, dealBody()],
      [`${t.prefix}/deals/${dealId}/advance?x=1`, undefined],
      [`${t.prefix}/deals/${dealId}/signals?x=1`, { signals: ['budget_confirmed'] }],
      ['/closers/closers?x=1', { name: 'Never Enrolled' }],
      ['/closers/match?x=1', { industry: 'saas', valueUsd: 1000, role: 'closer' }],
      ['/demo/reset?confirm=yes', undefined],
      ['/demo/clock?x=1', { advanceHours: 5 }],
    ];
    for (const [path, body] of cases) {
      assertCatalogue(typed(await t.post(path, body)), 400, ['INVALID_QUERY']);
    }
    assert.deepEqual((await t.get('/health')).body, health, 'no deal, no closer, no reset');
    assert.deepEqual((await t.get(`${t.prefix}/deals/${dealId}`)).body, deal, 'the deal did not move');
    assert.deepEqual((await t.post('/demo/clock', { advanceHours: 0 })).body, clock.body, 'the clock did not move');
  });

  it('the contract documents the 400 on every operation that refuses a query parameter', async () => {
    const contract = (await t.get('/openapi.json')).body as {
      paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown> }>>;
    };
    let checked = 0;
    for (const [path, item] of Object.entries(contract.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const root = operation.tags?.includes('root');
        if (root && !['/deals', '/deals/{id}', '/gigs'].includes(path)) continue; // the machine surfaces
        assert.ok('400' in operation.responses, `${method.toUpperCase()} ${path} documents 400`);
        checked++;
      }
    }
    assert.ok(checked > 20, `every demo operation and the ROOT collections (${checked})`);
  });

  it('the routes still answer without a query string, and with one they document', async () => {
    assert.equal((await t.get('/health')).status, 200);
    assert.equal((await t.get(`${t.prefix}/deals/${dealId}`)).status, 200);
    assert.equal((await t.get('/verify?format=json')).status, 200);
    assert.equal((await t.get(`${t.prefix}/deals?stage=sourced&limit=1`)).status, 200);
  });
});

describe('conventions: a malformed header is refused in its own words (D-47, D-41)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  /** The one violation of a 400 INVALID_HEADER, which the error's words carry too. */
  function headerViolation(answer: Answer): string {
    assertCatalogue(typed(answer), 400, ['INVALID_HEADER']);
    const body = answer.body as { error: string; violations: string[] };
    assert.equal(body.violations.length, 1, JSON.stringify(body));
    assert.ok(body.error.includes(body.violations[0]), JSON.stringify(body));
    return body.violations[0];
  }

  it('If-Match that is not one quoted version or * → 400 INVALID_HEADER saying so, not a seq', async () => {
    const deal = await createDeal(t);
    const { gig } = await openCloserGig(t);
    for (const bad of ['1', '"0"', 'W/"1"', '"1", "2"', '""', '"abc"', '**']) {
      for (const path of [`${t.prefix}/deals/${deal.id}/advance`, `/closers/gigs/${gig.id}/claim`]) {
        const violation = headerViolation(
          await t.post(path, path.endsWith('/claim') ? { closerId: ADA } : undefined, { 'if-match': bad }),
        );
        const what = `${path} If-Match ${bad}: ${violation}`;
        assert.match(violation, /^if-match: /, what);
        assert.match(violation, /quoted version/, what);
        assert.match(violation, /"3"/, what);
        assert.match(violation, /\*/, what);
        assert.doesNotMatch(violation, /seq|non-negative integer|pattern/, what);
      }
    }
  });

  it('Last-Event-ID that is not a seq → 400 INVALID_HEADER saying it must be a seq', async () => {
    for (const bad of ['garbage', '-3', '1e3']) {
      const violation = headerViolation(await t.raw('GET', '/events/stream', undefined, { 'last-event-id': bad }));
      assert.equal(violation, 'last-event-id: must be a non-negative integer (a seq)', bad);
    }
  });
});

describe('conventions: a path id of any shape names nothing: 404 (D-5)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    // A real deal and gig, so that the routes have records to miss.
    await openCloserGig(t);
  });
  after(() => t.close());

  const P = '/pipeline';
  const JSON_HEADERS = { 'content-type': 'application/json' };
  /** Every {id} route of both surfaces: method, path with {id}, body, the kind of id. */
  const ROUTES: [string, string, string | undefined, 'deal' | 'gig' | 'closer', 'root' | 'demo'][] = [
    ['GET', `${P}/deals/{id}`, undefined, 'deal', 'demo'],
    ['GET', `${P}/deals/{id}/settlement`, undefined, 'deal', 'demo'],
    ['POST', `${P}/deals/{id}/advance`, undefined, 'deal', 'demo'],
    ['POST', `${P}/deals/{id}/signals`, '{"signals":["budget_confirmed"]}', 'deal', 'demo'],
    ['POST', `${P}/deals/{id}/reengage`, undefined, 'deal', 'demo'],
    ['POST', `${P}/deals/{id}/deescalate`, undefined, 'deal', 'demo'],
    ['GET', '/closers/closers/{id}', undefined, 'closer', 'demo'],
    ['GET', '/closers/gigs/{id}', undefined, 'gig', 'demo'],
    ['POST', '/closers/gigs/{id}/claim', `{"closerId":"${ADA}"}`, 'gig', 'demo'],
    ['POST', '/closers/gigs/{id}/advance', '{"advanceTo":"proposal"}', 'gig', 'demo'],
    ['POST', '/closers/gigs/{id}/revive', undefined, 'gig', 'demo'],
    ['POST', '/closers/gigs/{id}/release', undefined, 'gig', 'demo'],
    ['POST', '/closers/gigs/{id}/expire', undefined, 'gig', 'demo'],
    ['GET', '/deals/{id}', undefined, 'deal', 'root'],
  ];
  const NOT_FOUND = { deal: 'DEAL_NOT_FOUND', gig: 'GIG_NOT_FOUND', closer: 'CLOSER_NOT_FOUND' };

  /** Ids as they go in the path (percent-encoded where need be); `malformed` ones cannot be decoded. */
  const ids = (kind: string): [string, boolean][] => [
    [`${kind}_${'0'.repeat(60)}1`, false], // over 64
    [`${kind}_${'0'.repeat(100)}1`, false], // over 100
    [`${kind}_${'9'.repeat(1200)}`, false], // over 1000
    [`${kind}_${'9'.repeat(24 - kind.length - 1)}`, false], // of the shape, at the length limit, past any integer
    ['x'.repeat(5000), false],
    [`${kind}_0001%00`, false], // NUL
    ['%00', false],
    [`${kind}_%000001`, false],
    [`${kind}_0001%01`, false], // control characters
    ['%1F%7F', false],
    [`${kind}_0001%0D%0A`, false],
    [`${kind}_0001%09`, false],
    [`${kind}_0001%E2%80%8B`, false], // a zero-width space: well-encoded, invisible
    [`${kind}_0001%2F..%2F`, false],
    [`${kind}_%zz`, true], // badly encoded
    ['%', true],
    [`${kind}_0001%E0%A4%A`, true],
    [`${kind}_0001%C3%28`, true],
    [`${kind}_%FF`, true],
  ];

  it('every {id} route answers 404 in the catalogue shape (ROOT: its EMPTY envelope), never 400 or 500', async () => {
    for (const [method, route, body, kind, surface] of ROUTES) {
      for (const [id, malformed] of ids(kind)) {
        const path = route.replace('{id}', id);
        const answer = await send(t.url, method, path, body ? JSON_HEADERS : {}, body);
        const what = `${method} ${path.slice(0, 80)}`;
        assert.match(answer.headers['x-request-id'] as string, WELL_FORMED_ID, what);
        if (malformed) {
          assertCatalogue(answer, 404, ['ROUTE_NOT_FOUND']);
        } else if (surface === 'root') {
          assert.equal(answer.status, 404, `${what}: ${answer.text.slice(0, 200)}`);
          assert.match(answer.type ?? '', JSON_TYPE);
          const envelope = answer.body as { type: string; message: string; sandbox: boolean };
          assert.equal(envelope.type, 'EMPTY', what);
          assert.equal(envelope.sandbox, true, what);
          assert.equal(typeof envelope.message, 'string', what);
        } else {
          assertCatalogue(answer, 404, [NOT_FOUND[kind]]);
        }
      }
    }
  });

  it('nothing was created or changed by them', async () => {
    const health = await t.get('/health');
    assert.deepEqual(health.body, { ok: true, closers: 2, deals: 1 });
    const gigs = await t.get('/closers/gigs');
    assert.equal(gigs.body.length, 1);
    assert.equal(gigs.body[0].status, 'open');
  });
});

describe('conventions: a request the HTTP parser refuses is answered in the catalogue shape (D-5, D-38)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  const requestLine = (target: string, headers = '') =>
    `GET ${target} HTTP/1.1\r\nHost: test\r\n${headers}Connection: close\r\n\r\n`;

  it('a control character or a space in the path, or a control character in a header → 400 MALFORMED_REQUEST', async () => {
    for (const bytes of [
      requestLine('/pipeline/deals/deal\x01'),
      requestLine('/pipeline/deals/deal\x7f'),
      requestLine('/pipeline/deals/a b'),
      requestLine('/deals/deal\x00'),
      requestLine('/health', 'x-request-id: a\x01b\r\n'),
      requestLine('/health', 'x-note: a\x7fb\r\n'),
      'NOT HTTP AT ALL\r\n\r\n',
    ]) {
      const answer = await sendBytes(t.url, bytes);
      assertCatalogue(answer, 400, ['MALFORMED_REQUEST']);
      assert.match(answer.headers['x-request-id'] as string, WELL_FORMED_ID, JSON.stringify(bytes));
    }
  });

  it('headers over the size limit (a path id of 20,000 characters) → 431 HEADERS_TOO_LARGE', async () => {
    for (const bytes of [
      requestLine(`/pipeline/deals/deal_${'9'.repeat(20_000)}`),
      requestLine('/deals', `x-pad: ${'p'.repeat(20_000)}\r\n`),
    ]) {
      const answer = await sendBytes(t.url, bytes);
      assertCatalogue(answer, 431, ['HEADERS_TOO_LARGE']);
      assert.match(answer.headers['x-request-id'] as string, WELL_FORMED_ID);
    }
  });

  it('the server keeps answering afterwards', async () => {
    assert.equal((await t.get('/health')).status, 200);
  });
});

describe('conventions: one request log line per request (D-38)', () => {
  let t: TestServer;
  const lines: Record<string, unknown>[] = [];
  before(async () => {
    t = await startTestServer({ logStream: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  });
  after(() => t.close());

  /** The log lines of one request: written once the answer is sent, so waited for a moment. */
  async function linesOf(requestId: string): Promise<Record<string, unknown>[]> {
    const deadline = Date.now() + 2_000;
    for (;;) {
      const found = lines.filter((line) => line.requestId === requestId);
      if (found.length > 0 || Date.now() > deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20)); // a second line would show by now
        return lines.filter((line) => line.requestId === requestId);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('one line per answer: requestId (= x-request-id), method, route, status, durationMs', async () => {
    const P = t.prefix;
    const JSON_HEADERS = { 'content-type': 'application/json' };
    const cases: [string, string, string | null, Record<string, string>, string | undefined][] = [
      ['GET', '/health', '/health', {}, undefined],
      ['GET', '/deals/deal_0001?x=', '/deals/:id', { 'x-request-id': 'log-check-1' }, undefined],
      ['GET', '/deals?stage=meeting', '/deals', {}, undefined],
      ['POST', `${P}/deals`, `${P}/deals`, JSON_HEADERS, JSON.stringify(dealBody())],
      ['POST', `${P}/deals`, `${P}/deals`, JSON_HEADERS, '{}'],
      ['GET', `${P}/deals/deal_9999`, `${P}/deals/:id`, {}, undefined],
      ['GET', '/no/such/route', null, {}, undefined],
      ['DELETE', '/deals', '/deals', {}, undefined],
      ['OPTIONS', '/gigs', '/gigs', {}, undefined],
      // Refused by the origin guard (D-49) before its body is read: still one line.
      ['POST', `${P}/deals`, `${P}/deals`, { ...JSON_HEADERS, origin: 'https://evil.example' }, '{}'],
    ];
    for (const [method, path, route, headers, body] of cases) {
      const answer = await send(t.url, method, path, headers, body);
      const requestId = answer.headers['x-request-id'] as string;
      if (headers['x-request-id']) assert.equal(requestId, headers['x-request-id']);
      const found = await linesOf(requestId);
      assert.equal(found.length, 1, `${method} ${path}: one line, got ${JSON.stringify(found)}`);
      const [line] = found;
      assert.equal(line.msg, 'request');
      assert.equal(line.method, method, `${method} ${path}`);
      assert.equal(line.route, route, `${method} ${path}`);
      assert.equal(line.status, answer.status, `${method} ${path}`);
      assert.equal(typeof line.durationMs, 'number');
      assert.ok((line.durationMs as number) >= 0);
    }
  });

  it('an answer that is logged is counted once in GET /metrics too', async () => {
    const created = async () =>
      sample(parse(await (await fetch(`${t.url}/metrics`)).text()), 'http_request_duration_seconds_count', {
        method: 'POST',
        route: `${t.prefix}/deals`,
        status_code: '201',
      });
    const before = await created();
    for (let i = 0; i < 2; i++) {
      const answer = await send(
        t.url,
        'POST',
        `${t.prefix}/deals`,
        { 'content-type': 'application/json' },
        JSON.stringify(dealBody()),
      );
      assert.equal(answer.status, 201);
      assert.equal((await linesOf(answer.headers['x-request-id'] as string)).length, 1);
    }
    assert.equal((await created()) - before, 2);
  });

  it('a malformed URL and a request the parser refuses are logged too, under the id they were answered with', async () => {
    const malformed = await send(t.url, 'GET', `${t.prefix}/deals/%zz`);
    const [url] = await linesOf(malformed.headers['x-request-id'] as string);
    assert.deepEqual(
      { method: url?.method, status: url?.status, duration: typeof url?.durationMs },
      { method: 'GET', status: 404, duration: 'number' },
    );
    // The parser refused the request before its method or path were known.
    const refused = await sendBytes(
      t.url,
      'GET /health HTTP/1.1\r\nHost: test\r\nx-note: a\x01b\r\nConnection: close\r\n\r\n',
    );
    const found = await linesOf(refused.headers['x-request-id'] as string);
    assert.equal(found.length, 1, JSON.stringify(found));
    assert.equal(found[0].status, 400);
    assert.equal(found[0].msg, 'request');
  });
});

/** `npm start` in a new process on a free port; its start-up line (JSON), then stopped by its pid. */
async function startUpLine(databaseUrl: string, ownerUrl = ''): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, NPM_START, {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      TIMER_INTERVAL_SECONDS: '0',
      DATABASE_URL: databaseUrl,
      // D-77: the owner role of a test schema, when the tests run with two roles.
      DATABASE_OWNER_URL: ownerUrl,
      AUTH: 'demo',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    return await new Promise((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`the service did not start:\n${output}`)), 60_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        for (const line of output.split('\n')) {
          if (!line.includes('listening on')) continue;
          clearTimeout(timer);
          resolve(JSON.parse(line));
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the service exited (${code}):\n${output}`));
      });
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  }
}

describe('conventions: the start-up line names the store in use', () => {
  it('describeStore: memory, postgres by host and database without credentials, pglite by folder', () => {
    assert.equal(describeStore(undefined), 'memory');
    assert.equal(describeStore('  '), 'memory');
    assert.equal(
      describeStore('postgres://pipeline:s3cret-pw@db.example:6543/pipeline_prod?sslmode=require'),
      'postgres db.example:6543/pipeline_prod',
    );
    assert.equal(describeStore('postgresql://db.example/app'), 'postgres db.example/app');
    assert.equal(describeStore('pglite:./data'), `pglite ${join(process.cwd(), 'data')}`);
    assert.equal(describeStore('pglite:/var/lib/pipeline'), 'pglite /var/lib/pipeline');
    assert.equal(describeStore('pglite:memory://'), 'pglite in memory');
    for (const url of ['postgres://u:p%40ss@h/d', 'postgres://user:pw@h:1/d']) {
      assert.ok(!describeStore(url).includes('p%40ss') && !describeStore(url).includes('pw'), url);
      assert.ok(!describeStore(url).includes('u:') && !describeStore(url).includes('user'), url);
    }
  });

  it('the start-up line of `npm start` names the store TEST_STORE runs on, and never a password', async () => {
    const kind = process.env.TEST_STORE || 'memory';
    if (kind === 'memory') {
      const line = await startUpLine('');
      assert.equal(line.store, 'memory');
      assert.match(String(line.msg), /listening on http:\/\/127\.0\.0\.1:\d+ .*store memory/);
    } else if (kind === 'pglite') {
      const folder = mkdtempSync(join(tmpdir(), 'pipeline-start-'));
      try {
        const line = await startUpLine(`pglite:${folder}`);
        assert.equal(line.store, `pglite ${folder}`);
        assert.ok(String(line.msg).includes(`store pglite ${folder}`), String(line.msg));
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    } else {
      const base = process.env.TEST_DATABASE_URL as string;
      const schema = await createTestSchema(base, 'startup');
      try {
        const line = await startUpLine(schema.url, schema.ownerUrl);
        const { hostname, port, pathname, username, password } = new URL(base);
        assert.equal(line.store, `postgres ${hostname}${port ? `:${port}` : ''}${pathname}`);
        assert.ok(String(line.msg).includes(`store ${line.store}`), String(line.msg));
        const text = JSON.stringify(line);
        assert.ok(!text.includes(`${username}:`) && !text.includes(`:${password}@`), `no credentials: ${text}`);
      } finally {
        await schema.drop();
      }
    }
  });
});
