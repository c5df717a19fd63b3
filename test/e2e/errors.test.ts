// End to end over real HTTP: bad input across the endpoints (D-5) and the rule that a refused
// request changes nothing (D-6, D-28). Every answer in this file goes through `checked`, which
// holds it to D-5: never a 500, and every error body carries a string `error` and a string `code`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, account, startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  advanceDeal,
  type CloserView,
  createDeal,
  type DealView,
  dealBody,
  type ErrorView,
  type GigView,
  listGigs,
  MILO,
  negotiatingCloserGig,
} from '../support/marketplace-e2e.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Wraps a test server so that every answer is held to D-5 before a test looks at it. */
function checked(t: TestServer): TestServer {
  const hold = <T>(answer: Answer<T>, what: string): Answer<T> => {
    assert.notEqual(answer.status, 500, `${what} answered 500: ${JSON.stringify(answer.body)}`);
    assert.ok(answer.status < 500, `${what} answered ${answer.status}`);
    if (answer.status >= 400) {
      const body = answer.body as Partial<ErrorView> | undefined;
      assert.equal(typeof body, 'object', `${what}: the error body is JSON`);
      assert.equal(typeof body?.error, 'string', `${what}: error is a string`);
      assert.ok((body?.error ?? '').length > 0, `${what}: error is not empty`);
      assert.equal(typeof body?.code, 'string', `${what}: code is a string`);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, `${what}: JSON content type`);
    }
    return answer;
  };
  return {
    ...t,
    get: async (path) => hold(await t.get(path), `GET ${path}`),
    post: async (path, body, headers) => hold(await t.post(path, body, headers), `POST ${path}`),
    raw: async (method, path, body, headers) => hold(await t.raw(method, path, body, headers), `${method} ${path}`),
  };
}

/** Asserts the status and code, and returns the body. */
function expectError(answer: Answer, status: number, code: string, why = ''): ErrorView {
  assert.equal(
    answer.status,
    status,
    `${why} expected ${status}, got ${answer.status}: ${JSON.stringify(answer.body)}`,
  );
  const body = answer.body as ErrorView;
  assert.equal(body.code, code, `${why} ${JSON.stringify(body)}`);
  return body;
}

/** Asserts a 400 whose violations name each of the given fields. */
function expectViolations(answer: Answer, fields: string[], why = ''): string[] {
  const body = expectError(answer, 400, 'INVALID_BODY', why);
  assert.ok(Array.isArray(body.violations), `${why}: violations is an array`);
  const violations = body.violations ?? [];
  for (const v of violations) assert.equal(typeof v, 'string');
  for (const field of fields) {
    assert.ok(
      violations.some((v) => v.startsWith(`${field}:`)),
      `${why}: a violation names ${field}: ${JSON.stringify(violations)}`,
    );
  }
  return violations;
}

const MALFORMED = ['{', '{"account":', "{'a': 1}", '{"a": 1,}', 'not json', '{"a": undefined}', '[1, 2'];
const NOT_OBJECTS = ['[]', '[{"account": {}}]', '"deal"', '42', '-1.5', 'true', 'null'];

describe('errors: malformed and non-object bodies (D-5)', () => {
  let t: TestServer;
  let dealId: string;
  before(async () => {
    t = checked(await startTestServer());
    dealId = (await createDeal(t)).id;
  });
  after(async () => {
    await t.close();
  });

  const endpoints = (id: string) => [
    '/pipeline/deals',
    '/pipeline/sell',
    `/pipeline/deals/${id}/advance`,
    `/pipeline/deals/${id}/signals`,
    `/pipeline/deals/${id}/reengage`,
    `/pipeline/deals/${id}/deescalate`,
    '/closers/closers',
    '/closers/match',
    '/closers/gigs/gig_0001/claim',
    '/closers/gigs/gig_0001/advance',
    '/closers/gigs/gig_0001/revive',
    '/closers/gigs/gig_0001/release',
    '/closers/gigs/gig_0001/expire',
    '/demo/reset',
    '/demo/clock',
  ];

  it('malformed JSON → 400 {error, code INVALID_JSON, violations} on every POST endpoint', async () => {
    for (const path of endpoints(dealId)) {
      for (const text of MALFORMED) {
        const body = expectError(await t.raw('POST', path, text, JSON_HEADERS), 400, 'INVALID_JSON', `${path} ${text}`);
        assert.ok(Array.isArray(body.violations) && body.violations.length > 0, `${path}: violations listed`);
        assert.match(body.error, /JSON/);
      }
    }
  });

  it('a body that is an array, a string, a number, a boolean or null → 400 INVALID_BODY on every POST endpoint', async () => {
    for (const path of endpoints(dealId)) {
      for (const text of NOT_OBJECTS) {
        const body = expectError(await t.raw('POST', path, text, JSON_HEADERS), 400, 'INVALID_BODY', `${path} ${text}`);
        assert.ok(Array.isArray(body.violations) && body.violations.length > 0, `${path} ${text}: violations`);
      }
    }
  });

  it('nothing moved: the deal is still at sourced with one entry, and no id was consumed', async () => {
    const deal = (await t.get<DealView>(`/pipeline/deals/${dealId}`)).body;
    assert.equal(deal.stage, 'sourced');
    assert.equal(deal.activity.length, 1);
    assert.deepEqual((await t.get('/health')).body, { ok: true, closers: 2, deals: 1 });
    assert.equal((await createDeal(t)).id, 'deal_0002');
  });
});

describe('errors: create deal fields (D-5, D-21)', () => {
  let t: TestServer;
  before(async () => {
    t = checked(await startTestServer());
  });
  after(async () => {
    await t.close();
  });

  const create = (body: unknown) => t.post('/pipeline/deals', body);

  it('missing required fields: each is named', async () => {
    expectViolations(await create({}), ['account', 'listValueUsd'], '{}');
    expectViolations(await create({ account: {} }), ['account.name', 'account.actor', 'listValueUsd'], 'account {}');
    expectViolations(await create({ listValueUsd: 100 }), ['account'], 'no account');
    expectViolations(await create({ account: account() }), ['listValueUsd'], 'no listValueUsd');
    expectViolations(await create({ account: { actor: 'B2B' }, listValueUsd: 100 }), ['account.name'], 'no name');
    expectViolations(await create({ account: { name: 'N' }, listValueUsd: 100 }), ['account.actor'], 'no actor');
  });

  it('wrong types and values: every problem of one body is named', async () => {
    const violations = expectViolations(
      await create({
        account: { name: 'x'.repeat(201), industry: 'i'.repeat(101), actor: 'B2X' },
        listValueUsd: '100',
      }),
      ['account.name', 'account.industry', 'account.actor', 'listValueUsd'],
    );
    assert.ok(violations.length >= 4);
  });

  it('each wrong field alone is a 400 naming it', async () => {
    const cases: [string, unknown, string][] = [
      ['listValueUsd as a string', { account: account(), listValueUsd: '100' }, 'listValueUsd'],
      ['listValueUsd null', { account: account(), listValueUsd: null }, 'listValueUsd'],
      ['listValueUsd an object', { account: account(), listValueUsd: { usd: 1 } }, 'listValueUsd'],
      ['actor B2X', { account: account({ actor: 'B2X' }), listValueUsd: 100 }, 'account.actor'],
      ['actor lower case', { account: account({ actor: 'b2b' }), listValueUsd: 100 }, 'account.actor'],
      ['name empty', { account: account({ name: '' }), listValueUsd: 100 }, 'account.name'],
      ['name 201 chars', { account: account({ name: 'n'.repeat(201) }), listValueUsd: 100 }, 'account.name'],
      ['name a number', { account: account({ name: 7 }), listValueUsd: 100 }, 'account.name'],
      [
        'industry 101 chars',
        { account: account({ industry: 'i'.repeat(101) }), listValueUsd: 100 },
        'account.industry',
      ],
      ['industry null', { account: account({ industry: null }), listValueUsd: 100 }, 'account.industry'],
      ['account a string', { account: 'Fictional Widgets', listValueUsd: 100 }, 'account'],
      ['account an array', { account: [account()], listValueUsd: 100 }, 'account'],
      ['unknown field in account', { account: account({ vat: 'GB1' }), listValueUsd: 100 }, 'account.vat'],
      ['unknown top-level field', { ...dealBody(), owner: 'me' }, 'owner'],
      ['unknown top-level id', { ...dealBody(), id: 'deal_0042' }, 'id'],
      ['unknown top-level stage', { ...dealBody(), stage: 'closed_won' }, 'stage'],
    ];
    for (const [why, body, field] of cases) expectViolations(await create(body), [field], why);
  });

  it('the bounds of the account are accepted exactly: name 200 chars, industry 100 chars', async () => {
    const answer = await create({
      account: { name: 'n'.repeat(200), industry: 'i'.repeat(100), actor: 'B2A' },
      listValueUsd: 1,
    });
    assert.equal(answer.status, 201);
    assert.equal(answer.body.id, 'deal_0001', 'the refusals consumed no id');
  });

  it('listValueUsd 0, negative, above 1e12, or 1e400 (Infinity) → 400, never 500', async () => {
    for (const value of [0, -0.01, -5, 1e12 + 1, 1e13, Number.MAX_VALUE, -Number.MAX_VALUE]) {
      expectViolations(await create({ account: account(), listValueUsd: value }), ['listValueUsd'], String(value));
    }
    for (const literal of ['1e400', '-1e400', '1E+400']) {
      const text = `{"account":{"name":"Big Numbers Ltd","actor":"B2B"},"listValueUsd":${literal}}`;
      expectViolations(await t.raw('POST', '/pipeline/deals', text, JSON_HEADERS), ['listValueUsd'], literal);
      expectViolations(await t.raw('POST', '/pipeline/sell', text, JSON_HEADERS), ['listValueUsd'], literal);
    }
  });

  it('a positive value that rounds to 0 cents is refused with 400 naming listValueUsd', async () => {
    expectViolations(await create({ account: account(), listValueUsd: 0.004 }), ['listValueUsd']);
    expectViolations(await create({ account: account(), listValueUsd: 1e-7 }), ['listValueUsd']);
  });

  it('mandate numbers of 1e400 are 422 violations, not 500', async () => {
    const text =
      '{"account":{"name":"N","actor":"B2B"},"listValueUsd":5,' +
      '"mandate":{"floorPct":1e400,"fees":{"setterUsd":1e400},"staffing":{"setter":{"humanIf":{"minDealSizeUsd":1e400}}}}}';
    const body = expectError(await t.raw('POST', '/pipeline/deals', text, JSON_HEADERS), 422, 'MANDATE_OUT_OF_BOUNDS');
    assert.deepEqual(
      body.violations?.map((v) => v.split(':')[0]),
      ['mandate.floorPct', 'mandate.fees.setterUsd', 'mandate.staffing.setter.humanIf.minDealSizeUsd'],
    );
  });

  it('nothing was created by any of the refusals above but the one accepted create', async () => {
    assert.deepEqual((await t.get('/health')).body, { ok: true, closers: 2, deals: 1 });
    assert.equal((await createDeal(t)).id, 'deal_0002');
  });
});

describe('errors: the advance Proposal and other bodies (D-5, D-9)', () => {
  let t: TestServer;
  let deal: DealView;
  before(async () => {
    t = checked(await startTestServer());
    deal = await createDeal(t);
    for (let i = 0; i < 4; i++) deal = await advanceDeal(t, deal.id);
    assert.equal(deal.stage, 'negotiation');
  });
  after(async () => {
    await t.close();
  });

  it('valueUsd 1e400 on advance → 400, and the deal stays in negotiation', async () => {
    for (const literal of ['1e400', '-1e400']) {
      const text = `{"advanceTo":"closed_won","valueUsd":${literal}}`;
      expectViolations(await t.raw('POST', `/pipeline/deals/${deal.id}/advance`, text, JSON_HEADERS), ['valueUsd']);
    }
    assert.deepEqual((await t.get(`/pipeline/deals/${deal.id}`)).body, deal);
  });

  it('bad Proposal fields → 400 naming each', async () => {
    const cases: [unknown, string[]][] = [
      [{ valueUsd: '12000' }, ['valueUsd']],
      [{ valueUsd: 0 }, ['valueUsd']],
      [{ valueUsd: -1 }, ['valueUsd']],
      [{ valueUsd: 1e12 + 1 }, ['valueUsd']],
      [{ advanceTo: 5 }, ['advanceTo']],
      [{ advanceTo: 'x'.repeat(65) }, ['advanceTo']],
      [{ note: 42 }, ['note']],
      [{ note: 'n'.repeat(2001) }, ['note']],
      [{ advanceTo: 'closed_won', stage: 'closed_won' }, ['stage']],
      [{ valueUsd: '1', note: 1, advanceTo: null }, ['valueUsd', 'note', 'advanceTo']],
    ];
    for (const [body, fields] of cases) {
      expectViolations(await t.post(`/pipeline/deals/${deal.id}/advance`, body), fields, JSON.stringify(body));
    }
    assert.deepEqual((await t.get(`/pipeline/deals/${deal.id}`)).body, deal);
  });

  it('bodies of the marketplace and demo utilities are checked too', async () => {
    expectViolations(await t.post('/closers/closers', { industries: [] }), ['name']);
    expectViolations(await t.post('/closers/match', { industry: 'saas', valueUsd: 1 }), ['role']);
    expectViolations(
      await t.raw('POST', '/closers/match', '{"industry":"saas","valueUsd":1e400,"role":"closer"}', JSON_HEADERS),
      ['valueUsd'],
    );
    expectViolations(await t.post('/closers/match', { industry: 'saas', valueUsd: 1, role: 'boss' }), ['role']);
    expectViolations(await t.post('/closers/gigs/gig_0001/claim', {}), ['closerId']);
    expectViolations(await t.post('/closers/gigs/gig_0001/advance', { valueUsd: 1 }), ['advanceTo']);
    expectViolations(await t.post('/closers/gigs/gig_0001/release', { reason: 'x' }), ['reason']);
    expectViolations(await t.post('/closers/gigs/gig_0001/expire', { now: true }), ['now']);
    expectViolations(await t.post(`/pipeline/deals/${deal.id}/reengage`, { copy: true }), ['copy']);
    expectViolations(await t.post('/demo/clock', { advanceHours: '24' }), ['advanceHours']);
    expectViolations(await t.raw('POST', '/demo/clock', '{"advanceHours":1e400}', JSON_HEADERS), ['advanceHours']);
    expectViolations(await t.post('/demo/clock', {}), ['advanceHours']);
    expectViolations(await t.post('/demo/reset', { keep: 'closers' }), ['keep']);
    expectError(await t.get('/closers/gigs?status=lost'), 400, 'INVALID_QUERY');
    // A path id of any length or shape is an unknown id (D-5).
    expectError(await t.get(`/pipeline/deals/${'x'.repeat(65)}`), 404, 'DEAL_NOT_FOUND');
    assert.deepEqual((await t.get('/health')).body, { ok: true, closers: 2, deals: 1 }, 'the reset was refused');
  });
});

describe('errors: transport (D-5)', () => {
  let t: TestServer;
  before(async () => {
    t = checked(await startTestServer());
  });
  after(async () => {
    await t.close();
  });

  it('a body over 64 KiB → 413 JSON {error, code BODY_TOO_LARGE}', async () => {
    const big = JSON.stringify({ ...dealBody(), account: account({ name: 'x'.repeat(65 * 1024) }) });
    assert.ok(big.length > 64 * 1024);
    for (const path of ['/pipeline/deals', '/pipeline/sell', '/pipeline/deals/deal_0001/advance', '/closers/closers']) {
      expectError(await t.raw('POST', path, big, JSON_HEADERS), 413, 'BODY_TOO_LARGE', path);
    }
    const answer = await t.post('/pipeline/deals', { ...dealBody(), padding: 'p'.repeat(70_000) });
    expectError(answer, 413, 'BODY_TOO_LARGE');
  });

  it('a body just under 64 KiB is read and judged on its content (400, not 413)', async () => {
    const text = JSON.stringify({ ...dealBody(), padding: 'p'.repeat(60_000) });
    assert.ok(text.length < 64 * 1024);
    expectViolations(await t.raw('POST', '/pipeline/deals', text, JSON_HEADERS), ['padding']);
  });

  it('content-type text/plain (or none, or form) → 415 JSON', async () => {
    const text = JSON.stringify(dealBody());
    const types = ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data'];
    for (const type of types) {
      const body = expectError(
        await t.raw('POST', '/pipeline/deals', text, { 'content-type': type }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        type,
      );
      assert.match(body.error, /application\/json/);
    }
    expectError(await t.raw('POST', '/pipeline/deals', text), 415, 'UNSUPPORTED_MEDIA_TYPE', 'no content-type');
    expectError(
      await t.raw('POST', '/pipeline/deals/deal_0001/advance', '{}', { 'content-type': 'text/plain' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('content-type application/json with a charset is JSON', async () => {
    const answer = await t.raw('POST', '/pipeline/deals', JSON.stringify(dealBody()), {
      'content-type': 'application/json; charset=utf-8',
    });
    assert.equal(answer.status, 201);
  });

  it('an unknown path → 404 JSON {error, code ROUTE_NOT_FOUND}', async () => {
    const routes: [string, string][] = [
      ['GET', '/nope'],
      ['GET', '/pipeline'],
      ['POST', '/pipeline/deal'],
      ['POST', '/pipeline/deals/deal_0001/close'],
      ['POST', '/closers/gigs/gig_0001/delete'],
    ];
    for (const [method, path] of routes) {
      const body = expectError(await t.raw(method, path, undefined), 404, 'ROUTE_NOT_FOUND', `${method} ${path}`);
      assert.match(body.error, new RegExp(path.replaceAll('/', '\\/')));
    }
  });

  it('a known path with a method it does not serve → 405 with Allow (D-38)', async () => {
    const routes: [string, string, string][] = [
      ['DELETE', '/pipeline/deals/deal_0001', 'GET, HEAD, PATCH, OPTIONS'],
      ['PUT', '/pipeline/deals/deal_0001', 'GET, HEAD, PATCH, OPTIONS'],
      ['PATCH', '/pipeline/deals/deal_0001/settlement', 'GET, HEAD, OPTIONS'],
      ['GET', '/pipeline/deals/deal_0001/advance', 'POST, OPTIONS'],
      ['POST', '/pipeline/deals/deal_0001/settlement', 'GET, HEAD, OPTIONS'],
      ['DELETE', '/closers/gigs/gig_0001', 'GET, HEAD, OPTIONS'],
      ['GET', '/demo/reset', 'POST, OPTIONS'],
      ['POST', '/health', 'GET, HEAD, OPTIONS'],
      ['PUT', '/pipeline/deals', 'POST, GET, HEAD, OPTIONS'],
    ];
    for (const [method, path, allow] of routes) {
      // The body is not read: malformed JSON does not make it a 400.
      const answer = await t.raw(method, path, method === 'GET' ? undefined : '{nope', JSON_HEADERS);
      const body = expectError(answer, 405, 'METHOD_NOT_ALLOWED', `${method} ${path}`);
      assert.equal(answer.headers.get('allow'), allow, `${method} ${path}`);
      assert.match(body.error, new RegExp(method));
    }
  });
});

describe('errors: unknown ids on every id path → 404 JSON', () => {
  let t: TestServer;
  before(async () => {
    t = checked(await startTestServer());
  });
  after(async () => {
    await t.close();
  });

  it('deal paths answer DEAL_NOT_FOUND', async () => {
    for (const id of ['deal_0001', 'deal_9999', 'nope']) {
      expectError(await t.get(`/pipeline/deals/${id}`), 404, 'DEAL_NOT_FOUND', 'get');
      expectError(await t.post(`/pipeline/deals/${id}/advance`), 404, 'DEAL_NOT_FOUND', 'advance');
      expectError(
        await t.post(`/pipeline/deals/${id}/advance`, { advanceTo: 'closed_lost' }),
        404,
        'DEAL_NOT_FOUND',
        'advance with body',
      );
      expectError(await t.post(`/pipeline/deals/${id}/signals`, { signals: ['x'] }), 404, 'DEAL_NOT_FOUND', 'signals');
      expectError(await t.get(`/pipeline/deals/${id}/settlement`), 404, 'DEAL_NOT_FOUND', 'settlement');
      expectError(await t.post(`/pipeline/deals/${id}/reengage`), 404, 'DEAL_NOT_FOUND', 'reengage');
      expectError(await t.post(`/pipeline/deals/${id}/deescalate`), 404, 'DEAL_NOT_FOUND', 'deescalate');
    }
  });

  it('closer and gig paths answer CLOSER_NOT_FOUND and GIG_NOT_FOUND', async () => {
    for (const id of ['closer_0003', 'closer_9999', 'nope']) {
      expectError(await t.get(`/closers/closers/${id}`), 404, 'CLOSER_NOT_FOUND', id);
    }
    for (const id of ['gig_0001', 'gig_9999', 'nope']) {
      expectError(await t.post(`/closers/gigs/${id}/claim`, { closerId: ADA }), 404, 'GIG_NOT_FOUND', 'claim');
      expectError(await t.post(`/closers/gigs/${id}/advance`, { advanceTo: 'proposal' }), 404, 'GIG_NOT_FOUND', 'adv');
      expectError(await t.post(`/closers/gigs/${id}/revive`), 404, 'GIG_NOT_FOUND', 'revive');
      expectError(await t.post(`/closers/gigs/${id}/release`), 404, 'GIG_NOT_FOUND', 'release');
      expectError(await t.post(`/closers/gigs/${id}/expire`), 404, 'GIG_NOT_FOUND', 'expire');
    }
  });

  it('the 404s created nothing', async () => {
    assert.deepEqual((await t.get('/health')).body, { ok: true, closers: 2, deals: 0 });
    assert.deepEqual(await listGigs(t), []);
  });
});

describe('errors: a refused request leaves no trace (D-6, D-28)', () => {
  let t: TestServer;
  let agentDeal: DealView; // worked by the agent, at qualified
  let wonDeal: DealView; // closed_won by the agent
  let humanDealId: string; // a claimed closer gig in negotiation
  let gig: GigView;

  interface Snapshot {
    health: unknown;
    deals: DealView[];
    gigs: GigView[];
    closers: CloserView[];
  }

  const snapshot = async (): Promise<Snapshot> => ({
    health: (await t.get('/health')).body,
    deals: await Promise.all(
      [agentDeal.id, wonDeal.id, humanDealId].map(async (id) => (await t.get<DealView>(`/pipeline/deals/${id}`)).body),
    ),
    gigs: await listGigs(t),
    closers: (await t.get<CloserView[]>('/closers/closers')).body,
  });

  before(async () => {
    t = checked(await startTestServer());
    agentDeal = await createDeal(t);
    agentDeal = await advanceDeal(t, agentDeal.id);
    wonDeal = await createDeal(t, { listValueUsd: 5000 });
    for (let i = 0; i < 5; i++) wonDeal = await advanceDeal(t, wonDeal.id);
    assert.equal(wonDeal.stage, 'closed_won');
    const negotiating = await negotiatingCloserGig(t, ADA, { listValueUsd: 20_000 });
    gig = negotiating.gig;
    humanDealId = negotiating.deal.id;
    assert.equal(negotiating.deal.stage, 'negotiation');
    assert.equal(gig.status, 'claimed');
  });
  after(async () => {
    await t.close();
  });

  it('after a batch of refused requests: counts, deals, activity, gigs and ledgers are unchanged', async () => {
    const before = await snapshot();
    assert.deepEqual(before.health, { ok: true, closers: 2, deals: 3 });
    const p = '/pipeline';
    const refused: [Promise<Answer>, number][] = [
      // creation refused: no deal id may be consumed
      [t.post(`${p}/deals`, dealBody({ mandate: { commissionPct: 0.2 } })), 422],
      [t.post(`${p}/sell`, dealBody({ mandate: { stallTimeoutDays: 1 } })), 422],
      [t.post(`${p}/deals`, { ...dealBody(), listValueUsd: 0 }), 400],
      [t.post(`${p}/sell`, { account: account({ actor: 'B2X' }), listValueUsd: 100 }), 400],
      [t.raw('POST', `${p}/deals`, '{"account":', JSON_HEADERS), 400],
      [t.raw('POST', `${p}/sell`, JSON.stringify(dealBody()), { 'content-type': 'text/plain' }), 415],
      [t.raw('POST', `${p}/deals`, JSON.stringify({ ...dealBody(), pad: 'x'.repeat(70_000) }), JSON_HEADERS), 413],
      // moves refused by the gate or by state
      [t.post(`${p}/deals/${agentDeal.id}/advance`, { advanceTo: 'proposal' }), 422],
      [t.post(`${p}/deals/${agentDeal.id}/advance`, { advanceTo: 'closed_won', valueUsd: 1e6 }), 422],
      [t.post(`${p}/deals/${agentDeal.id}/advance`, { valueUsd: '1' }), 400],
      [t.raw('POST', `${p}/deals/${agentDeal.id}/advance`, 'null', JSON_HEADERS), 400],
      [t.post(`${p}/deals/${agentDeal.id}/signals`, { signals: ['Bad-Name'] }), 400],
      [t.post(`${p}/deals/${agentDeal.id}/signals`, { signals: [] }), 400],
      [t.post(`${p}/deals/${agentDeal.id}/reengage`), 409],
      [t.post(`${p}/deals/${agentDeal.id}/deescalate`), 409],
      [t.get(`${p}/deals/${agentDeal.id}/settlement`), 409],
      [t.post(`${p}/deals/${wonDeal.id}/advance`), 409],
      [t.post(`${p}/deals/${wonDeal.id}/advance`, { advanceTo: 'closed_lost' }), 409],
      [t.post(`${p}/deals/${wonDeal.id}/signals`, { signals: ['gone_dark'] }), 409],
      [t.post(`${p}/deals/${wonDeal.id}/reengage`), 409],
      [t.post(`${p}/deals/${humanDealId}/deescalate`), 409],
      // gig moves refused
      [t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', valueUsd: 1 }), 422],
      [t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', valueUsd: 15_999.99 }), 422],
      [t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'meeting' }), 422],
      [t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', valueUsd: 20_000, closerId: MILO }), 409],
      [t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', closerId: 'closer_9999' }), 404],
      [t.post(`/closers/gigs/${gig.id}/claim`, { closerId: MILO }), 409],
      [t.post(`/closers/gigs/${gig.id}/claim`, { closerId: 'closer_9999' }), 404],
      [t.post(`/closers/gigs/${gig.id}/revive`), 409],
      [t.post(`/closers/gigs/${gig.id}/release`, { closerId: MILO }), 409],
      [t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', valueUsd: '20000' }), 400],
      // marketplace and demo refused: no closer id consumed, no reset, no clock move
      [t.post('/closers/closers', { name: '', industries: [] }), 400],
      [t.post('/closers/closers', { name: 'Too Many', industries: Array.from({ length: 21 }, () => 'x') }), 400],
      [t.post('/demo/reset', { confirm: true }), 400],
      [t.post('/demo/clock', { advanceHours: 2161 }), 400],
      [t.post('/demo/clock', { advanceHours: -1 }), 400],
    ];
    for (const [index, [request, status]] of refused.entries()) {
      const answer = await request;
      assert.equal(answer.status, status, `refusal #${index}: ${JSON.stringify(answer.body)}`);
    }

    const afterwards = await snapshot();
    assert.deepEqual(afterwards.health, before.health, 'health counts unchanged');
    for (const [i, deal] of afterwards.deals.entries()) {
      assert.equal(deal.activity.length, before.deals[i].activity.length, `${deal.id}: activity length unchanged`);
    }
    assert.deepEqual(afterwards.deals, before.deals, 'deals unchanged');
    assert.deepEqual(afterwards.gigs, before.gigs, 'gigs unchanged');
    assert.deepEqual(afterwards.closers, before.closers, 'registers and ledgers unchanged');
    assert.deepEqual(
      afterwards.closers.map((c) => c.payouts.length),
      [0, 0],
      'no ledger line',
    );
  });

  it('ids were not consumed: the next deal, gig and closer get the next numbers', async () => {
    const deal = await createDeal(t, { mandate: { staffing: { setter: 'human' } } });
    assert.equal(deal.id, 'deal_0004');
    const escalation = await t.post(`/pipeline/deals/${deal.id}/advance`);
    assert.equal(escalation.status, 200);
    assert.equal(escalation.body.gig.id, 'gig_0002');
    const closer = await t.post<CloserView>('/closers/closers', { name: 'Next In Line (fictional)', industries: [] });
    assert.equal(closer.status, 201);
    assert.equal(closer.body.id, 'closer_0003');
  });

  it('the refused gig close did not stop a good one: the claimed gig still closes at the floor', async () => {
    const answer = await t.post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', valueUsd: 16_000 });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.deal.stage, 'closed_won');
    assert.equal(answer.body.closer.payouts.length, 1, 'exactly one ledger line, from this close');
  });
});
