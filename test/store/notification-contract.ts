// The notifications part of the store contract (D-72), run by describeStoreContract on every
// adapter: one notification per event and person however often it is added, numbered as added
// and read back unchanged, a person's inbox newest first (unread only, a page at a time), marked
// read once, settings, the gig digests that fall due and are sent, the notifier's cursor, and
// what a rollback keeps. A wipe keeps people, and so their notifications: each test names its
// people by numbers it takes (never restarted), as the people part does.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { NotificationDraft } from '../../src/domain/notifications.ts';
import type { Store } from '../../src/store/store.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');
const MINUTE = 60_000;
const pad = (n: number) => String(n).padStart(4, '0');
const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);

/** `count` people no earlier test named. */
async function freshPeople(store: Store, count: number): Promise<string[]> {
  return store.transaction(async (uow) => {
    const taken: string[] = [];
    for (let i = 0; i < count; i++) taken.push(`usr_${pad(await uow.people.takeUserNumber())}`);
    return taken;
  });
}

/** A notification as the notifier drafts it; an override of `undefined` leaves the field out. */
function draft(userId: string, seq: number, overrides: Partial<NotificationDraft> = {}): NotificationDraft {
  const made: Record<string, unknown> = {
    userId,
    principal: 'seller_0001',
    seq,
    type: 'approval.requested',
    title: `Approval requested: "quoted" words ${seq}`,
    dealId: 'deal_0001',
    approvalId: 'apr_0001',
    at: T0 + seq,
    mail: 'now',
    mailedAt: T0 + seq + 1,
    ...overrides,
  };
  for (const key of Object.keys(made)) if (made[key] === undefined) delete made[key];
  return made as unknown as NotificationDraft;
}

export function notificationContract(_name: string, store: () => Store) {
  it('notifications: one per event and person, numbered as added, read back unchanged', async () => {
    const [ada, bob] = await freshPeople(store(), 2);
    const gig = draft(bob, 7, {
      type: 'gig.posted',
      principal: 'closer_0001',
      approvalId: undefined,
      gigId: 'gig_0003',
      mail: 'digest',
      mailedAt: undefined,
    });
    const gigDraft = gig;
    const added = await store().transaction((uow) =>
      uow.notifications.addNotifications([
        draft(ada, 7),
        gigDraft,
        draft(ada, 8, { mail: 'none', mailedAt: undefined }),
      ]),
    );
    assert.equal(added.length, 3);
    for (const n of added) assert.match(n.id, /^ntf_\d{4,}$/);
    const numbers = added.map((n) => Number(n.id.slice(4)));
    assert.deepEqual(
      [...numbers].sort((a, b) => a - b),
      numbers,
      'numbered in the order given',
    );
    const [first, second, third] = added;
    assert.deepEqual(first, { id: first.id, ...draft(ada, 7) });
    assert.deepEqual(second, { id: second.id, ...gigDraft });
    assert.equal(third.mailedAt, undefined);
    // The same event for the same people again (another notifier, a retried round): nothing added.
    const again = await store().transaction((uow) =>
      uow.notifications.addNotifications([draft(ada, 7), gigDraft, draft(bob, 8)]),
    );
    assert.deepEqual(
      again.map((n) => [n.userId, n.seq]),
      [[bob, 8]],
      'only the new person of event 8',
    );
    await store().read(async (r) => {
      assert.deepEqual(await r.notifications.getNotification(first.id), first);
      assert.equal(await r.notifications.getNotification('ntf_999999'), undefined);
    });
  });

  it("notifications: a person's inbox newest first, unread only, a page at a time; read once", async () => {
    const [ada, other] = await freshPeople(store(), 2);
    const added = await store().transaction((uow) =>
      uow.notifications.addNotifications([1, 2, 3, 4].map((seq) => draft(ada, seq)).concat(draft(other, 1))),
    );
    const mine = added.filter((n) => n.userId === ada);
    const newestFirst = ids(mine).reverse();
    await store().read(async (r) => {
      assert.deepEqual(ids(await r.notifications.listNotifications({ userId: ada, limit: 10 })), newestFirst);
      assert.deepEqual(
        ids(await r.notifications.listNotifications({ userId: ada, limit: 2 })),
        newestFirst.slice(0, 2),
      );
      const after = newestFirst[1];
      assert.deepEqual(
        ids(await r.notifications.listNotifications({ userId: ada, beforeId: after, limit: 10 })),
        newestFirst.slice(2),
      );
      assert.equal(await r.notifications.unreadCount(ada), 4);
    });
    const read = await store().transaction((uow) => uow.notifications.markRead(mine[1].id, T0 + 100));
    assert.equal(read?.readAt, T0 + 100);
    const again = await store().transaction((uow) => uow.notifications.markRead(mine[1].id, T0 + 200));
    assert.equal(again?.readAt, T0 + 100, 'the first time it was read stays');
    await store().read(async (r) => {
      assert.equal(await r.notifications.unreadCount(ada), 3);
      const unread = await r.notifications.listNotifications({ userId: ada, unread: true, limit: 10 });
      assert.deepEqual(
        ids(unread),
        newestFirst.filter((id) => id !== mine[1].id),
      );
      assert.equal(await r.notifications.unreadCount(other), 1, "another person's are theirs");
    });
    assert.equal(await store().transaction((uow) => uow.notifications.markRead('ntf_999999', T0)), undefined);
  });

  it('notifications: settings are absent until put, then replaced whole', async () => {
    const [ada] = await freshPeople(store(), 1);
    assert.equal(await store().read((r) => r.notifications.notificationSettings(ada)), undefined);
    const off = { email: { approvals: true, outcomes: false, gigs: false } };
    await store().transaction((uow) => uow.notifications.putNotificationSettings(ada, 'seller_0001', off));
    assert.deepEqual(await store().read((r) => r.notifications.notificationSettings(ada)), off);
    const on = { email: { approvals: false, outcomes: true, gigs: true } };
    await store().transaction((uow) => uow.notifications.putNotificationSettings(ada, 'seller_0001', on));
    assert.deepEqual(await store().read((r) => r.notifications.notificationSettings(ada)), on);
  });

  it('notifications: a digest falls due for unmailed gigs, and waits 15 minutes after the last', async () => {
    const [ada, bob] = await freshPeople(store(), 2);
    const gig = (userId: string, seq: number) =>
      draft(userId, seq, { type: 'gig.posted', principal: 'closer_0001', mail: 'digest', mailedAt: undefined });
    await store().transaction((uow) =>
      uow.notifications.addNotifications([gig(ada, 1), gig(ada, 2), gig(bob, 1), draft(bob, 2)]),
    );
    const now = T0 + 60 * MINUTE;
    const due = await store().transaction((uow) => uow.notifications.digestsDue(now - 15 * MINUTE, 1_000));
    const ours = due.filter((d) => d.userId === ada || d.userId === bob);
    assert.deepEqual(
      ours.map((d) => [d.userId, d.principal, d.notifications.map((n) => n.seq)]),
      [
        [ada, 'closer_0001', [1, 2]],
        [bob, 'closer_0001', [1]],
      ],
      "each person's unmailed gigs, oldest first; mail sent at once is no digest's",
    );
    const adas = ours[0].notifications;
    await store().transaction((uow) => uow.notifications.digestSent(ada, 'closer_0001', ids(adas), now));
    await store().transaction((uow) => uow.notifications.addNotifications([gig(ada, 3)]));
    const soon = await store().transaction((uow) =>
      uow.notifications.digestsDue(now + 5 * MINUTE - 15 * MINUTE, 1_000),
    );
    assert.equal(
      soon.some((d) => d.userId === ada),
      false,
      'a digest went 5 minutes ago: the next waits',
    );
    const later = await store().transaction((uow) =>
      uow.notifications.digestsDue(now + 15 * MINUTE - 15 * MINUTE, 1_000),
    );
    assert.deepEqual(
      later.find((d) => d.userId === ada)?.notifications.map((n) => n.seq),
      [3],
      'only what the last digest did not mail',
    );
    const mailed = await store().read((r) => r.notifications.getNotification(adas[0].id));
    assert.equal(mailed?.mailedAt, now);
  });

  it("notifications: the notifier's cursor is kept, and a rollback keeps nothing", async () => {
    const [ada] = await freshPeople(store(), 1);
    const before = await store().transaction((uow) => uow.notifications.lockNotifierCursor());
    assert.equal(typeof before, 'number');
    await store().transaction(async (uow) => {
      await uow.notifications.lockNotifierCursor();
      await uow.notifications.setNotifierCursor((before as number) + 5);
    });
    assert.equal(await store().transaction((uow) => uow.notifications.lockNotifierCursor()), (before as number) + 5);
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.notifications.setNotifierCursor((before as number) + 50);
        await uow.notifications.addNotifications([draft(ada, 1)]);
        await uow.notifications.putNotificationSettings(ada, 'seller_0001', {
          email: { approvals: false, outcomes: false, gigs: false },
        });
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    await store().read(async (r) => {
      assert.deepEqual(await r.notifications.listNotifications({ userId: ada, limit: 10 }), []);
      assert.equal(await r.notifications.notificationSettings(ada), undefined);
    });
    assert.equal(await store().transaction((uow) => uow.notifications.lockNotifierCursor()), (before as number) + 5);
  });
}
