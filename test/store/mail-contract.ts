// The mail outbox part of the store contract (D-64), run by describeStoreContract on every
// adapter: messages stored whole, claimed when due (earliest first, a lease at a time), marked
// sent or failed only under the attempt that claimed them, kept by a wipe. The outbox outlives
// wipes, so on a durable store every test first gives up on what earlier tests left due.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { MailMessage } from '../../src/store/mail.ts';
import type { Store } from '../../src/store/store.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');
/** Later than any time a test uses. */
const FAR = T0 + 1_000 * 86_400_000;

let made = 0;
const run = Math.random().toString(36).slice(2, 8);

export const sampleMail = (overrides: Partial<MailMessage> = {}): MailMessage => {
  made++;
  return {
    id: `mail_${run}${made}`,
    principal: 'seller_0001',
    to: `Person.${made}@Example.test`,
    subject: `You are invited "quoted" \u0000 ${made}`,
    text: 'Accept the invitation: {{link}}\nIt lasts 72 hours.',
    linkBase: 'https://console.example.test/accept#',
    nonce: `bm9uY2U${made}`,
    createdAt: T0 + made,
    attempts: 0,
    nextAttemptAt: T0,
    ...overrides,
  };
};

/** Gives up on every message still due, so that a test claims its own only. */
export async function drainMail(store: Store): Promise<void> {
  await store.transaction(async (uow) => {
    for (;;) {
      const claimed = await uow.mail.claimMail(FAR, FAR, 100);
      if (claimed.length === 0) return;
      for (const message of claimed) await uow.mail.mailFailed(message.id, message.attempts, 'drained', FAR, undefined);
    }
  });
}

const ids = (messages: readonly MailMessage[]) => messages.map((m) => m.id);

export function mailContract(_name: string, store: () => Store) {
  const put = (...messages: MailMessage[]) =>
    store().transaction(async (uow) => {
      for (const message of messages) await uow.mail.putMail(message);
    });
  const claim = (now: number, leaseUntil: number, limit: number) =>
    store().transaction((uow) => uow.mail.claimMail(now, leaseUntil, limit));
  const get = (id: string) => store().read((r) => r.mail.getMail(id));
  const nextDue = () => store().read((r) => r.mail.nextMailDue());

  it('mail: stores messages and reads them back unchanged; nextMailDue is the earliest neither sent nor given up', async () => {
    await drainMail(store());
    assert.equal(await nextDue(), undefined);
    const later = sampleMail({ nextAttemptAt: T0 + 20 });
    const earlier = sampleMail({ nextAttemptAt: T0 + 10, principal: 'platform' });
    const sent = sampleMail({ nextAttemptAt: T0 + 1, attempts: 1, sentAt: T0 + 2 });
    const failed = sampleMail({ nextAttemptAt: T0 + 1, attempts: 5, failedAt: T0 + 3, lastError: '550 no such user' });
    await store().transaction(async (uow) => {
      for (const message of [later, earlier, sent, failed]) await uow.mail.putMail(message);
      assert.deepEqual(await uow.mail.getMail(later.id), later, 'a unit reads its own writes');
    });
    for (const message of [later, earlier, sent, failed]) assert.deepEqual(await get(message.id), message);
    assert.equal(await get('mail_nosuchmessage'), undefined);
    assert.equal(await nextDue(), T0 + 10);
  });

  it('mail: claims due messages only, earliest first, up to the limit: each an attempt, and not due again before its lease ends', async () => {
    await drainMail(store());
    const [a, b, c] = [30, 10, 20].map((due) => sampleMail({ nextAttemptAt: T0 + due }));
    const future = sampleMail({ nextAttemptAt: T0 + 1_000 });
    const sent = sampleMail({ attempts: 1, sentAt: T0 });
    const failed = sampleMail({ attempts: 3, failedAt: T0 });
    await put(a, b, c, future, sent, failed);
    const first = await claim(T0 + 100, T0 + 500, 2);
    assert.deepEqual(first, [
      { ...b, attempts: 1, nextAttemptAt: T0 + 500 },
      { ...c, attempts: 1, nextAttemptAt: T0 + 500 },
    ]);
    assert.deepEqual(await get(b.id), first[0], 'the claim is stored');
    assert.deepEqual(ids(await claim(T0 + 100, T0 + 500, 10)), [a.id]);
    assert.deepEqual(await claim(T0 + 499, T0 + 900, 10), [], 'leased');
    assert.equal(await nextDue(), T0 + 500);
    // Once the lease ended: claimed again, by their due time then their creation.
    const again = await claim(T0 + 500, T0 + 5_000, 10);
    assert.deepEqual(ids(again), [a.id, b.id, c.id]);
    assert.deepEqual(
      again.map((m) => [m.attempts, m.nextAttemptAt]),
      [
        [2, T0 + 5_000],
        [2, T0 + 5_000],
        [2, T0 + 5_000],
      ],
    );
    assert.deepEqual(ids(await claim(T0 + 1_000, T0 + 2_000, 10)), [future.id]);
    assert.deepEqual(await get(sent.id), sent, 'a sent message is never claimed');
    assert.deepEqual(await get(failed.id), failed, 'nor one given up');
  });

  it('mail: a message is marked sent or failed only under the attempt that claimed it, and never once sent', async () => {
    await drainMail(store());
    const message = sampleMail();
    await put(message);
    await claim(T0, T0 + 100, 10);
    const [second] = await claim(T0 + 100, T0 + 200, 10);
    assert.equal(second.attempts, 2);
    // The first sender, whose lease ended, comes back late: its word counts for nothing.
    await store().transaction(async (uow) => {
      await uow.mail.mailSent(message.id, 1, T0 + 150);
      await uow.mail.mailFailed(message.id, 1, 'late', T0 + 150, undefined);
    });
    assert.deepEqual(await get(message.id), second);
    await store().transaction((uow) => uow.mail.mailSent(message.id, 2, T0 + 160));
    const sent = { ...second, sentAt: T0 + 160 };
    assert.deepEqual(await get(message.id), sent);
    await store().transaction(async (uow) => {
      await uow.mail.mailFailed(message.id, 2, 'after sent', T0 + 170, T0 + 300);
      await uow.mail.mailSent(message.id, 2, T0 + 180);
      await uow.mail.mailSent('mail_nosuchmessage', 1, T0);
    });
    assert.deepEqual(await get(message.id), sent);
    assert.deepEqual(await claim(FAR, FAR, 10), []);
    assert.equal(await nextDue(), undefined);
  });

  it('mail: a failure is retried at its time; one with no retry is given up, kept, and never claimed again', async () => {
    await drainMail(store());
    const message = sampleMail();
    await put(message);
    const [claimed] = await claim(T0, T0 + 100, 10);
    await store().transaction((uow) => uow.mail.mailFailed(message.id, 1, '421 try later', T0 + 10, T0 + 60));
    const retrying = { ...claimed, nextAttemptAt: T0 + 60, lastError: '421 try later' };
    assert.deepEqual(await get(message.id), retrying);
    assert.equal(await nextDue(), T0 + 60);
    assert.deepEqual(await claim(T0 + 59, T0 + 100, 10), []);
    const [retried] = await claim(T0 + 60, T0 + 160, 10);
    assert.deepEqual(retried, { ...retrying, attempts: 2, nextAttemptAt: T0 + 160 });
    await store().transaction((uow) => uow.mail.mailFailed(message.id, 2, '550 refused', T0 + 70, undefined));
    assert.deepEqual(await get(message.id), { ...retried, lastError: '550 refused', failedAt: T0 + 70 });
    assert.deepEqual(await claim(FAR, FAR, 10), []);
    assert.equal(await nextDue(), undefined);
  });

  it('mail: a claim rolled back leaves the message as it was, due', async () => {
    await drainMail(store());
    const message = sampleMail();
    await put(message);
    await assert.rejects(
      store().transaction(async (uow) => {
        assert.equal((await uow.mail.claimMail(T0, T0 + 100, 10)).length, 1);
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.deepEqual(await get(message.id), message);
    assert.deepEqual(ids(await claim(T0, T0 + 100, 10)), [message.id]);
  });

  it('mail: a wipe keeps the outbox: what was promised is still sent', async () => {
    await drainMail(store());
    const message = sampleMail();
    await put(message);
    await store().transaction((uow) => uow.wipe());
    assert.deepEqual(await get(message.id), message);
    assert.equal(await nextDue(), message.nextAttemptAt);
  });
}
