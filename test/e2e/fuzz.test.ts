// An OpenAPI-driven fuzzer: for every operation of the served contract, requests built from its
// schemas and mutations of them (wrong types, huge and tiny numbers, unicode, control characters,
// prototype keys, deep nesting, oversized and non-JSON bodies, odd path ids, odd query parameters
// and headers, wrong methods). Every answer must come within 5 s, never be a 5xx, be documented by
// the contract with its schema, and every error must be in the catalogue's shape with a code
// from the catalogue; afterwards `audit` finds every invariant holding. Seeded: FUZZ_SEED
// reproduces a run, FUZZ_CASES sets cases per operation, FUZZ_SECONDS the run's time budget
// (random operations after every operation's cases).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditDeployment } from '../../src/audit/audit.ts';
import { exampleOf } from '../../src/http/contract.ts';
import { seededRandom as random } from '../../src/sim/random.ts';
import { ERRORS } from '../../src/views/errors.ts';
import { checkAgainstContract } from '../support/contract-check.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { dealBody, HUMAN_CLOSER } from '../support/marketplace-e2e.ts';

type Json = Record<string, any>;

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const CASES = Number(process.env.FUZZ_CASES ?? 24);
/** The whole run's time budget: past the cases of every operation, random operations until it is spent. */
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 5);

const ODD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  -1e308,
  5e-324,
  0.001,
  2 ** 53 + 1,
  '',
  ' ',
  'x'.repeat(5000),
  '\u0000',
  '\u0007bell\r\n',
  'ünïcødé ✓ 🚀',
  '\ud800',
  [],
  [1, 'two', null],
  {},
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
  '1e400',
  'NaN',
  '<script>alert(1)</script>',
];

const ODD_IDS = [
  'deal_0001',
  'gig_0001',
  'closer_0001',
  'deal_9999999999999999999999',
  'x'.repeat(70),
  'x'.repeat(120),
  'y'.repeat(3000),
  '%00',
  'deal_%00',
  '%zz',
  '%E0%A4%A',
  '%0d%0aSet-Cookie:%20x',
  '..%2F..%2Fetc%2Fpasswd',
  encodeURIComponent('ünï 🚀'),
  '__proto__',
  '-1',
];

/** encodeURIComponent, with a lone surrogate (which it refuses) sent as its raw UTF-8 bytes' escape. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

/** JSON nested `depth` deep, written as text (the client could not stringify it). */
function deep(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

describe('fuzzing every operation of the contract', () => {
  let t: TestServer;
  let contract: Json;
  let sent = 0;
  const rand = random(SEED);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];

  before(async () => {
    t = await startTestServer();
    contract = (await t.get('/openapi.json')).body;
    // Some records, so that valid ids reach deeper code: a deal escalated to a human closer.
    await t.post('/pipeline/sell', dealBody({ mandate: HUMAN_CLOSER, listValueUsd: 150_000 }));
    await t.post('/pipeline/deals', dealBody());
  });
  after(() => t.close());

  /** A mutation of a valid body (or the body itself). */
  function mutate(body: unknown): { text: string | undefined; type: string | undefined } {
    const json = (value: unknown) => ({ text: JSON.stringify(value), type: 'application/json' });
    const roll = rand();
    if (roll < 0.25) return json(body);
    if (body && typeof body === 'object' && !Array.isArray(body) && roll < 0.6) {
      const copy: Json = structuredClone(body as Json);
      const keys = Object.keys(copy);
      const key =
        keys.length > 0 && rand() < 0.8 ? pick(keys) : pick(['__proto__', 'constructor', 'extra', 'prototype']);
      if (rand() < 0.2) delete copy[key];
      else copy[key] = pick(ODD_VALUES);
      return json(copy);
    }
    return pick([
      () => json(pick(ODD_VALUES)),
      () => ({ text: deep(1 + Math.floor(rand() * 20_000)), type: 'application/json' }),
      () => ({ text: '{"unterminated": ', type: 'application/json' }),
      () => ({ text: JSON.stringify({ pad: 'p'.repeat(70 * 1024) }), type: 'application/json' }),
      () => ({ text: JSON.stringify(body), type: 'text/plain' }),
      () => ({ text: 'a=1&b=2', type: 'application/x-www-form-urlencoded' }),
      () => ({ text: '', type: 'application/json' }),
      () => ({ text: undefined, type: undefined }),
      () => ({ text: '\u0000', type: 'application/json' }),
    ])();
  }

  function concretePath(template: string): string {
    return template.replace(/\{[^}]+\}/g, () => pick(ODD_IDS));
  }

  function query(op: Json): string {
    const params = (op.parameters ?? []).filter((p: Json) => p.in === 'query');
    const parts: string[] = [];
    for (const p of params) {
      if (rand() < 0.5) continue;
      const value = rand() < 0.5 ? exampleOf(p.schema, contract.components.schemas) : pick(ODD_VALUES);
      parts.push(`${encodeURIComponent(p.name)}=${encode(String(value))}`);
      if (rand() < 0.1) parts.push(`${encodeURIComponent(p.name)}=again`);
    }
    if (rand() < 0.15) parts.push(`unknown_${Math.floor(rand() * 100)}=1`);
    if (rand() < 0.05) parts.push('%zz=%zz');
    return parts.length > 0 ? `?${parts.join('&')}` : '';
  }

  async function send(method: string, path: string, body: { text?: string; type?: string }, headers: Json = {}) {
    const response = await fetch(t.url + path, {
      method,
      body: body.text,
      headers: { ...(body.type ? { 'content-type': body.type } : {}), ...headers },
      signal: AbortSignal.timeout(5000),
    });
    if (response.status === 200 && response.headers.get('content-type')?.startsWith('text/event-stream')) {
      // The event stream never ends by itself: its head is the answer; the stream's own tests read it.
      await response.body?.cancel();
      sent++;
      await checkAgainstContract(t.url, method, path, response.status, response.headers.get('content-type'), '');
      return;
    }
    const text = await response.text();
    sent++;
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    const where = `${method} ${path.slice(0, 200)} (seed ${SEED})`;
    assert.ok(response.status < 500, `${where} answered ${response.status}: ${text.slice(0, 300)}`);
    await checkAgainstContract(t.url, method, path, response.status, response.headers.get('content-type'), parsed);
    const envelope = ['EMPTY', 'BLOCKED', 'OFFER'].includes((parsed as Json)?.type); // ROOT answers envelopes
    if (response.status >= 400 && !path.split('?')[0].endsWith('/mcp') && !envelope) {
      const error = parsed as Json;
      assert.equal(typeof error?.error, 'string', `${where}: an error says what went wrong`);
      assert.ok(error.code in ERRORS, `${where}: ${error.code} is in the catalogue`);
    }
  }

  it('answers every generated request within 5 s, without a 5xx, as the contract says', async (context) => {
    const operations: [string, string, Json][] = [];
    for (const [path, item] of Object.entries(contract.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        // /demo/reset and /demo/clock would undo the setup.
        if (path !== '/demo/reset' && path !== '/demo/clock') operations.push([path, method.toUpperCase(), op]);
      }
    }
    const one = async (template: string, method: string, op: Json) => {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const valid = schema ? exampleOf(schema, contract.components.schemas) : undefined;
      const path = `${concretePath(template)}${query(op)}`;
      const headers: Json = {};
      if (rand() < 0.2) headers['idempotency-key'] = pick(['ok-key', '', 'bad key', 'k'.repeat(300), 'ünï']);
      if (rand() < 0.2) headers['x-request-id'] = pick(['mine', 'x'.repeat(200), 'a b']);
      if (template.endsWith('/mcp')) headers.accept = pick(['application/json, text/event-stream', 'text/html']);
      const body = method === 'GET' ? { text: undefined, type: undefined } : mutate(valid);
      await send(method, path, body, headers).catch((error) => {
        if (error instanceof TypeError && /header/i.test(String(error.cause ?? error.message))) return; // fetch refused the header
        throw error;
      });
    };
    const started = performance.now();
    // Every operation, CASES times each, and a wrong method on its path.
    for (const [template, method, op] of operations) {
      for (let i = 0; i < CASES; i++) await one(template, method, op);
      await send(pick(['DELETE', 'PATCH', 'PUT']), concretePath(template), { text: '{}', type: 'application/json' });
    }
    assert.ok(sent >= operations.length * CASES * 0.8, `${sent} requests sent`);
    // Then random operations until the time budget is spent (FUZZ_SECONDS; CI gives it longer).
    while (performance.now() - started < SECONDS * 1000) await one(...pick(operations));
    context.diagnostic(`fuzz: ${sent} requests in ${Math.round(performance.now() - started) / 1000} s (seed ${SEED})`);
    assert.equal((await t.get('/health')).status, 200, 'still answering');
    // Whatever the fuzzer got through, the books still hold.
    const report = await auditDeployment(t.url);
    assert.deepEqual(report.violations, [], JSON.stringify(report.violations.slice(0, 5)));
  });
});
