// The web console in keys mode (D-59, D-232..D-236) in Debian's Chromium against a real keys-mode
// service: a wrong key is refused in words; the operator creates a Seller, enrols a closer, issues
// a Seller's and a closer's key (each shown once, with a Copy button), rolls and revokes a key; a
// Seller signs in, creates a deal and sees only its own; a closer claims a gig at its desk as
// itself (no closer to choose); signing out, and revoking a key, return the page to the sign-in
// page and the cookie no longer works; no key is ever in the page's storage or in a URL it asks
// for; another origin's page cannot use the cookie. The tests take docs/console.md's screenshots of
// keys mode (docs/console/keys-*.png with UPDATE_SCREENSHOTS=1).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import {
  as,
  bearer,
  dealBody,
  enrolCloser,
  escalatedDeal,
  makeKey,
  makeSeller,
  OP,
  startKeysServer,
  wrongKey,
} from '../support/keys.ts';

describe('the web console in keys mode, in Chromium (D-59)', { skip: browserSkip }, () => {
  let t: TestServer;
  let browser: Browser;
  /** Every key the tests made or typed: none may be found in storage or in a URL. */
  const secrets = new Set<string>([OP]);
  /** Every URL any page asked for. */
  const urls: string[] = [];

  before(async () => {
    t = await startKeysServer();
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A fresh browser (its own cookies) on the console; a script error fails the test. */
  async function open(size: Size = 'wide'): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: WIDTHS[size] });
    const page = await context.newPage();
    failOnScriptError(page);
    page.on('request', (request) => urls.push(request.url()));
    await page.goto(`${t.url}/console`);
    // D-66: the sign-in page asks for an email and a password first; the key is the other way.
    await page.getByRole('link', { name: 'Sign in with a key' }).click();
    return { context, page };
  }

  /** Signs a fresh browser in with a key; answers once the header says who. */
  async function signedIn(key: string, size: Size = 'wide') {
    secrets.add(key);
    const opened = await open(size);
    await opened.page.getByLabel('API key').fill(key);
    await opened.page.getByRole('button', { name: 'Sign in' }).click();
    await opened.page.getByRole('region', { name: 'Signed in' }).waitFor();
    return opened;
  }

  /** Neither storage holds anything of a key. */
  async function assertNoKeyStored(page: Page) {
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    for (const key of secrets) assert.ok(!stored.includes(key), 'no key in localStorage or sessionStorage');
  }

  /** The session cookie of a browser, as a Cookie header. */
  async function cookieOf(context: BrowserContext): Promise<string> {
    const cookie = (await context.cookies()).find((c) => c.name === 'sp_console');
    assert.ok(cookie, 'the browser holds the session cookie');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    for (const key of secrets) assert.ok(!cookie.value.includes(key), 'the cookie holds no key');
    return `sp_console=${cookie.value}`;
  }

  it('shows the sign-in page, and refuses a wrong key in words', async () => {
    for (const size of ['wide', 'narrow'] as const) {
      const { context, page } = await open(size);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      assert.equal(await page.getByLabel('API key').getAttribute('type'), 'password');
      await page.screenshot({ path: `${SHOTS}keys-sign-in-${size}.png`, fullPage: true });
      const wrong = wrongKey();
      secrets.add(wrong);
      await page.getByLabel('API key').fill(wrong);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').getByText('That key is not valid: it is unknown, revoked or expired.').waitFor();
      assert.equal(await page.getByLabel('API key').inputValue(), '', 'the field is emptied');
      assert.equal((await context.cookies()).length, 0, 'no cookie for a wrong key');
      await assertNoKeyStored(page);
      await context.close();
    }
  });

  it('the operator creates a Seller, enrols a closer, issues keys (shown once, copied), rolls and revokes one', async () => {
    const { context, page } = await signedIn(OP);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    assert.match(
      (await page.getByRole('region', { name: 'Signed in' }).textContent()) ?? '',
      /Signed in as Operator \(operator\)/,
    );
    await page.getByRole('heading', { name: 'Admin' }).waitFor();
    // D-3: a keys-mode deployment without DEMO_CONTROLS=on serves no reset and no clock, and the
    // operator's header offers neither.
    assert.equal(await page.getByRole('region', { name: 'Demo controls' }).count(), 0, 'no demo controls');
    assert.equal(await page.getByRole('button', { name: 'Reset demo' }).count(), 0, 'no reset button');
    assert.equal(await page.getByRole('button', { name: 'Move clock' }).count(), 0, 'no clock control');

    // A Seller and a closer.
    const sellers = page.getByRole('region', { name: 'Sellers', exact: true });
    await sellers.getByLabel('Seller name').fill('Admin Fictional Sales');
    await sellers.getByRole('button', { name: 'Create Seller' }).click();
    await page.getByRole('table', { name: 'Sellers list' }).getByText('Admin Fictional Sales').waitFor();
    const closers = page.getByRole('region', { name: 'Closers', exact: true });
    await closers.getByLabel('Closer name').fill('Admin Fictional Closer');
    await closers.getByLabel('Industries').fill('saas');
    await closers.getByRole('button', { name: 'Enrol closer' }).click();
    await page.getByRole('table', { name: 'Closers list' }).getByText('Admin Fictional Closer').waitFor();
    const sellerId = (await as(t, bearer(OP)).get('/sellers?limit=1000')).body.find(
      (s: { name: string }) => s.name === 'Admin Fictional Sales',
    ).id;
    const closerId = (await as(t, bearer(OP)).get('/closers/closers?limit=1000')).body.find(
      (c: { name: string }) => c.name === 'Admin Fictional Closer',
    ).id;

    /** Issues a key to a principal with scopes left unticked; answers the key read from the page. */
    const issue = async (name: string, principal: RegExp, untick: string[] = []) => {
      const keys = page.getByRole('region', { name: 'Keys' });
      await keys.getByLabel('Key name').fill(name);
      await keys
        .getByLabel('For', { exact: true })
        .selectOption({ label: (await optionLabel(page, principal)) as string });
      for (const scope of untick) await keys.getByRole('checkbox', { name: scope }).uncheck();
      await keys.getByRole('button', { name: 'Issue key' }).click();
      const shown = page.getByRole('region', { name: 'New key' });
      await shown.waitFor();
      const key = await shown.getByLabel('The key').inputValue();
      secrets.add(key);
      await shown.getByRole('button', { name: 'Copy' }).click();
      await shown.getByText('Copied.').waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key, 'the Copy button copies the key');
      await shown.getByRole('button', { name: 'Done' }).click();
      await shown.waitFor({ state: 'detached' });
      return key;
    };

    // The scopes offered are the principal's kind's.
    const keys = page.getByRole('region', { name: 'Keys' });
    await keys
      .getByLabel('For', { exact: true })
      .selectOption({ label: (await optionLabel(page, /Admin Fictional Closer/)) as string });
    assert.ok(await keys.getByRole('checkbox', { name: 'gigs:work' }).isVisible());
    assert.equal(await keys.getByRole('checkbox', { name: 'deals:write' }).count(), 0);

    const sellerKey = await issue('Seller console', /Admin Fictional Sales/);
    assert.match(sellerKey, /^sp_sk_/);
    const seller = await as(t, bearer(sellerKey)).get(`${t.prefix}/deals`);
    assert.equal(seller.status, 200, 'the Seller key works');
    const closerKey = await issue('Closer desk', /Admin Fictional Closer/, ['webhooks:manage']);
    assert.match(closerKey, /^sp_ck_/);
    const closerRecord = (await as(t, bearer(closerKey)).get('/keys')).body.find(
      (k: { name: string }) => k.name === 'Closer desk',
    );
    assert.equal(closerRecord.principal, closerId);
    assert.ok(!closerRecord.scopes.includes('webhooks:manage'), 'the scope left unticked is not given');
    assert.ok(closerRecord.scopes.includes('gigs:work'));

    // The list shows each key's prefix, principal, scopes, last use, expiry.
    const row = page.getByRole('row', { name: /^Seller console \(key_/ });
    await row.getByText(sellerKey.slice(0, 12)).waitFor();
    await page.reload();
    await page.getByRole('table', { name: 'Keys list' }).getByText('Admin Fictional Sales').first().waitFor();
    await page.screenshot({ path: `${SHOTS}keys-admin-wide.png`, fullPage: true });

    // Roll: a new key is shown once; the old one keeps working for its grace period.
    const throwaway = await issue('To roll', /Admin Fictional Sales/);
    const rollRow = page.getByRole('row', { name: /^To roll \(key_/ });
    await rollRow.getByRole('button', { name: 'Roll To roll' }).click();
    const rolled = await page.getByRole('region', { name: 'New key' }).getByLabel('The key').inputValue();
    secrets.add(rolled);
    assert.notEqual(rolled, throwaway);
    assert.equal((await as(t, bearer(rolled)).get(`${t.prefix}/deals`)).status, 200, 'the rolled key works');
    await page.getByRole('region', { name: 'New key' }).getByRole('button', { name: 'Done' }).click();

    // Revoke, after a confirmation: the key stops working at once.
    const revocable = page
      .getByRole('row', { name: /^To roll \(key_/ })
      .filter({ has: page.getByRole('button', { name: 'Revoke To roll' }) });
    page.once('dialog', (dialog) => dialog.accept());
    await revocable.first().getByRole('button', { name: 'Revoke To roll' }).click();
    await page.getByText('Revoked the key To roll.').waitFor();
    assert.equal((await as(t, bearer(throwaway)).get(`${t.prefix}/deals`)).status, 401, 'the revoked key is refused');
    // A confirmation declined revokes nothing.
    page.once('dialog', (dialog) => dialog.dismiss());
    await revocable.first().getByRole('button', { name: 'Revoke To roll' }).click();
    assert.equal((await as(t, bearer(rolled)).get(`${t.prefix}/deals`)).status, 200, 'declined: still working');
    assert.ok(sellerId && closerId);
    await assertNoKeyStored(page);
    await context.close();

    const narrow = await signedIn(OP, 'narrow');
    await narrow.page.getByRole('table', { name: 'Keys list' }).waitFor();
    await narrow.page.screenshot({ path: `${SHOTS}keys-admin-narrow.png`, fullPage: false });
    await narrow.context.close();
  });

  it('a Seller signs in, creates a deal, and sees only its own', async () => {
    const sellerId = await makeSeller(t, 'Board Fictional Sales');
    const key = await makeKey(t, OP, { name: 'board', principal: sellerId });
    const otherId = await makeSeller(t, 'Elsewhere Fictional Sales');
    const other = await makeKey(t, OP, { name: 'elsewhere', principal: otherId });
    secrets.add(key.key).add(other.key);
    const theirs = await as(t, bearer(other.key)).post(`${t.prefix}/deals`, dealBody('Not Yours Fictional'));
    assert.equal(theirs.status, 201);
    await as(t, bearer(key.key)).post(`${t.prefix}/sell`, dealBody('Won Board Fictional', undefined, 40_000));

    const { context, page } = await signedIn(key.key);
    assert.match(
      (await page.getByRole('region', { name: 'Signed in' }).textContent()) ?? '',
      /Signed in as Board Fictional Sales \(Seller\)/,
    );
    const nav = page.getByRole('navigation', { name: 'Console' });
    // D-66: a Seller's key with every scope also manages the Seller's people and keys.
    assert.deepEqual(await nav.getByRole('link').allTextContents(), [
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
    assert.equal(await page.getByRole('region', { name: 'Demo controls' }).count(), 0, 'no demo controls');

    await nav.getByRole('link', { name: 'New deal' }).click();
    await page.getByLabel('Account name').fill('Mine Fictional');
    await page.getByRole('button', { name: 'Create at sourced' }).click();
    await page.getByRole('heading', { name: 'Mine Fictional' }).waitFor();
    await nav.getByRole('link', { name: 'Pipeline' }).click();
    await page.getByRole('region', { name: 'sourced' }).getByRole('link', { name: 'Mine Fictional' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Not Yours Fictional' }).count(), 0, 'another Seller’s deal');
    const mine = (await as(t, bearer(key.key)).get(`${t.prefix}/deals`)).body;
    assert.ok(mine.some((d: { account: { name: string }; sellerId: string }) => d.account.name === 'Mine Fictional'));
    assert.ok(mine.every((d: { sellerId: string }) => d.sellerId === sellerId));
    await page.screenshot({ path: `${SHOTS}keys-seller-board-wide.png`, fullPage: true });
    // A page the Seller does not work with shows its board.
    await page.goto(`${t.url}/console#/admin`);
    await page.getByRole('region', { name: 'sourced' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Admin' }).count(), 0);
    await assertNoKeyStored(page);
    await context.close();

    const narrow = await signedIn(key.key, 'narrow');
    await narrow.page.getByRole('region', { name: 'sourced' }).getByRole('link', { name: 'Mine Fictional' }).waitFor();
    await narrow.page.screenshot({ path: `${SHOTS}keys-seller-board-narrow.png` });
    await narrow.context.close();
  });

  it('a closer signs in and claims a gig at its desk as itself, with no closer to choose', async () => {
    const sellerId = await makeSeller(t, 'Gig Fictional Sales');
    const sellerKey = await makeKey(t, OP, { name: 'gigs', principal: sellerId });
    const closerId = await enrolCloser(t, 'Desk Fictional Closer');
    const closerKey = await makeKey(t, OP, { name: 'desk', principal: closerId });
    secrets.add(sellerKey.key).add(closerKey.key);
    const { gigId } = await escalatedDeal(t, sellerKey.key, 'Desk Gig Fictional');

    const { context, page } = await signedIn(closerKey.key);
    assert.match(
      (await page.getByRole('region', { name: 'Signed in' }).textContent()) ?? '',
      /Signed in as Desk Fictional Closer \(closer\)/,
    );
    await page.getByRole('heading', { name: 'Closer desk' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Console' });
    // D-66: a closer's key with every scope also manages the closer's people and keys.
    assert.deepEqual(await nav.getByRole('link').allTextContents(), [
      'Closer desk',
      'Proposals',
      'Insights',
      'Closers',
      'Team',
      'Keys',
    ]);
    assert.equal(await page.getByLabel('Acting closer').count(), 0, 'no closer picker');
    assert.equal(await page.getByRole('button', { name: 'Enrol' }).count(), 0, 'no enrolment');
    assert.match(
      (await page.getByRole('region', { name: 'Who is acting' }).textContent()) ?? '',
      /Desk Fictional Closer/,
    );
    const open = page.getByRole('region', { name: 'Open gigs' });
    const gig = open.getByRole('listitem').filter({ hasText: 'Desk Gig Fictional' });
    await gig.waitFor();
    await page.screenshot({ path: `${SHOTS}keys-closer-desk-wide.png`, fullPage: true });
    await gig.getByRole('button', { name: /^Claim/ }).click();
    await page.getByRole('region', { name: 'My gigs' }).getByText('Desk Gig Fictional').first().waitFor();
    const claimed = (await as(t, bearer(OP)).get(`/closers/gigs/${gigId}`)).body;
    assert.equal(claimed.status, 'claimed');
    assert.equal(claimed.closerId, closerId, 'claimed as the signed-in closer');
    await assertNoKeyStored(page);
    await context.close();

    const narrow = await signedIn(closerKey.key, 'narrow');
    await narrow.page.getByRole('region', { name: 'My gigs' }).getByText('Desk Gig Fictional').first().waitFor();
    await narrow.page.screenshot({ path: `${SHOTS}keys-closer-desk-narrow.png` });
    await narrow.context.close();
  });

  it('signing out returns to the sign-in page, and the cookie no longer works', async () => {
    const sellerId = await makeSeller(t, 'Leaving Fictional Sales');
    const key = await makeKey(t, OP, { name: 'leaving', principal: sellerId });
    const { context, page } = await signedIn(key.key);
    const cookie = await cookieOf(context);
    assert.equal((await as(t, { cookie }).get(`${t.prefix}/deals`)).status, 200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal((await context.cookies()).filter((c) => c.name === 'sp_console').length, 0, 'the cookie is cleared');
    const refused = await as(t, { cookie }).get(`${t.prefix}/deals`);
    assert.equal(refused.status, 401, 'the old cookie is refused');
    await context.close();
  });

  it('revoking the key ends an open session: the page returns to the sign-in page on its next call', async () => {
    const sellerId = await makeSeller(t, 'Revoked Fictional Sales');
    const key = await makeKey(t, OP, { name: 'revoked', principal: sellerId });
    const { context, page } = await signedIn(key.key);
    await page.getByRole('region', { name: 'sourced' }).waitFor();
    assert.equal((await as(t, bearer(OP)).post(`/keys/${key.id}/revoke`)).status, 200);
    const started = Date.now();
    const ended = page.getByText('Your session has ended; sign in again.');
    // The page's next call ends it: the click below, or a call of its own that comes first (the
    // live stream reconnecting, the inbox's count), which takes the link away before the click.
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Closers' })
      .click({ timeout: 5_000 })
      .catch(async (error) => {
        if (!(await ended.isVisible())) throw error;
      });
    await ended.waitFor({ timeout: 5_000 });
    // Each step above has its own bound; together they stay well within the key ring's reads
    // (every 2 s) and a loaded CI machine's pace (5.8 s once, with two suites beside it).
    assert.ok(Date.now() - started < 10_000);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await context.close();
  });

  it('another origin’s page cannot use the cookie, even on the same site (another port)', async () => {
    const sellerId = await makeSeller(t, 'Guarded Fictional Sales');
    const key = await makeKey(t, OP, { name: 'guarded', principal: sellerId });
    const { context, page } = await signedIn(key.key);
    const before = (await as(t, bearer(key.key)).get(`${t.prefix}/deals`)).body.length;
    // A page on 127.0.0.1 at another port: the same site, so SameSite lets the cookie go; the
    // service refuses it for the page's Origin.
    const evil: Server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const port = (evil.address() as AddressInfo).port;
      await page.goto(`http://127.0.0.1:${port}/`);
      const statuses: number[] = [];
      page.on('response', (response) => {
        if (response.url().startsWith(t.url)) statuses.push(response.status());
      });
      const outcome = await page.evaluate(
        async ({ url, prefix }) => {
          const results: string[] = [];
          for (const init of [
            { credentials: 'include' as const },
            {
              method: 'POST',
              mode: 'no-cors' as const,
              credentials: 'include' as const,
              headers: { 'content-type': 'text/plain' },
              body: JSON.stringify({
                account: { name: 'Forged Fictional', industry: 'saas', actor: 'B2B' },
                listValueUsd: 1,
              }),
            },
          ]) {
            try {
              const response = await fetch(`${url}${prefix}/deals`, init);
              results.push(`answered ${response.status} ${response.type}`);
            } catch (error) {
              results.push(`failed ${String(error)}`);
            }
          }
          return results;
        },
        { url: t.url, prefix: t.prefix },
      );
      // The read is withheld from the page (no CORS), and the service refused both.
      assert.match(outcome[0], /^failed/, outcome.join('; '));
      await page.waitForTimeout(200);
      assert.ok(
        statuses.length >= 1 && statuses.every((s) => s === 403),
        `the service answered ${statuses.join(', ')}`,
      );
      const after = (await as(t, bearer(key.key)).get(`${t.prefix}/deals`)).body.length;
      assert.equal(after, before, 'nothing was made');
      // And a request carrying the cookie with a foreign Origin is refused, read or write.
      const cookie = await cookieOf(context);
      for (const method of ['GET', 'POST']) {
        const answer = await as(t, { cookie, origin: `http://127.0.0.1:${port}` }).send(
          method,
          `${t.prefix}/deals`,
          method === 'POST' ? dealBody('Forged Fictional') : undefined,
        );
        assert.equal(answer.status, 403, method);
        assert.equal(answer.body.code, 'ORIGIN_NOT_ALLOWED');
      }
    } finally {
      await new Promise((resolve) => evil.close(resolve));
      await context.close();
    }
  });

  it('no URL any page asked for holds a key', () => {
    assert.ok(urls.length > 20, `${urls.length} requests recorded`);
    for (const url of urls) for (const key of secrets) assert.ok(!url.includes(key), `a key in ${url}`);
    for (const url of urls)
      assert.ok(!decodeURIComponent(url).includes('sp_sk_') && !decodeURIComponent(url).includes('sp_ck_'), url);
  });
});

describe('the console in keys mode with DEMO_CONTROLS=on, in Chromium (D-3)', { skip: browserSkip }, () => {
  let t: TestServer;
  let browser: Browser;
  before(async () => {
    t = await startKeysServer({ demoControls: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(key: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: WIDTHS.wide });
    const page = await context.newPage();
    failOnScriptError(page);
    await page.goto(`${t.url}/console`);
    await page.getByRole('link', { name: 'Sign in with a key' }).click();
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('region', { name: 'Signed in' }).waitFor();
    return { context, page };
  }

  it('the operator has the reset and the clock, and its reset seeds no closer; a Seller has neither', async () => {
    await enrolCloser(t, 'Reset Fictional Closer');
    const { context, page } = await signedIn(OP);
    try {
      const controls = page.getByRole('region', { name: 'Demo controls' });
      await controls.waitFor();
      await controls.getByLabel('Move the clock (hours)').fill('1');
      await controls.getByRole('button', { name: 'Move clock' }).click();
      await controls.getByText(/Demo time is now/).waitFor();
      page.once('dialog', (dialog) => dialog.accept());
      await controls.getByRole('button', { name: 'Reset demo' }).click();
      await controls.getByText('Demo reset.').waitFor();
      assert.deepEqual((await as(t, bearer(OP)).get('/closers/closers')).body, [], 'the reset seeded no closer');
    } finally {
      await context.close();
    }
    const sellerKey = (await makeKey(t, OP, { name: 'seller', principal: await makeSeller(t, 'Fictional Sales') })).key;
    const seller = await signedIn(sellerKey);
    try {
      assert.equal(await seller.page.getByRole('region', { name: 'Demo controls' }).count(), 0, 'not a Seller’s');
    } finally {
      await seller.context.close();
    }
  });
});

/** The label of the principal select's option matching `pattern`. */
async function optionLabel(page: Page, pattern: RegExp): Promise<string | undefined> {
  const select = page.getByRole('region', { name: 'Keys' }).getByLabel('For', { exact: true });
  const labels = await optionTexts(select, pattern);
  return labels.find((label) => pattern.test(label));
}
