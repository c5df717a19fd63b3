// The served contract tells the whole truth (D-32, D-38): every operation says every status it
// can answer, each with a description, a schema where it has a body, and an example that is
// valid against that schema; keyless is explicit; links name real operations. (Every answer of
// the end-to-end suites is also held to it: test/support/contract-check.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startTestServer, type TestServer } from '../support/http.ts';

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
