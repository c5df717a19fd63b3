// D-72 and D-277 over real HTTP, with a real SMTP server on loopback: who is told of a held
// proposal (the Seller's deciders but not the key's maker; no rep, viewer or closer), its mail at
// once with a link to the console's approvals page and no token, the inbox's unread count, reads
// and pages; the key's maker told of the outcome; the mail settings; a key and another person's
// notification refused as D-277 says; and gigs told to the closers of the deal's industry, mailed
// as one digest at most every 15 minutes of the machine clock, which this test moves on. Last, a
// demo reset keeps the inbox, and the notifier goes on after it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, type Client, enrolCloser, escalatedDeal, heldApproval, makeSeller, OP } from '../support/keys.ts';
import { type Mailbox, mailedTo, startMailbox } from '../support/mailbox.ts';
import { accept, asPerson, invite, person, signedIn } from '../support/people.ts';

const MINUTE = 60_000;
/** What the held agent's proposals are, in a title's words. */
const PROPOSED = 'held agent proposed the next stage';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Person = Awaited<ReturnType<typeof person>>;
type Note = Record<'id' | 'type' | 'title' | 'at', string> & { read: boolean; readAt?: string } & Partial<
    Record<'dealId' | 'approvalId' | 'gigId', string>
  >;

describe('notifications: who is told, the inbox, mail and digests (D-72, D-277)', () => {
  let t: TestServer;
  let mailbox: Mailbox;
  /** The machine clock is the test's: the digests' 15 minutes pass when it says. */
  let skew = 0;
  let sellerKey: string;
  /** Made by `admin`, through the console: its policy holds every move (D-69). */
  let agentKey: string;
  let admin: Person;
  let manager: Person;
  let rep: Person;
  let viewer: Person;
  let saasCloser: Person;
  let fintechCloser: Person;
  /** Managers who cannot act when the first request is made: invited only, and disabled. */
  let pendingEmail: string;
  let disabled: Person;

  before(async () => {
    mailbox = await startMailbox();
    t = await startTestServer({
      clock: { now: () => Date.now() + skew },
      config: {
        auth: 'keys',
        operatorKey: OP,
        webhookAllowPrivate: true,
        smtpUrl: mailbox.url,
        mailRetryBaseMs: 50,
        demoControls: true,
      },
    });
    const seller = await makeSeller(t, 'Notified Seller (fictional)');
    sellerKey = (await as(t, bearer(OP)).post('/keys', { name: 'seller', principal: seller })).body.key;
    const of = (role: string, principal: string) =>
      person(t, OP, mailbox, { email: `${role}-${principal}@notify.example`, role, principal });
    admin = await of('admin', seller);
    manager = await of('manager', seller);
    rep = await of('rep', seller);
    viewer = await of('viewer', seller);
    saasCloser = await of('closer', await enrolCloser(t, 'SaaS Closer (fictional)', ['SaaS']));
    fintechCloser = await of('closer', await enrolCloser(t, 'Fintech Closer (fictional)', ['fintech']));
    pendingEmail = (await invite(t, OP, { email: 'pending@notify.example', role: 'manager', principal: seller })).email;
    disabled = await person(t, OP, mailbox, { email: 'off@notify.example', role: 'manager', principal: seller });
    assert.equal((await as(t, bearer(OP)).post(`/users/${disabled.id}/disable`, {})).status, 200);
    const made = await admin.client.post('/keys', {
      name: 'held agent',
      scopes: ['deals:read', 'deals:propose'],
      policy: { allowedMoves: [] },
    });
    assert.equal(made.status, 201, made.text);
    agentKey = made.body.key;
  });
  after(async () => {
    await t?.close();
    await mailbox?.close();
  });

  const inbox = async (who: Person, query = ''): Promise<Note[]> => {
    const answer = await who.client.get(`/users/me/notifications${query}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  };
  /** The notification mails to a person (their invitation's excluded). */
  const mailsTo = (who: Person) =>
    mailbox.received.filter((mail) => mailedTo(mail, who.email) && /See it in the console/.test(mail.text));
  /** Polls until `check` holds (the notifier runs after the commit, the mail after the notifier). */
  const eventually = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 5_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      assert.ok(Date.now() < deadline, `not within ${timeoutMs} ms: ${what}`);
      await sleep(25);
    }
  };
  const inboxHas = (who: Person, count: number) =>
    eventually(`${who.email} has ${count} notifications`, async () => (await inbox(who, '?limit=100')).length >= count);
  /** The notifier's rounds done and the outbox sent: counts are final. */
  const settle = async () => {
    const notifier = t.server.notifier;
    assert.ok(notifier, 'keys mode runs a notifier');
    for (let i = 0; i < 3; i++) {
      await notifier.settled;
      const platform = { principal: 'platform', oneStatement: true };
      const due = () => t.server.store.read((reader) => reader.mail.nextMailDue(), platform);
      await eventually('the outbox sent', async () => (await due()) === undefined);
      await sleep(30);
    }
  };
  const held = () => heldApproval(t, sellerKey, agentKey);
  const code = (answer: Answer) => (answer.body as { code?: string }).code;
  const approvalsOf = (notes: Note[]) => notes.map((n) => n.approvalId);

  it("a held proposal notifies the deciders but not the key's maker, the rep, the viewer or a closer", async () => {
    const approvalId = await held();
    await inboxHas(manager, 1);
    await settle();
    const [note, ...more] = await inbox(manager);
    assert.deepEqual(more, []);
    assert.deepEqual(
      [note.type, note.approvalId, note.read, note.readAt],
      ['approval.requested', approvalId, false, undefined],
    );
    // In words: what was proposed, by the key's name (the approval keeps it).
    assert.equal(note.title, `Approval requested: ${PROPOSED}`);
    assert.equal((await manager.client.get(`/approvals/${approvalId}`)).body.dealId, note.dealId);
    for (const who of [admin, rep, viewer, saasCloser, fintechCloser]) {
      assert.deepEqual(await inbox(who), [], `${who.email} is not told`);
    }
    // One mail at once, its subject the title, its link the approvals page with no token in it.
    await mailbox.waitFor(manager.email, /See it in the console/);
    const [mail, ...again] = mailsTo(manager);
    assert.equal(again.length, 0, 'one mail');
    assert.equal(mail.headers.get('subject'), note.title);
    assert.ok(mail.text.includes(note.title), mail.text);
    assert.deepEqual(mail.text.match(/https?:\/\/\S+/g), [`${t.url}/console/#/approvals`]);
    for (const who of [admin, rep, viewer, saasCloser, fintechCloser]) assert.equal(mailsTo(who).length, 0);
    // Only people who can act are told: once they can, nothing of before is in their inbox.
    assert.equal((await as(t, bearer(OP)).post(`/users/${disabled.id}/enable`, {})).status, 200);
    const late = [asPerson(t, await accept(t, mailbox, pendingEmail)), asPerson(t, await signedIn(t, disabled.email))];
    for (const client of late) assert.deepEqual((await client.get('/users/me/notifications')).body, []);
    const toLate = mailbox.received.filter((m) => /See it in the console/.test(m.text) && !mailedTo(m, manager.email));
    assert.deepEqual(toLate, [], 'and no mail');
  });

  it('the summary counts the unread; a read is marked once; ?unread=true then has none', async () => {
    const summary = await manager.client.get('/users/me/notifications/summary');
    assert.equal(summary.status, 200, summary.text);
    assert.deepEqual(summary.body, { unread: 1 });
    const [note] = await inbox(manager);
    const read = await manager.client.post(`/users/me/notifications/${note.id}/read`, {});
    assert.equal(read.status, 200, read.text);
    assert.ok(read.body.read && read.body.readAt, 'read, and when');
    await sleep(5);
    const again = await manager.client.post(`/users/me/notifications/${note.id}/read`, {});
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, read.body, 'a second read changes nothing');
    assert.deepEqual((await inbox(manager))[0], read.body);
    assert.deepEqual((await manager.client.get('/users/me/notifications/summary')).body, { unread: 0 });
    assert.deepEqual(await inbox(manager, '?unread=true'), []);
  });

  it('the inbox pages newest first with limit and the cursor of the Link header', async () => {
    const made = [await held(), await held(), await held()];
    await inboxHas(manager, 4);
    await settle();
    const seen: Note[] = [];
    let next: string | undefined = '/users/me/notifications?limit=2';
    for (let pages = 0; next !== undefined; pages++) {
      assert.ok(pages < 3, 'two pages, then no next');
      const page: Answer = await manager.client.get(next);
      assert.equal(page.status, 200);
      assert.ok(page.body.length <= 2);
      seen.push(...page.body);
      next = /<[^>]*?(\/users[^>]*)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    }
    assert.equal(seen.length, 4);
    const newest = [...made].reverse();
    assert.deepEqual(approvalsOf(seen.slice(0, 3)), newest);
    assert.equal(seen[3].read, true, 'the oldest is the one read before');
    const unread = await inbox(manager, '?unread=true&limit=10');
    assert.deepEqual(approvalsOf(unread), newest);
    assert.deepEqual((await manager.client.get('/users/me/notifications/summary')).body, { unread: 3 });
    assert.equal(mailsTo(manager).length, 4, 'one mail per request');
  });

  it("an approval's outcome notifies the key's maker, approved and denied, with mail to the deal", async () => {
    const approved = await held();
    const denied = await held();
    const stale = await held();
    await inboxHas(manager, 7);
    assert.equal((await manager.client.post(`/approvals/${approved}/approve`, {})).status, 200);
    const deny = await manager.client.post(`/approvals/${denied}/deny`, { reason: 'not this quarter' });
    assert.equal(deny.status, 200, deny.text);
    // D-70, D-275: the deal moved under a pending approval; deciding it supersedes it.
    const staleDeal = (await manager.client.get(`/approvals/${stale}`)).body.dealId;
    assert.equal((await as(t, bearer(sellerKey)).post(`${t.prefix}/deals/${staleDeal}/advance`, {})).status, 200);
    assert.equal(code(await manager.client.post(`/approvals/${stale}/approve`, {})), 'APPROVAL_STALE');
    await inboxHas(admin, 3);
    await settle();
    const notes = await inbox(admin);
    assert.deepEqual(
      notes.map((n) => [n.type, n.approvalId]),
      [
        ['approval.superseded', stale],
        ['approval.denied', denied],
        ['approval.approved', approved],
      ],
    );
    assert.equal(notes[0].title, `Superseded, the deal moved first: ${PROPOSED}`);
    assert.equal(notes[1].title, `Denied: ${PROPOSED}`);
    assert.equal(notes[2].title, `Approved: ${PROPOSED}`);
    const mails = mailsTo(admin);
    assert.equal(mails.length, 3);
    for (const note of notes) {
      const mail = mails.find((m) => m.headers.get('subject') === note.title);
      assert.ok(mail, `a mail for ${note.title}`);
      assert.deepEqual(mail.text.match(/https?:\/\/\S+/g), [`${t.url}/console/#/deals/${note.dealId}`]);
    }
    // The deciders are not told of outcomes; nobody else is told of anything.
    assert.equal((await inbox(manager)).length, 7);
    for (const who of [rep, viewer, saasCloser, fintechCloser]) assert.deepEqual(await inbox(who), []);
  });

  it('settings: all true until changed, replaced whole; with approvals off the inbox is told, mail is not', async () => {
    const path = '/users/me/notification-settings';
    const all = { email: { approvals: true, outcomes: true, gigs: true } };
    assert.deepEqual((await rep.client.get(path)).body, all);
    for (const bad of [{}, { email: { approvals: false } }, { email: { ...all.email, sms: true } }, { email: 'no' }]) {
      const refused = await rep.client.send('PUT', path, bad);
      assert.equal(refused.status, 400, JSON.stringify(bad));
    }
    assert.deepEqual((await rep.client.get(path)).body, all, 'a refused PUT changes nothing');
    const quiet = { email: { approvals: false, outcomes: false, gigs: false } };
    assert.deepEqual((await rep.client.send('PUT', path, quiet)).body, quiet);
    const some = { email: { approvals: false, outcomes: true, gigs: true } };
    const put = await manager.client.send('PUT', path, some);
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body, some);
    assert.deepEqual((await manager.client.get(path)).body, some);
    assert.deepEqual((await rep.client.get(path)).body, quiet, "one person's settings are theirs alone");
    const mailed = mailsTo(manager).length;
    const approvalId = await held();
    await inboxHas(manager, 8);
    await settle();
    assert.equal((await inbox(manager))[0].approvalId, approvalId);
    assert.equal(mailsTo(manager).length, mailed, 'no mail with approvals off');
    assert.equal((await manager.client.send('PUT', path, all)).status, 200);
  });

  it("D-277: a key is no person (404 USER_NOT_FOUND); another person's notification is 404 NOTIFICATION_NOT_FOUND", async () => {
    const [note] = await inbox(manager);
    for (const key of [sellerKey, agentKey, OP]) {
      const client: Client = as(t, bearer(key));
      for (const answer of [
        await client.get('/users/me/notifications'),
        await client.get('/users/me/notifications/summary'),
        await client.get('/users/me/notification-settings'),
        await client.send('PUT', '/users/me/notification-settings', {
          email: { approvals: true, outcomes: true, gigs: true },
        }),
        await client.post(`/users/me/notifications/${note.id}/read`, {}),
      ]) {
        assert.equal(answer.status, 404, answer.text);
        assert.equal(code(answer), 'USER_NOT_FOUND');
      }
    }
    for (const [who, id] of [
      [admin, note.id],
      [rep, note.id],
      [saasCloser, note.id],
      [manager, 'ntf_9999'],
    ] as const) {
      const answer = await who.client.post(`/users/me/notifications/${id}/read`, {});
      assert.equal(answer.status, 404, answer.text);
      assert.equal(code(answer), 'NOTIFICATION_NOT_FOUND');
    }
    assert.equal((await inbox(manager))[0].read, false, 'still unread');
  });

  it('gigs: the closers of the industry are told; one digest at once, the next after 15 minutes', async () => {
    const first = await escalatedDeal(t, sellerKey, 'Digest One (fictional)');
    await inboxHas(saasCloser, 1);
    await mailbox.waitFor(saasCloser.email, /See it in the console/);
    await settle();
    const [gig] = await inbox(saasCloser);
    assert.equal(gig.type, 'gig.posted');
    assert.equal(gig.gigId, first.gigId);
    assert.equal(gig.dealId, first.dealId);
    assert.match(gig.title, /^New closer gig: Digest One \(fictional\), \$20,000/);
    let digests = mailsTo(saasCloser);
    assert.equal(digests.length, 1);
    assert.equal(digests[0].headers.get('subject'), gig.title);
    assert.deepEqual(digests[0].text.match(/https?:\/\/\S+/g), [`${t.url}/console/#/desk`]);

    // A second gig within 15 minutes: in the inbox at once, in no mail until they pass.
    const second = await escalatedDeal(t, sellerKey, 'Digest Two (fictional)');
    await inboxHas(saasCloser, 2);
    await settle();
    assert.equal((await inbox(saasCloser))[0].gigId, second.gigId);
    assert.equal(mailsTo(saasCloser).length, 1, 'the digest waits');
    skew += 14 * MINUTE;
    t.server.notifier?.wake();
    await settle();
    assert.equal(mailsTo(saasCloser).length, 1, 'still waiting after 14 minutes');
    skew += MINUTE + 1_000;
    t.server.notifier?.wake();
    await mailbox.waitFor(saasCloser.email, /See it in the console/, 1);
    await settle();
    digests = mailsTo(saasCloser);
    assert.equal(digests.length, 2, 'one more digest');
    assert.match(digests[1].text, /Digest Two/);
    assert.doesNotMatch(digests[1].text, /Digest One/, 'a gig is in one digest only');
    assert.match(digests[1].headers.get('subject') ?? '', /^New closer gig: Digest Two/);

    // Not the closer of another industry, nor the Seller's people.
    assert.deepEqual(await inbox(fintechCloser), []);
    assert.equal(mailsTo(fintechCloser).length, 0);
    for (const who of [admin, rep, viewer]) {
      assert.ok((await inbox(who)).every((n) => n.type !== 'gig.posted'));
    }
  });

  it('a demo reset keeps the inbox (D-277); after it, a key no person made asks every decider', async () => {
    const before = { admin: await inbox(admin), manager: await inbox(manager) };
    const reset = await as(t, bearer(OP)).post('/demo/reset', {});
    assert.equal(reset.status, 200, reset.text);
    assert.deepEqual({ admin: await inbox(admin), manager: await inbox(manager) }, before);
    // Made by the Seller's key, not by a person: no one is left out as its maker.
    const made = await as(t, bearer(sellerKey)).post('/keys', { name: 'keyed agent', policy: { allowedMoves: [] } });
    assert.equal(made.status, 201, made.text);
    const approvalId = await heldApproval(t, sellerKey, made.body.key);
    await inboxHas(admin, before.admin.length + 1);
    await inboxHas(manager, before.manager.length + 1);
    await settle();
    for (const who of [admin, manager]) {
      const was = who === admin ? before.admin : before.manager;
      const [note, ...rest] = await inbox(who, '?limit=100');
      assert.deepEqual([note.type, note.approvalId], ['approval.requested', approvalId]);
      assert.equal(note.title, 'Approval requested: keyed agent proposed the next stage');
      assert.deepEqual(rest, was, 'one more, the rest as they were');
    }
    assert.equal(mailsTo(admin).filter((m) => m.text.includes('keyed agent')).length, 1);
  });
});
