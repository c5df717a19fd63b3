// Conditional moves (D-47): every deal has a version, every answer carrying one deal sends it as
// an ETag, and every write on a deal or its gigs honours If-Match: a stale version is 412 with
// the deal's current version and stage, and changes nothing. Racing writers holding one version:
// exactly one wins. Runs on every store (TEST_STORE); the same race across two
// instances over one PostgreSQL database is in test/postgres/multi-instance.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  advanceDeal,
  assertError,
  createDeal,
  type DealView,
  dealBody,
  fixedClock,
  getDeal,
  HUMAN_CLOSER,
  negotiatingCloserGig,
} from '../support/marketplace-e2e.ts';

describe('conditional moves: version, ETag and If-Match (D-47)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock: fixedClock });
  });
  after(() => t.close());

  const ifMatch = (version: number | string) => ({
    'if-match': typeof version === 'number' ? `"${version}"` : version,
  });

  it('a deal is created at version 1, and each accepted change (a gig’s included) adds one; every answer carrying one deal sends its ETag', async () => {
    const created = await t.post<DealView>(`${t.prefix}/deals`, dealBody({ mandate: HUMAN_CLOSER }));
    assert.equal(created.status, 201);
    assert.equal(created.body.version, 1);
    assert.equal(created.headers.get('etag'), '"1"');
    const id = created.body.id;
    const read = await t.get<DealView>(`${t.prefix}/deals/${id}`);
    assert.equal(read.headers.get('etag'), '"1"');
    const moved = await t.post<DealView>(`${t.prefix}/deals/${id}/advance`, undefined, ifMatch(1));
    assert.equal(moved.status, 200);
    assert.equal(moved.body.version, 2);
    assert.equal(moved.headers.get('etag'), '"2"');
    await advanceDeal(t, id);
    // The escalation posts a gig: one decision, one version.
    const escalated = await t.post(`${t.prefix}/deals/${id}/advance`, undefined, ifMatch(3));
    assert.equal(escalated.status, 200);
    assert.equal(escalated.body.deal.version, 4);
    assert.equal(escalated.headers.get('etag'), '"4"');
    // A claim changes only the gig: the deal's version moves all the same.
    const claimed = await t.post(`/closers/gigs/${escalated.body.gig.id}/claim`, { closerId: ADA }, ifMatch(4));
    assert.equal(claimed.status, 200);
    assert.equal(claimed.body.deal.version, 5);
    assert.equal(claimed.headers.get('etag'), '"5"');
    assert.equal((await getDeal(t, id)).version, 5);
    // A refusal changes nothing, the version included (the gig is claimed: no de-escalation),
    // and neither does an advance of a deal whose gig is out: it answers the escalation again.
    assertError(await t.post(`${t.prefix}/deals/${id}/deescalate`), 409, 'GIG_CLAIMED');
    const again = await t.post(`${t.prefix}/deals/${id}/advance`);
    assert.equal(again.body.deal.version, 5);
    assert.equal((await getDeal(t, id)).version, 5);
  });

  it('a stale If-Match is 412 PRECONDITION_FAILED with the current version and stage, and changes nothing', async () => {
    const deal = await createDeal(t);
    await advanceDeal(t, deal.id);
    const before = await getDeal(t, deal.id);
    const stale = await t.post(`${t.prefix}/deals/${deal.id}/advance`, undefined, ifMatch(1));
    const error = assertError(stale, 412, 'PRECONDITION_FAILED');
    assert.deepEqual((error as unknown as { current: unknown }).current, { version: 2, stage: 'qualified' });
    assert.match(error.error, /version 2/);
    assert.deepEqual(await getDeal(t, deal.id), before);
    for (const path of ['signals', 'deescalate', 'reengage']) {
      const body = path === 'signals' ? { signals: ['budget_approved'] } : undefined;
      assertError(await t.post(`${t.prefix}/deals/${deal.id}/${path}`, body, ifMatch(7)), 412, 'PRECONDITION_FAILED');
    }
    assert.deepEqual(await getDeal(t, deal.id), before);
    // The current version and `*` both pass.
    assert.equal((await t.post(`${t.prefix}/deals/${deal.id}/advance`, undefined, ifMatch(2))).status, 200);
    assert.equal((await t.post(`${t.prefix}/deals/${deal.id}/advance`, undefined, ifMatch('*'))).status, 200);
    assert.equal((await getDeal(t, deal.id)).version, 4);
  });

  it('on a gig, If-Match names the version of the gig’s deal', async () => {
    const { gig, deal } = await negotiatingCloserGig(t, ADA, { listValueUsd: 100_000 });
    const close = { closerId: ADA, advanceTo: 'closed_won', valueUsd: 95_000 };
    const stale = await t.post(`/closers/gigs/${gig.id}/advance`, close, ifMatch(deal.version - 1));
    assertError(stale, 412, 'PRECONDITION_FAILED');
    for (const path of ['revive', 'release', 'expire']) {
      assertError(
        await t.post(`/closers/gigs/${gig.id}/${path}`, path === 'expire' ? undefined : {}, ifMatch(99)),
        412,
        'PRECONDITION_FAILED',
      );
    }
    assert.equal((await getDeal(t, deal.id)).version, deal.version);
    const closed = await t.post(`/closers/gigs/${gig.id}/advance`, close, ifMatch(deal.version));
    assert.equal(closed.status, 200);
    assert.equal(closed.body.deal.stage, 'closed_won');
    assert.equal(closed.body.deal.version, deal.version + 1);
  });

  it('a 404 stays a 404 whatever the If-Match; a malformed If-Match is 400 INVALID_HEADER before anything runs', async () => {
    assertError(await t.post(`${t.prefix}/deals/deal_9999/advance`, undefined, ifMatch(1)), 404, 'DEAL_NOT_FOUND');
    const deal = await createDeal(t);
    for (const bad of ['1', '"0"', '"-1"', '"1.5"', 'W/"1"', '"1", "2"', '""', '"abc"', '**', ' "1"x']) {
      const answer = await t.post(`${t.prefix}/deals/${deal.id}/advance`, undefined, { 'if-match': bad });
      assertError(answer, 400, 'INVALID_HEADER');
    }
    assert.equal((await getDeal(t, deal.id)).version, 1);
  });

  it('two writers holding the same version race: exactly one moves the deal, the other gets 412', async () => {
    for (let round = 0; round < 5; round++) {
      const deal = await createDeal(t);
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => t.post(`${t.prefix}/deals/${deal.id}/advance`, undefined, ifMatch(1))),
      );
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, 412, 412, 412, 412, 412], `round ${round}`);
      const after = await getDeal(t, deal.id);
      assert.equal(after.version, 2);
      assert.equal(after.stage, 'qualified');
    }
  });

  it('a keyed replay sends the ETag the answer was first sent with', async () => {
    const deal = await createDeal(t);
    const key = { 'idempotency-key': `conditional-${deal.id}` };
    const first = await t.post(`${t.prefix}/deals/${deal.id}/advance`, undefined, { ...key, ...ifMatch(1) });
    await advanceDeal(t, deal.id);
    const again = await t.post(`${t.prefix}/deals/${deal.id}/advance`, undefined, { ...key, ...ifMatch(1) });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
    assert.equal(first.headers.get('etag'), '"2"');
  });

  it('a sell answers the sold deal’s ETag (each of its steps is a change)', async () => {
    const sold = await t.post<DealView>(`${t.prefix}/sell`, dealBody());
    assert.equal(sold.status, 201);
    assert.equal(sold.body.stage, 'closed_won');
    assert.equal(sold.headers.get('etag'), `"${sold.body.version}"`);
    assert.equal(sold.body.version, 1 + (sold.body.activity.length - 1));
  });

  it('the contract documents ETag on every answer carrying one deal, and If-Match with its 412 on every write on a deal or its gigs', async () => {
    type Operation = {
      operationId: string;
      parameters?: { name: string; in: string }[];
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    const contract = (await t.get('/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
    const operations = Object.values(contract.paths).flatMap((item) => Object.values(item));
    const tagged = operations
      .filter((op) => Object.entries(op.responses).some(([status, r]) => status.startsWith('2') && r.headers?.ETag))
      .map((op) => op.operationId)
      .sort();
    assert.deepEqual(tagged, [
      'advanceDeal',
      'advanceGig',
      'claimGig',
      'createDeal',
      'deescalateDeal',
      'editDeal',
      'getDeal',
      'reengageDeal',
      'reportSignals',
      'reviveGig',
      'sell',
    ]);
    const conditional = operations.filter((op) =>
      op.parameters?.some((p) => p.in === 'header' && p.name === 'if-match'),
    );
    assert.deepEqual(conditional.map((op) => op.operationId).sort(), [
      'advanceDeal',
      'advanceGig',
      'claimGig',
      'deescalateDeal',
      'editDeal',
      'expireGig',
      'reengageDeal',
      'releaseGig',
      'reportSignals',
      'reviveGig',
    ]);
    for (const op of conditional) assert.ok(op.responses['412'], `${op.operationId} documents its 412`);
  });
});
