// People in the web console (D-62, D-63, D-65, D-66, D-67) in Debian's Chromium against a real
// keys-mode service whose mail goes to a real SMTP server on loopback, at 1280 and at 390 px: an
// invitation's mailed link opened in the browser sets a password and signs the person in, the
// header naming them and their role; signing out and in again with the email and the password,
// a wrong password said in words, and a locked email said with when to try again; the reset from
// "Forgot your password?" through the mailed link; a Seller admin's Team page (invite, with the
// mail arriving; change a role; disable, which
// signs the person's other browser out on its next request; enable; LAST_ADMIN and EMAIL_TAKEN in
// words); a viewer shown no control it cannot use and a rep no Team; the deal page's Edit (its
// activity naming the person, never an id; a stale page refused and read again); the operator's
// people on the admin page and who made each key. No new page scrolls sideways at 390 px.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  browserSkip,
  failOnScriptError,
  launchChromium,
  optionTexts,
  SHOTS,
  type Size,
  WIDTHS,
} from '../support/browser.ts';
import type { TestServer } from '../support/http.ts';
import { as, bearer, dealBody, makeKey, makeSeller, OP, startKeysServer } from '../support/keys.ts';
import { type Mailbox, startMailbox } from '../support/mailbox.ts';
import { accept, invite, PASSWORD, person } from '../support/people.ts';

const SIZES: readonly Size[] = ['wide', 'narrow'];
/** Ids of principals, people and keys: a page names them, never shows them. */
const IDS = /\b(?:seller|closer|usr|key)_\d+\b/;

describe('people in the web console, in Chromium (D-62, D-63, D-66)', { skip: browserSkip }, () => {
  let t: TestServer;
  let mailbox: Mailbox;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    mailbox = await startMailbox();
    t = await startKeysServer({ smtpUrl: mailbox.url, mailRetryBaseMs: 50 });
    browser = await launchChromium();
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
    await mailbox?.close();
  });

  /** A fresh browser (its own cookies) at `url`; a script error fails the test. */
  async function fresh(size: Size, url = `${t.url}/console`): Promise<Page> {
    const context = await browser.newContext({ viewport: WIDTHS[size] });
    contexts.push(context);
    const page = await context.newPage();
    failOnScriptError(page);
    await page.goto(url);
    return page;
  }

  /** Signs in with an email and a password on the sign-in page the browser shows. */
  async function signInOn(page: Page, email: string, password = PASSWORD) {
    const form = page.getByRole('form', { name: 'Sign in as a person' });
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Password').fill(password);
    await form.getByRole('button', { name: 'Sign in' }).click();
  }

  /** A fresh browser signed in as the person; answers once the header names them. */
  async function signedInAs(email: string, size: Size, password = PASSWORD): Promise<Page> {
    const page = await fresh(size);
    await signInOn(page, email, password);
    await page.getByRole('region', { name: 'Signed in' }).waitFor();
    return page;
  }

  const who = async (page: Page) =>
    ((await page.getByRole('region', { name: 'Signed in' }).locator('span').first().innerText()) ?? '').trim();
  const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });
  const links = (page: Page) => nav(page).getByRole('link').allTextContents();

  /** The page fits its width: no sideways scroll (else the elements that stick out are named). */
  async function fits(page: Page, what: string) {
    const o = await page.evaluate(() => {
      const client = document.documentElement.clientWidth;
      const out = [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > client + 0.5)
        // Inside a box that scrolls sideways only what escapes it (absolutely placed) widens the page.
        .filter((e) => !e.closest('.table-scroll') || getComputedStyle(e).position === 'absolute')
        .slice(-3)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className} (${Math.round(e.getBoundingClientRect().right)} px)`);
      return { scroll: document.documentElement.scrollWidth, client, out };
    });
    assert.ok(o.scroll <= o.client, `${what}: ${o.scroll} > ${o.client} px: ${o.out.join(', ')}`);
  }

  /** A Seller with an admin who accepted (through the API); answers both and the Seller's name. */
  async function sellerWithAdmin(label: string, size: Size) {
    const name = `${label} ${size} Fictional Sales`;
    const sellerId = await makeSeller(t, name);
    const email = `ada.${label.toLowerCase()}.${size}@seller.example`;
    const admin = await person(t, OP, mailbox, { email, name: 'Ada Fictional', role: 'admin', principal: sellerId });
    return { sellerId, name, admin, email };
  }

  for (const size of SIZES) {
    const px = `${WIDTHS[size].width} px`;

    it(`an invitation's link sets a password and signs in; out and in again; a wrong password in words (${px})`, async () => {
      const seller = `Invited ${size} Fictional Sales`;
      const principal = await makeSeller(t, seller);
      const email = `ada.invited.${size}@seller.example`;
      await invite(t, OP, { email, name: 'Ada Fictional', role: 'admin', principal });
      const link = await mailbox.link(email, 'accept');

      const page = await fresh(size, link);
      await page.getByRole('heading', { name: 'Choose your password' }).waitFor();
      await page.getByText('At least 12 characters, and not your email’s name').waitFor();
      await fits(page, 'the invitation page');
      await page.screenshot({ path: `${SHOTS}people-accept-${size}.png`, fullPage: true });
      const choose = async (password: string, again = password) => {
        await page.getByLabel('New password', { exact: true }).fill(password);
        await page.getByLabel('Confirm the password').fill(again);
        await page.getByRole('button', { name: 'Set password and sign in' }).click();
      };
      await choose(PASSWORD, `${PASSWORD}!`);
      await page.getByRole('alert').getByText('The two passwords differ').waitFor();
      await choose(`${email.split('@')[0]} is my password`);
      await page.getByRole('alert').getByText('must not contain your email’s name').waitFor();
      await choose(PASSWORD);
      await page.getByRole('region', { name: 'Signed in' }).waitFor();
      assert.equal(await who(page), `Signed in as Ada Fictional · admin · ${seller}`);
      assert.equal(new URL(page.url()).hash, '#/', 'the token left the address');
      assert.deepEqual(await links(page), [
        'Pipeline',
        'New deal',
        'Proposals',
        'Insights',
        'Statement',
        'Approvals',
        'Closers',
        'Team',
        'Keys',
      ]);
      await fits(page, 'the home page of a person');

      // The link works once.
      const again = await fresh(size, link);
      await again.getByLabel('New password', { exact: true }).fill(PASSWORD);
      await again.getByLabel('Confirm the password').fill(PASSWORD);
      await again.getByRole('button', { name: 'Set password and sign in' }).click();
      await again.getByRole('alert').getByText('This invitation link was already used or has expired').waitFor();
      assert.match(await again.getByRole('alert').innerText(), /Ask whoever invited you for a new invitation/);

      // Out, and in again with the email and the password; a wrong one is said in words.
      await page.getByRole('button', { name: 'Sign out' }).click();
      const form = page.getByRole('form', { name: 'Sign in as a person' });
      await form.waitFor();
      await fits(page, 'the sign-in page');
      await signInOn(page, email, 'not the password at all');
      const refused = page.getByRole('alert');
      await refused.getByText('The email or password is not right.').waitFor();
      assert.equal(await form.getByLabel('Password').inputValue(), '', 'the password field is emptied');
      assert.equal(await form.getByLabel('Email').inputValue(), email, 'the email stays');
      await signInOn(page, email);
      await page.getByRole('region', { name: 'Signed in' }).waitFor();
      assert.equal(await who(page), `Signed in as Ada Fictional · admin · ${seller}`);
      const stored = await page.evaluate(
        () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
      );
      assert.ok(!stored.includes(PASSWORD), 'no password in storage');

      // Ten failures lock the email: the page says when to try again (Retry-After).
      const locked = await fresh(size);
      const alert = locked.getByRole('alert');
      const said = async () => ((await alert.count()) > 0 ? await alert.innerText() : '');
      for (let i = 0; i < 12 && !/Too many/.test(await said()); i++) {
        await signInOn(locked, email, `wrong password number ${i}`);
        await alert.getByText(/not right|Too many/).waitFor();
      }
      assert.match(
        await said(),
        /^Too many failed sign-ins for this email: try again in 15 minutes \(at \d{1,2}:\d{2}( [AP]M)?\)\.$/,
      );
      await signInOn(locked, email);
      await alert.getByText('Too many failed sign-ins for this email').waitFor();
    });

    it(`a forgotten password is reset through the mailed link (${px})`, async () => {
      const { email } = await sellerWithAdmin('Reset', size);
      const page = await fresh(size);
      await page.getByRole('link', { name: 'Forgot your password?' }).click();
      await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
      await fits(page, 'the reset page');
      const ask = async (address: string) => {
        await page.getByLabel('Email').fill(address);
        await page.getByRole('button', { name: 'Send the link' }).click();
        await page.getByRole('status').getByText('If that email has an account, a link is on its way.').waitFor();
      };
      // An email no one has is answered the same.
      await ask(`nobody.${size}@seller.example`);
      await ask(email);
      const link = await mailbox.link(email, 'reset');

      const reset = await fresh(size, link);
      await reset.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await fits(reset, 'the new password page');
      const renewed = `${PASSWORD} renewed`;
      await reset.getByLabel('New password', { exact: true }).fill(renewed);
      await reset.getByLabel('Confirm the password').fill(renewed);
      await reset.getByRole('button', { name: 'Change password' }).click();
      await reset.getByRole('status').getByText('Password changed: sign in').waitFor();
      assert.doesNotMatch(reset.url(), /reset\//, 'the token left the address');
      await signInOn(reset, email, PASSWORD);
      await reset.getByRole('alert').getByText('The email or password is not right.').waitFor();
      await signInOn(reset, email, renewed);
      await reset.getByRole('region', { name: 'Signed in' }).waitFor();
      assert.match(await who(reset), /^Signed in as Ada Fictional · admin · /);

      // The link works once.
      const again = await fresh(size, link);
      await again.getByLabel('New password', { exact: true }).fill(renewed);
      await again.getByLabel('Confirm the password').fill(renewed);
      await again.getByRole('button', { name: 'Change password' }).click();
      await again.getByRole('alert').getByText('This reset link was already used or has expired').waitFor();
    });

    it(`a Seller admin's Team page invites, changes a role, disables and enables; refusals in words (${px})`, async () => {
      const { name: seller, email: adminEmail } = await sellerWithAdmin('Team', size);
      const page = await signedInAs(adminEmail, size);
      await nav(page).getByRole('link', { name: 'Team' }).click();
      await page.getByRole('heading', { name: 'Team', exact: true }).waitFor();
      const people = page.getByRole('region', { name: 'People' });
      const table = people.getByRole('table', { name: 'People list' });
      await table.getByRole('row', { name: `Ada Fictional (${adminEmail})` }).waitFor();

      // Invite a rep: the mail arrives, the list shows them invited.
      const bea = `bea.${size}@seller.example`;
      const form = people.getByRole('form', { name: 'Invite a person' });
      const inviteBea = async () => {
        await form.getByLabel('Name').fill('Bea Fictional');
        await form.getByLabel('Email').fill(bea);
        await form.getByLabel('Role', { exact: true }).selectOption('rep');
        await form.getByRole('button', { name: 'Invite' }).click();
      };
      await inviteBea();
      await people
        .getByRole('status')
        .getByText(`Invited Bea Fictional as a rep: the invitation is on its way to ${bea}`)
        .waitFor();
      await mailbox.link(bea, 'accept');
      const row = table.getByRole('row', { name: `Bea Fictional (${bea})` });
      await row.getByText('Invited: no password yet').waitFor();
      await fits(page, 'the Team page');
      await page.screenshot({ path: `${SHOTS}people-team-${size}.png`, fullPage: true });

      // The same email again: EMAIL_TAKEN in words.
      await inviteBea();
      await people.getByRole('alert').getByText(`${bea} already belongs to a person of this deployment`).waitFor();

      // Bea accepts and signs in in a browser of her own.
      await accept(t, mailbox, bea);
      const beaPage = await signedInAs(bea, size);
      assert.match(await who(beaPage), / · rep · /);
      await page.reload();
      await row.getByText('Active').waitFor();

      // Change her role: from her next request on, her console shows it.
      await row.getByLabel('Role of Bea Fictional', { exact: true }).selectOption('manager');
      await row.getByRole('button', { name: 'Change the role of Bea Fictional' }).click();
      await people.getByRole('status').getByText('Bea Fictional is now a manager').waitFor();
      const beaId = (await as(t, bearer(OP)).get(`/users?limit=1000`)).body.find(
        (u: { email: string }) => u.email === bea,
      ).id;
      assert.equal((await as(t, bearer(OP)).get(`/users/${beaId}`)).body.role, 'manager');
      await nav(beaPage).getByRole('link', { name: 'Proposals' }).click();
      await beaPage.getByRole('region', { name: 'Signed in' }).getByText('· manager ·').waitFor();

      // Disable her: her other browser is signed out on its next request, and she cannot sign in.
      page.once('dialog', (dialog) => dialog.accept());
      await row.getByRole('button', { name: 'Disable Bea Fictional' }).click();
      await people.getByRole('status').getByText('Disabled Bea Fictional').waitFor();
      await row.getByText(/^Disabled /).waitFor();
      await nav(beaPage).getByRole('link', { name: 'Pipeline' }).click();
      await beaPage.getByText('Your session has ended; sign in again.').waitFor({ timeout: 5_000 });
      await signInOn(beaPage, bea);
      await beaPage.getByRole('alert').getByText('The email or password is not right.').waitFor();

      // Enable her: she signs in again.
      await row.getByRole('button', { name: 'Enable Bea Fictional' }).click();
      await people.getByRole('status').getByText('Enabled Bea Fictional').waitFor();
      await signInOn(beaPage, bea);
      await beaPage.getByRole('region', { name: 'Signed in' }).waitFor();

      // The Seller's last admin keeps the role and stays enabled: LAST_ADMIN in words.
      const ada = table.getByRole('row', { name: `Ada Fictional (${adminEmail})` });
      await ada.getByText('(you)').waitFor();
      page.once('dialog', (dialog) => dialog.accept());
      await ada.getByRole('button', { name: 'Disable Ada Fictional' }).click();
      const lastAdmin = `Ada Fictional is the last enabled admin of ${seller}, and a Seller keeps at least one`;
      await people.getByRole('alert').getByText(lastAdmin).waitFor();
      await ada.getByLabel('Role of Ada Fictional', { exact: true }).selectOption('viewer');
      await ada.getByRole('button', { name: 'Change the role of Ada Fictional' }).click();
      await people.getByRole('alert').getByText(lastAdmin).waitFor();
      assert.doesNotMatch(await people.getByRole('alert').innerText(), IDS);
      assert.match(await who(page), / · admin · /, 'still an admin');
      await fits(page, 'the Team page with its refusals');
    });

    it(`a viewer sees no control it cannot use, and a rep no Team (${px})`, async () => {
      const { admin, name: seller } = await sellerWithAdmin('Roles', size);
      const dealId = (await admin.client.post(`${t.prefix}/deals`, dealBody('Watched Deal Fictional'))).body.id;
      const viewer = await person(t, admin.client, mailbox, {
        email: `vic.${size}@seller.example`,
        name: 'Vic Fictional',
        role: 'viewer',
      });
      const rep = await person(t, admin.client, mailbox, {
        email: `rey.${size}@seller.example`,
        name: 'Rey Fictional',
        role: 'rep',
      });

      const page = await signedInAs(viewer.email, size);
      assert.equal(await who(page), `Signed in as Vic Fictional · viewer · ${seller}`);
      assert.deepEqual(
        await links(page),
        ['Pipeline', 'Proposals', 'Insights', 'Statement', 'Approvals', 'Closers'],
        'no New deal, Team or Keys',
      );
      await page.getByRole('region', { name: 'sourced' }).getByRole('link', { name: 'Watched Deal Fictional' }).click();
      await page.getByRole('heading', { name: 'Watched Deal Fictional' }).waitFor();
      await page.getByRole('list', { name: 'Activity' }).getByRole('listitem').first().waitFor();
      for (const control of [
        'Edit',
        'Close lost',
        'Report signal',
        'Re-engage as a new deal',
        'Give it back to the agent',
      ])
        assert.equal(await page.getByRole('button', { name: control }).count(), 0, `no ${control}`);
      assert.equal(await page.getByRole('button', { name: /^Advance to|^Ask a human/ }).count(), 0, 'no advance');
      assert.equal(await page.getByRole('region', { name: 'Moves' }).count(), 0, 'no moves');
      // The proposals page has no key to show a viewer, and says nothing of keys.
      await nav(page).getByRole('link', { name: 'Proposals' }).click();
      await page.getByRole('table', { name: 'Scorecard' }).waitFor();
      assert.equal(await page.getByRole('region', { name: 'By key' }).count(), 0, 'no per-key table');
      assert.equal(await page.getByRole('form', { name: 'Chart and list filters' }).getByLabel('Key').count(), 0);
      await fits(page, 'the proposals page of a viewer');
      // A route to a page the viewer may not use shows the home page.
      for (const route of ['#/new', '#/team', '#/keys']) {
        await page.goto(`${t.url}/console${route}`);
        await page.getByRole('heading', { name: 'Pipeline' }).waitFor();
        assert.equal(await page.getByRole('button', { name: /Create at sourced|Invite|Issue key/ }).count(), 0, route);
      }

      const repPage = await signedInAs(rep.email, size);
      assert.deepEqual(
        await links(repPage),
        ['Pipeline', 'New deal', 'Proposals', 'Insights', 'Statement', 'Approvals', 'Closers'],
        'no Team or Keys',
      );
      await repPage.goto(`${t.url}/console#/deals/${dealId}`);
      await repPage.getByRole('button', { name: 'Edit' }).waitFor();
      await repPage.getByRole('button', { name: 'Close lost' }).waitFor();
      await repPage.goto(`${t.url}/console#/team`);
      await repPage.getByRole('heading', { name: 'Pipeline' }).waitFor();
    });

    it(`the deal page's Edit changes the list value, the activity naming the person (${px})`, async () => {
      const { admin, sellerId } = await sellerWithAdmin('Edit', size);
      const rep = await person(t, admin.client, mailbox, {
        email: `rey.edit.${size}@seller.example`,
        name: 'Rey Fictional',
        role: 'rep',
      });
      const dealId = (await admin.client.post(`${t.prefix}/deals`, dealBody('Edited Deal Fictional'))).body.id;
      // A key's move is among the activity too: named as a key, never by an id.
      const agent = await makeKey(t, OP, {
        name: 'edit agent',
        principal: sellerId,
        scopes: ['deals:read', 'deals:propose'],
      });
      assert.equal((await as(t, bearer(agent.key)).post(`${t.prefix}/deals/${dealId}/advance`, {})).status, 200);

      const page = await signedInAs(rep.email, size);
      await page.goto(`${t.url}/console#/deals/${dealId}`);
      await page.getByRole('heading', { name: 'Edited Deal Fictional' }).waitFor();
      await page.getByRole('button', { name: 'Edit' }).click();
      const form = page.getByRole('form', { name: 'Edit the deal' });
      assert.equal(await form.getByLabel('List value (USD)').inputValue(), '20000');
      await fits(page, 'the deal page with its Edit form');
      await form.getByLabel('List value (USD)').fill('25000');
      await form.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved the list value').waitFor();
      await page.locator('dl.facts').first().getByText('$25,000.00').waitFor();
      const activity = page.getByRole('list', { name: 'Activity' });
      const edited = activity.getByRole('listitem').filter({ hasText: 'list value $20,000.00 → $25,000.00' });
      await edited.waitFor();
      assert.equal(await edited.locator('strong').innerText(), 'Rey Fictional');
      const all = await activity.innerText();
      assert.match(all, /Ada Fictional/, 'the person who created it');
      assert.match(all, /A key of Edit \w+ Fictional Sales/, 'the key that moved it');
      assert.doesNotMatch(all, IDS, 'no principal, person or key id');
      assert.equal((await admin.client.get(`${t.prefix}/deals/${dealId}`)).body.listValueUsd, 25_000);

      // A page that read the deal before someone else changed it is refused, and reads it again.
      await page.getByRole('button', { name: 'Edit' }).click();
      await form.getByLabel('Account name').fill('Renamed Deal Fictional');
      const meanwhile = await admin.client.send(
        'PATCH',
        `${t.prefix}/deals/${dealId}`,
        { account: { industry: 'fintech' } },
        { 'if-match': '*' },
      );
      assert.equal(meanwhile.status, 200, meanwhile.text);
      await form.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('alert').getByText('This deal changed since you opened it').waitFor();
      await page
        .locator('dl.facts')
        .first()
        .getByText(/fintech/)
        .waitFor();
      await form.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: 'Renamed Deal Fictional' }).waitFor();
      await activity.getByText(/account name “Edited Deal Fictional” → “Renamed Deal Fictional”/).waitFor();
      await fits(page, 'the deal page after its edits');
    });

    it(`the operator's admin page lists people per principal; the keys show who made them (${px})`, async () => {
      const { name: seller, sellerId, email: adminEmail } = await sellerWithAdmin('Admin', size);
      // The Seller's admin makes a key on the Seller's keys page.
      const ada = await signedInAs(adminEmail, size);
      await nav(ada).getByRole('link', { name: 'Keys' }).click();
      await ada.getByRole('heading', { name: 'Keys', exact: true }).waitFor();
      const keys = ada.getByRole('region', { name: 'Keys' });
      await keys.getByLabel('Key name').fill(`agent of Ada ${size}`);
      await keys.getByRole('button', { name: 'Issue key' }).click();
      await ada.getByRole('region', { name: 'New key' }).getByRole('button', { name: 'Done' }).click();
      const made = ada.getByRole('row', { name: new RegExp(`^agent of Ada ${size} \\(key_`) });
      await made.getByText('Ada Fictional').waitFor();
      await fits(ada, 'the keys page');

      // The operator signs in with its key, and finds the Seller's people and the key's maker.
      const page = await fresh(size);
      await page.getByRole('link', { name: 'Sign in with a key' }).click();
      await page.getByLabel('API key').fill(OP);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Admin' }).waitFor();
      const people = page.getByRole('region', { name: 'People' });
      const option = (await optionTexts(people.getByLabel('Show the people of'), seller)).find((o) =>
        o.startsWith(seller),
      );
      await people.getByLabel('Show the people of').selectOption({ label: option as string });
      const table = people.getByRole('table', { name: 'People list' });
      await table
        .getByRole('row', { name: `Ada Fictional (${adminEmail})` })
        .getByText(seller)
        .waitFor();

      // Invite a manager for the Seller; disable and enable them.
      const form = people.getByRole('form', { name: 'Invite a person' });
      const mo = `mo.${size}@seller.example`;
      await form.getByLabel('Name').fill('Mo Fictional');
      await form.getByLabel('Email').fill(mo);
      await form.getByLabel('For', { exact: true }).selectOption(sellerId);
      // The roles offered are the chosen principal's: a Seller's, manager among them.
      await form.getByLabel('Role', { exact: true }).locator('option[value="manager"]').waitFor({ state: 'attached' });
      await form.getByLabel('Role', { exact: true }).selectOption('manager');
      await form.getByRole('button', { name: 'Invite' }).click();
      await people.getByRole('status').getByText('Invited Mo Fictional as a manager').waitFor();
      await mailbox.link(mo, 'accept');
      const row = table.getByRole('row', { name: `Mo Fictional (${mo})` });
      page.once('dialog', (dialog) => dialog.accept());
      await row.getByRole('button', { name: 'Disable Mo Fictional' }).click();
      await row.getByRole('button', { name: 'Enable Mo Fictional' }).click();
      await row.getByRole('button', { name: 'Disable Mo Fictional' }).waitFor();
      const listed = (await as(t, bearer(OP)).get(`/users?principal=${sellerId}`)).body;
      assert.deepEqual(listed.map((u: { name: string }) => u.name).sort(), ['Ada Fictional', 'Mo Fictional']);
      // The Seller's last admin is kept here too.
      page.once('dialog', (dialog) => dialog.accept());
      await table
        .getByRole('row', { name: `Ada Fictional (${adminEmail})` })
        .getByRole('button', { name: 'Disable Ada Fictional' })
        .click();
      await people.getByRole('alert').getByText(`Ada Fictional is the last enabled admin of ${seller}`).waitFor();

      // The keys list names the person who made the key.
      const key = page
        .getByRole('table', { name: 'Keys list' })
        .getByRole('row', { name: new RegExp(`^agent of Ada ${size} \\(key_`) });
      await key.getByText('Ada Fictional').waitFor();
      await fits(page, 'the admin page');
    });
  }
});
