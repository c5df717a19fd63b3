// Keys mode's contract says what the door answers (D-55): every operation that asks for a key
// declares the bearer scheme with its scopes, and a 401 that says why, carries the
// `WWW-Authenticate` challenge and has the door's own answer as its example; an operation with
// scopes declares a 403 that names INSUFFICIENT_SCOPE, with the door's own refusal as example.
// Each example is then held to what the door answers for it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import { bearer, type KeysFixture, keysFixture, startKeysServer } from '../support/keys.ts';

type Json = Record<string, any>;

describe("keys mode's contract: the 401 and 403 of every keyed operation", () => {
  let t: TestServer;
  let f: KeysFixture;
  let contract: Json;
  before(async () => {
    t = await startKeysServer();
    f = await keysFixture(t);
    contract = await (await fetch(`${t.url}/openapi.json`)).json();
  });
  after(() => t.close());

  const keyed = () => {
    const found: { path: string; method: string; op: Json; scopes: string[] }[] = [];
    for (const [path, item] of Object.entries(contract.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const scheme = (op.security ?? []).find((entry: Json) => 'bearerKey' in entry);
        if (scheme !== undefined) found.push({ path, method, op, scopes: scheme.bearerKey });
      }
    }
    return found;
  };

  it('every keyed operation: a 401 described, with the challenge header and an UNAUTHENTICATED example', () => {
    const ops = keyed();
    assert.ok(ops.length > 30, `${ops.length} keyed operations`);
    for (const { path, method, op } of ops) {
      const what = `${method.toUpperCase()} ${path}`;
      const unauthorized = op.responses['401'];
      assert.ok(unauthorized, `${what} declares 401`);
      assert.match(unauthorized.description, /UNAUTHENTICATED.*INVALID_KEY/s, what);
      assert.ok(unauthorized.headers['WWW-Authenticate'], `${what}: the challenge header`);
      const example = unauthorized.content['application/json'].example;
      assert.equal(example.code, 'UNAUTHENTICATED', what);
    }
  });

  it('every operation with scopes: a 403 that names INSUFFICIENT_SCOPE, its example a refusal of a scope it lists', () => {
    for (const { path, method, op, scopes } of keyed()) {
      if (scopes.length === 0) continue;
      const what = `${method.toUpperCase()} ${path}`;
      const forbidden = op.responses['403'];
      assert.match(forbidden.description, /INSUFFICIENT_SCOPE/, what);
      assert.ok(forbidden.headers['WWW-Authenticate'], `${what}: the challenge header`);
      const example = forbidden.content['application/json'].example;
      assert.equal(example.code, 'INSUFFICIENT_SCOPE', what);
      assert.ok(scopes.includes(example.requiredScope), `${what}: ${example.requiredScope} is one of ${scopes}`);
    }
  });

  it("the examples are the door's own answers", async () => {
    const listDeals = contract.paths[`${t.prefix}/deals`].get;
    const bare = await fetch(`${t.url}${t.prefix}/deals`);
    assert.equal(bare.status, 401);
    assert.deepEqual(await bare.json(), listDeals.responses['401'].content['application/json'].example);
    // A closer's key with no deals scope on a Seller's operation: the example is the one for a
    // key of the kind that may carry the scope, so compare the code and the scope named.
    const sell = contract.paths[`${t.prefix}/sell`].post;
    const refused = await fetch(`${t.url}${t.prefix}/sell`, {
      method: 'POST',
      headers: { ...bearer(f.agentA.key), 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(refused.status, 403);
    assert.deepEqual(await refused.json(), sell.responses['403'].content['application/json'].example);
  });
});
