// D-72 across instances: two keys-mode services over one PostgreSQL schema, each running its own
// notifier and mail worker. Held proposals and gig postings made through both at once notify each
// person once per event (the notifier's cursor row is its lock, and a notification is unique per
// event and person), the approvals' mail is sent once per request and person, and a digest falling
// due while both notifiers are woken together is sent once. Both share a machine clock the test
// moves on, so that the 15 minutes between digests pass when it says.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, dealBody, enrolCloser, HUMAN_CLOSER, type KeyedAnswer, makeSeller, OP } from '../support/keys.ts';
import { type Mailbox, mailedTo, startMailbox } from '../support/mailbox.ts';
import { person } from '../support/people.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MINUTE = 60_000;
/** PUBLIC_URL: the origin of every mailed link, whichever instance wrote the mail (D-277). */
const PUBLIC = 'https://pipeline.example';

type Person = Awaited<ReturnType<typeof person>>;
interface Note {
  id: string;
  type: string;
  title: string;
  approvalId?: string;
  gigId?: string;
}

describe('notifications on two instances over one PostgreSQL database (D-72)', { skip: server.skip }, () => {
  let schema: TestSchema;
  let mailbox: Mailbox;
  let a: TestServer;
  let b: TestServer;
  let skew = 0;
  let sellerKey: string;
  let agentKey: string;
  let admin: Person;
  let managers: Person[];
  let closer: Person;

  const start = async () =>
    startTestServer({
      clock: { now: () => Date.now() + skew },
      config: {
        auth: 'keys',
        operatorKey: OP,
        webhookAllowPrivate: true,
        smtpUrl: mailbox.url,
        mailRetryBaseMs: 50,
        publicUrl: PUBLIC,
      },
      store: await createStore(schema.url, { poolSize: 4, ownerUrl: schema.ownerUrl }),
    });

  before(async () => {
    schema = await createTestSchema(server.url as string, 'notify');
    mailbox = await startMailbox();
    a = await start();
    b = await start();
    const seller = await makeSeller(a, 'Two-instance Notified Seller');
    sellerKey = (await as(a, bearer(OP)).post('/keys', { name: 'seller', principal: seller })).body.key;
    admin = await person(a, OP, mailbox, { email: 'admin@notify-two.example', role: 'admin', principal: seller });
    managers = [
      await person(b, OP, mailbox, { email: 'm1@notify-two.example', role: 'manager', principal: seller }),
      await person(a, OP, mailbox, { email: 'm2@notify-two.example', role: 'manager', principal: seller }),
    ];
    const closerId = await enrolCloser(a, 'Two-instance Closer', ['saas']);
    closer = await person(b, OP, mailbox, { email: 'closer@notify-two.example', role: 'closer', principal: closerId });
    const made = await admin.client.post('/keys', {
      name: 'held agent',
      scopes: ['deals:read', 'deals:propose'],
      policy: { allowedMoves: [] },
    });
    assert.equal(made.status, 201, made.text);
    agentKey = made.body.key;
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await mailbox?.close();
    await schema?.drop();
  });

  /** A person's whole inbox (through either instance: the store is one). */
  const inbox = async (who: Person, t: TestServer = a): Promise<Note[]> => {
    const all: Note[] = [];
    let next: string | undefined = '/users/me/notifications?limit=100';
    while (next !== undefined) {
      const page: KeyedAnswer = await as(t, { cookie: who.cookie }).get(next);
      assert.equal(page.status, 200, page.text);
      all.push(...page.body);
      next = /<[^>]*?(\/users[^>]*)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    }
    return all;
  };
  const mailsTo = (who: Person) =>
    mailbox.received.filter((mail) => mailedTo(mail, who.email) && /See it in the console/.test(mail.text));
  const eventually = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      assert.ok(Date.now() < deadline, `not within ${timeoutMs} ms: ${what}`);
      await sleep(50);
    }
  };
  /**
   * Both notifiers' rounds done, the outbox sent, and a little more: a notifier that found the
   * cursor held tries again a second later, so a duplicate would show by then.
   */
  const settle = async () => {
    for (const t of [a, b]) await t.server.notifier?.settled;
    await eventually('the outbox sent', async () => {
      const due = await a.server.store.read((reader) => reader.mail.nextMailDue(), {
        principal: 'platform',
        oneStatement: true,
      });
      return due === undefined;
    });
    await sleep(1_500);
    for (const t of [a, b]) await t.server.notifier?.settled;
  };

  it('held proposals made through both instances: one notification and one mail per request and decider', async () => {
    const count = 8;
    const ids = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const t = i % 2 === 0 ? a : b;
        const deal = await as(t, bearer(sellerKey)).post(`${t.prefix}/deals`, dealBody(`Held ${i}`));
        assert.equal(deal.status, 201, deal.text);
        const held = await as(t, bearer(agentKey)).post(`${t.prefix}/deals/${deal.body.id}/advance`, {});
        assert.equal(held.status, 202, held.text);
        return held.body.approval.id as string;
      }),
    );
    for (const manager of managers) {
      await eventually(`${manager.email} told of ${count}`, async () => (await inbox(manager)).length >= count);
    }
    await settle();
    for (const [i, manager] of managers.entries()) {
      const notes = await inbox(manager, i === 0 ? a : b);
      assert.equal(notes.length, count, `${manager.email}: exactly one per request`);
      assert.ok(notes.every((n) => n.type === 'approval.requested'));
      assert.deepEqual(notes.map((n) => n.approvalId).sort(), [...ids].sort());
      const mails = mailsTo(manager);
      assert.equal(mails.length, count, `${manager.email}: exactly one mail per request`);
      for (const mail of mails) assert.deepEqual(mail.text.match(/https?:\/\/\S+/g), [`${PUBLIC}/console/#/approvals`]);
    }
    assert.deepEqual(await inbox(admin), [], "the key's maker is not asked");
    assert.equal(mailsTo(admin).length, 0);

    // Decided through both instances: the maker is told of each outcome once.
    const decided = await Promise.all(
      ids.slice(0, 4).map(async (id, i) => {
        const t = i % 2 === 0 ? a : b;
        const decider = as(t, { cookie: managers[i % 2].cookie });
        const answer =
          i < 2
            ? await decider.post(`/approvals/${id}/approve`, {})
            : await decider.post(`/approvals/${id}/deny`, { reason: 'no' });
        assert.equal(answer.status, 200, answer.text);
        return [i < 2 ? 'approval.approved' : 'approval.denied', id];
      }),
    );
    await eventually('the maker told of 4', async () => (await inbox(admin)).length >= 4);
    await settle();
    const outcomes = await inbox(admin, b);
    assert.deepEqual(outcomes.map((n) => [n.type, n.approvalId]).sort(), decided.sort());
    assert.equal(mailsTo(admin).length, 4, 'one mail per outcome');
  });

  it('gigs posted through both instances: one notification each, and each digest sent once', async () => {
    const post = async (t: TestServer, name: string) => {
      const sold = await as(t, bearer(sellerKey)).post(`${t.prefix}/sell`, dealBody(name, HUMAN_CLOSER));
      assert.equal(sold.status, 201, sold.text);
      assert.equal(sold.body.escalated, true);
      return sold.body.gig.id as string;
    };
    // The first gig's digest goes at once; those after it wait for the next.
    const first = await post(a, 'Gig First (fictional)');
    await mailbox.waitFor(closer.email, /Gig First/, 0, 15_000);
    const count = 6;
    const later = await Promise.all(
      Array.from({ length: count }, (_, i) => post(i % 2 === 0 ? a : b, `Gig Later ${i} (fictional)`)),
    );
    await eventually('the closer told of every gig', async () => (await inbox(closer)).length >= count + 1);
    await settle();
    const notes = await inbox(closer);
    assert.equal(notes.length, count + 1, 'exactly one per gig');
    assert.deepEqual(notes.map((n) => n.gigId).sort(), [first, ...later].sort());
    assert.equal(mailsTo(closer).length, 1, 'one digest so far');

    // The 15 minutes pass; both notifiers are woken at once: one digest holds every later gig.
    skew += 15 * MINUTE + 1_000;
    a.server.notifier?.wake();
    b.server.notifier?.wake();
    await mailbox.waitFor(closer.email, /See it in the console/, 1, 15_000);
    await settle();
    const digests = mailsTo(closer);
    assert.equal(digests.length, 2, 'the second digest is sent once');
    assert.equal(digests[1].headers.get('subject'), `${count} new gigs for you`);
    for (let i = 0; i < count; i++) {
      const listed = digests.filter((mail) => mail.text.includes(`Gig Later ${i} (fictional)`));
      assert.equal(listed.length, 1, `Gig Later ${i} is in one digest`);
      assert.equal(listed[0], digests[1]);
    }
    assert.doesNotMatch(digests[1].text, /Gig First/);
    // Nothing more falls due: a digest is sent only when gigs wait.
    skew += 15 * MINUTE + 1_000;
    a.server.notifier?.wake();
    b.server.notifier?.wake();
    await settle();
    assert.equal(mailsTo(closer).length, 2);
  });
});
