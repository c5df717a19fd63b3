// D-64: of several instances claiming mail at once, one takes each message. A claim locks the
// rows it takes and skips those another transaction holds (FOR UPDATE SKIP LOCKED): a second
// claim made while the first is still open neither waits for it nor takes its messages, and
// instances racing to empty the outbox claim every message exactly once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import type { MailMessage } from '../../src/store/mail.ts';
import type { Store } from '../../src/store/store.ts';
import { sampleMail } from '../store/mail-contract.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');
const NOW = T0 + 60_000;
const LEASE = NOW + 300_000;

const server = await postgresForTests();

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('mail claims across instances (D-64)', { skip: server.skip }, () => {
  let schema: TestSchema;
  const stores: Store[] = [];
  before(async () => {
    schema = await createTestSchema(server.url as string, 'mailclaims');
    for (let i = 0; i < 3; i++) stores.push(await createStore(schema.url, { poolSize: 2, ownerUrl: schema.ownerUrl }));
  });
  after(async () => {
    for (const store of stores) await store.close();
    await schema?.drop();
  });

  const putDue = async (count: number) => {
    const messages = Array.from({ length: count }, () => sampleMail({ nextAttemptAt: T0 }));
    await stores[0].transaction(async (uow) => {
      for (const message of messages) await uow.mail.putMail(message);
    });
    return messages;
  };

  it('a claim made while another is open takes none of its messages, and does not wait for it', async () => {
    const messages = await putDue(10);
    const firstHolds = deferred();
    const secondDone = deferred();
    let firstOpen = true;
    const first = stores[0].transaction(async (uow) => {
      const claimed = await uow.mail.claimMail(NOW, LEASE, 4);
      firstHolds.resolve();
      await secondDone.promise;
      firstOpen = false;
      return claimed;
    });
    await firstHolds.promise;
    // Should the second claim wait for the first's locks, the first is let go after 5 s, and the
    // second then answers too late.
    const letGo = setTimeout(secondDone.resolve, 5_000);
    const second = await stores[1]
      .transaction(async (uow) => {
        const claimed = await uow.mail.claimMail(NOW, LEASE, 10);
        assert.ok(firstOpen, 'answered while the first claim was still open');
        return claimed;
      })
      .finally(() => {
        clearTimeout(letGo);
        secondDone.resolve();
      });
    const firstClaimed = await first;
    const ids = (claimed: MailMessage[]) => claimed.map((m) => m.id);
    assert.equal(firstClaimed.length, 4);
    assert.equal(second.length, 6);
    assert.deepEqual(ids([...firstClaimed, ...second]).sort(), ids(messages).sort(), 'each message once');
    assert.ok([...firstClaimed, ...second].every((m) => m.attempts === 1 && m.nextAttemptAt === LEASE));
  });

  it('instances racing to empty the outbox claim every message exactly once', async () => {
    await stores[0].transaction((uow) => uow.mail.claimMail(LEASE, LEASE * 2, 1_000)); // the first test's
    const messages = await putDue(60);
    const claimedBy: string[][] = [];
    const drain = async (store: Store) => {
      const mine: string[] = [];
      claimedBy.push(mine);
      for (;;) {
        const claimed = await store.transaction((uow) => uow.mail.claimMail(NOW, LEASE, 5));
        if (claimed.length === 0) return;
        mine.push(...claimed.map((m) => m.id));
      }
    };
    // Two senders on each instance, six claims open at once.
    await Promise.all(stores.flatMap((store) => [drain(store), drain(store)]));
    const all = claimedBy.flat();
    assert.equal(all.length, messages.length, 'no message claimed twice');
    assert.deepEqual([...all].sort(), messages.map((m) => m.id).sort());
    assert.ok(claimedBy.filter((mine) => mine.length > 0).length > 1, 'the senders shared the work');
    const stored = await stores[2].read((r) => Promise.all(messages.map((m) => r.mail.getMail(m.id))));
    assert.ok(stored.every((m) => m?.attempts === 1));
  });
});
