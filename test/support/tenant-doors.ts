// D-58: the feed, the live stream and webhooks of two Sellers and a closer, while all three act,
// on one or two instances (a, b: the same server in memory; two over one PostgreSQL schema).
// Each principal reads the feed (GET /events), follows a stream and owns a webhook; afterwards
// every view is checked against the operator's whole feed: no event crosses a tenant, and none
// that its owner may see is missing from any of its three views.
import assert from 'node:assert/strict';
import type { TestServer } from './http.ts';
import { as, bearer, enrolCloser, escalatedDeal, lostDeal, makeKey, makeSeller, OP } from './keys.ts';
import { type Receiver, startReceiver, until } from './receiver.ts';
import { openStream, type Stream } from './sse.ts';

type Event = { id: string; seq: number; type: string; data: any };

/** Every event a key sees after `after`, page by page. */
export async function feedOf(t: TestServer, key: string, after = 0): Promise<Event[]> {
  const events: Event[] = [];
  let cursor = after;
  for (;;) {
    const page = await as(t, bearer(key)).get(`/events?after=${cursor}&limit=1000`);
    assert.equal(page.status, 200, page.text);
    events.push(...page.body.events);
    if (page.body.events.length === 0) return events;
    cursor = page.body.nextAfter;
  }
}

const PLATFORM = new Set(['demo.reset', 'closer.enrolled']);

/** The deal an event is about, whatever its type. */
const dealOf = (e: Event): string | undefined => e.data.dealId ?? e.data.deal?.id ?? e.data.gig?.dealId;

interface Reader {
  name: string;
  key: string;
  stream: Stream;
  receiver: Receiver;
}

const seqs = (events: readonly { seq: number }[]) => events.map((e) => e.seq);

/** The scenario; resolves once every check passed. */
export async function tenantDoors(a: TestServer, b: TestServer): Promise<void> {
  const op = as(a, bearer(OP));
  const s1 = (await makeKey(a, OP, { name: 'doors S1', principal: await makeSeller(a, 'Doors Seller One') })).key;
  const s2 = (await makeKey(b, OP, { name: 'doors S2', principal: await makeSeller(b, 'Doors Seller Two') })).key;
  const closerId = await enrolCloser(a, 'Doors Closer (fictional)');
  const kc = (await makeKey(a, OP, { name: 'doors closer', principal: closerId })).key;

  const readers: Reader[] = [];
  try {
    // Each principal owns a webhook (made on one instance) and follows a stream (on the other).
    for (const [name, key, on] of [
      ['Seller 1', s1, a],
      ['Seller 2', s2, b],
      ['closer', kc, a],
    ] as const) {
      const receiver = await startReceiver();
      const hook = await as(on, bearer(key)).post('/webhooks', { url: receiver.url });
      assert.equal(hook.status, 201, hook.text);
      readers.push({ name, key, receiver, stream: undefined as unknown as Stream });
    }
    const start = (await op.get('/events?limit=1')).body.lastSeq as number;
    const streamOn = [b, a, b];
    for (const [i, reader] of readers.entries()) {
      reader.stream = await openStream(streamOn[i], `/events/stream?after=${start}`, bearer(reader.key));
      assert.equal(reader.stream.response.statusCode, 200);
    }

    // All three act at once: the Sellers sell deals a human closes; the closer claims one gig of
    // each as they come, wins Seller 1's and releases Seller 2's.
    const [first1, first2] = await Promise.all([escalatedDeal(a, s1, 'S1 first'), escalatedDeal(b, s2, 'S2 first')]);
    const closer = (t: TestServer) => as(t, bearer(kc));
    const closerWork = async () => {
      for (const [t, gigId] of [
        [a, first1.gigId],
        [b, first2.gigId],
      ] as const) {
        const claim = await closer(t).post(`/closers/gigs/${gigId}/claim`, {});
        assert.equal(claim.status, 200, claim.text);
      }
      for (const advanceTo of ['proposal', 'negotiation']) {
        const moved = await closer(b).post(`/closers/gigs/${first1.gigId}/advance`, { advanceTo });
        assert.equal(moved.status, 200, moved.text);
      }
      const won = await closer(a).post(`/closers/gigs/${first1.gigId}/advance`, {
        advanceTo: 'closed_won',
        valueUsd: 20_000,
      });
      assert.equal(won.status, 200, won.text);
      const released = await closer(a).post(`/closers/gigs/${first2.gigId}/release`, {});
      assert.equal(released.status, 200, released.text);
    };
    const sellerWork = async (t: TestServer, key: string, label: string) => {
      for (let i = 0; i < 3; i++) await escalatedDeal(t, key, `${label} ${i}`);
      await lostDeal(t, key);
    };
    await Promise.all([closerWork(), sellerWork(a, s1, 'S1'), sellerWork(b, s2, 'S2')]);

    // The truth: the operator's whole feed, and who owns what.
    const all = await feedOf(a, OP, start);
    const deals = (await op.get(`${a.prefix}/deals?limit=1000`)).body as { id: string; sellerId?: string }[];
    const gigs = (await op.get('/closers/gigs?limit=1000')).body as { id: string; status: string; closerId?: string }[];
    const sellerOf = new Map(deals.map((deal) => [deal.id, deal.sellerId]));
    const principals = [
      (await as(a, bearer(s1)).get('/sellers')).body[0].id as string,
      (await as(a, bearer(s2)).get('/sellers')).body[0].id as string,
    ];
    const closersGigs = new Set([first1.gigId, first2.gigId]);
    const aboutCloser = (e: Event) =>
      (e.type === 'gig.claimed' && e.data.closerId === closerId) ||
      (e.type === 'payout.posted' && e.data.closerId === closerId) ||
      (['gig.fulfilled', 'gig.released'].includes(e.type) && closersGigs.has(e.data.gigId));

    const expected = (reader: Reader, live: boolean): Event[] => {
      if (reader.name === 'closer') {
        return all.filter((e) => {
          if (PLATFORM.has(e.type) || aboutCloser(e)) return true;
          if (e.type !== 'gig.posted') return false;
          if (live) return true; // a posting is delivered as it happens, to every closer
          const gig = gigs.find((g) => g.id === e.data.gig.id);
          return gig?.status === 'open' || gig?.closerId === closerId;
        });
      }
      const seller = principals[reader.name === 'Seller 1' ? 0 : 1];
      return all.filter((e) => PLATFORM.has(e.type) || sellerOf.get(dealOf(e) as string) === seller);
    };

    for (const reader of readers) {
      const want = expected(reader, false);
      const wantLive = expected(reader, true);
      assert.ok(want.length > 3, `${reader.name} has events to see`);
      const seen = await feedOf(a, reader.key, start);
      assert.deepEqual(seqs(seen), seqs(want), `${reader.name}'s feed: exactly its own`);
      assert.deepEqual(seqs(await feedOf(b, reader.key, start)), seqs(want), `${reader.name}'s feed on b`);
      await until(`${reader.name}'s stream`, () => reader.stream.messages.length >= wantLive.length, 20_000);
      assert.deepEqual(
        reader.stream.messages.map((m) => Number(m.id)),
        seqs(wantLive),
        `${reader.name}'s stream: exactly its own, in order`,
      );
      await until(`${reader.name}'s webhook`, () => reader.receiver.received.length >= wantLive.length, 20_000);
      assert.deepEqual(
        reader.receiver.received.map((r) => r.json.seq).sort((x, y) => x - y),
        seqs(wantLive),
        `${reader.name}'s webhook: exactly its own`,
      );
    }
    // Every Seller event went to its Seller's three views, and to no one else's.
    for (const e of all) {
      const owner = sellerOf.get(dealOf(e) as string);
      if (owner === undefined) continue;
      const other = readers[owner === principals[0] ? 1 : 0];
      assert.ok(!other.stream.messages.some((m) => Number(m.id) === e.seq), `${e.type} #${e.seq} crossed`);
      assert.ok(!other.receiver.received.some((r) => r.json.seq === e.seq), `${e.type} #${e.seq} crossed`);
    }
  } finally {
    for (const reader of readers) {
      reader.stream?.close();
      await reader.receiver.close();
    }
  }
}
