// If-Match at the HTTP door (D-47), for every write on a deal or its gigs: a version the deal is
// no longer at is 412 PRECONDITION_FAILED with the deal as it is now (its version and stage), and
// changes nothing; its current version and `*` pass, and the answer's ETag is the version the
// write made. The header is optional: a write without it runs (there is no 428; D-47 leaves
// conditional requests to the client).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Operation } from '../../src/operations/operation.ts';
import { assertError, type InjectServer, injectServer } from '../support/inject.ts';
import { DEMO_OPERATIONS, ok, ready } from '../support/operation-requests.ts';

describe('If-Match at the HTTP door: 412 on a stale version, and nothing changed', () => {
  let t: InjectServer;
  before(async () => {
    t = await injectServer();
  });
  after(() => t.close());

  /** The deal the request acts on (a gig's, for a gig's path) and its version, read through the API. */
  async function dealOf(op: Operation, id: string): Promise<{ id: string; version: number; stage: string }> {
    const dealId = op.mount === 'marketplace' ? (await ok(t, 'GET', `/closers/gigs/${id}`)).dealId : id;
    const deal = await t.get(`${t.prefix}/deals/${dealId}`);
    assert.equal(deal.headers.get('etag'), `"${deal.body.version}"`, 'a deal read sends its version as its ETag');
    return deal.body;
  }

  const conditional = DEMO_OPERATIONS.filter((op) => op.kind === 'write' && op.ifMatch);

  it('the writes on a deal or its gigs are the ones that take If-Match', () => {
    assert.deepEqual(
      conditional.map((op) => op.id),
      [
        'editDeal',
        'advanceDeal',
        'reportSignals',
        'reengageDeal',
        'deescalateDeal',
        'claimGig',
        'advanceGig',
        'reviveGig',
        'releaseGig',
        'expireGig',
      ],
    );
  });

  for (const op of conditional) {
    it(`${op.id} (${op.method} ${op.path})`, async () => {
      const send = (path: string, body: unknown, ifMatch?: string) =>
        t.send(op.method, path, {
          ...(body === undefined ? {} : { body }),
          ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
        });

      // Stale: an older version and one not reached yet are both refused, with the deal as it is.
      const stale = await ready(t, op);
      const deal = await dealOf(op, stale.id as string);
      // (Versions start at 1: "0" is no version, and is refused as a malformed header.)
      for (const version of [deal.version - 1, deal.version + 1, deal.version + 7].filter((v) => v >= 1)) {
        const before = await t.snapshot();
        const refused = assertError(await send(stale.path, stale.body, `"${version}"`), 412, 'PRECONDITION_FAILED');
        assert.deepEqual((refused as any).current, { version: deal.version, stage: deal.stage });
        assert.deepEqual(await t.snapshot(), before, `If-Match "${version}": nothing changed`);
      }

      // Current: accepted, one version more. An answer that carries a deal sends its version as
      // the ETag (a re-engagement's is its new deal's, at version 1: the closed one is left as it
      // was); a release or an expiry answers the gig alone, and no ETag.
      const answer = await send(stale.path, stale.body, `"${deal.version}"`);
      assert.ok(answer.status < 300, `${answer.status} ${answer.text}`);
      const after = await dealOf(op, stale.id as string);
      assert.equal(after.version, op.id === 'reengageDeal' ? deal.version : deal.version + 1);
      const carried = answer.body.deal ?? (answer.body.stage === undefined ? undefined : answer.body);
      assert.equal(carried === undefined, ['releaseGig', 'expireGig'].includes(op.id), 'the answer carries a deal');
      assert.equal(answer.headers.get('etag'), carried === undefined ? null : `"${carried.version}"`);
      if (op.id === 'reengageDeal') assert.equal(carried.version, 1);
      else if (carried !== undefined) assert.deepEqual(carried, after);

      // `*`, and no If-Match at all: any version passes.
      for (const ifMatch of ['*', undefined]) {
        const fresh = await ready(t, op);
        const passed = await send(fresh.path, fresh.body, ifMatch);
        assert.ok(passed.status < 300, `If-Match ${ifMatch}: ${passed.status} ${passed.text}`);
      }
    });
  }
});
