// D-63 across instances: two keys-mode services over one PostgreSQL schema, each with its own
// key ring. A lockout earned through one is honoured by the other at once (the failures are rows
// in the store, not a count in one instance's memory); a sign-out and a disabling made through
// one are refused by the other within 5 s, however warm its ring was; a role changed through one
// is the role the person acts with on the other within 5 s. Mail goes to a real SMTP server on
// loopback, and each invitation is sent once though both instances run a mail worker.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, makeSeller, OP } from '../support/keys.ts';
import { type Mailbox, mailedTo, startMailbox } from '../support/mailbox.ts';
import { asPerson, invite, person, signedIn, signIn } from '../support/people.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long until `request` answers `status`, asking every 100 ms; fails after `limitMs`. */
async function answersWithin(
  request: () => Promise<{ status: number; text: string }>,
  status: number,
  limitMs: number,
) {
  const start = Date.now();
  for (;;) {
    const answer = await request();
    const elapsed = Date.now() - start;
    if (answer.status === status) return elapsed;
    assert.ok(elapsed <= limitMs, `still ${answer.status} after ${elapsed} ms: ${answer.text}`);
    await sleep(100);
  }
}

describe('people on two instances over one PostgreSQL database', { skip: server.skip }, () => {
  let schema: TestSchema;
  let mailbox: Mailbox;
  let a: TestServer;
  let b: TestServer;
  let seller: string;

  const start = async () =>
    startTestServer({
      config: { auth: 'keys', operatorKey: OP, smtpUrl: mailbox.url, mailRetryBaseMs: 50 },
      store: await createStore(schema.url, { poolSize: 4, ownerUrl: schema.ownerUrl }),
    });

  before(async () => {
    schema = await createTestSchema(server.url as string, 'people');
    mailbox = await startMailbox();
    a = await start();
    b = await start();
    seller = await makeSeller(a, 'Two-instance People Seller');
    await person(a, OP, mailbox, { email: 'admin@two.example', role: 'admin', principal: seller });
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await mailbox?.close();
    await schema?.drop();
  });

  it('ten failures through one instance lock the email on the other at once', async () => {
    await person(a, OP, mailbox, { email: 'locked@two.example', role: 'viewer', principal: seller });
    for (let i = 0; i < 10; i++) {
      const failed = await signIn(i % 2 === 0 ? a : b, 'locked@two.example', 'not the password at all');
      assert.equal(failed.status, 401);
    }
    for (const t of [a, b]) {
      const locked = await signIn(t, 'locked@two.example');
      assert.equal(locked.status, 429, locked.text);
      assert.ok(Number(locked.headers.get('retry-after')) > 0);
    }
  });

  it('a sign-out through one instance is refused by the other within 5 s', async () => {
    const cookie = await signedIn(a, 'admin@two.example');
    for (const t of [a, b, a, b]) assert.equal((await asPerson(t, cookie).get(`${t.prefix}/deals`)).status, 200);
    const out = await asPerson(a, cookie).post('/console/session/end', {});
    assert.equal(out.status, 204);
    const took = await answersWithin(() => asPerson(b, cookie).get(`${b.prefix}/deals`), 401, 5_000);
    assert.ok(took <= 5_000, `${took} ms`);
  });

  it('a disabling through one instance ends the sessions on the other within 5 s, and refuses sign-in', async () => {
    const dee = await person(a, OP, mailbox, { email: 'dee@two.example', role: 'rep', principal: seller });
    const onB = await signedIn(b, 'dee@two.example');
    for (const [t, cookie] of [
      [a, dee.cookie],
      [b, onB],
      [b, dee.cookie],
    ] as const) {
      assert.equal((await asPerson(t, cookie).get(`${t.prefix}/deals`)).status, 200);
    }
    assert.equal((await as(a, bearer(OP)).post(`/users/${dee.id}/disable`, {})).status, 200);
    for (const cookie of [dee.cookie, onB]) {
      const took = await answersWithin(() => asPerson(b, cookie).get(`${b.prefix}/deals`), 401, 5_000);
      assert.ok(took <= 5_000, `${took} ms`);
    }
    assert.equal((await signIn(b, 'dee@two.example')).status, 401);
  });

  it('a role changed through one instance is the role the person acts with on the other within 5 s', async () => {
    const ray = await person(a, OP, mailbox, { email: 'ray@two.example', role: 'rep', principal: seller });
    const deal = { account: { name: 'Role Change Fictional', actor: 'B2B' }, listValueUsd: 5_000 };
    assert.equal((await asPerson(b, ray.cookie).post(`${b.prefix}/deals`, deal)).status, 201);
    assert.equal((await as(a, bearer(OP)).post(`/users/${ray.id}/role`, { role: 'viewer' })).status, 200);
    const took = await answersWithin(() => asPerson(b, ray.cookie).post(`${b.prefix}/deals`, deal), 403, 5_000);
    assert.ok(took <= 5_000, `${took} ms`);
  });

  it('each invitation is mailed once, though both instances send mail', async () => {
    for (let i = 0; i < 6; i++) {
      await invite(i % 2 === 0 ? a : b, OP, { email: `once-${i}@two.example`, role: 'viewer', principal: seller });
    }
    for (let i = 0; i < 6; i++) await mailbox.waitFor(`once-${i}@two.example`);
    await sleep(1_000);
    for (let i = 0; i < 6; i++) {
      const sent = mailbox.received.filter((mail) => mailedTo(mail, `once-${i}@two.example`));
      assert.equal(sent.length, 1, `once-${i}`);
    }
  });
});
