// A person's notifications in the web console (D-72, D-277) in Debian's Chromium against a real
// keys-mode service whose mail goes to a real SMTP server on loopback. The journey: an agent's
// close is held by its key's policy; the Seller's manager, signed in, sees "Notifications, 1
// unread" in the header without a reload (and is mailed), opens the inbox, follows the
// notification to the Approvals page (which marks it read) and approves; the deal's page, open
// beside, shows it closed won live; the admin who made the agent's key then sees the "approved"
// notification arrive, and its link opens the deal. The mail settings are saved and read back
// with GET; the inbox pages with the cursor, shows the unread only and marks them all read, and
// fits a phone (390 px); a closer's person is told of a gig and its link opens the desk; a key's
// session (signed in with a key) has no inbox and never asks for one. The tests take
// docs/console/notifications-wide.png and notifications-narrow.png (UPDATE_SCREENSHOTS=1).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  browserSkip,
  failOnScriptError,
  launchChromium,
  personConsole,
  SHOTS,
  type Size,
  signedInConsole,
} from '../support/browser.ts';
import type { TestServer } from '../support/http.ts';
import {
  as,
  bearer,
  type Client,
  dealBody,
  enrolCloser,
  escalatedDeal,
  makeKey,
  makeSeller,
  OP,
  startKeysServer,
} from '../support/keys.ts';
import { type Mailbox, startMailbox } from '../support/mailbox.ts';
import { PASSWORD, person } from '../support/people.ts';

/** Ids of principals, people, keys, deals, approvals and notifications: a page names them, never shows them. */
const IDS = /\b(?:seller|closer|usr|key|deal|apr|ntf)_\d+\b/;
const SELLER = 'Notified Fictional Sales';
const AGENT_SCOPES = ['deals:read', 'deals:propose'];

type Person = Awaited<ReturnType<typeof person>>;
interface Note {
  id: string;
  type: string;
  title: string;
  dealId?: string;
  at: string;
  read: boolean;
}

describe('notifications in the web console, in Chromium (D-72, D-277)', { skip: browserSkip }, () => {
  let t: TestServer;
  let mailbox: Mailbox;
  let browser: Browser;
  let sellerId: string;
  /** The Seller's own key, without a policy: it makes and moves the deals the agents then propose on. */
  let sellerKey: string;
  let seller: Client;
  let admin: Person;
  let manager: Person;
  const contexts: BrowserContext[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    mailbox = await startMailbox();
    t = await startKeysServer({ smtpUrl: mailbox.url, mailRetryBaseMs: 50 });
    browser = await launchChromium();
    sellerId = await makeSeller(t, SELLER);
    sellerKey = (await makeKey(t, OP, { name: 'pipeline owner', principal: sellerId })).key;
    seller = as(t, bearer(sellerKey));
    admin = await person(t, OP, mailbox, {
      email: 'ada.notified@seller.example',
      name: 'Ada Fictional',
      role: 'admin',
      principal: sellerId,
    });
    manager = await person(t, admin.client, mailbox, {
      email: 'mo.notified@seller.example',
      name: 'Mo Fictional',
      role: 'manager',
    });
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
    await mailbox?.close();
  });

  /** A fresh browser (its own cookies) signed in as the person; closed after the tests. */
  async function signedInAs(email: string, size: Size = 'wide') {
    const opened = await personConsole(browser, t.url, email, PASSWORD, size);
    contexts.push(opened.context);
    return opened;
  }

  /** A fresh browser signed in with a key (the other way of the sign-in page). */
  async function signedInWithKey(key: string, size: Size = 'wide') {
    const opened = await signedInConsole(browser, t.url, key, size);
    contexts.push(opened.context);
    return opened;
  }

  /** The header's link to the inbox, by its name: `Notifications, 1 unread`, `…, none unread`. */
  const unreadLink = (page: Page, unread: number | 'none') =>
    page.getByRole('region', { name: 'Signed in' }).getByRole('link', { name: `Notifications, ${unread} unread` });

  /** The inbox, through the header's link. */
  async function inboxOf(page: Page) {
    await page
      .getByRole('region', { name: 'Signed in' })
      .getByRole('link', { name: /^Notifications/ })
      .click();
    await page.getByRole('heading', { name: 'Notifications', exact: true }).waitFor();
    return page.getByRole('region', { name: 'Notifications' });
  }

  const items = (page: Page) => page.getByRole('list', { name: 'Your notifications' }).getByRole('listitem');

  /** A fresh deal of the Seller's, moved by its own key to negotiation (or left at sourced). */
  async function dealOf(name: string, toNegotiation = true): Promise<string> {
    const created = await seller.post(`${t.prefix}/deals`, dealBody(name, undefined, 40_000));
    assert.equal(created.status, 201, created.text);
    for (const advanceTo of toNegotiation ? ['qualified', 'meeting', 'proposal', 'negotiation'] : []) {
      const moved = await seller.post(`${t.prefix}/deals/${created.body.id}/advance`, { advanceTo });
      assert.equal(moved.status, 200, moved.text);
    }
    return created.body.id;
  }

  /** The agent proposes over HTTP; its policy holds it (202): answers the approval's id. */
  async function held(agentKey: string, dealId: string, proposal: Record<string, unknown> = {}): Promise<string> {
    const answer = await as(t, bearer(agentKey)).post(`${t.prefix}/deals/${dealId}/advance`, proposal);
    assert.equal(answer.status, 202, answer.text);
    return answer.body.approval.id;
  }

  const inboxOver = async (who: Person): Promise<Note[]> => {
    const answer = await who.client.get('/users/me/notifications?limit=100');
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  };

  /** Waits until the person's summary counts `unread` (the notifier runs just after the event). */
  async function unreadIs(who: Person, unread: number) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const summary = await who.client.get('/users/me/notifications/summary');
      if (summary.body.unread === unread) return;
      assert.ok(Date.now() < deadline, `${who.email}: ${summary.body.unread} unread, not ${unread}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The page fits its width: no sideways scroll (else the elements that stick out are named). */
  async function fits(page: Page, what: string) {
    const o = await page.evaluate(() => {
      const client = document.documentElement.clientWidth;
      const out = [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > client + 0.5)
        .slice(-3)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className} (${Math.round(e.getBoundingClientRect().right)} px)`);
      return { scroll: document.documentElement.scrollWidth, client, out };
    });
    assert.ok(o.scroll <= o.client, `${what}: ${o.scroll} > ${o.client} px: ${o.out.join(', ')}`);
  }

  it("a held close: the manager's count shows 1 live, the inbox leads to the approval, approved the deal moves live; the key's maker is told", async () => {
    // Ada makes the agent's key: she is told of its proposals' outcomes, not asked to approve them.
    const made = await admin.client.post('/keys', {
      name: 'closing agent',
      scopes: AGENT_SCOPES,
      policy: { closesPerDay: 0, minCloseValuePct: 0.9 },
    });
    assert.equal(made.status, 201, made.text);
    const dealId = await dealOf('Northwind Notified Fictional');

    const { context, page } = await signedInAs(manager.email);
    await unreadLink(page, 'none').waitFor();
    let summaries = 0;
    page.on('request', (request) => {
      if (request.url().endsWith('/users/me/notifications/summary')) summaries++;
    });
    // The deal's page, open beside it in another tab.
    const dealPage = await context.newPage();
    failOnScriptError(dealPage);
    await dealPage.goto(`${t.url}/console#/deals/${dealId}`);
    await dealPage.getByRole('heading', { name: 'Northwind Notified Fictional' }).waitFor();
    // Ada, signed in elsewhere, is asked nothing.
    const ada = (await signedInAs(admin.email)).page;
    await unreadLink(ada, 'none').waitFor();

    const approvalId = await held(made.body.key, dealId, { advanceTo: 'closed_won', valueUsd: 34_000 });

    // Without a reload: the count, and the mail to the approvals page.
    const asked = Date.now();
    await unreadLink(page, 1).waitFor();
    const after = Date.now() - asked;
    assert.ok(after < 5_000, `the count showed ${after} ms after the proposal`);
    const badge = page.getByRole('region', { name: 'Signed in' }).locator('.badge');
    assert.equal(await badge.innerText(), '1');
    const mail = await mailbox.waitFor(manager.email, /See it in the console/);
    assert.ok(mail.text.includes(`${t.url}/console/#/approvals`), mail.text);

    const inbox = await inboxOf(page);
    const [note] = await inboxOver(manager);
    assert.equal(note.type, 'approval.requested');
    const item = items(page).first();
    await item.getByText('Unread', { exact: true }).waitFor();
    assert.equal(await items(page).count(), 1);
    await item.getByText('Northwind Notified Fictional', { exact: true }).waitFor();
    await item.getByText('Opens the Approvals page').waitFor();
    await item.locator(`time[datetime="${new Date(note.at).toISOString()}"]`).waitFor();
    const link = item.getByRole('link', {
      name: 'Approval requested: closing agent proposed closed won at $34,000.00',
      exact: true,
    });
    assert.equal(await link.getAttribute('href'), '#/approvals');
    assert.doesNotMatch(await inbox.innerText(), IDS, 'no id in the inbox');

    // Followed: the Approvals page, the notification read, the count none.
    await link.click();
    await page.getByRole('heading', { name: 'Approvals', exact: true }).waitFor();
    await unreadLink(page, 'none').waitFor();
    assert.equal((await inboxOver(manager))[0].read, true);
    const card = page.getByRole('article', { name: 'Northwind Notified Fictional' });
    await card.getByRole('button', { name: 'Approve' }).click();
    await page
      .getByRole('status')
      .getByText('Northwind Notified Fictional: Approved: the deal moved to Closed won at $34,000.00.')
      .waitFor();
    // The deal's page shows it closed won, live.
    await dealPage.locator('#deal-stage[data-stage="closed_won"]').waitFor();
    assert.equal((await seller.get(`/approvals/${approvalId}`)).body.status, 'approved');

    // Ada, who made the key, is told it was approved, live; its link opens the deal.
    await unreadLink(ada, 1).waitFor();
    await inboxOf(ada);
    const approved = items(ada).first();
    await approved.getByText('Opens the deal’s page').waitFor();
    await approved.getByText('Northwind Notified Fictional', { exact: true }).waitFor();
    await approved
      .getByRole('link', { name: 'Approved: closing agent proposed closed won at $34,000.00', exact: true })
      .click();
    await ada.getByRole('heading', { name: 'Northwind Notified Fictional' }).waitFor();
    await ada.locator('#deal-stage[data-stage="closed_won"]').waitFor();
    await unreadLink(ada, 'none').waitFor();
    const told = await mailbox.waitFor(admin.email, /Approved: closing agent/);
    assert.ok(told.text.includes(`${t.url}/console/#/deals/${dealId}`), told.text);
    assert.deepEqual(
      (await inboxOver(admin)).map((n) => [n.type, n.dealId, n.read]),
      [['approval.approved', dealId, true]],
      "the key's maker was not asked to approve, only told",
    );
    // The count followed two bursts of events with a few reads, not one per event or per second.
    assert.ok(summaries <= 10, `${summaries} reads of the unread count`);
  });

  it("a key's session has no inbox: no count in the header, the address shows the board, nothing asked", async () => {
    const { page } = await signedInWithKey(sellerKey);
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/users/me/notif')) asked.push(request.url());
    });
    await page.getByRole('heading', { name: 'Pipeline' }).first().waitFor();
    const header = page.getByRole('region', { name: 'Signed in' });
    assert.equal(await header.getByRole('link', { name: /Notifications/ }).count(), 0);
    await page.goto(`${t.url}/console#/notifications`);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Pipeline' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Notifications' }).count(), 0, 'no inbox page');
    assert.equal(
      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Pipeline' })
        .getAttribute('aria-current'),
      'page',
    );
    // The operator's key neither.
    const operator = (await signedInWithKey(OP)).page;
    await operator.getByRole('heading', { name: 'Admin' }).waitFor();
    assert.equal(await operator.getByRole('link', { name: /Notifications/ }).count(), 0);
    assert.deepEqual(asked, [], 'a key is no person: the console never asks for its inbox');
  });

  it('the mail settings are saved with PUT and read back (GET); the inbox shows new ones live', async () => {
    const { page } = await signedInAs(admin.email);
    await inboxOf(page);
    const form = page.getByRole('form', { name: 'Mail settings' });
    for (const label of ['Approval requests', 'Outcomes of my keys’ proposals', 'Gig digests'])
      assert.equal(await form.getByLabel(label).isChecked(), true, `${label}: on until changed`);
    const save = form.getByRole('button', { name: 'Save mail settings' });
    assert.equal(await save.isDisabled(), true, 'nothing to save yet');
    await form.getByLabel('Approval requests').uncheck();
    await form.getByLabel('Gig digests').uncheck();
    await save.click();
    await form.getByRole('status').getByText('Saved your mail settings.').waitFor();
    assert.deepEqual((await admin.client.get('/users/me/notification-settings')).body, {
      email: { approvals: false, outcomes: true, gigs: false },
    });
    await page.reload();
    await page.getByRole('heading', { name: 'Notifications', exact: true }).waitFor();
    assert.equal(await form.getByLabel('Approval requests').isChecked(), false);
    assert.equal(await form.getByLabel('Outcomes of my keys’ proposals').isChecked(), true);
    assert.equal(await form.getByLabel('Gig digests').isChecked(), false);

    // Two proposals of a key the operator made: Ada is asked, in the inbox though not by mail.
    const agent = await makeKey(t, OP, {
      name: 'careful agent',
      principal: sellerId,
      scopes: AGENT_SCOPES,
      policy: { allowedMoves: [] },
    });
    await held(agent.key, await dealOf('Contoso Notified Fictional', false), { advanceTo: 'qualified' });
    await held(agent.key, await dealOf('Fabrikam Notified Fictional', false), { advanceTo: 'qualified' });
    await unreadLink(page, 2).waitFor();
    await items(page).nth(2).waitFor();
    assert.deepEqual(
      (await items(page).allInnerTexts()).map((text) => text.split('\n')[0]),
      [
        'Unread Approval requested: careful agent proposed qualified',
        'Unread Approval requested: careful agent proposed qualified',
        'Approved: closing agent proposed closed won at $34,000.00',
      ],
    );
    await items(page).first().getByText('Fabrikam Notified Fictional', { exact: true }).waitFor();
    await unreadIs(admin, 2);
    assert.equal(
      mailbox.received.filter((m) => m.rcptTo.includes(admin.email) && /Approval requested/.test(m.text)).length,
      0,
      'no mail with approval requests off',
    );
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `${SHOTS}notifications-wide.png`, fullPage: true });
  });

  it('the inbox pages with the cursor, shows the unread only and marks them all read (390 px)', async () => {
    // A Seller of its own: its admin is asked to approve 23 proposals of a key the operator made.
    const pagedSeller = await makeSeller(t, 'Paged Fictional Sales');
    const pagedKey = (await makeKey(t, OP, { name: 'paged owner', principal: pagedSeller })).key;
    const agent = await makeKey(t, OP, {
      name: 'busy agent',
      principal: pagedSeller,
      scopes: AGENT_SCOPES,
      policy: { allowedMoves: [] },
    });
    const pia = await person(t, OP, mailbox, {
      email: 'pia.paged@seller.example',
      name: 'Pia Fictional',
      role: 'admin',
      principal: pagedSeller,
    });
    for (let i = 1; i <= 23; i++) {
      const created = await as(t, bearer(pagedKey)).post(`${t.prefix}/deals`, dealBody(`Paged Deal ${i} Fictional`));
      assert.equal(created.status, 201, created.text);
      await held(agent.key, created.body.id);
    }
    await unreadIs(pia, 23);

    const { page } = await signedInAs(pia.email, 'narrow');
    await unreadLink(page, 23).waitFor();
    await inboxOf(page);
    await items(page).nth(19).waitFor();
    assert.equal(await items(page).count(), 20, 'a page of 20');
    await items(page).first().getByText('Paged Deal 23 Fictional', { exact: true }).waitFor();
    await fits(page, 'the inbox');
    await page.screenshot({ path: `${SHOTS}notifications-narrow.png` });
    await page.getByRole('button', { name: 'Show older' }).click();
    await items(page).nth(22).waitFor();
    await items(page).last().getByText('Paged Deal 1 Fictional', { exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show older' }).count(), 0, 'no page after the last');

    // Unread only, marked all read a page at a time. The unread list shows when it has a page
    // after it (the whole list, read to its end, has none).
    const older = page.getByRole('button', { name: 'Show older' });
    await page.getByLabel('Show unread only').check();
    await older.waitFor();
    assert.equal(await items(page).count(), 20);
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await page.getByRole('status').getByText('Marked 20 notifications read.').waitFor();
    await unreadLink(page, 3).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Mark all read' }).isDisabled(), true);
    await older.click();
    await items(page).nth(22).waitFor();
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await page.getByRole('status').getByText('Marked 3 notifications read.').waitFor();
    await unreadLink(page, 'none').waitFor();
    await unreadIs(pia, 0);
    await page.getByLabel('Show unread only').uncheck();
    await older.waitFor();
    assert.equal(await items(page).count(), 20);
    assert.equal(await page.getByText('Unread', { exact: true }).count(), 0, 'all read');
    await page.getByLabel('Show unread only').check();
    await page.getByText('Nothing unread.').waitFor();
    await fits(page, 'the inbox, all read');
  });

  it("a closer's person is told of a gig in their industry; its link opens the desk", async () => {
    const closerId = await enrolCloser(t, 'Notified Fictional Closer', ['saas']);
    const cleo = await person(t, OP, mailbox, {
      email: 'cleo.closer@closer.example',
      name: 'Cleo Fictional',
      role: 'closer',
      principal: closerId,
    });
    const { page } = await signedInAs(cleo.email);
    await page.getByRole('heading', { name: 'Closer desk' }).waitFor();
    await unreadLink(page, 'none').waitFor();
    await escalatedDeal(t, sellerKey, 'Gigged Notified Fictional');
    await unreadLink(page, 1).waitFor();
    await inboxOf(page);
    const link = items(page)
      .first()
      .getByRole('link', { name: /^New closer gig: Gigged Notified Fictional, \$/ });
    assert.equal(await link.getAttribute('href'), '#/desk');
    await items(page).first().getByText('Opens the closer desk').waitFor();
    await link.click();
    await page.getByRole('heading', { name: 'Closer desk' }).waitFor();
    await unreadLink(page, 'none').waitFor();
  });
});
