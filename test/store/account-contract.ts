// The accounts and tenancy part of the store contract (D-51, D-52, D-54, D-57), run by
// describeStoreContract on every adapter: Sellers and keys, the change marks other instances
// follow, what a wipe keeps, and the filters by Seller and by closer, the events' audience and
// the answers' owner. A wipe keeps Sellers and most keys, so on a durable store the tests find
// those of earlier tests: each names its own by numbers it takes (never restarted).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import { OPERATOR, scopesOf } from '../../src/domain/access.ts';
import type { ApiKey } from '../../src/domain/keys.ts';
import type { PublicEventDraft } from '../../src/domain/public-events.ts';
import type { Deal, Gig, Seller } from '../../src/domain/records.ts';
import type { ConsoleSession } from '../../src/domain/sessions.ts';
import type { Store, StoredAnswer, UnitOfWork } from '../../src/store/store.ts';
import { sampleDeal, sampleGig } from './contract.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');

const pad = (n: number) => String(n).padStart(4, '0');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const seller = (n: number, overrides: Partial<Seller> = {}): Seller => ({
  id: `seller_${pad(n)}`,
  name: `Seller ${n} "quoted" \u0000 and more`,
  createdAt: T0 + n,
  ...overrides,
});

const apiKey = (n: number, principal: string, overrides: Partial<ApiKey> = {}): ApiKey => ({
  id: `key_${pad(n)}`,
  hash: sha256(`a key ${n} ${principal}`),
  prefix: 'sp_sk_abcdef',
  name: `key ${n}`,
  principal,
  scopes:
    principal === OPERATOR ? scopesOf('operator') : scopesOf(principal.startsWith('closer_') ? 'closer' : 'seller'),
  createdAt: T0,
  ...overrides,
});

/** Takes `count` numbers of a kind in one unit of work. */
async function numbers(store: Store, kind: 'seller' | 'key', count: number): Promise<number[]> {
  return store.transaction(async (uow) => {
    const taken: number[] = [];
    for (let i = 0; i < count; i++) taken.push(await uow.accounts.takeNumber(kind));
    return taken;
  });
}

const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);

export function accountContract(_name: string, store: () => Store) {
  it('accounts: stores Sellers and keys and reads them back unchanged, by id and by hash', async () => {
    const [s] = await numbers(store(), 'seller', 1);
    const [k1, k2] = await numbers(store(), 'key', 2);
    const owner = seller(s);
    const full = apiKey(k1, owner.id, {
      expiresAt: T0 + 1000,
      revokedAt: T0 + 500,
      lastUsedAt: T0 + 10,
      replacedBy: `key_${pad(k2)}`,
    });
    const bare = apiKey(k2, OPERATOR, { fromEnvironment: true });
    await store().transaction(async (uow) => {
      await uow.accounts.putSeller(owner);
      await uow.accounts.putKey(full);
      await uow.accounts.putKey(bare);
      assert.deepEqual(await uow.accounts.getKey(full.id), full, 'a unit reads its own writes');
    });
    await store().read(async (r) => {
      assert.deepEqual(await r.accounts.getSeller(owner.id), owner);
      assert.deepEqual(await r.accounts.getKey(full.id), full);
      assert.deepEqual(await r.accounts.getKey(bare.id), bare);
      assert.deepEqual(await r.accounts.keyByHash(full.hash), full);
      assert.equal(await r.accounts.keyByHash(sha256('no such key')), undefined);
      assert.equal(await r.accounts.getKey('key_999999'), undefined);
      assert.equal(await r.accounts.getSeller('seller_999999'), undefined);
      assert.deepEqual(await r.accounts.listSellers({ afterId: `seller_${pad(s - 1)}`, limit: 1 }), [owner]);
    });
    // A unit that throws keeps none of its Sellers or keys.
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.accounts.putSeller(seller(s, { name: 'renamed' }));
        await uow.accounts.putKey({ ...full, name: 'renamed' });
        await uow.accounts.putKey(apiKey(k2 + 1000, owner.id));
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    await store().read(async (r) => {
      assert.deepEqual(await r.accounts.getSeller(owner.id), owner);
      assert.deepEqual(await r.accounts.getKey(full.id), full);
      assert.equal(await r.accounts.getKey(`key_${pad(k2 + 1000)}`), undefined);
    });
  });

  it('accounts: lists Sellers and keys in id order, keys by principal, a page at a time', async () => {
    const [s1, s2] = await numbers(store(), 'seller', 2);
    const [k1, k2, k3, k4] = await numbers(store(), 'key', 4);
    const principal = `seller_${pad(s1)}`;
    await store().transaction(async (uow) => {
      await uow.accounts.putSeller(seller(s2));
      await uow.accounts.putSeller(seller(s1));
      for (const k of [k3, k1, k2]) await uow.accounts.putKey(apiKey(k, principal));
      await uow.accounts.putKey(apiKey(k4, `seller_${pad(s2)}`));
    });
    await store().read(async (r) => {
      const all = ids(await r.accounts.listSellers({}));
      assert.deepEqual(
        all.filter((id) => id === `seller_${pad(s1)}` || id === `seller_${pad(s2)}`),
        [`seller_${pad(s1)}`, `seller_${pad(s2)}`],
      );
      assert.deepEqual(ids(await r.accounts.listSellers({ afterId: `seller_${pad(s1)}`, limit: 1 })), [
        `seller_${pad(s2)}`,
      ]);
      const mine = [k1, k2, k3].map((k) => `key_${pad(k)}`);
      assert.deepEqual(ids(await r.accounts.listKeys({ principal })), mine);
      assert.deepEqual(ids(await r.accounts.listKeys({ principal, limit: 2 })), mine.slice(0, 2));
      assert.deepEqual(ids(await r.accounts.listKeys({ principal, afterId: mine[0] })), mine.slice(1));
      assert.deepEqual(ids(await r.accounts.listKeys({ principal, afterId: mine[1], limit: 5 })), mine.slice(2));
      assert.deepEqual(ids(await r.accounts.listKeys({ principal: 'seller_999999' })), []);
      const every = ids(await r.accounts.listKeys({}));
      for (const id of [...mine, `key_${pad(k4)}`]) assert.ok(every.includes(id), id);
      assert.deepEqual(ids(await r.accounts.listKeys({ afterId: mine[2], limit: 1 })), [`key_${pad(k4)}`]);
    });
  });

  it('accounts: keysChangedSince gives a new mark for every create or change, none for a touch', async () => {
    const [k] = await numbers(store(), 'key', 1);
    const key = apiKey(k, OPERATOR);
    const { mark: m0 } = await store().read((r) => r.accounts.keysChangedSince(0));
    await store().transaction((uow) => uow.accounts.putKey(key));
    const created = await store().read((r) => r.accounts.keysChangedSince(m0));
    assert.deepEqual(created.keys, [key]);
    assert.ok(created.mark > m0, `${created.mark} > ${m0}`);
    assert.deepEqual(await store().read((r) => r.accounts.keysChangedSince(created.mark)), {
      keys: [],
      mark: created.mark,
    });
    const all = await store().read((r) => r.accounts.keysChangedSince(0));
    assert.ok(
      all.keys.some((each) => each.id === key.id),
      'since 0: every key',
    );
    const revoked = { ...key, revokedAt: T0 + 60_000 };
    await store().transaction((uow) => uow.accounts.putKey(revoked));
    const changed = await store().read((r) => r.accounts.keysChangedSince(created.mark));
    assert.deepEqual(changed.keys, [revoked]);
    assert.ok(changed.mark > created.mark);
    // A touch writes the last use, only ever later, and is no change.
    await store().transaction((uow) =>
      uow.accounts.touchKeys(
        new Map([
          [key.id, T0 + 5000],
          ['key_999999', T0],
        ]),
      ),
    );
    assert.deepEqual(await store().read((r) => r.accounts.keysChangedSince(changed.mark)), {
      keys: [],
      mark: changed.mark,
    });
    assert.equal((await store().read((r) => r.accounts.getKey(key.id)))?.lastUsedAt, T0 + 5000);
    await store().transaction((uow) => uow.accounts.touchKeys(new Map([[key.id, T0 + 4000]])));
    assert.equal((await store().read((r) => r.accounts.getKey(key.id)))?.lastUsedAt, T0 + 5000, 'never back');
    await store().transaction((uow) => uow.accounts.touchKeys(new Map([[key.id, T0 + 6000]])));
    assert.deepEqual(await store().read((r) => r.accounts.getKey(key.id)), { ...revoked, lastUsedAt: T0 + 6000 });
  });

  it('accounts: a wipe keeps Sellers and their and the operator keys, deletes closers keys, restarts no number', async () => {
    const [s] = await numbers(store(), 'seller', 1);
    const [k1, k2, k3] = await numbers(store(), 'key', 3);
    const owner = seller(s);
    const [ofSeller, ofOperator, ofCloser] = [
      apiKey(k1, owner.id),
      apiKey(k2, OPERATOR),
      apiKey(k3, 'closer_0001', { lastUsedAt: T0 }),
    ];
    await store().transaction(async (uow) => {
      await uow.accounts.putSeller(owner);
      for (const key of [ofSeller, ofOperator, ofCloser]) await uow.accounts.putKey(key);
    });
    await store().transaction((uow) => uow.wipe());
    await store().read(async (r) => {
      assert.deepEqual(await r.accounts.getSeller(owner.id), owner);
      assert.deepEqual(await r.accounts.getKey(ofSeller.id), ofSeller);
      assert.deepEqual(await r.accounts.keyByHash(ofOperator.hash), ofOperator);
      assert.equal(await r.accounts.getKey(ofCloser.id), undefined);
      assert.equal(await r.accounts.keyByHash(ofCloser.hash), undefined);
      assert.deepEqual(await r.accounts.listKeys({ principal: 'closer_0001' }), []);
    });
    // The numbers go on, in the wiping unit of work and after it.
    const [inWipe, after] = await store().transaction(async (uow) => {
      await uow.wipe();
      return [await uow.accounts.takeNumber('seller'), await uow.accounts.takeNumber('key')];
    });
    assert.ok(inWipe > s, `seller number ${inWipe} after ${s}`);
    assert.ok(after > k3, `key number ${after} after ${k3}`);
    assert.deepEqual(await numbers(store(), 'seller', 1), [inWipe + 1]);
    assert.deepEqual(await numbers(store(), 'key', 1), [after + 1]);
  });

  // ── tenancy: Sellers' records, closers' gigs (D-54) ───────────────────────────────────
  const ofSeller = (id: string, sellerId: string | undefined, overrides: Partial<Deal> = {}) =>
    sampleDeal(id, { ...(sellerId === undefined ? {} : { sellerId }), ...overrides });
  const gigOf = (id: string, dealId: string, sellerId: string, overrides: Partial<Gig> = {}) =>
    sampleGig(id, dealId, { sellerId, ...overrides });

  async function putTenants(uow: UnitOfWork) {
    await uow.putDeal(ofSeller('deal_0001', 'seller_0001'));
    await uow.putDeal(ofSeller('deal_0002', 'seller_0002'));
    await uow.putDeal(ofSeller('deal_0003', 'seller_0001', { stage: 'negotiation' }));
    await uow.putDeal(ofSeller('deal_0004', undefined));
    await uow.putDeal(ofSeller('deal_0005', 'seller_0002', { stage: 'negotiation' }));
    await uow.putGig(gigOf('gig_0001', 'deal_0001', 'seller_0001'));
    await uow.putGig(gigOf('gig_0002', 'deal_0003', 'seller_0001', { status: 'claimed', closerId: 'closer_0001' }));
    await uow.putGig(gigOf('gig_0003', 'deal_0002', 'seller_0002', { status: 'claimed', closerId: 'closer_0002' }));
    await uow.putGig(gigOf('gig_0004', 'deal_0002', 'seller_0002'));
    await uow.putGig(gigOf('gig_0005', 'deal_0005', 'seller_0002', { status: 'fulfilled', closerId: 'closer_0001' }));
  }

  it('sessions: sessionsChangedSince gives a mark for every session made or ended; a purge forgets expired ones; a rollback keeps none', async () => {
    const id = `ses_contract_${Math.random().toString(36).slice(2)}`;
    const session: ConsoleSession = {
      id,
      hash: sha256(id),
      principal: 'seller_0001',
      keyId: 'key_0001',
      createdAt: T0,
      expiresAt: T0 + 12 * 3_600_000,
    };
    const { mark: m0 } = await store().read((r) => r.accounts.sessionsChangedSince(0));
    await store().transaction((uow) => uow.accounts.putSession(session));
    const made = await store().read((r) => r.accounts.sessionsChangedSince(m0));
    assert.deepEqual(made.sessions, [session]);
    assert.ok(made.mark > m0);
    assert.deepEqual(await store().read((r) => r.accounts.sessionsChangedSince(made.mark)), {
      sessions: [],
      mark: made.mark,
    });
    const ended = { ...session, endedAt: T0 + 60_000 };
    await store().transaction((uow) => uow.accounts.putSession(ended));
    const after = await store().read((r) => r.accounts.sessionsChangedSince(made.mark));
    assert.deepEqual(after.sessions, [ended]);
    assert.ok(after.mark > made.mark);
    // A unit that fails keeps no session.
    const lost = { ...session, id: `${id}_lost`, hash: sha256(`${id}_lost`) };
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.accounts.putSession(lost);
        throw new Error('rolled back');
      }),
    );
    const ids = (await store().read((r) => r.accounts.sessionsChangedSince(0))).sessions.map((s) => s.id);
    assert.ok(ids.includes(id) && !ids.includes(lost.id));
    // Purged once expired before the time given; a later one stays.
    await store().transaction((uow) => uow.accounts.purgeSessions(session.expiresAt));
    assert.ok((await store().read((r) => r.accounts.sessionsChangedSince(0))).sessions.some((s) => s.id === id));
    await store().transaction((uow) => uow.accounts.purgeSessions(session.expiresAt + 1));
    assert.ok(!(await store().read((r) => r.accounts.sessionsChangedSince(0))).sessions.some((s) => s.id === id));
  });

  it('tenancy: pages deals by Seller, with the other filters, and by closer', async () => {
    await store().transaction(putTenants);
    await store().read(async (r) => {
      const deals = async (filter: Parameters<typeof r.listDeals>[0]) => ids(await r.listDeals(filter));
      assert.deepEqual(await deals({ sellerId: 'seller_0001', limit: 10 }), ['deal_0001', 'deal_0003']);
      assert.deepEqual(await deals({ sellerId: 'seller_0001', limit: 1 }), ['deal_0001']);
      assert.deepEqual(await deals({ sellerId: 'seller_0001', afterId: 'deal_0001', limit: 10 }), ['deal_0003']);
      assert.deepEqual(await deals({ sellerId: 'seller_0002', stage: 'negotiation', limit: 10 }), ['deal_0005']);
      assert.deepEqual(await deals({ sellerId: 'seller_0009', limit: 10 }), []);
      assert.deepEqual(await deals({ closerId: 'closer_0001', limit: 10 }), ['deal_0003', 'deal_0005']);
      assert.deepEqual(await deals({ closerId: 'closer_0001', sellerId: 'seller_0002', limit: 10 }), ['deal_0005']);
      assert.deepEqual(await r.getDeal('deal_0001'), ofSeller('deal_0001', 'seller_0001'), 'sellerId round-trips');
      assert.equal((await r.getDeal('deal_0004'))?.sellerId, undefined);
    });
  });

  it('tenancy: lists gigs by Seller, and what a closer sees (open ones and its own)', async () => {
    await store().transaction(putTenants);
    // A claim moves a gig out of the open ones and into its closer's.
    await store().transaction(async (uow) => {
      const gig = (await uow.getGig('gig_0004')) as Gig;
      await uow.putGig({ ...gig, status: 'claimed', closerId: 'closer_0003' });
    });
    await store().read(async (r) => {
      const gigs = async (filter: Parameters<typeof r.listGigs>[0]) => ids(await r.listGigs(filter));
      assert.deepEqual(await gigs({ sellerId: 'seller_0001' }), ['gig_0001', 'gig_0002']);
      assert.deepEqual(await gigs({ sellerId: 'seller_0002', limit: 1 }), ['gig_0003']);
      assert.deepEqual(await gigs({ openOrCloserId: 'closer_0001' }), ['gig_0001', 'gig_0002', 'gig_0005']);
      assert.deepEqual(await gigs({ openOrCloserId: 'closer_0003' }), ['gig_0001', 'gig_0004']);
      assert.deepEqual(await gigs({ openOrCloserId: 'closer_0001', sellerId: 'seller_0002' }), ['gig_0005']);
      assert.deepEqual(await gigs({ openOrCloserId: 'closer_0001', afterId: 'gig_0001', limit: 1 }), ['gig_0002']);
      assert.deepEqual(await gigs({ closerId: 'closer_0001' }), ['gig_0002', 'gig_0005']);
      assert.deepEqual(await gigs({ closerId: 'closer_0003', status: 'claimed' }), ['gig_0004']);
      assert.deepEqual(
        await r.getGig('gig_0002'),
        gigOf('gig_0002', 'deal_0003', 'seller_0001', {
          status: 'claimed',
          closerId: 'closer_0001',
        }),
      );
    });
  });

  it('tenancy: events keep their audience (Seller, closer, actor) and the feed filters by Seller and by closer', async () => {
    const start = await store().lastSeq();
    const actor = { principal: 'seller_0001', keyId: 'key_0001' };
    const published: PublicEventDraft[] = [
      { type: 'deal.stalled', at: T0, data: { dealId: 'deal_0001' }, sellerId: 'seller_0001', actor },
      {
        type: 'gig.claimed',
        at: T0 + 1,
        data: { gigId: 'gig_0002', dealId: 'deal_0003', closerId: 'closer_0001' },
        sellerId: 'seller_0001',
        closerId: 'closer_0001',
        actor: { principal: 'closer_0001', keyId: 'key_0002' },
      },
      { type: 'deal.stalled', at: T0 + 2, data: { dealId: 'deal_0002' }, sellerId: 'seller_0002' },
      { type: 'deal.stalled', at: T0 + 3, data: { dealId: 'deal_0004' } },
    ];
    await store().transaction((uow) => uow.publish(published, T0));
    const page = await store().events({ after: start, limit: 10 });
    assert.deepEqual(
      page.map((e) => e.event),
      published,
    );
    const ofSeller = await store().events({ after: start, limit: 10, sellerId: 'seller_0001' });
    assert.deepEqual(
      ofSeller.map((e) => e.event),
      published.slice(0, 2),
    );
    assert.deepEqual(
      (await store().events({ after: start, limit: 10, sellerId: 'seller_0001', type: 'gig.claimed' })).map(
        (e) => e.event,
      ),
      [published[1]],
    );
    assert.deepEqual(
      (await store().events({ after: ofSeller[0].seq, limit: 1, sellerId: 'seller_0001' })).map((e) => e.seq),
      [ofSeller[1].seq],
    );
    assert.deepEqual(await store().events({ after: start, limit: 10, sellerId: 'seller_0009' }), []);
    // And by closer: the events about it only.
    assert.deepEqual(
      (await store().events({ after: start, limit: 10, closerId: 'closer_0001' })).map((e) => e.event),
      [published[1]],
    );
    assert.deepEqual(await store().events({ after: start, limit: 10, closerId: 'closer_0002' }), []);
    assert.deepEqual(
      (await store().events({ after: start, limit: 10, sellerId: 'seller_0002', dealId: 'deal_0002' })).map(
        (e) => e.event,
      ),
      [published[2]],
    );
    // What the webhook dispatcher reads of the feed carries it too.
    const dispatched = await store().transaction((uow) => uow.webhooks.feedAfter(start, 10));
    assert.deepEqual(
      dispatched.map((e) => e.event),
      published,
    );
  });

  it('tenancy: an answer keeps the principal that stored it', async () => {
    const answer = (owner?: string): StoredAnswer => ({
      fingerprint: 'POST /pipeline/deals {}',
      ...(owner === undefined ? {} : { owner }),
      status: 201,
      body: '{}',
      storedAt: T0,
    });
    await store().transaction(async (uow) => {
      await uow.putAnswer('owned', answer('seller_0001'));
      await uow.putAnswer('platform', answer());
    });
    await store().transaction(async (uow) => {
      assert.deepEqual(await uow.getAnswer('owned'), answer('seller_0001'));
      assert.deepEqual(await uow.getAnswer('platform'), answer());
      await uow.putAnswer('owned', answer('closer_0001'));
      assert.deepEqual(await uow.getAnswer('owned'), answer('closer_0001'));
    });
  });
}
