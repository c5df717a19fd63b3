// Unknown ids at the HTTP door (D-5), for every operation whose path names a record: an id of
// any shape or length that names nothing is 404 with the catalogue's code of that kind of
// record, never 400 or 500, and changes nothing. The request is otherwise the one the operation
// accepts (test/support/operation-requests.ts), so the id alone is what is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, type InjectServer, injectServer } from '../support/inject.ts';
import { DEMO_OPERATIONS, pathFor, ready } from '../support/operation-requests.ts';

/** The code of an unknown record, by the path's first segment. */
const NOT_FOUND: Record<string, string> = {
  deals: 'DEAL_NOT_FOUND',
  gigs: 'GIG_NOT_FOUND',
  closers: 'CLOSER_NOT_FOUND',
  webhooks: 'WEBHOOK_NOT_FOUND',
  sellers: 'SELLER_NOT_FOUND',
};

/** Ids that name nothing: of the right form but never handed out, of another kind, of no form. */
const UNKNOWN = [
  'deal_9999',
  'gig_9999',
  'closer_9999',
  'whk_9999',
  'nothing-here',
  '0',
  'x'.repeat(2_000),
  'd\u00e9al',
];

describe('unknown ids at the HTTP door: 404 of the record kind, and nothing changed', () => {
  let t: InjectServer;
  before(async () => {
    t = await injectServer({ config: { webhookAllowPrivate: true } });
  });
  after(() => t.close());

  const named = DEMO_OPERATIONS.filter((op) => op.path.includes('{id}'));

  it('every kind of record a path names has its code here', () => {
    for (const op of named) assert.ok(NOT_FOUND[op.path.split('/')[1]], `${op.id}: ${op.path}`);
  });

  for (const op of named) {
    const code = NOT_FOUND[op.path.split('/')[1]];
    it(`${op.id} (${op.method} ${op.path}): ${code}`, async () => {
      const { id, body, path } = await ready(t, op);
      assert.ok(id !== undefined);
      const as = body === undefined ? {} : { body };
      // The query the request needs (a statement's month), so that the id alone is refused.
      const query = path.includes('?') ? path.slice(path.indexOf('?')) : '';
      for (const unknown of UNKNOWN.filter((u) => u !== id)) {
        const before = await t.snapshot();
        assertError(await t.send(op.method, pathFor(t, op, unknown) + query, as), 404, code);
        assert.deepEqual(await t.snapshot(), before, `${unknown.slice(0, 20)}: nothing changed`);
      }
      // The record the request was made ready with is found: the 404 was the id's.
      const found = await t.send(op.method, pathFor(t, op, id) + query, as);
      assert.ok(found.status < 300, `${op.id} ${id}: ${found.status} ${found.text}`);
    });
  }
});
