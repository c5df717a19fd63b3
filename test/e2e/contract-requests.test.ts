// What the contract says of requests is what the service takes (D-32), in the demo and in keys
// mode: every request body and query parameter has an example, valid against its schema, that the
// service takes when it is sent (D-267); every string of a body excludes U+0000, which the service
// refuses there (D-264), while a query string takes it, as the service does; and every operation
// documents the 408 and 431 that Node's HTTP parser answers before a route is chosen (D-266).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CLOSER_SCOPES, SELLER_SCOPES } from '../../src/domain/access.ts';
import { contractSchemas, pointerToken } from '../support/contract-check.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { bearer, enrolCloser, makeKey, makeSeller, OP, startKeysServer } from '../support/keys.ts';

type Json = Record<string, any>;

interface Operation {
  path: string;
  method: string;
  op: Json;
}

const operationsOf = (contract: Json): Operation[] =>
  Object.entries(contract.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })),
  );

const NUL = '\u0000';

/** The schema nodes of a body where a string may sit (its subschemas, never its examples). */
function* stringNodes(node: unknown, seen = new Set<unknown>()): Generator<Json> {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  const schema = node as Json;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('string') && schema.const === undefined && schema.enum === undefined) yield schema;
  for (const key of ['items', 'additionalProperties', 'propertyNames']) yield* stringNodes(schema[key], seen);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const branch of schema[key] ?? []) yield* stringNodes(branch, seen);
  for (const property of Object.values((schema.properties ?? {}) as Json)) yield* stringNodes(property, seen);
}

/** A copy of a value with U+0000 put into its first string, or undefined when it holds none. */
function withNul(value: unknown): unknown {
  if (typeof value === 'string') return `${value}${NUL}`;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const changed = withNul(item);
      if (changed !== undefined) return value.map((each, j) => (j === i ? changed : each));
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const changed = withNul(item);
      if (changed !== undefined) return { ...value, [key]: changed };
    }
  }
  return undefined;
}

/**
 * An id for a path's `{id}`, of the kind the path names, that no record has: a write sent with
 * the examples changes nothing (in keys mode it would revoke or roll the operator's own key).
 */
const idFor = (path: string) => {
  const kind = /\/(gigs|closers|keys|sellers|webhooks)\/\{id\}/.exec(path)?.[1];
  const prefix = { gigs: 'gig', closers: 'closer', keys: 'key', sellers: 'seller', webhooks: 'whk' }[kind ?? ''];
  return `${prefix ?? 'deal'}_9999`;
};

/** The request an operation's examples make: its query, its required headers and its body. */
function exampleRequest({ path, method, op }: Operation) {
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of (op.parameters ?? []) as Json[]) {
    if (parameter.in === 'query') query.set(parameter.name, String(parameter.example));
    if (parameter.in === 'header' && parameter.required) headers[parameter.name] = String(parameter.example);
  }
  const media = op.requestBody?.content?.['application/json'];
  if (media) headers['content-type'] = 'application/json';
  const search = query.toString();
  return {
    url: `${path.replace('{id}', idFor(path))}${search ? `?${search}` : ''}`,
    method: method.toUpperCase(),
    headers,
    body: media ? JSON.stringify(media.example) : undefined,
  };
}

for (const mode of ['demo', 'keys'] as const) {
  describe(`the contract's requests (${mode})`, () => {
    let t: TestServer;
    let contract: Json;
    let schema: ReturnType<typeof contractSchemas>;
    let operations: Operation[];
    const auth = mode === 'keys' ? bearer(OP) : {};
    const keys = { seller: '', closer: '' };
    /** In keys mode, a key the operation takes: a Seller's for a Seller's scope, a closer's for a closer's, else the operator's. */
    const keyFor = (op: Json): Record<string, string> => {
      if (mode === 'demo') return {};
      const scopes: string[] = op.security?.[0]?.bearerKey ?? [];
      if (scopes.some((scope) => (SELLER_SCOPES as readonly string[]).includes(scope))) return bearer(keys.seller);
      if (scopes.some((scope) => (CLOSER_SCOPES as readonly string[]).includes(scope))) return bearer(keys.closer);
      return auth;
    };
    before(async () => {
      t = mode === 'keys' ? await startKeysServer() : await startTestServer();
      contract = (await t.get('/openapi.json', auth)).body;
      schema = contractSchemas(contract);
      operations = operationsOf(contract);
      if (mode === 'keys') {
        keys.seller = (await makeKey(t, OP, { name: 'seller', principal: await makeSeller(t, 'Examples Seller') })).key;
        keys.closer = (
          await makeKey(t, OP, { name: 'closer', principal: await enrolCloser(t, 'Examples Closer') })
        ).key;
      }
    });
    after(() => t.close());

    it('every request body and query parameter has an example, valid against its schema', () => {
      let bodies = 0;
      let parameters = 0;
      for (const { path, method, op } of operations) {
        const at = `/paths/${pointerToken(path)}/${method}`;
        for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Json)) {
          assert.notEqual(media.example, undefined, `${op.operationId}: its ${type} body has an example`);
          const valid = schema(`${at}/requestBody/content/${pointerToken(type)}/schema`);
          assert.ok(valid(media.example), `${op.operationId} body: ${JSON.stringify(valid.errors)}`);
          bodies++;
        }
        for (const [index, parameter] of ((op.parameters ?? []) as Json[]).entries()) {
          if (parameter.in !== 'query') continue;
          assert.notEqual(parameter.example, undefined, `${op.operationId}: ?${parameter.name} has an example`);
          const valid = schema(`${at}/parameters/${index}/schema`);
          assert.ok(valid(parameter.example), `${op.operationId} ?${parameter.name}: ${JSON.stringify(valid.errors)}`);
          parameters++;
        }
      }
      assert.ok(bodies >= 15 && parameters >= 40, `${bodies} bodies and ${parameters} query parameters`);
    });

    it("an operation's examples, sent, are taken: answered as a request of the right form (2xx, or 404 for the path's id)", async () => {
      const wrong: string[] = [];
      for (const operation of operations) {
        const request = exampleRequest(operation);
        const what = `${operation.op.operationId}: ${request.method} ${request.url} ${request.body ?? ''}`;
        const headers = { ...keyFor(operation.op), ...request.headers };
        if (operation.path === '/events/stream') {
          // The stream never ends by itself: its status is enough.
          const abort = new AbortController();
          const answer = await fetch(`${t.url}${request.url}`, { headers, signal: abort.signal });
          abort.abort();
          if (answer.status !== 200) wrong.push(`${what} → ${answer.status}`);
          continue;
        }
        const answer = await t.raw(request.method, request.url, request.body, headers);
        const expected = (status: number) =>
          status < 300 ||
          // The answer the operation gives when it succeeds (GET /offer's is a 402, a stub).
          status === Number(Object.keys(operation.op.responses)[0]) ||
          (status === 404 && operation.path.includes('{id}')) ||
          // A balance names its account in the query (D-82): another principal's is unknown to the key.
          (status === 404 && (answer.body as { code?: string })?.code === 'ACCOUNT_NOT_FOUND') ||
          // No session is open: the console's session routes answer 401, whatever the request.
          (status === 401 && operation.path.startsWith('/console/session')) ||
          // A key is no person (D-62, D-277): /users/me and a person's inbox answer a person's session only.
          (status === 404 && operation.path.startsWith('/users/me')) ||
          // A one-time token is made for a person and mailed (D-63): the example's is of the
          // right form, and no person's.
          (status === 400 && (answer.body as { code?: string })?.code === 'TOKEN_INVALID');
        if (!expected(answer.status)) wrong.push(`${what} → ${answer.status} ${JSON.stringify(answer.body)}`);
      }
      assert.deepEqual(wrong, []);
    });

    it('every string of a body excludes U+0000, which the service refuses there (400 NUL_CHARACTER, or -32700 at the MCP doors)', async () => {
      let checked = 0;
      for (const operation of operations) {
        const { path, method, op } = operation;
        const media = op.requestBody?.content?.['application/json'];
        if (!media) continue;
        for (const node of stringNodes(media.schema)) {
          assert.equal(typeof node.pattern, 'string', `${op.operationId}: a string without a pattern`);
          const pattern = new RegExp(node.pattern, 'u');
          for (const text of [NUL, `a${NUL}`, `${NUL}a`, `a${NUL}b`]) {
            assert.ok(!pattern.test(text), `${op.operationId}: ${node.pattern} takes ${JSON.stringify(text)}`);
          }
        }
        const poisoned = withNul(media.example);
        if (poisoned === undefined) continue;
        const valid = schema(`/paths/${pointerToken(path)}/${method}/requestBody/content/application~1json/schema`);
        assert.equal(valid(poisoned), false, `${op.operationId}: the contract refuses ${JSON.stringify(poisoned)}`);
        const request = exampleRequest(operation);
        const answer = await t.raw(request.method, request.url, JSON.stringify(poisoned), {
          ...keyFor(op),
          ...request.headers,
        });
        assert.equal(answer.status, 400, `${op.operationId}: ${JSON.stringify(answer.body)}`);
        if (path.endsWith('/mcp')) assert.equal(answer.body.error.code, -32700, op.operationId);
        else assert.equal(answer.body.code, 'NUL_CHARACTER', op.operationId);
        checked++;
      }
      assert.ok(checked >= 10, `${checked} bodies sent with U+0000`);
    });

    it('a query string may hold U+0000: a filter that names nothing, as the service takes it', async () => {
      const path = `${t.prefix}/deals`;
      const index = (contract.paths[path].get.parameters as Json[]).findIndex((p) => p.name === 'closerId');
      assert.equal(schema(`/paths/${pointerToken(path)}/get/parameters/${index}/schema`)(`closer${NUL}`), true);
      const answer = await t.get(`${path}?closerId=closer%00`, auth);
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, []);
    });

    it('every operation documents 408 and 431, which Node answers before a route is chosen', async () => {
      for (const { op } of operations) {
        for (const status of ['408', '431']) {
          const response = op.responses[status];
          assert.ok(response, `${op.operationId} documents ${status}`);
          assert.equal(
            response.content['application/json'].example.code,
            status === '408' ? 'REQUEST_TIMEOUT' : 'HEADERS_TOO_LARGE',
          );
        }
      }
      // Headers over 16 KiB on a documented operation: the answer is held to the contract (http.ts).
      const answer = await t.get(`${t.prefix}/deals/${'x'.repeat(20_000)}`, auth);
      assert.equal(answer.status, 431);
      assert.equal(answer.body.code, 'HEADERS_TOO_LARGE');
    });
  });
}
