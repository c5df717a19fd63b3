// Bad input at the HTTP door, for every operation of the table: a query parameter it does not
// document, a body its schema refuses, a body that is not JSON or not JSON at all, a malformed
// Idempotency-Key or If-Match. Each is answered with the catalogue's error (its status and code),
// never a 500, and changes nothing: the request is made ready first (test/support/
// operation-requests.ts), so only the one thing wrong with it is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, assertError, type InjectServer, injectServer } from '../support/inject.ts';
import { DEMO_OPERATIONS, ready } from '../support/operation-requests.ts';

describe('bad input at the HTTP door: a catalogue error, and nothing changed', () => {
  let t: InjectServer;
  before(async () => {
    t = await injectServer({ config: { webhookAllowPrivate: true } });
  });
  after(() => t.close());

  /** Sends the request and asserts its error, with the store as it was before. */
  async function refused(send: () => Promise<Answer>, status: number, code: string) {
    const before = await t.snapshot();
    assertError(await send(), status, code);
    assert.deepEqual(await t.snapshot(), before, `${code}: nothing changed`);
  }

  for (const op of DEMO_OPERATIONS) {
    const { method } = op;
    const withBody = op.kind === 'write' && op.body !== undefined;
    it(`${op.id} (${method} ${op.path})`, async () => {
      const { path, body } = await ready(t, op);
      const as = body === undefined ? {} : { body };
      const unknown = `${path}${path.includes('?') ? '&' : '?'}unknownParameter=1`;
      await refused(() => t.send(method, unknown, as), 400, 'INVALID_QUERY');
      if (withBody) {
        await refused(() => t.send(method, path, { body: { unknownProperty: 1 } }), 400, 'INVALID_BODY');
        await refused(() => t.send(method, path, { body: ['an', 'array'] }), 400, 'INVALID_BODY');
        const json = { 'content-type': 'application/json' };
        await refused(() => t.send(method, path, { raw: '{"cut": ', headers: json }), 400, 'INVALID_JSON');
        const text = { 'content-type': 'text/plain' };
        await refused(() => t.send(method, path, { raw: 'a=1', headers: text }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
      if (op.kind === 'write' && op.idempotent) {
        // 256 characters: one more than a key may have.
        for (const key of ['', 'x'.repeat(256), 'caf\u00e9']) {
          const headers = { 'idempotency-key': key };
          await refused(() => t.send(method, path, { ...as, headers }), 400, 'IDEMPOTENCY_KEY_INVALID');
        }
      }
      if (op.kind === 'write' && op.ifMatch) {
        // One quoted version or `*`, nothing else (a weak tag, a bare number, a list).
        for (const ifMatch of ['W/"1"', '1', '"1", "2"', '"one"']) {
          const headers = { 'if-match': ifMatch };
          await refused(() => t.send(method, path, { ...as, headers }), 400, 'INVALID_HEADER');
        }
      }
      // The same request, well formed, is accepted: what was refused was only what was wrong.
      const accepted = await t.send(method, path, as);
      assert.ok(accepted.status < 300, `${op.id} accepts its request: ${accepted.status} ${accepted.text}`);
    });
  }
});
