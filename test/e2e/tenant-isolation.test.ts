// Keys mode's tenants (D-51, D-54, D-56): two Sellers and two closers, and what each key sees.
// Every list and filter holds only what the key may see; another tenant's id is answered exactly
// as an id that never existed; idempotency keys belong to a principal; a closer acts only as
// itself; who did it is on every activity entry and event a request writes, and the platform's
// timers write none; a gig never names its Seller; the rate limit counts per key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/http.ts';
import {
  as,
  assertUnchanged,
  bearer,
  claimedGig,
  dealBody,
  escalatedDeal,
  freshDeal,
  type KeyedAnswer,
  type KeysFixture,
  keysFixture,
  makeKey,
  makeSeller,
  OP,
  snapshot,
  startKeysServer,
  wrongKey,
} from '../support/keys.ts';

interface Event {
  seq: number;
  type: string;
  actor?: { principal: string; keyId: string };
  data: Record<string, any>;
}

/** The deal an event is about, if any. */
function dealOf(event: Event): string | undefined {
  const d = event.data;
  return d.dealId ?? d.deal?.id ?? d.gig?.dealId ?? d.line?.dealId ?? d.payout?.dealId;
}

/** The same answer, the id it was about written as <id>. */
const idless = (answer: KeyedAnswer, id: string) => ({
  status: answer.status,
  contentType: answer.headers.get('content-type'),
  body: answer.text.replaceAll(id, '<id>'),
});

const ids = (list: { id: string }[]) => list.map((x) => x.id).sort();

describe('keys mode: tenants see only their own', () => {
  let t: TestServer;
  let fx: KeysFixture;
  /** Every deal of each Seller, as the operator lists them. */
  let dealsOfA: string[];
  let dealsOfB: string[];

  const refreshDeals = async () => {
    const all = await fx.by(OP).get(`${t.prefix}/deals?limit=1000`);
    dealsOfA = all.body.filter((d: any) => d.sellerId === fx.A.sellerId).map((d: any) => d.id);
    dealsOfB = all.body.filter((d: any) => d.sellerId === fx.B.sellerId).map((d: any) => d.id);
  };

  const allEvents = async (key: string, query = ''): Promise<Event[]> => {
    const out: Event[] = [];
    let after = 0;
    for (;;) {
      const page = await as(t, bearer(key)).get(`/events?after=${after}&limit=1000${query}`);
      assert.equal(page.status, 200, page.text);
      if (page.body.events.length === 0) return out;
      out.push(...page.body.events);
      after = page.body.nextAfter;
    }
  };

  before(async () => {
    // D-3: the timers' check below moves the demo clock, served in keys mode with DEMO_CONTROLS=on.
    t = await startKeysServer({ demoControls: true });
    fx = await keysFixture(t);
    // More for each tenant: a deal at sourced, and a claimed gig of closer 2 in B's.
    await freshDeal(t, fx.sellerA.key, 'A sourced');
    await freshDeal(t, fx.sellerB.key, 'B sourced');
    await claimedGig(t, fx.sellerB.key, fx.closer2.key);
    await refreshDeals();
    assert.ok(dealsOfA.length >= 3 && dealsOfB.length >= 4, 'both tenants have deals');
  });
  after(async () => {
    await t?.close();
  });

  it('deal lists and every filter hold only the key’s deals; a deal carries its sellerId', async () => {
    const filters = [
      '',
      '?stage=meeting',
      '?stage=closed_won',
      '?stage=sourced',
      '?role=closer',
      '?role=setter',
      '?humanTrack=true',
      '?humanTrack=false',
      `?closerId=${fx.closer1.principal}`,
      `?closerId=${fx.closer2.principal}`,
    ];
    for (const filter of filters) {
      const everyone = await fx.by(OP).get(`${t.prefix}/deals${filter}${filter ? '&' : '?'}limit=1000`);
      assert.equal(everyone.status, 200);
      for (const [who, key, own] of [
        ['Seller A', fx.sellerA.key, fx.A.sellerId],
        ["A's agent", fx.agentA.key, fx.A.sellerId],
        ["A's reader", fx.readA.key, fx.A.sellerId],
        ['Seller B', fx.sellerB.key, fx.B.sellerId],
      ] as const) {
        const mine = await fx.by(key).get(`${t.prefix}/deals${filter}${filter ? '&' : '?'}limit=1000`);
        assert.equal(mine.status, 200, mine.text);
        for (const deal of mine.body) assert.equal(deal.sellerId, own, `${who} ${filter}: ${deal.id} is its own`);
        assert.deepEqual(
          ids(mine.body),
          ids(everyone.body.filter((d: any) => d.sellerId === own)),
          `${who} ${filter}: every deal of its own the operator sees`,
        );
      }
      // A closer: the deals of gigs it claimed, and no other.
      for (const closer of [fx.closer1, fx.closer2, fx.closerRead]) {
        const mine = await fx.by(closer.key).get(`${t.prefix}/deals${filter}${filter ? '&' : '?'}limit=1000`);
        assert.equal(mine.status, 200, mine.text);
        const claimedBy = await fx.by(OP).get(`${t.prefix}/deals?closerId=${closer.principal}&limit=1000`);
        const theirs = new Set(ids(claimedBy.body));
        for (const deal of mine.body) assert.ok(theirs.has(deal.id), `${closer.id} ${filter}: ${deal.id} has its gig`);
        assert.deepEqual(
          ids(mine.body),
          ids(everyone.body.filter((d: any) => theirs.has(d.id))),
          `${closer.id} ${filter}: every deal of its gigs`,
        );
      }
    }
    const own = await fx.by(fx.sellerA).get(`${t.prefix}/deals/${fx.A.wonDealId}`);
    assert.equal(own.body.sellerId, fx.A.sellerId, 'a deal carries its sellerId');
  });

  it('gig lists and every filter hold only what the key may see; a gig never names its Seller', async () => {
    const everyone = await fx.by(OP).get('/closers/gigs?limit=1000');
    const dealOfGig = new Map<string, string>(everyone.body.map((g: any) => [g.id, g.dealId]));
    const filters = [
      '',
      '?status=open',
      '?status=claimed',
      '?status=fulfilled',
      `?dealId=${fx.A.wonDealId}`,
      `?dealId=${fx.B.wonDealId}`,
      `?dealId=${fx.A.escalatedDealId}`,
      `?closerId=${fx.closer1.principal}`,
      `?closerId=${fx.closer2.principal}`,
      '?role=closer',
    ];
    for (const filter of filters) {
      const all = await fx.by(OP).get(`/closers/gigs${filter}${filter ? '&' : '?'}limit=1000`);
      for (const [who, key, deals] of [
        ['Seller A', fx.sellerA.key, dealsOfA],
        ['Seller B', fx.sellerB.key, dealsOfB],
        ["A's reader", fx.readA.key, dealsOfA],
      ] as const) {
        const mine = await fx.by(key).get(`/closers/gigs${filter}${filter ? '&' : '?'}limit=1000`);
        assert.equal(mine.status, 200, mine.text);
        assert.deepEqual(
          ids(mine.body),
          ids(all.body.filter((g: any) => deals.includes(g.dealId))),
          `${who} ${filter}: the gigs of its deals`,
        );
      }
      for (const closer of [fx.closer1, fx.closer2, fx.closerRead]) {
        const mine = await fx.by(closer.key).get(`/closers/gigs${filter}${filter ? '&' : '?'}limit=1000`);
        assert.equal(mine.status, 200, mine.text);
        assert.deepEqual(
          ids(mine.body),
          ids(all.body.filter((g: any) => g.status === 'open' || g.closerId === closer.principal)),
          `${closer.id} ${filter}: open gigs and its own`,
        );
      }
    }
    // No gig answer names the Seller, nor who did what in its brief.
    for (const key of [OP, fx.sellerA.key, fx.closer1.key]) {
      const list = await fx.by(key).get('/closers/gigs?limit=1000');
      for (const gig of list.body) {
        assert.equal('sellerId' in gig, false, `${gig.id} names no Seller`);
        assert.ok(!/seller_\d/.test(JSON.stringify(gig)), `${gig.id} names no Seller anywhere`);
        for (const entry of gig.brief.activity)
          assert.equal('actor' in entry, false, `${gig.id}: no actor in its brief`);
      }
      assert.ok(dealOfGig.size > 0);
    }
    const one = await fx.by(fx.closer1).get(`/closers/gigs/${fx.A.wonGigId}`);
    assert.equal(one.status, 200);
    assert.equal('sellerId' in one.body, false);
    for (const entry of one.body.brief.activity) assert.equal('actor' in entry, false);
    // The escalation's gig too.
    const sold = await fx
      .by(fx.sellerA)
      .post(`${t.prefix}/sell`, dealBody('Brief check', { staffing: { closer: 'human' } }));
    assert.equal(sold.status, 201);
    assert.equal('sellerId' in sold.body.gig, false);
    for (const entry of sold.body.gig.brief.activity) assert.equal('actor' in entry, false);
  });

  it('the feed and its filters hold only the events the key may see', async () => {
    await refreshDeals();
    const a = await allEvents(fx.sellerA.key);
    assert.ok(a.length > 0);
    // D-58, D-237: its deals' events, and the platform's own (a reset, an enrolment).
    const platform = (e: any) => e.type === 'closer.enrolled' || e.type === 'demo.reset';
    for (const e of a)
      assert.ok(dealsOfA.includes(dealOf(e) as string) || platform(e), `Seller A sees ${e.type} #${e.seq}`);
    const b = await allEvents(fx.sellerB.key);
    for (const e of b)
      assert.ok(dealsOfB.includes(dealOf(e) as string) || platform(e), `Seller B sees ${e.type} #${e.seq}`);
    assert.deepEqual(await allEvents(fx.sellerA.key, `&dealId=${fx.B.wonDealId}`), [], "A: none of B's deal");
    const aOfOwn = await allEvents(fx.sellerA.key, `&dealId=${fx.A.wonDealId}`);
    assert.ok(aOfOwn.length > 0 && aOfOwn.every((e) => dealOf(e) === fx.A.wonDealId));
    const created = await allEvents(fx.sellerA.key, '&type=deal.created');
    assert.deepEqual(created.map((e) => e.data.deal.id).sort(), [...dealsOfA].sort(), "A's deal.created: its own");
    assert.deepEqual(
      (await allEvents(fx.sellerA.key, '&type=closer.enrolled')).map((e) => e.seq),
      (await allEvents(OP, '&type=closer.enrolled')).map((e) => e.seq),
      'every closer.enrolled for a Seller (every key may list the closers)',
    );
    // Closer 2: gig.posted of open gigs, and everything about its own gigs; nothing of closer 1's.
    const everything = await allEvents(OP);
    const gigs = (await fx.by(OP).get('/closers/gigs?limit=1000')).body as any[];
    const c1Deals = new Set(gigs.filter((g) => g.closerId === fx.closer1.principal).map((g) => g.dealId));
    const c2Deals = new Set(gigs.filter((g) => g.closerId === fx.closer2.principal).map((g) => g.dealId));
    const c2 = await allEvents(fx.closer2.key);
    assert.ok(c2.length > 0);
    for (const e of c2) {
      const deal = dealOf(e);
      const ok =
        (e.type === 'gig.posted' && gigs.find((g) => g.id === e.data.gig.id)?.status === 'open') ||
        (deal !== undefined && c2Deals.has(deal)) ||
        e.data.line?.closerId === fx.closer2.principal ||
        platform(e);
      assert.ok(ok, `closer 2 sees ${e.type} #${e.seq}: ${JSON.stringify(e.data).slice(0, 200)}`);
      assert.ok(!(deal && c1Deals.has(deal) && !c2Deals.has(deal) && e.type !== 'gig.posted'), `${e.type} #${e.seq}`);
    }
    assert.ok(everything.length > c2.length, 'the operator sees more');
    assert.deepEqual(
      await allEvents(fx.closer2.key, `&dealId=${fx.A.wonDealId}`),
      [],
      'closer 2: none of a deal closer 1 won (its gig.posted was of a gig no longer open)',
    );
  });

  it('payouts are shown only to the closer itself and the operator (closers, one closer, match)', async () => {
    const c1 = fx.closer1.principal;
    const cases = [
      ['operator', OP, (_id: string) => true],
      ['closer 1', fx.closer1.key, (id: string) => id === c1],
      ["closer 1's reader", fx.closerRead.key, (id: string) => id === c1],
      ['closer 2', fx.closer2.key, (id: string) => id === fx.closer2.principal],
      ['Seller A', fx.sellerA.key, (_id: string) => false],
      ["A's agent", fx.agentA.key, (_id: string) => false],
    ] as const;
    for (const [who, key, sees] of cases) {
      const list = await fx.by(key).get('/closers/closers?limit=1000');
      assert.equal(list.status, 200, list.text);
      // D-3: keys mode seeds no closer; the operator enrolled these two.
      for (const id of [c1, fx.closer2.principal])
        assert.ok(
          list.body.some((c: { id: string }) => c.id === id),
          id,
        );
      for (const closer of list.body) assert.equal('payouts' in closer, sees(closer.id), `${who} lists ${closer.id}`);
      const one = await fx.by(key).get(`/closers/closers/${c1}`);
      assert.equal(one.status, 200);
      assert.equal('payouts' in one.body, sees(c1), `${who} gets ${c1}`);
      if (sees(c1)) assert.ok(one.body.payouts.length >= 2, 'closer 1 won a deal of each Seller: its payouts');
      const match = await fx.by(key).post('/closers/match', { industry: 'saas', valueUsd: 20_000, role: 'closer' });
      assert.equal(match.status, 200, match.text);
      for (const m of match.body)
        assert.equal('payouts' in m.closer, sees(m.closer.id), `${who} matches ${m.closer.id}`);
    }
  });

  it('Sellers and keys: each Seller sees itself and its own keys only', async () => {
    const sellers = await fx.by(fx.sellerA).get('/sellers');
    assert.deepEqual(ids(sellers.body), [fx.A.sellerId]);
    const all = await fx.by(OP).get('/sellers');
    assert.deepEqual(ids(all.body), [fx.A.sellerId, fx.B.sellerId].sort());
    const keys = await fx.by(fx.sellerA).get('/keys?limit=1000');
    assert.ok(keys.body.length >= 3);
    for (const key of keys.body) assert.equal(key.principal, fx.A.sellerId);
    assert.deepEqual(
      ids(keys.body),
      [fx.sellerA.id, fx.agentA.id, fx.readA.id].sort(),
      "A's keys: the operator-made one and the two it made",
    );
    assert.deepEqual((await fx.by(fx.sellerA).get(`/keys?principal=${fx.B.sellerId}`)).body, []);
    assert.deepEqual((await fx.by(fx.sellerA).get('/keys?principal=operator')).body, []);
    const c2keys = await fx.by(fx.closer2).get('/keys');
    assert.deepEqual(ids(c2keys.body), [fx.closer2.id]);
  });

  it("another tenant's deal, gig, key and Seller are answered exactly as ids that never existed", async () => {
    const state = await snapshot(t);
    const cases: [string, string, string, string][] = [
      // [key, path of theirs, their id, unknown id]
      [fx.sellerB.key, `${t.prefix}/deals/${fx.A.wonDealId}`, fx.A.wonDealId, 'deal_9999'],
      [fx.sellerA.key, `${t.prefix}/deals/${fx.B.wonDealId}`, fx.B.wonDealId, 'deal_9999'],
      [fx.sellerA.key, `${t.prefix}/deals/${fx.B.wonDealId}/settlement`, fx.B.wonDealId, 'deal_9999'],
      [fx.sellerA.key, `/closers/gigs/${fx.B.openGigId}`, fx.B.openGigId, 'gig_9999'],
      [fx.sellerA.key, `/closers/gigs/${fx.B.wonGigId}`, fx.B.wonGigId, 'gig_9999'],
      [fx.sellerA.key, `/keys/${fx.sellerB.id}`, fx.sellerB.id, 'key_9999'],
      [fx.sellerA.key, `/keys/${fx.closer1.id}`, fx.closer1.id, 'key_9999'],
      [fx.closer2.key, `/keys/${fx.closer1.id}`, fx.closer1.id, 'key_9999'],
      [fx.sellerA.key, `/sellers/${fx.B.sellerId}`, fx.B.sellerId, 'seller_9999'],
      // Closer 2 on what closer 1 won: a deal and a gig it has no gig of.
      [fx.closer2.key, `${t.prefix}/deals/${fx.A.wonDealId}`, fx.A.wonDealId, 'deal_9999'],
      [fx.closer2.key, `${t.prefix}/deals/${fx.A.wonDealId}/settlement`, fx.A.wonDealId, 'deal_9999'],
      [fx.closer2.key, `/closers/gigs/${fx.A.wonGigId}`, fx.A.wonGigId, 'gig_9999'],
      // Closer 1 on a deal whose gig is still open (not its gig).
      [fx.closer1.key, `${t.prefix}/deals/${fx.A.escalatedDealId}`, fx.A.escalatedDealId, 'deal_9999'],
    ];
    for (const [key, path, theirId, unknownId] of cases) {
      const theirs = await fx.by(key).get(path);
      const none = await fx.by(key).get(path.replace(theirId, unknownId));
      assert.equal(theirs.status, 404, `${path}: ${theirs.text}`);
      assert.deepEqual(idless(theirs, theirId), idless(none, unknownId), `${path} as an unknown id`);
    }
    // Writes on another tenant's objects: unknown too, and nothing changes.
    const writes: [string, string, unknown, string, string][] = [
      [fx.sellerA.key, `${t.prefix}/deals/${fx.B.escalatedDealId}/advance`, {}, fx.B.escalatedDealId, 'deal_9999'],
      [fx.sellerA.key, `${t.prefix}/deals/${fx.B.escalatedDealId}/deescalate`, {}, fx.B.escalatedDealId, 'deal_9999'],
      [
        fx.sellerA.key,
        `${t.prefix}/deals/${fx.B.escalatedDealId}/signals`,
        { signals: ['gone_dark'] },
        fx.B.escalatedDealId,
        'deal_9999',
      ],
      [fx.sellerA.key, `/closers/gigs/${fx.B.openGigId}/release`, {}, fx.B.openGigId, 'gig_9999'],
      [fx.sellerA.key, `/keys/${fx.sellerB.id}/revoke`, {}, fx.sellerB.id, 'key_9999'],
      [fx.sellerA.key, `/keys/${fx.sellerB.id}/roll`, {}, fx.sellerB.id, 'key_9999'],
      [
        fx.closer2.key,
        `/closers/gigs/${fx.A.wonGigId}/advance`,
        { advanceTo: 'closed_lost' },
        fx.A.wonGigId,
        'gig_9999',
      ],
    ];
    for (const [key, path, body, theirId, unknownId] of writes) {
      const theirs = await fx.by(key).post(path, body);
      const none = await fx.by(key).post(path.replace(theirId, unknownId), body);
      assert.equal(theirs.status, 404, `${path}: ${theirs.text}`);
      assert.deepEqual(idless(theirs, theirId), idless(none, unknownId), `${path} as an unknown id`);
    }
    await assertUnchanged(t, state, "another tenant's ids");
    // Creating a key for another principal: no such principal.
    const foreign = await fx.by(fx.sellerA).post('/keys', { name: 'x', principal: fx.B.sellerId });
    const never = await fx.by(fx.sellerA).post('/keys', { name: 'x', principal: 'seller_9999' });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'PRINCIPAL_NOT_FOUND');
    assert.deepEqual(idless(foreign, fx.B.sellerId), idless(never, 'seller_9999'));
  });

  it('an Idempotency-Key belongs to its principal: two Sellers with the same key and body get deals of their own', async () => {
    const key = `same-key-${Date.now()}`;
    const body = dealBody('Same body');
    const a1 = await fx.by(fx.sellerA).post(`${t.prefix}/deals`, body, { 'idempotency-key': key });
    const b1 = await fx.by(fx.sellerB).post(`${t.prefix}/deals`, body, { 'idempotency-key': key });
    assert.equal(a1.status, 201, a1.text);
    assert.equal(b1.status, 201, b1.text);
    assert.notEqual(a1.body.id, b1.body.id, 'two deals');
    assert.equal(a1.body.sellerId, fx.A.sellerId);
    assert.equal(b1.body.sellerId, fx.B.sellerId);
    assert.equal(b1.headers.get('idempotent-replayed'), null, "B's answer is no replay of A's");
    const a2 = await fx.by(fx.sellerA).post(`${t.prefix}/deals`, body, { 'idempotency-key': key });
    const b2 = await fx.by(fx.sellerB).post(`${t.prefix}/deals`, body, { 'idempotency-key': key });
    assert.equal(a2.headers.get('idempotent-replayed'), 'true');
    assert.equal(a2.text, a1.text, 'A replays its own answer');
    assert.equal(b2.headers.get('idempotent-replayed'), 'true');
    assert.equal(b2.text, b1.text, 'B replays its own answer');
    // Seller B still cannot read A's deal.
    assert.equal((await fx.by(fx.sellerB).get(`${t.prefix}/deals/${a1.body.id}`)).status, 404);
  });

  it('a closer claims only as itself: another closerId is 403 CLOSER_MISMATCH, none claims as itself', async () => {
    const { gigId } = await escalatedDeal(t, fx.sellerA.key, 'Mismatch');
    const state = await snapshot(t);
    const mismatch = await fx.by(fx.closer2).post(`/closers/gigs/${gigId}/claim`, { closerId: fx.closer1.principal });
    assert.equal(mismatch.status, 403, mismatch.text);
    assert.equal(mismatch.body.code, 'CLOSER_MISMATCH');
    await assertUnchanged(t, state, 'CLOSER_MISMATCH');
    const claim = await fx.by(fx.closer2).post(`/closers/gigs/${gigId}/claim`, {});
    assert.equal(claim.status, 200, claim.text);
    assert.equal(claim.body.gig.closerId, fx.closer2.principal, 'claimed as the key’s closer');
    // Naming itself is fine too, and moves on its gig name no one else.
    const mismatchAdvance = await fx
      .by(fx.closer2)
      .post(`/closers/gigs/${gigId}/advance`, { advanceTo: 'proposal', closerId: fx.closer1.principal });
    assert.equal(mismatchAdvance.status, 403);
    assert.equal(mismatchAdvance.body.code, 'CLOSER_MISMATCH');
    const advance = await fx
      .by(fx.closer2)
      .post(`/closers/gigs/${gigId}/advance`, { advanceTo: 'proposal', closerId: fx.closer2.principal });
    assert.equal(advance.status, 200, advance.text);
  });

  it('activity entries and events carry their actor; the platform’s timers write none', async () => {
    const dealId = await freshDeal(t, fx.sellerA.key, 'Actor check');
    const advanced = await fx.by(fx.agentA).post(`${t.prefix}/deals/${dealId}/advance`, {});
    assert.equal(advanced.status, 200);
    const { dealId: claimedDeal, gigId } = await claimedGig(t, fx.sellerA.key, fx.closer1.key);
    const deal = await fx.by(OP).get(`${t.prefix}/deals/${dealId}`);
    assert.deepEqual(deal.body.activity.at(-1).actor, { principal: fx.A.sellerId, keyId: fx.agentA.id });
    assert.deepEqual(deal.body.activity[0].actor, { principal: fx.A.sellerId, keyId: fx.sellerA.id });
    const events = await allEvents(OP, `&dealId=${dealId}`);
    assert.ok(events.length >= 2);
    for (const e of events) assert.ok(e.actor, `${e.type} #${e.seq} has an actor`);
    assert.deepEqual(events.at(-1)?.actor, { principal: fx.A.sellerId, keyId: fx.agentA.id });
    const claimedEvents = await allEvents(OP, `&dealId=${claimedDeal}&type=gig.claimed`);
    assert.deepEqual(claimedEvents[0].actor, { principal: fx.closer1.principal, keyId: fx.closer1.id });
    // Every event so far a request wrote, so each carries an actor (D-3: keys mode seeds no closer,
    // whose enrolment would be no request's).
    for (const e of await allEvents(OP)) {
      assert.ok(e.actor, `${e.type} #${e.seq} has an actor`);
      assert.match(e.actor.keyId, /^key_\d{4,}$/);
    }

    // The timers: a claim past its TTL expires, a deal past its stall timeout stalls.
    const stalling = await freshDeal(t, fx.sellerA.key, 'Stall check');
    const mark = (await snapshot(t)).lastSeq;
    const entriesBefore = new Map<string, number>();
    for (const id of [claimedDeal, stalling]) {
      entriesBefore.set(id, (await fx.by(OP).get(`${t.prefix}/deals/${id}`)).body.activity.length);
    }
    const clock = await fx.by(OP).post('/demo/clock', { advanceHours: 24 * 15 });
    assert.equal(clock.status, 200, clock.text);
    const byTimers = (await allEvents(OP)).filter((e) => e.seq > mark);
    assert.ok(
      byTimers.some((e) => ['gig.expired', 'gig.reopened'].includes(e.type) && e.data.gigId === gigId),
      `the claim expired: ${byTimers.map((e) => e.type)}`,
    );
    assert.ok(
      byTimers.some((e) => e.type === 'deal.stalled' && e.data.dealId === stalling),
      `the deal stalled: ${byTimers.map((e) => e.type)}`,
    );
    for (const e of byTimers) assert.equal(e.actor, undefined, `the timers' ${e.type} #${e.seq} names no actor`);
    for (const id of [claimedDeal, stalling]) {
      const after = await fx.by(OP).get(`${t.prefix}/deals/${id}`);
      const late = after.body.activity.slice(entriesBefore.get(id));
      assert.ok(late.length > 0, `${id}: the timers wrote an entry`);
      for (const entry of late) assert.equal('actor' in entry, false, `${id}: the timers' entry "${entry.note}"`);
    }
  });
});

describe('keys mode: the rate limit counts per key', () => {
  it('Seller A using up its limit does not limit Seller B', async () => {
    const t = await startKeysServer({ rateLimitPerMinute: 5 });
    try {
      const a = await makeSeller(t, 'A');
      const b = await makeSeller(t, 'B');
      const keyA = await makeKey(t, OP, { name: 'a', principal: a });
      const keyB = await makeKey(t, OP, { name: 'b', principal: b });
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await as(t, bearer(keyA.key)).get(`${t.prefix}/deals`)).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429], 'Seller A: five, then refused');
      const other = await as(t, bearer(keyB.key)).get(`${t.prefix}/deals`);
      assert.equal(other.status, 200, `Seller B is not limited by A: ${other.text}`);
    } finally {
      await t.close();
    }
  });

  it('requests with no valid key count per address: a wrong key each time is limited all the same', async () => {
    const t = await startKeysServer({ rateLimitPerMinute: 5 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await as(t, bearer(wrongKey())).get(`${t.prefix}/deals`)).status);
      // (The contract check's one read of /openapi.json counts for the address too.)
      assert.equal(statuses[0], 401);
      assert.ok(
        statuses.slice(0, 4).every((s) => s === 401),
        `first refused as wrong keys: ${statuses}`,
      );
      assert.equal(statuses.at(-1), 429, `then limited: ${statuses}`);
      // A valid key from the same address has its own allowance: the flood never locks it out.
      const valid = await as(t, bearer(OP)).get(`${t.prefix}/deals`);
      assert.equal(valid.status, 200, `a valid key after the flood: ${valid.status}`);
    } finally {
      await t.close();
    }
  });
});
