// The served contract tells the whole truth (D-32, D-38): every operation says every status it
// can answer, each with a description, a schema where it has a body, and an example that is
// valid against that schema; keyless is explicit; links name real operations. (Every answer of
// the end-to-end suites is also held to it: test/support/contract-check.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { contractSchemas, pointerToken } from '../support/contract-check.ts';
import { type Answer, startTestServer, type TestServer } from '../support/http.ts';
import { createDeal, dealBody, enrol, HUMAN_CLOSER, openCloserGig } from '../support/marketplace-e2e.ts';

type Json = Record<string, any>;

describe('the served contract', () => {
  let t: TestServer;
  let contract: Json;
  const operations: { path: string; method: string; op: Json }[] = [];
  before(async () => {
    t = await startTestServer();
    contract = (await t.get('/openapi.json')).body;
    for (const [path, item] of Object.entries(contract.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) operations.push({ path, method, op });
    }
  });
  after(() => t.close());

  it('declares servers, a license, and that no operation needs a key (security: [])', () => {
    assert.ok(contract.servers.length > 0);
    assert.equal(typeof contract.info.license.name, 'string');
    assert.deepEqual(contract.security, []);
    for (const { op } of operations) assert.deepEqual(op.security, [], op.operationId);
  });

  it('describes every operation and every response (never "Default Response")', () => {
    for (const { op } of operations) {
      assert.ok(op.description?.length > 0, `${op.operationId} has a description`);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        assert.ok(response.description?.length > 0, `${op.operationId} ${status}`);
        assert.notEqual(response.description, 'Default Response', `${op.operationId} ${status}`);
      }
    }
  });

  it('documents the statuses any request can meet: 405 and 429 everywhere, 413 and 415 with a body', () => {
    for (const { op } of operations) {
      for (const status of ['405', '429']) assert.ok(op.responses[status], `${op.operationId} documents ${status}`);
      if (op.requestBody) {
        for (const status of ['400', '413', '415']) assert.ok(op.responses[status], `${op.operationId} ${status}`);
      }
    }
  });

  it('documents Idempotency-Key on every demo write, and 201s carry Location', () => {
    const writes = operations.filter(
      ({ path, method, op }) => method === 'post' && !op.tags?.includes('root') && path !== '/demo/mcp',
    );
    assert.ok(writes.length >= 15, `${writes.length} demo writes`);
    for (const { op } of writes) {
      assert.ok(
        op.parameters.some((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key'),
        `${op.operationId} takes Idempotency-Key`,
      );
      assert.ok(op.responses['422'], `${op.operationId} documents 422 (a reused key)`);
      if (op.responses['201']) assert.ok(op.responses['201'].headers.Location, `${op.operationId} 201 Location`);
    }
  });

  it('gives every response body an example that is valid against its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(contract, 'contract');
    let checked = 0;
    for (const { path, method, op } of operations) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as Json)) {
          if (type !== 'application/json') continue;
          assert.ok(media.example !== undefined, `${op.operationId} ${status} has an example`);
          const pointer = `/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/responses/${status}/content/application~1json/schema`;
          const validate = ajv.compile({ $ref: `contract#${pointer}` });
          assert.ok(
            validate(media.example),
            `${op.operationId} ${status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(media.example)}`,
          );
          checked++;
        }
      }
    }
    assert.ok(checked > 150, `${checked} examples checked`);
  });

  it('declares links from what an operation creates to the operations on it, each naming a real operation', () => {
    const ids = new Set(operations.map(({ op }) => op.operationId));
    const created = operations.find(({ op }) => op.operationId === 'createDeal')?.op;
    assert.ok(created?.responses['201'].links.getDeal);
    let links = 0;
    for (const { op } of operations) {
      for (const response of Object.values(op.responses as Json)) {
        for (const link of Object.values((response.links ?? {}) as Json)) {
          assert.ok(ids.has(link.operationId), `${op.operationId} links to ${link.operationId}`);
          links++;
        }
      }
    }
    assert.ok(links >= 10, `${links} links`);
  });

  it('describes cursors as opaque and lists the stages a proposal may name', () => {
    const listDeals = operations.find(({ op }) => op.operationId === 'listDeals')?.op;
    const cursor = listDeals?.parameters.find((p: Json) => p.name === 'cursor');
    assert.match(cursor.description, /opaque/);
    const advance = contract.paths['/pipeline/deals/{id}/advance'].post;
    const advanceTo = advance.requestBody.content['application/json'].schema.properties.advanceTo;
    assert.deepEqual(
      advanceTo.anyOf.map((s: Json) => s.const ?? s.enum?.[0]),
      ['sourced', 'qualified', 'meeting', 'proposal', 'negotiation', 'closed_won', 'closed_lost'],
    );
    const listValue =
      contract.paths['/pipeline/deals'].post.requestBody.content['application/json'].schema.properties.listValueUsd;
    assert.equal(listValue.minimum, 0.005, 'the least amount that rounds to a cent');
  });
});

/** The pointer of an operation's JSON request body schema in the contract. */
const bodyPointer = (path: string, method: string) =>
  `/paths/${pointerToken(path)}/${method}/requestBody/content/application~1json/schema`;

/** The pointer of an operation's header parameter schema in the contract (its index found by name). */
function headerPointer(contract: Json, path: string, method: string, name: string): string {
  const index = (contract.paths[path][method].parameters as Json[]).findIndex(
    (p) => p.in === 'header' && p.name.toLowerCase() === name,
  );
  assert.ok(index >= 0, `${method} ${path} documents the ${name} header`);
  return `/paths/${pointerToken(path)}/${method}/parameters/${index}/schema`;
}

// What the contract lets a caller send is what the service takes: a value its schema refuses is
// one the service refuses (with the answer it always gave), and one the service takes is one its
// schema allows (D-32).
describe('the contract says what the service takes', () => {
  let t: TestServer;
  let contract: Json;
  let schema: ReturnType<typeof contractSchemas>;
  before(async () => {
    t = await startTestServer();
    contract = (await t.get('/openapi.json')).body;
    schema = contractSchemas(contract);
  });
  after(() => t.close());

  it('a humanIf: a condition needed (D-100), at most 32 signals of the signal pattern (D-105), a size up to 1e12; problems 422 MANDATE_OUT_OF_BOUNDS', async () => {
    const createDeal = schema(bodyPointer(`${t.prefix}/deals`, 'post'));
    const signals = (n: number) => Array.from({ length: n }, (_, i) => `signal_${i}`);
    const cases: [string, Json, boolean][] = [
      ['no condition', {}, false],
      ['a size', { minDealSizeUsd: 50_000 }, true],
      ['a size of 0', { minDealSizeUsd: 0 }, true],
      ['the largest size', { minDealSizeUsd: 1e12 }, true],
      ['a size above 1e12', { minDealSizeUsd: 2e12 }, false],
      ['a negative size', { minDealSizeUsd: -1 }, false],
      ['no signals (a rule that never holds, yet taken)', { signals: [] }, true],
      ['one signal', { signals: ['procurement_involved'] }, true],
      ['32 signals', { signals: signals(32) }, true],
      ['33 signals', { signals: signals(33) }, false],
      ['a repeated signal', { signals: ['vip', 'vip'] }, true],
      ['a signal not of the pattern', { signals: ['Gone-Dark'] }, false],
      ['a signal of 64 characters', { signals: [`a${'b'.repeat(63)}`] }, true],
      ['a signal of 65 characters', { signals: [`a${'b'.repeat(64)}`] }, false],
      ['an empty signal', { signals: [''] }, false],
      ['both conditions', { minDealSizeUsd: 1, signals: ['vip'] }, true],
      ['an unknown condition', { region: 'emea' }, false],
    ];
    for (const [why, humanIf, valid] of cases) {
      const body = dealBody({ mandate: { staffing: { closer: { humanIf } } } });
      assert.equal(createDeal(body), valid, `${why}: the contract ${valid ? 'allows' : 'refuses'} it`);
      const answer = await t.post(`${t.prefix}/deals`, body);
      if (valid) assert.equal(answer.status, 201, `${why}: ${JSON.stringify(answer.body)}`);
      else {
        // D-20: the mandate is the domain's to check, its problems are 422 whatever the schema says.
        assert.equal(answer.status, 422, `${why}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, 'MANDATE_OUT_OF_BOUNDS', why);
      }
    }
    const humanIf =
      contract.paths[`${t.prefix}/deals`].post.requestBody.content['application/json'].schema.properties.mandate
        .properties.staffing.properties.closer.anyOf[2].properties.humanIf;
    assert.equal(humanIf.minProperties, 1, 'D-100 said by the schema');
  });

  it('a webhook url is a URI: one that is not is 400 INVALID_BODY, as the service always answered it', async () => {
    const createWebhook = schema(bodyPointer('/webhooks', 'post'));
    const url = contract.paths['/webhooks'].post.requestBody.content['application/json'].schema.properties.url;
    assert.equal(url.format, 'uri');
    for (const bad of ['not a uri', 'receiver.example/hooks', '//receiver.example/hooks', 'https//receiver.example']) {
      assert.equal(createWebhook({ url: bad }), false, `the contract refuses ${bad}`);
      const answer = await t.post('/webhooks', { url: bad });
      assert.equal(answer.status, 400, bad);
      assert.equal(answer.body.code, 'INVALID_BODY', bad);
      assert.deepEqual(answer.body.violations, ['url: is not a URL'], bad);
    }
    // The service reads a url as a WHATWG URL does, so it also takes the few that are no RFC 3986
    // URI (a space, which it percent-encodes): the contract's `uri` is the form to send.
    // A public address (TEST-NET-1, nothing listens there): taken, and removed again at once.
    const good = 'https://192.0.2.10/hooks/pipeline';
    assert.equal(createWebhook({ url: good }), true);
    const created = await t.post('/webhooks', { url: good, types: ['deal.closed'] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await t.raw('DELETE', `/webhooks/${created.body.id}`, undefined)).status, 204);
  });

  it('the MCP doors take an Accept that lists both application/json and text/event-stream, and the contract says which', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'contract', version: '0' } },
    });
    for (const path of ['/mcp', '/demo/mcp']) {
      const accept = schema(headerPointer(contract, path, 'post', 'accept'));
      for (const value of [
        'application/json, text/event-stream',
        'text/event-stream, application/json',
        'application/json;q=0.9, text/event-stream;q=0.8',
        'application/json',
        'text/event-stream',
        '*/*',
        'text/html',
        'application/*, text/*',
        'Application/JSON, Text/Event-Stream',
      ]) {
        const answer = await t.raw('POST', path, initialize, { 'content-type': 'application/json', accept: value });
        assert.ok([200, 406].includes(answer.status), `${path} ${value}: ${answer.status}`);
        assert.equal(accept(value), answer.status === 200, `${path} Accept: ${value} answered ${answer.status}`);
      }
    }
  });

  it('x-request-id: any value is taken (one not of its form is replaced), so its schema bounds none', async () => {
    const sent = ['x'.repeat(129), 'x'.repeat(1000), '', 'a b', 'caf\u00e9', 'fine-id'];
    for (const { path, method, op } of Object.entries(contract.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })),
    )) {
      assert.ok(
        op.parameters.some((p: Json) => p.name === 'x-request-id'),
        `${op.operationId} documents x-request-id`,
      );
      const requestId = schema(headerPointer(contract, path, method, 'x-request-id'));
      for (const value of sent) assert.ok(requestId(value), `${op.operationId}: x-request-id ${JSON.stringify(value)}`);
    }
    for (const value of sent) {
      const answer = await fetch(`${t.url}/health`, { headers: { 'x-request-id': value } }).catch(() => undefined);
      // fetch refuses to send some values (a non-ASCII one); the rest are answered, never refused.
      if (answer) assert.equal(answer.status, 200, JSON.stringify(value));
    }
  });
});

/** A link's runtime expression on an answer: the body at a JSON pointer, or a header. */
function evaluate(expression: string, answer: Answer): unknown {
  const body = /^\$response\.body#(.*)$/.exec(expression);
  if (body) {
    const tokens = body[1]
      .split('/')
      .slice(1)
      .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
    return tokens.reduce<any>(
      (node, token) => (node === null || node === undefined ? undefined : node[token]),
      answer.body,
    );
  }
  const header = /^\$response\.header\.(.+)$/.exec(expression);
  if (header) return answer.headers.get(header[1]) ?? undefined;
  throw new Error(`a runtime expression this test does not read: ${expression}`);
}

/** The shape of an answer whose body may be one of several. */
const shapeOf = (body: Json) => (body.escalated === true ? 'escalation' : body.dryRun === true ? 'DryRun' : 'Deal');

// Links (OpenAPI 3.1 Link Objects) are followed by tools: each one's runtime expression must give
// the linked operation an id it answers for, on every answer of its status, whatever its shape
// (D-267): a tool cannot tell which shape a link was meant for.
describe("the contract's links resolve on real answers", () => {
  let t: TestServer;
  let contract: Json;
  before(async () => {
    t = await startTestServer();
    contract = (await t.get('/openapi.json')).body;
  });
  after(() => t.close());

  /** Every operation by its operationId, with its path and method. */
  const operationsById = () => {
    const byId = new Map<string, { path: string; method: string; op: Json }>();
    for (const [path, item] of Object.entries(contract.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) byId.set(op.operationId, { path, method, op });
    }
    return byId;
  };

  it('sell that closes and sell that escalates, advance (a move, an escalation, a dry run), create, reengage, claim, enrol: each link gives an id its operation answers for', async () => {
    const answers: { operationId: string; status: string; answer: Answer }[] = [];
    const add = (operationId: string, status: string, answer: Answer) => {
      assert.equal(String(answer.status), status, `${operationId}: ${JSON.stringify(answer.body)}`);
      answers.push({ operationId, status, answer });
    };
    add('sell', '201', await t.post(`${t.prefix}/sell`, dealBody()));
    add('sell', '201', await t.post(`${t.prefix}/sell`, dealBody({ mandate: HUMAN_CLOSER })));
    add('createDeal', '201', await t.post(`${t.prefix}/deals`, dealBody()));
    const moving = await createDeal(t, { mandate: HUMAN_CLOSER });
    add('advanceDeal', '200', await t.post(`${t.prefix}/deals/${moving.id}/advance?dryRun=true`));
    add('advanceDeal', '200', await t.post(`${t.prefix}/deals/${moving.id}/advance`));
    add('advanceDeal', '200', await t.post(`${t.prefix}/deals/${moving.id}/advance`));
    add('advanceDeal', '200', await t.post(`${t.prefix}/deals/${moving.id}/advance?dryRun=true`));
    add('advanceDeal', '200', await t.post(`${t.prefix}/deals/${moving.id}/advance`));
    const lost = await createDeal(t);
    assert.equal((await t.post(`${t.prefix}/deals/${lost.id}/advance`, { advanceTo: 'closed_lost' })).status, 200);
    add('reengageDeal', '201', await t.post(`${t.prefix}/deals/${lost.id}/reengage`));
    const closer = await enrol(t, 'Link Fictional', ['saas']);
    add('enrolCloser', '201', await t.post('/closers/closers', { name: 'Link Fictional Two' }));
    const escalation = await openCloserGig(t);
    add('claimGig', '200', await t.post(`/closers/gigs/${escalation.gig.id}/claim`, { closerId: closer.id }));
    const shapes = (operationId: string) =>
      new Set(answers.filter((a) => a.operationId === operationId).map((a) => shapeOf(a.answer.body)));
    assert.deepEqual([...shapes('sell')].sort(), ['Deal', 'escalation']);
    assert.deepEqual([...shapes('advanceDeal')].sort(), ['Deal', 'DryRun', 'escalation']);

    const byId = operationsById();
    const linked = new Set<string>();
    for (const { op } of byId.values()) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        if (response.links) linked.add(`${op.operationId} ${status}`);
      }
    }
    const covered = new Set(answers.map((a) => `${a.operationId} ${a.status}`));
    for (const response of linked) assert.ok(covered.has(response), `${response} has links and real answers here`);

    let followed = 0;
    for (const { operationId, status, answer } of answers) {
      const links = (byId.get(operationId)?.op.responses[status].links ?? {}) as Json;
      const shape = shapeOf(answer.body);
      for (const [name, link] of Object.entries(links)) {
        const what = `${operationId} ${status} (${shape}) → ${name} (${link.parameters.id})`;
        const id = evaluate(link.parameters.id, answer);
        assert.equal(typeof id, 'string', `${what}: no id in ${JSON.stringify(answer.body).slice(0, 200)}`);
        const target = byId.get(link.operationId);
        assert.ok(target, what);
        // The record the id names is read (a write is not made; a settlement may not exist yet).
        const path = target.path.slice(0, target.path.indexOf('{id}') + '{id}'.length);
        const read = await t.get(path.replace('{id}', encodeURIComponent(id as string)));
        assert.equal(read.status, 200, `${what}: GET ${path} with ${String(id)} answered ${read.status}`);
        followed++;
      }
    }
    assert.ok(followed >= 13, `${followed} links followed`);
  });

  it('sell and advanceDeal, whose answers come in several shapes with no id at one place in them all, declare no link', async () => {
    const sold = await t.post(`${t.prefix}/sell`, dealBody());
    const escalated = await t.post(`${t.prefix}/sell`, dealBody({ mandate: HUMAN_CLOSER }));
    assert.equal(sold.body.id === undefined, false, 'the Deal carries its id at /id');
    assert.equal(escalated.body.id, undefined, 'the escalation carries none there');
    assert.equal(contract.paths[`${t.prefix}/sell`].post.responses['201'].links, undefined);
    assert.equal(contract.paths[`${t.prefix}/deals/{id}/advance`].post.responses['200'].links, undefined);
  });
});
