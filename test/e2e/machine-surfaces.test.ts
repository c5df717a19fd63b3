// End to end over real HTTP: the machine surfaces of the ROOT origin (spec ROOT table, "Pricing
// Document", "Versioning"; D-31, D-32): the generated OpenAPI 3.1 contract, the HTML reference,
// the Pricing Document and its JSON Schema, the offer stub, family, agents card, ICP, llms.txt,
// and the probe suite of /verify run against a live service.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import { PROBES, runProbes } from '../../src/public/probes.ts';
import { startTestServer, type TestServer } from '../support/http.ts';

type Json = Record<string, any>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Operation {
  method: string;
  path: string;
  op: Json;
}

function operations(spec: Json): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (HTTP_METHODS.includes(method)) found.push({ method: method.toUpperCase(), path, op });
    }
  }
  return found;
}

/** The spec's ROOT endpoints (table plus the machine surfaces); /mcp is checked only once registered. */
const ROOT_ENDPOINTS = [
  'GET /deals',
  'GET /deals/{id}',
  'GET /gigs',
  'GET /offer',
  'GET /pricing',
  'GET /family.json',
  'GET /verify',
  'GET /.well-known/agents.json',
  'GET /openapi.json',
  'GET /icp.json',
  'GET /docs',
  'GET /llms.txt',
];
const MCP_ENDPOINT = 'POST /mcp';

/** Every endpoint of the spec's DEMO tables (utilities, deal service, marketplace), and D-12. */
const demoEndpoints = (prefix: string) => [
  'GET /',
  'GET /health',
  'POST /demo/reset',
  `POST ${prefix}/deals`,
  `GET ${prefix}/deals/{id}`,
  `POST ${prefix}/deals/{id}/advance`,
  `POST ${prefix}/deals/{id}/signals`,
  `GET ${prefix}/deals/{id}/settlement`,
  `POST ${prefix}/deals/{id}/reengage`,
  `POST ${prefix}/deals/{id}/deescalate`,
  `POST ${prefix}/sell`,
  'POST /closers/closers',
  'GET /closers/closers',
  'GET /closers/closers/{id}',
  'POST /closers/match',
  'GET /closers/gigs',
  'POST /closers/gigs/{id}/claim',
  'POST /closers/gigs/{id}/advance',
  'POST /closers/gigs/{id}/revive',
  'POST /closers/gigs/{id}/release',
  'POST /closers/gigs/{id}/expire',
];

/** POSTs whose body the spec requires (the others take none, or an optional one). */
const REQUIRED_BODIES = (prefix: string) => [
  `POST ${prefix}/deals`,
  `POST ${prefix}/sell`,
  `POST ${prefix}/deals/{id}/signals`,
  'POST /closers/closers',
  'POST /closers/match',
  'POST /closers/gigs/{id}/claim',
  'POST /closers/gigs/{id}/advance',
  'POST /demo/clock',
];
/** POSTs the spec shows with no body or an optional one: a bare POST is accepted. */
const OPTIONAL_BODIES = (prefix: string) => [
  'POST /demo/reset',
  `POST ${prefix}/deals/{id}/advance`,
  `POST ${prefix}/deals/{id}/reengage`,
  `POST ${prefix}/deals/{id}/deescalate`,
  'POST /closers/gigs/{id}/revive',
  'POST /closers/gigs/{id}/release',
  'POST /closers/gigs/{id}/expire',
];

describe('GET /openapi.json: the OpenAPI 3.1 contract of both surfaces (D-32)', () => {
  let t: TestServer;
  let spec: Json;
  let index: { method: string; path: string; surface: string }[];
  let ops: Operation[];
  const key = (o: { method: string; path: string }) => `${o.method} ${o.path}`;

  before(async () => {
    t = await startTestServer();
    const answer = await t.get('/openapi.json');
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    spec = answer.body;
    ops = operations(spec);
    index = (await t.get('/')).body.endpoints;
  });
  after(() => t.close());

  it('is OpenAPI 3.1.0 with info.version 0.1.0', () => {
    assert.equal(spec.openapi, '3.1.0');
    assert.equal(spec.info.version, '0.1.0');
    assert.equal(typeof spec.info.title, 'string');
  });

  it('validates with an OpenAPI 3.1 validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(spec as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('has an operationId on every operation, each unique', () => {
    assert.ok(ops.length > 0);
    const idsSeen = new Map<string, string>();
    for (const { method, path, op } of ops) {
      assert.equal(typeof op.operationId, 'string', `${method} ${path} has an operationId`);
      assert.ok(op.operationId.length > 0);
      assert.ok(
        !idsSeen.has(op.operationId),
        `${op.operationId} on ${method} ${path} and ${idsSeen.get(op.operationId)}`,
      );
      idsSeen.set(op.operationId, `${method} ${path}`);
    }
  });

  it('covers every endpoint of the GET / index, and nothing the index does not list', () => {
    const contract = new Set(ops.map(key));
    const listed = new Set(index.map(key));
    for (const entry of listed) assert.ok(contract.has(entry), `${entry} is in the contract`);
    for (const entry of contract) assert.ok(listed.has(entry), `${entry} is in the index`);
    for (const { path } of ops) assert.ok(!path.includes(':'), `${path}: path parameters are written {id}`);
  });

  it("covers the spec's ROOT endpoints", (context) => {
    const contract = new Set(ops.map(key));
    for (const entry of ROOT_ENDPOINTS) assert.ok(contract.has(entry), `${entry} is in the contract`);
    if (index.some((e) => key(e) === MCP_ENDPOINT)) {
      assert.ok(contract.has(MCP_ENDPOINT), `${MCP_ENDPOINT} is in the contract`);
    } else {
      context.diagnostic(`${MCP_ENDPOINT} is not registered yet (not in GET /); not checked`);
    }
    const rootPaths = new Set(index.filter((e) => e.surface === 'root').map(key));
    for (const entry of ROOT_ENDPOINTS) assert.ok(rootPaths.has(entry), `${entry} is indexed as a root endpoint`);
  });

  it('covers every DEMO endpoint of the spec, with {id} path parameters declared', () => {
    const contract = new Map(ops.map((o) => [key(o), o.op]));
    for (const entry of demoEndpoints(t.prefix)) {
      const op = contract.get(entry);
      assert.ok(op, `${entry} is in the contract`);
      if (entry.includes('{id}')) {
        const params = (op.parameters ?? []) as Json[];
        assert.ok(
          params.some((p) => p.in === 'path' && p.name === 'id' && p.required === true),
          `${entry} declares the path parameter id`,
        );
      }
    }
    const rootDeal = contract.get('GET /deals/{id}');
    assert.ok(rootDeal?.parameters?.some((p: Json) => p.in === 'path' && p.name === 'id'));
  });

  it('has a JSON request body schema for every POST; required where the spec requires one, optional where a bare POST works', async () => {
    for (const { method, path, op } of ops.filter((o) => o.method === 'POST')) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      assert.ok(schema && typeof schema === 'object', `${method} ${path} has a request body schema`);
    }
    const byKey = new Map(ops.map((o) => [key(o), o.op]));
    for (const entry of REQUIRED_BODIES(t.prefix)) {
      const body = byKey.get(entry)?.requestBody;
      assert.equal(body?.required, true, `${entry}: the body is required`);
      const schema = body.content['application/json'].schema;
      assert.ok(
        Array.isArray(schema.required) && schema.required.length > 0,
        `${entry}: the schema lists its required fields`,
      );
    }
    for (const entry of OPTIONAL_BODIES(t.prefix)) {
      assert.equal(byKey.get(entry)?.requestBody?.required, false, `${entry}: the body is optional`);
    }
    // ...and the service agrees: a bare POST to an optional-body operation is never a 400.
    for (const entry of OPTIONAL_BODIES(t.prefix)) {
      const path = entry.slice('POST '.length).replace('{id}', entry.includes('/gigs/') ? 'gig_9999' : 'deal_9999');
      const answer = await t.post(path);
      assert.notEqual(answer.status, 400, `a bare ${entry}: ${JSON.stringify(answer.body)}`);
      assert.ok(answer.status < 500, entry);
    }
  });

  it('is the same document on every request', async () => {
    const a = await fetch(`${t.url}/openapi.json`).then((r) => r.text());
    const b = await fetch(`${t.url}/openapi.json`).then((r) => r.text());
    assert.equal(a, b);
  });
});

describe('GET /docs: the interactive reference (Swagger UI) over the served contract', () => {
  let t: TestServer;
  let html: string;
  before(async () => {
    t = await startTestServer();
    const answer = await t.get('/docs');
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
    html = answer.body;
  });
  after(() => t.close());

  it('is an HTML document', () => {
    assert.equal(typeof html, 'string');
    assert.match(html, /<!doctype html>/i);
    assert.match(html, /<html[\s>]/);
    assert.match(html, /<\/html>\s*$/);
  });

  it('is self-contained: every script and stylesheet is served by this process, nothing from elsewhere', async () => {
    assert.doesNotMatch(html, /<(script|img|iframe)[^>]*\ssrc\s*=\s*["']?(https?:)?\/\//i, 'no absolute src');
    assert.doesNotMatch(html, /<link[^>]*\shref\s*=\s*["']?(https?:)?\/\//i, 'no absolute href');
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(assets.length >= 4, 'scripts and styles are linked');
    for (const asset of assets) {
      const answer = await fetch(`${t.url}${asset}`);
      assert.equal(answer.status, 200, asset);
      const text = await answer.text();
      assert.doesNotMatch(text, /@import\s+url\(["']?https?:/i, `${asset} imports nothing from elsewhere`);
    }
  });

  it('reads the served contract, and does not send it to an outside validator', async () => {
    const initializer = await (await fetch(`${t.url}/docs/static/swagger-initializer.js`)).text();
    assert.match(initializer, /"url":\s*"\/openapi\.json"/);
    assert.match(initializer, /"validatorUrl":\s*null/);
  });
});

describe('GET /pricing: the Pricing Document (spec "Pricing Document", D-32)', () => {
  let t: TestServer;
  let pricing: Json;
  let operationIds: string[];
  before(async () => {
    t = await startTestServer();
    const answer = await t.get('/pricing');
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    pricing = answer.body;
    operationIds = operations((await t.get('/openapi.json')).body).map((o) => o.op.operationId);
  });
  after(() => t.close());

  it('declares model free, binding false, a statement and a ledgerUrl', () => {
    assert.equal(pricing.model, 'free');
    assert.equal(pricing.binding, false);
    assert.equal(typeof pricing.statement, 'string');
    assert.ok(pricing.statement.length > 20, 'a stated intent in words');
    assert.equal(typeof pricing.ledgerUrl, 'string');
    assert.ok(pricing.ledgerUrl.length > 0);
    assert.equal(pricing.termsUrl, undefined, 'no binding terms yet');
  });

  it('has exactly one rate row per operationId of the contract, and no other', () => {
    const rows = (pricing.rates as Json[]).map((r) => r.operation);
    assert.equal(new Set(rows).size, rows.length, 'one row per operation');
    assert.deepEqual([...rows].sort(), [...operationIds].sort());
    for (const row of pricing.rates as Json[]) {
      assert.equal(row.price, 0, `${row.operation} is free`);
      assert.equal(row.disclosure, 'published');
    }
  });

  it('the ledgerUrl answers, and its fragment (a JSON pointer) names the open item', async () => {
    const answer = await t.get(pricing.ledgerUrl);
    assert.equal(answer.status, 200);
    const pointer = pricing.ledgerUrl.split('#')[1];
    const found = pointer
      .split('/')
      .slice(1)
      .reduce((node: any, key: string) => node?.[key], answer.body);
    assert.match(found?.openItem ?? '', /binding terms/);
  });

  it('validates against docs/schemas/pricing-document.schema.json', () => {
    const validate = pricingValidator();
    assert.equal(validate(pricing), true, JSON.stringify(validate.errors, null, 2));
  });
});

function pricingValidator() {
  const schema = JSON.parse(
    readFileSync(new URL('../../docs/schemas/pricing-document.schema.json', import.meta.url), 'utf8'),
  );
  return new Ajv({ strict: false, allErrors: true }).compile(schema);
}

describe('the Pricing Document JSON Schema: every rule of the spec', () => {
  const validate = pricingValidator();
  const base = { model: 'free', binding: false, statement: 'A stated intent.', ledgerUrl: '/docs#ledger' };
  const row = (fields: Json = {}) => ({ operation: 'listDeals', price: 0, ...fields });
  const withRow = (fields: Json) => ({ ...base, rates: [row(fields)] });
  const without = (doc: Json, field: string) => Object.fromEntries(Object.entries(doc).filter(([k]) => k !== field));

  const rejects: [string, unknown][] = [
    ['model missing', without(base, 'model')],
    ['model neither free nor metered', { ...base, model: 'tiered' }],
    ['model metered without hardCeiling', { ...base, model: 'metered' }],
    ['hardCeiling 0', { ...base, model: 'metered', hardCeiling: 0 }],
    ['hardCeiling negative', { ...base, model: 'metered', hardCeiling: -5 }],
    ['binding true without termsUrl', { ...without(base, 'statement'), binding: true }],
    ['binding false without statement', without(base, 'statement')],
    ['a rate row without operation', { ...base, rates: [{ price: 0 }] }],
    ['a negative price', withRow({ price: -0.01 })],
    ['a null price under disclosure published', withRow({ price: null, disclosure: 'published' })],
    ['a null price with disclosure absent', withRow({ price: null })],
    ['price absent with disclosure absent', { ...base, rates: [{ operation: 'listDeals' }] }],
    [
      'price absent under disclosure published',
      { ...base, rates: [{ operation: 'listDeals', disclosure: 'published' }] },
    ],
    ['freeQuota together with included', withRow({ freeQuota: 100, included: 'unlimited' })],
    ['freeQuota 0', withRow({ freeQuota: 0 })],
    ['included object with a bad period', withRow({ included: { qty: 10, period: 'week' } })],
    ['included object without qty', withRow({ included: { period: 'month' } })],
    ['included a word other than unlimited', withRow({ included: 'lots' })],
    ['modifier op divide', withRow({ modifiers: [{ op: 'divide', value: 2 }] })],
    ['modifier scope outside rate/offer/card', withRow({ modifiers: [{ op: 'add', value: 1, scope: 'world' }] })],
    ['meter aggregation avg', withRow({ meter: { aggregation: 'avg' } })],
    ['meter basis outside the list', withRow({ meter: { aggregation: 'sum', basis: 'estimated' } })],
    ['volume_breaks without mode', withRow({ volume_breaks: { breaks: [{ from: 0, price: 1 }] } })],
    ['volume_breaks mode unknown', withRow({ volume_breaks: { mode: 'tiered', breaks: [{ from: 0, price: 1 }] } })],
    [
      'a break with neither price nor discount_percent',
      withRow({ volume_breaks: { mode: 'graduated', breaks: [{ from: 100 }] } }),
    ],
    ['disclosure secret', withRow({ disclosure: 'secret' })],
    ['estimate under disclosure published', withRow({ disclosure: 'published', estimate: { low: 1, high: 2 } })],
    ['estimate with disclosure absent', withRow({ estimate: { low: 1, high: 2 } })],
    ['compound price without basis', withRow({ price: { fixed: 0.3, percent: 2.9 } })],
    ['passthrough price without provider', withRow({ price: { passthrough: { markup: 0.1 } } })],
    ['discovery other than market', withRow({ price: { discovery: 'auction' } })],
    ['an unknown rate-row field', withRow({ discount: 10 })],
  ];
  for (const [rule, doc] of rejects) {
    it(`rejects: ${rule}`, () => {
      assert.equal(validate(doc), false, `${rule} should be rejected`);
    });
  }

  const accepts: [string, unknown][] = [
    ['the minimal document', { model: 'free' }],
    ['metered with a hardCeiling', { ...base, model: 'metered', hardCeiling: 500, unit: 'request', price: 0.002 }],
    ['binding true with termsUrl', { model: 'free', binding: true, termsUrl: 'https://example.invalid/terms' }],
    [
      'a compound price',
      withRow({ price: { fixed: 0.3, percent: 2.9, basis: 'finalValueUsd', cap: 500, floor: 1, min_fee: 0.5 } }),
    ],
    [
      'a passthrough price',
      withRow({ price: { passthrough: { provider: 'stripe', reference: 'card', markup: 0.1 } } }),
    ],
    ['a discovery price', withRow({ price: { discovery: 'market', reference: '/offer', buyer_cap: 100 } })],
    [
      'included {qty, period: month, rollover: true}',
      withRow({ included: { qty: 1000, period: 'month', rollover: true } }),
    ],
    ['included a quantity', withRow({ included: 500 })],
    ['included unlimited', withRow({ included: 'unlimited' })],
    ['freeQuota alone', withRow({ freeQuota: 100 })],
    [
      'a withheld disclosure with an estimate and a null price',
      withRow({ price: null, disclosure: 'quote-only', estimate: { low: 10, high: 40, provenance: 'past quotes' } }),
    ],
    [
      'a withheld disclosure with the price absent',
      { ...base, rates: [{ operation: 'getDeal', disclosure: 'undisclosed' }] },
    ],
    [
      'modifiers, meter, volume_breaks, derived_from and a note',
      withRow({
        unit: 'request',
        modifiers: [{ op: 'multiply', value: 0.9, scope: 'card', condition: 'annual', stacking_order: 1 }],
        meter: { aggregation: 'high-watermark', basis: 'provisioned', reset_period: 'month' },
        volume_breaks: {
          mode: 'graduated',
          basis: 'units',
          breaks: [
            { from: 0, price: 0.01 },
            { from: 1000, discount_percent: 20 },
          ],
          approximate: false,
        },
        derived_from: 'getDeal',
        note: 'an example',
      }),
    ],
  ];
  for (const [what, doc] of accepts) {
    it(`accepts: ${what}`, () => {
      assert.equal(validate(doc), true, JSON.stringify(validate.errors, null, 2));
    });
  }
});

describe('the offer stub, family, agents card, ICP and llms.txt', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('GET /offer is 402 OFFER, status stub, with pay / work / claim alternatives and nothing billable', async () => {
    const answer = await t.get('/offer');
    assert.equal(answer.status, 402);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    const offer = answer.body;
    assert.equal(offer.type, 'OFFER');
    assert.equal(offer.status, 'stub');
    assert.ok(Array.isArray(offer.alternatives));
    const kinds = offer.alternatives.map((a: Json) => a.kind);
    for (const kind of ['pay', 'work', 'claim']) assert.ok(kinds.includes(kind), `a ${kind} alternative`);
    assert.equal(offer.checkoutUrl, undefined, 'no checkout: nothing to buy');
    const text = JSON.stringify(offer);
    assert.doesNotMatch(text, /"billable":true/, 'nothing is billable');
    if (offer.price && typeof offer.price === 'object') {
      assert.equal(offer.price.billable, false);
      assert.equal(offer.price.amount, 0);
    }
    for (const alternative of offer.alternatives) {
      if (typeof alternative.href === 'string' && alternative.href.startsWith('/')) {
        const target = await t.get(alternative.href);
        assert.equal(target.status, 200, `${alternative.kind}: ${alternative.href} answers`);
      }
    }
  });

  it('GET /family.json lists typed edges {rel, type, href}; every local href answers', async () => {
    const answer = await t.get('/family.json');
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    const edges = answer.body.edges as Json[];
    assert.ok(Array.isArray(edges) && edges.length > 0);
    const expectedStatus: Record<string, number> = { '/offer': 402 };
    const postOnly = new Set(['/mcp', '/demo/mcp']);
    for (const edge of edges) {
      for (const field of ['rel', 'type', 'href']) {
        assert.equal(typeof edge[field], 'string', `${JSON.stringify(edge)} has ${field}`);
        assert.ok(edge[field].length > 0);
      }
      if (!edge.href.startsWith('/') || postOnly.has(edge.href)) continue;
      const target = await t.get(edge.href);
      assert.equal(target.status, expectedStatus[edge.href] ?? 200, `${edge.rel}: GET ${edge.href}`);
    }
    const rels = edges.map((e) => e.rel);
    assert.equal(new Set(rels).size, rels.length, 'each rel once');
  });

  it('GET /.well-known/agents.json and GET /icp.json are JSON objects', async () => {
    for (const path of ['/.well-known/agents.json', '/icp.json']) {
      const answer = await t.get(path);
      assert.equal(answer.status, 200, path);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(typeof answer.body, 'object');
      assert.ok(answer.body && !Array.isArray(answer.body));
      assert.equal(typeof answer.body.name, 'string');
    }
    const card = (await t.get('/.well-known/agents.json')).body;
    for (const link of [card.contract, card.documentation, card.llms, card.pricing, card.verify]) {
      assert.equal((await t.get(link)).status, 200, `the card's link ${link} answers`);
    }
  });

  it('GET /llms.txt is text/plain: an H1 first, a > summary, ## sections of markdown links', async () => {
    const answer = await t.get('/llms.txt');
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/plain/);
    const text = answer.body as string;
    const lines = text.split('\n');
    assert.match(lines[0], /^# \S/, 'the first line is an H1');
    assert.equal(lines.filter((l) => l.startsWith('# ')).length, 1, 'one H1');
    const firstContent = lines.slice(1).find((l) => l.trim() !== '');
    assert.match(firstContent ?? '', /^> \S/, 'a blockquote summary follows the H1');
    const sections = lines.filter((l) => l.startsWith('## '));
    assert.ok(sections.length >= 2, 'sections');
    const links = [...text.matchAll(/^- \[([^\]]+)\]\(([^)\s]+)\)/gm)];
    assert.ok(links.length >= 5, 'markdown link lists');
    // every section holds links
    const chunks = text.split(/^## /m).slice(1);
    for (const chunk of chunks)
      assert.match(chunk, /^- \[[^\]]+\]\([^)]+\)/m, `section ${chunk.split('\n')[0]} has links`);
    // local GET links answer (the MCP doors are POST only)
    for (const [, , href] of links) {
      const path = href.split('#')[0];
      if (!path.startsWith('/') || path.endsWith('/mcp') || path.endsWith('/sell')) continue;
      assert.equal((await t.get(path)).status, path === '/offer' ? 402 : 200, `llms.txt link ${path}`);
    }
  });
});

describe('GET /verify: the probe suite (D-31)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  const probeIds = PROBES.map((p) => p.id);

  it('answers markdown by default, listing every probe', async () => {
    const answer = await t.get('/verify');
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/markdown/);
    const text = answer.body as string;
    assert.match(text, /^# /);
    for (const id of probeIds) assert.ok(text.includes(`\`${id}\``), `the markdown lists ${id}`);
  });

  it('answers JSON for Accept: application/json and for ?format=json, with the same probe ids as PROBES', async () => {
    const byAccept = await t.raw('GET', '/verify', undefined, { accept: 'application/json' });
    const byQuery = await t.get('/verify?format=json');
    for (const answer of [byAccept, byQuery]) {
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(
        answer.body.probes.map((p: Json) => p.id),
        probeIds,
      );
    }
    assert.deepEqual(byAccept.body, byQuery.body);
    assert.deepEqual(byQuery.body.probes, JSON.parse(JSON.stringify(PROBES)));
  });

  it('probe ids are unique', () => {
    assert.equal(new Set(probeIds).size, probeIds.length);
  });

  it('every probe of the suite passes against this service', async () => {
    const { ok, results } = await runProbes(t.url);
    assert.deepEqual(
      results.map((r) => r.id),
      probeIds,
    );
    for (const result of results) assert.ok(result.ok, result.detail);
    assert.equal(ok, true);
  });

  it('the runner is no rubber stamp: against nothing listening, every probe fails', async () => {
    const dead = await runProbes('http://127.0.0.1:9');
    assert.equal(dead.ok, false);
    assert.ok(dead.results.every((r) => !r.ok));
  });
});
