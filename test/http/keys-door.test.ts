// Keys mode at the HTTP door (D-50, D-53, D-55), for every operation it serves: without a key
// 401 UNAUTHENTICATED with the bearer challenge, with a key no one holds 401 INVALID_KEY, with a
// key that lacks every scope the operation lists 403 INSUFFICIENT_SCOPE naming one it needs; each
// is answered before anything of the request is read, and changes nothing. A key with a scope the
// operation lists is let through. Who sees which record is the e2e suites' (tenant-isolation,
// authorization-matrix); this is the door's first word.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type KeyScope, SELLER_SCOPES } from '../../src/domain/access.ts';
import { served } from '../../src/operations/operation.ts';
import { OPERATIONS } from '../../src/operations/table.ts';
import { systemClock } from '../../src/server.ts';
import { assertError, type InjectServer, injectServer } from '../support/inject.ts';
import { bearer, OP, wrongKey } from '../support/keys.ts';
import { ok, pathFor } from '../support/operation-requests.ts';

describe('keys mode at the HTTP door: 401 without a key, 403 without the scope, nothing changed', () => {
  let t: InjectServer;
  let seller: string;
  let closer: string;
  /** Keys with one scope, made once each: the Seller's, or the closer's for a closer's scope. */
  const keyWith = new Map<KeyScope, string>();

  before(async () => {
    // The machine's clock: the key ring ages what it holds by it.
    t = await injectServer({ config: { auth: 'keys', operatorKey: OP }, clock: systemClock });
    seller = (await ok(t, 'POST', '/sellers', { name: 'Fictional Seller' }, bearer(OP))).id;
    closer = (await ok(t, 'POST', '/closers/closers', { name: 'Fictional Closer' }, bearer(OP))).id;
  });
  after(() => t.close());

  /** A key with this one scope (the operator's own for `admin`). */
  async function keyFor(scope: KeyScope): Promise<string> {
    if (scope === 'admin') return OP;
    let key = keyWith.get(scope);
    if (key === undefined) {
      const principal = (SELLER_SCOPES as readonly string[]).includes(scope) ? seller : closer;
      key = (await ok(t, 'POST', '/keys', { name: scope, principal, scopes: [scope] }, bearer(OP))).key as string;
      keyWith.set(scope, key);
    }
    return key;
  }

  // D-3: keys mode without DEMO_CONTROLS serves no reset and no clock.
  const guarded = OPERATIONS.filter((op) => served(op, true, false) && op.scope !== 'open');

  it('only GET /health is open; the reset and the clock are not served', async () => {
    assert.deepEqual(
      OPERATIONS.filter((op) => op.scope === 'open').map((op) => op.id),
      ['getHealth'],
    );
    assert.equal((await t.get('/health')).status, 200);
    assertError(await t.post('/demo/reset', undefined, bearer(OP)), 404, 'ROUTE_NOT_FOUND');
  });

  it('a key no one holds is 401 INVALID_KEY on every guarded operation, and changes nothing', async () => {
    const before = await t.snapshot();
    // All at once: a key the ring does not hold makes it read the keys again, at most every 250 ms.
    const unknown = bearer(wrongKey());
    const answers = await Promise.all(
      guarded.map((op) => t.send(op.method, pathFor(t, op, 'unknown_0001'), { headers: unknown })),
    );
    for (const answer of answers) {
      assertError(answer, 401, 'INVALID_KEY');
      assert.match(answer.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    }
    assert.deepEqual(await t.snapshot(), before);
  });

  for (const op of guarded) {
    it(`${op.id} (${op.method} ${op.path}: ${JSON.stringify(op.scope)})`, async () => {
      const path = pathFor(t, op, 'unknown_0001');
      // A body the operation would accept or not: the door answers before it is read.
      const send = (headers: Record<string, string>) =>
        t.send(op.method, path, { ...(op.method === 'POST' ? { body: { any: 'thing' } } : {}), headers });
      const before = await t.snapshot();

      const none = await send({});
      assert.match(assertError(none, 401, 'UNAUTHENTICATED').error, /Authorization: Bearer/);
      assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer realm="[^"]+"$/);
      assertError(await send({ authorization: 'Basic dXNlcjpwYXNz' }), 401, 'UNAUTHENTICATED');

      const listed = Array.isArray(op.scope) ? (op.scope as readonly KeyScope[]) : undefined;
      if (listed !== undefined) {
        const lacking = SELLER_SCOPES.find((scope) => !listed.includes(scope)) as KeyScope;
        const refused = await send(bearer(await keyFor(lacking)));
        const body = assertError(refused, 403, 'INSUFFICIENT_SCOPE') as { requiredScope?: KeyScope };
        assert.ok(body.requiredScope !== undefined && listed.includes(body.requiredScope), 'it names a scope listed');
        assert.match(refused.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
      }
      assert.deepEqual(await t.snapshot(), before, 'nothing changed');

      // A key with a scope the operation lists (any key, for `key`) is let through the door, to
      // whatever the request itself is worth.
      const passed = await send(bearer(await keyFor(listed?.[0] ?? 'deals:read')));
      assert.notEqual(passed.status, 401, passed.text);
      assert.notEqual(passed.body?.code, 'INSUFFICIENT_SCOPE', passed.text);
    });
  }
});
