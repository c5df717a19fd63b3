// D-282 on PostgreSQL in keys mode: the instance's copy of records (D-250) is one for every
// principal, and row-level security still decides what each acts on. A closer's claim of a gig
// a Seller's key sold is served from the copy the Seller's units left, checked under the
// closer's principal and committed in a group; another Seller's key, or another closer's, that
// names a record the copy holds is answered exactly as an unknown id, the record unchanged: the
// check behind its principal does not find the row, so the unit runs again with locks and reads
// nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import { NO_TELEMETRY, type Telemetry } from '../../src/telemetry.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  as,
  bearer,
  enrolCloser,
  escalatedDeal,
  expectStatus,
  freshDeal,
  makeKey,
  makeSeller,
  OP,
} from '../support/keys.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();

/** What the store told of units run again and of units committed in a group. */
const told = { retried: 0, grouped: 0 };
const telemetry: Telemetry = {
  ...NO_TELEMETRY,
  unitRetried: () => {
    told.retried++;
  },
  committedTogether: (units) => {
    told.grouped += units;
  },
};
const counts = () => ({ ...told });

describe('one record cache for every principal, row-level security deciding (D-282)', { skip: server.skip }, () => {
  let schema: TestSchema;
  let t: TestServer;
  let sellerA: string;
  let sellerB: string;
  let closer1: string;
  let closer2: string;

  before(async () => {
    schema = await createTestSchema(server.url as string, 'sharedcache');
    t = await startTestServer({
      config: { auth: 'keys', operatorKey: OP },
      store: await createStore(schema.url, { poolSize: 4, ownerUrl: schema.ownerUrl, telemetry }),
    });
    sellerA = (await makeKey(t, OP, { name: 'a', principal: await makeSeller(t, 'Seller A') })).key;
    sellerB = (await makeKey(t, OP, { name: 'b', principal: await makeSeller(t, 'Seller B') })).key;
    closer1 = (await makeKey(t, OP, { name: 'c1', principal: await enrolCloser(t, 'Closer One') })).key;
    closer2 = (await makeKey(t, OP, { name: 'c2', principal: await enrolCloser(t, 'Closer Two') })).key;
  });
  after(async () => {
    await t?.close();
    await schema?.drop();
  });

  it("serves a closer's claim the gig a Seller's key sold, from the copy, in a group, never run again", async () => {
    const { dealId, gigId } = await escalatedDeal(t, sellerA);
    const before = counts();
    const claim = await as(t, bearer(closer1)).post(`/closers/gigs/${gigId}/claim`, {});
    expectStatus(claim, 200, 'the claim');
    assert.equal(claim.body.gig.status, 'claimed');
    const now = counts();
    assert.equal(now.retried, before.retried, 'its check passed behind the closer: no unit ran again');
    assert.equal(now.grouped, before.grouped + 1, 'it decided on the copy and committed in a group');
    const deal = await as(t, bearer(sellerA)).get(`${t.prefix}/deals/${dealId}`);
    expectStatus(deal, 200, "the Seller's deal");
  });

  it("answers another Seller's key on a deal the copy holds as an unknown id, and changes nothing", async () => {
    const dealId = await freshDeal(t, sellerA, 'Held by the copy');
    const own = await as(t, bearer(sellerA)).get(`${t.prefix}/deals/${dealId}`);
    const before = counts();
    const probe = await as(t, bearer(sellerB)).post(`${t.prefix}/deals/${dealId}/advance`, {});
    const unknownId = 'deal_9999';
    const unknown = await as(t, bearer(sellerB)).post(`${t.prefix}/deals/${unknownId}/advance`, {});
    assert.equal(probe.status, 404);
    assert.equal(probe.text, unknown.text.replaceAll(unknownId, dealId), "the unknown id's answer, byte for byte");
    const now = counts();
    assert.equal(now.retried, before.retried + 1, 'the copy was served, its check refused it behind Seller B');
    const after = await as(t, bearer(sellerA)).get(`${t.prefix}/deals/${dealId}`);
    assert.deepEqual(after.body, own.body, "Seller A's deal is unchanged");
  });

  it("answers a closer's key on a gig another closer claimed, which the copy holds, as an unknown gig", async () => {
    const { gigId } = await escalatedDeal(t, sellerA, 'Claimed by one');
    expectStatus(await as(t, bearer(closer1)).post(`/closers/gigs/${gigId}/claim`, {}), 200, 'the claim');
    const probe = await as(t, bearer(closer2)).post(`/closers/gigs/${gigId}/release`, {});
    const unknownId = 'gig_9999';
    const unknown = await as(t, bearer(closer2)).post(`/closers/gigs/${unknownId}/release`, {});
    assert.equal(probe.status, 404);
    assert.equal(probe.text, unknown.text.replaceAll(unknownId, gigId), "the unknown gig's answer, byte for byte");
    const gig = await as(t, bearer(closer1)).get(`/closers/gigs/${gigId}`);
    expectStatus(gig, 200, "closer 1's gig");
    assert.equal(gig.body.status, 'claimed', 'still claimed by closer 1');
  });
});
