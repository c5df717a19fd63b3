// D-265: at the MCP doors, JSON that is no JSON-RPC 2.0 message is an Invalid Request (-32600),
// as JSON-RPC 2.0 names it; only a body that is not JSON is a Parse error (-32700). The contract's
// body schema is the message the transport takes: what it allows is answered, what it refuses is
// the -32600, at both doors.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contractSchemas } from '../support/contract-check.ts';
import { startTestServer, type TestServer } from '../support/http.ts';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** JSON that is no JSON-RPC message of the transport: each is -32600. */
const INVALID: [string, unknown][] = [
  ['only the version', { jsonrpc: '2.0' }],
  ['null', null],
  ['an empty batch', []],
  ['a batch of a number', [1]],
  ['a string', 'tools/list'],
  ['a number', 42],
  ['an id and no method', { jsonrpc: '2.0', id: 1 }],
  ['another version', { jsonrpc: '1.0', id: 1, method: 'tools/list' }],
  ['no version', { id: 1, method: 'tools/list' }],
  ['a member JSON-RPC does not name', { jsonrpc: '2.0', id: 1, method: 'tools/list', extra: true }],
  ['a null id', { jsonrpc: '2.0', id: null, method: 'tools/list' }],
  ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'tools/list' }],
  ['an id past the safe integers', { jsonrpc: '2.0', id: 2 ** 53, method: 'tools/list' }],
  ['a method that is no string', { jsonrpc: '2.0', id: 1, method: 7 }],
  ['params as a list', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [] }],
  [
    'a progress token of another type',
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { progressToken: true } } },
  ],
  ['a result and an error', { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'no' } }],
  ['an error without a message', { jsonrpc: '2.0', id: 1, error: { code: 1 } }],
  ['a batch with one bad message', [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0' }]],
  ['a batch of 101', Array.from({ length: 101 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'tools/list' }))],
];

/** Messages the transport takes, with the status each is answered with. */
const VALID: [string, unknown, number][] = [
  ['a request', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, 200],
  ['a request with a string id and params', { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: {} }, 200],
  [
    'a request with _meta',
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { progressToken: 'p' } } },
    200,
  ],
  ['a method no tool serves', { jsonrpc: '2.0', id: 3, method: 'no/such/method' }, 200],
  ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, 202],
  ['a result', { jsonrpc: '2.0', id: 4, result: {} }, 202],
  ['an error', { jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'no', data: { why: 'x' } } }, 202],
  ['a batch', [{ jsonrpc: '2.0', id: 6, method: 'tools/list' }], 200],
];

describe('JSON that is no JSON-RPC message, at the MCP doors (D-265)', () => {
  let t: TestServer;
  let contract: Record<string, any>;
  before(async () => {
    t = await startTestServer();
    contract = (await t.get('/openapi.json')).body;
  });
  after(() => t.close());

  for (const path of ['/mcp', '/demo/mcp']) {
    const bodyPointer = () => `/paths/${path.replaceAll('/', '~1')}/post/requestBody/content/application~1json/schema`;

    it(`${path}: is 400 -32600 Invalid Request with a null id, and the contract's body refuses it`, async () => {
      const body = contractSchemas(contract)(bodyPointer());
      for (const [what, message] of INVALID) {
        assert.equal(body(message), false, `${path} ${what}: the contract refuses it`);
        const answer = await t.raw('POST', path, JSON.stringify(message), HEADERS);
        assert.equal(answer.status, 400, `${path} ${what}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual(Object.keys(answer.body).sort(), ['error', 'id', 'jsonrpc'], what);
        assert.equal(answer.body.id, null, what);
        assert.equal(answer.body.error.code, -32600, `${path} ${what}: ${JSON.stringify(answer.body)}`);
        assert.match(answer.body.error.message, /^Invalid Request/, what);
      }
    });

    it(`${path}: a message the contract allows is answered (200 for a request, 202 for the rest)`, async () => {
      const body = contractSchemas(contract)(bodyPointer());
      for (const [what, message, status] of VALID) {
        assert.equal(body(message), true, `${path} ${what}: the contract allows it`);
        const answer = await t.raw('POST', path, JSON.stringify(message), HEADERS);
        assert.equal(answer.status, status, `${path} ${what}: ${JSON.stringify(answer.body)}`);
      }
    });

    it(`${path}: text that is not JSON is still -32700, and a wrong Accept still 406 whatever the body`, async () => {
      const notJson = await t.raw('POST', path, '{"jsonrpc":', HEADERS);
      assert.equal(notJson.status, 400);
      assert.equal(notJson.body.error.code, -32700);
      const wrongAccept = await t.raw('POST', path, '{"jsonrpc":"2.0"}', { ...HEADERS, accept: 'application/json' });
      assert.equal(wrongAccept.status, 406);
    });
  }
});
