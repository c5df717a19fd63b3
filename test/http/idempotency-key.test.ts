// Idempotency-Key at the HTTP door (D-37), for every write that takes one: the same request again
// under the same key answers the very bytes of the first (status, body, Location, ETag) marked
// `Idempotent-Replayed: true`, and runs nothing; the key with another request is 422
// IDEMPOTENCY_KEY_REUSED, and runs nothing. A refusal a retry would meet again (404, 409, 422)
// is kept under its key too; one a client mends before retrying (400, 412) is not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Operation } from '../../src/operations/operation.ts';
import { type Answer, assertError, type InjectServer, injectServer } from '../support/inject.ts';
import { advance, createDeal, DEMO_OPERATIONS, dealBody, ready } from '../support/operation-requests.ts';

describe('Idempotency-Key at the HTTP door: one request, one effect, one answer', () => {
  let t: InjectServer;
  before(async () => {
    t = await injectServer({ config: { webhookAllowPrivate: true } });
  });
  after(() => t.close());

  let keys = 0;
  const newKey = () => `unit-key-${++keys}`;
  const keyed = (op: Pick<Operation, 'method'>, path: string, body: unknown, key: string) =>
    t.send(op.method, path, { ...(body === undefined ? {} : { body }), headers: { 'idempotency-key': key } });

  /** The parts of an answer a replay gives again, to the byte. */
  const sent = (answer: Answer) => ({
    status: answer.status,
    text: answer.text,
    location: answer.headers.get('location'),
    etag: answer.headers.get('etag'),
    type: answer.headers.get('content-type'),
  });

  const idempotent = DEMO_OPERATIONS.filter((op) => op.kind === 'write' && op.idempotent);

  for (const op of idempotent) {
    it(`${op.id} (${op.method} ${op.path})`, async () => {
      const { path, body } = await ready(t, op);
      const key = newKey();
      const first = await keyed(op, path, body, key);
      assert.ok(first.status < 300, `${first.status} ${first.text}`);
      assert.equal(first.headers.get('idempotent-replayed'), null, 'the first answer is no replay');
      const ran = await t.snapshot();

      for (let i = 0; i < 2; i++) {
        const again = await keyed(op, path, body, key);
        assert.deepEqual(sent(again), sent(first), 'the very answer again');
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(await t.snapshot(), ran, 'a replay runs nothing');
      }

      // Another request under the key: another body of the same operation, or another operation.
      const other =
        op.id === 'createDeal' ? { path, body: dealBody(41_000) } : { path: `${t.prefix}/deals`, body: dealBody() };
      assertError(await keyed({ method: 'POST' }, other.path, other.body, key), 422, 'IDEMPOTENCY_KEY_REUSED');
      assert.deepEqual(await t.snapshot(), ran, 'a reused key runs nothing');
    });
  }

  it('a refusal a retry would meet again is kept under its key: 409 replayed, nothing run', async () => {
    const dealId = await createDeal(t);
    await advance(t, dealId, { advanceTo: 'closed_lost' });
    const key = newKey();
    const path = `${t.prefix}/deals/${dealId}/advance`;
    const refused = await keyed({ method: 'POST' }, path, undefined, key);
    assertError(refused, 409, 'DEAL_TERMINAL');
    const before = await t.snapshot();
    const again = await keyed({ method: 'POST' }, path, undefined, key);
    assert.deepEqual(sent(again), sent(refused));
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await t.snapshot(), before);
  });

  it('a 412 is not kept: the same key with the version read again runs, and is kept from then on', async () => {
    const dealId = await createDeal(t);
    const key = newKey();
    const path = `${t.prefix}/deals/${dealId}/advance`;
    const send = (ifMatch: string) =>
      t.send('POST', path, { headers: { 'idempotency-key': key, 'if-match': ifMatch } });
    assertError(await send('"2"'), 412, 'PRECONDITION_FAILED');
    const moved = await send('"1"');
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.stage, 'qualified');
    assert.equal(moved.headers.get('idempotent-replayed'), null);
    // From now on the key answers what it ran, whatever If-Match says (it is no part of the request's identity).
    const again = await send('"2"');
    assert.deepEqual(sent(again), sent(moved));
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
  });

  it('a 400 is not kept: the same key with the body mended runs', async () => {
    const key = newKey();
    const path = `${t.prefix}/deals`;
    const before = await t.snapshot();
    assertError(await keyed({ method: 'POST' }, path, { listValueUsd: 5 }, key), 400, 'INVALID_BODY');
    assert.deepEqual(await t.snapshot(), before);
    const created = await keyed({ method: 'POST' }, path, dealBody(), key);
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('location'), `${t.prefix}/deals/${created.body.id}`);
  });
});
