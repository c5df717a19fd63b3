// D-3 revised: a keys-mode deployment is production, not a demo. Without DEMO_CONTROLS=on it
// serves no `POST /demo/reset` nor `POST /demo/clock` (404 as any unknown path, absent from
// `GET /`, the contract and the console's page), seeds no fictional closers, and `GET /health`
// answers no counts. With DEMO_CONTROLS=on the two controls are the operator's, and a reset seeds
// no closers either. The demo is as it always was.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, enrolCloser, makeKey, makeSeller, OP, startKeysServer } from '../support/keys.ts';

interface IndexEntry {
  method: string;
  path: string;
}

const CONTROLS = ['/demo/reset', '/demo/clock'];

async function indexPaths(t: TestServer): Promise<string[]> {
  const index = await t.get<{ endpoints: IndexEntry[] }>('/');
  assert.equal(index.status, 200);
  return index.body.endpoints.map((e) => `${e.method} ${e.path}`);
}

async function contract(t: TestServer): Promise<{ paths: Record<string, Record<string, any>> }> {
  const answer = await t.get('/openapi.json');
  assert.equal(answer.status, 200);
  return answer.body;
}

/** The `<meta name="demo-controls">` of the console's page. */
async function consoleSays(t: TestServer): Promise<string | undefined> {
  const html = await (await fetch(`${t.url}/console`)).text();
  return /<meta name="demo-controls" content="(on|off)">/.exec(html)?.[1];
}

/** The health answer's 200 schema in the served contract. */
async function healthSchema(t: TestServer): Promise<Record<string, any>> {
  return (await contract(t)).paths['/health'].get.responses['200'].content['application/json'].schema;
}

describe('keys mode without DEMO_CONTROLS: a production (D-3)', () => {
  let t: TestServer;
  before(async () => {
    t = await startKeysServer();
  });
  after(() => t.close());

  it('POST /demo/reset and /demo/clock are no routes: 404 ROUTE_NOT_FOUND for the operator, anyone, any method', async () => {
    const op = as(t, bearer(OP));
    const anyone = as(t, {});
    for (const [path, body] of [
      ['/demo/reset', {}],
      ['/demo/clock', { advanceHours: 1 }],
    ] as const) {
      for (const client of [op, anyone]) {
        const post = await client.post(path, body);
        assert.equal(post.status, 404, `POST ${path}: ${post.text}`);
        assert.equal(post.body.code, 'ROUTE_NOT_FOUND');
        assert.equal(typeof post.body.error, 'string');
        // Not 405: no method of the path is served.
        const get = await client.get(path);
        assert.equal(get.status, 404, `GET ${path}`);
        assert.equal(get.body.code, 'ROUTE_NOT_FOUND');
      }
    }
  });

  it('they are absent from GET /, from the contract and from the console’s page', async () => {
    const paths = await indexPaths(t);
    for (const path of CONTROLS) assert.ok(!paths.includes(`POST ${path}`), `GET / lists no ${path}`);
    assert.ok(paths.includes('GET /health'), 'the index is the served one');
    const served = (await contract(t)).paths;
    for (const path of CONTROLS) assert.equal(served[path], undefined, `the contract has no ${path}`);
    assert.equal(await consoleSays(t), 'off');
  });

  it('seeds no fictional closers: a fresh store has none, and no closer.enrolled in the feed', async () => {
    const op = as(t, bearer(OP));
    const closers = await op.get('/closers/closers');
    assert.equal(closers.status, 200);
    assert.deepEqual(closers.body, []);
    const events = await op.get('/events?type=closer.enrolled');
    assert.equal(events.status, 200);
    assert.deepEqual(events.body.events, []);
    // The operator enrols its own: the first is closer_0001.
    assert.equal(await enrolCloser(t, 'First Closer (fictional)'), 'closer_0001');
  });

  it('GET /health answers {ok: true} and no count, to anyone, and its contract says so', async () => {
    await enrolCloser(t, 'Another Closer (fictional)');
    for (const headers of [{}, bearer(OP)]) {
      const health = await as(t, headers).get('/health');
      assert.equal(health.status, 200);
      assert.equal(health.text, '{"ok":true}');
    }
    const schema = await healthSchema(t);
    assert.deepEqual(Object.keys(schema.properties), ['ok']);
    assert.equal(schema.additionalProperties, false);
  });
});

describe('keys mode with DEMO_CONTROLS=on (D-3)', () => {
  let t: TestServer;
  let sellerKey: string;
  before(async () => {
    t = await startKeysServer({ demoControls: true });
    sellerKey = (await makeKey(t, OP, { name: 'seller', principal: await makeSeller(t, 'Seller (fictional)') })).key;
  });
  after(() => t.close());

  it('the reset and the clock are served, listed in GET /, the contract and the console’s page', async () => {
    const paths = await indexPaths(t);
    for (const path of CONTROLS) assert.ok(paths.includes(`POST ${path}`), `GET / lists ${path}`);
    const served = (await contract(t)).paths;
    for (const path of CONTROLS) assert.ok(served[path]?.post, `the contract has POST ${path}`);
    assert.equal(await consoleSays(t), 'on');
  });

  it('only for the operator: no key is 401, a Seller’s key 403', async () => {
    for (const [path, body] of [
      ['/demo/reset', {}],
      ['/demo/clock', { advanceHours: 1 }],
    ] as const) {
      const none = await as(t, {}).post(path, body);
      assert.equal(none.status, 401, `${path} without a key`);
      const seller = await as(t, bearer(sellerKey)).post(path, body);
      assert.equal(seller.status, 403, `${path} with a Seller's key`);
      assert.equal(seller.body.code, 'INSUFFICIENT_SCOPE');
    }
  });

  it('the operator moves the clock, and a reset wipes and seeds no closer (seeded: [])', async () => {
    const op = as(t, bearer(OP));
    const clock = await op.post('/demo/clock', { advanceHours: 2 });
    assert.equal(clock.status, 200, clock.text);
    assert.ok(Date.parse(clock.body.now) > Date.now() + 3_600_000);
    await enrolCloser(t, 'Closer (fictional)');
    const reset = await op.post('/demo/reset', {});
    assert.equal(reset.status, 200, reset.text);
    assert.deepEqual(reset.body, { reset: true, seeded: [] });
    assert.deepEqual((await op.get('/closers/closers')).body, []);
    assert.equal((await as(t, {}).get('/health')).text, '{"ok":true}');
  });
});

describe('the demo keeps its controls, its seeded closers and its counts (D-3, D-27)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('GET /health answers {ok, closers, deals}, and its contract says so', async () => {
    const health = await t.get('/health');
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { ok: true, closers: 2, deals: 0 });
    const schema = await healthSchema(t);
    assert.deepEqual(Object.keys(schema.properties).sort(), ['closers', 'deals', 'ok']);
  });

  it('the reset and the clock are served and listed; a reset seeds the two closers', async () => {
    const paths = await indexPaths(t);
    for (const path of CONTROLS) assert.ok(paths.includes(`POST ${path}`), `GET / lists ${path}`);
    assert.equal(await consoleSays(t), 'on');
    const reset = await t.post('/demo/reset', {});
    assert.deepEqual(reset.body, { reset: true, seeded: ['closer_0001', 'closer_0002'] });
    assert.equal((await t.post('/demo/clock', { advanceHours: 1 })).status, 200);
  });
});
