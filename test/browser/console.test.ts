// The web console (D-43) in a real browser: Debian's Chromium through playwright-core against a
// real service on a real port. A person sells a deal with a human closer in the form, sees it
// escalate on the board, claims it at the desk, is shown the gate's message for a close below
// the floor, closes it won and sees the payout and the settlement; a move made through the API
// appears on an open board without a reload; an older filter's answer that arrives late does not
// replace the newer filter's deals; a move from a stale page is refused with what changed. The
// tests also take docs/console.md's screenshots and time a board of 1,000 deals.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, consolePage, launchChromium, SHOTS, type Size, WIDTHS } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { createDeal, dealBody } from '../support/marketplace-e2e.ts';

describe('the web console in Chromium (D-43)', { skip: browserSkip }, () => {
  let t: TestServer;
  let browser: Browser;
  before(async () => {
    t = await startTestServer();
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A page on the console; any script error fails the test that made it. */
  const open = (path = '', size: Size = 'wide'): Promise<Page> => consolePage(browser, t.url, path, size);

  it('serves the page with an ETag (no-cache) and its hashed assets immutable', async () => {
    const page = await fetch(`${t.url}/console`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    const etag = page.headers.get('etag') as string;
    assert.match(etag, /^"[\w-]+"$/);
    const again = await fetch(`${t.url}/console`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    const html = await page.text();
    const assets = [...html.matchAll(/\/console\/assets\/(app-[\w]+\.(?:js|css))/g)].map((m) => m[1]);
    assert.equal(assets.length, 2, html);
    for (const name of assets) {
      const asset = await fetch(`${t.url}/console/assets/${name}`);
      assert.equal(asset.status, 200);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    }
    assert.equal((await fetch(`${t.url}/console/assets/app-nothing.js`)).status, 404);
    assert.doesNotMatch(html, /https?:\/\//, 'nothing fetched from outside');
  });

  it('a person takes a deal from the form through the marketplace to its settlement', async () => {
    await t.post('/demo/reset');
    const page = await open('#/new');
    // The form: the defaults are the platform's, the closer role staffed with a human.
    await page.getByLabel('Account name').fill('Globex Fictional');
    await page.getByLabel('Industry').fill('saas');
    await page.getByLabel('List value (USD)').fill('250000');
    await page.getByRole('group', { name: 'closer' }).getByLabel('Staffed by').selectOption('human');
    assert.equal(await page.getByLabel('Commission (%)').inputValue(), '10');
    await page.getByRole('button', { name: 'Sell' }).click();
    // The sale escalates: the deal waits at meeting for a human closer.
    await page.getByRole('heading', { name: 'Globex Fictional' }).waitFor();
    assert.equal(await page.getByLabel('Stage').textContent(), 'Meeting');
    await page.screenshot({ path: `${SHOTS}deal-wide.png`, fullPage: true });

    // The board: the deal in the meeting column, with its human-track badge.
    await page.getByRole('link', { name: 'Pipeline' }).click();
    const meeting = page.getByRole('region', { name: 'meeting' });
    await meeting.getByRole('link', { name: 'Globex Fictional' }).waitFor();
    assert.match((await meeting.textContent()) ?? '', /human track/);

    // The desk: Ada claims the gig, works it to negotiation.
    await page.getByRole('link', { name: 'Closer desk' }).click();
    await page.getByLabel('Acting closer').selectOption('closer_0001');
    const openGigs = page.getByRole('region', { name: 'Open gigs' });
    await openGigs.getByRole('button', { name: 'Claim' }).click();
    const mine = page.getByRole('region', { name: 'My gigs' });
    await mine.getByRole('button', { name: 'Advance to proposal' }).click();
    await mine.getByRole('button', { name: 'Advance to negotiation' }).click();

    // A close below the floor: the gate's message, where the person acts; the button waits.
    await mine.getByLabel('Close value (USD)').fill('150000');
    const closeWon = mine.getByRole('button', { name: 'Close won' });
    await mine
      .getByText(/\$150,000\.00 is below the negotiation floor \$200,000\.00 \(80% of list value \$250,000\.00\)/)
      .waitFor();
    assert.equal(await closeWon.isDisabled(), true);

    // At 230,000 the gate would accept: close won.
    await mine.getByLabel('Close value (USD)').fill('230000');
    await page.waitForFunction(() => {
      const button = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Close won');
      return button && !button.disabled;
    });
    await closeWon.click();
    const payouts = page.getByRole('table', { name: 'Payouts' });
    await payouts.getByText('$23,000.00').waitFor();
    assert.match((await payouts.textContent()) ?? '', /commission/);
    await page.screenshot({ path: `${SHOTS}desk-wide.png`, fullPage: true });

    // The deal's page: closed won, and its settlement.
    await payouts.getByRole('link', { name: /^deal \d+$/ }).click();
    const settlement = page.getByRole('region', { name: 'Settlement' });
    await settlement.waitFor();
    assert.equal(await page.getByLabel('Stage').textContent(), 'Closed won');
    const money = (await settlement.textContent()) ?? '';
    assert.match(money, /Closer commission\$23,000\.00/);
    assert.match(money, /Platform fee\$11,500\.00/);
    assert.match(money, /Net to seller\$195,500\.00/);
    await page.screenshot({ path: `${SHOTS}settlement-wide.png`, fullPage: true });
    await page.close();
  });

  it('a move made through the API appears on an open board within 2 s, without a reload', async () => {
    const page = await open();
    await page.getByRole('region', { name: 'sourced' }).waitFor();
    const deal = await createDeal(t, { account: { name: 'Live Fictional' } });
    await page
      .getByRole('region', { name: 'sourced' })
      .getByRole('link', { name: 'Live Fictional' })
      .waitFor({ timeout: 2_000 });
    const started = Date.now();
    await t.post(`${t.prefix}/deals/${deal.id}/advance`);
    await page
      .getByRole('region', { name: 'qualified' })
      .getByRole('link', { name: 'Live Fictional' })
      .waitFor({ timeout: 2_000 });
    assert.ok(Date.now() - started < 2_000);
    assert.equal(
      await page.getByRole('region', { name: 'sourced' }).getByRole('link', { name: 'Live Fictional' }).count(),
      0,
    );
    await page.close();
  });

  it("shows the newest filter's deals when an older filter's answer arrives after it", async () => {
    await createDeal(t, { account: { name: 'Slow Sourced Fictional' } });
    const ahead = await createDeal(t, { account: { name: 'Fast Qualified Fictional' } });
    await t.post(`${t.prefix}/deals/${ahead.id}/advance`);
    const page = await open();
    await page
      .getByRole('region', { name: 'qualified' })
      .getByRole('link', { name: 'Fast Qualified Fictional' })
      .waitFor();
    // The list of the first filter chosen (sourced) answers a second late, after the second's.
    let delayed = 0;
    await page.route(
      (url) => url.pathname.endsWith(`${t.prefix}/deals`) && url.searchParams.get('stage') === 'sourced',
      async (route) => {
        delayed += 1;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await route.continue();
      },
    );
    const stage = page.getByRole('form', { name: 'Filters' }).getByLabel('Stage');
    await stage.selectOption('sourced');
    await stage.selectOption('qualified');
    const shown = page
      .getByRole('region', { name: 'qualified' })
      .getByRole('link', { name: 'Fast Qualified Fictional' });
    await shown.waitFor();
    await page.waitForTimeout(1_500);
    assert.equal(delayed, 1, 'the sourced list was asked for, and answered late');
    assert.equal(await shown.count(), 1, "the qualified deal is still shown after the older filter's answer");
    assert.equal(await page.getByRole('link', { name: 'Slow Sourced Fictional' }).count(), 0);
    await page.close();
  });

  it('a move from a stale page is refused with what changed (If-Match), and nothing moves', async () => {
    const deal = await createDeal(t, { account: { name: 'Stale Fictional' } });
    const page = await browser.newPage({ viewport: WIDTHS.wide });
    // No stream: the page cannot learn of the change by itself.
    await page.route('**/events/stream**', (route) => route.abort());
    // Its dry runs never answer: one that ran after the change below would find the page stale and
    // read the deal again, and a slow machine cannot tell when the last has run. Unanswered, they
    // leave every move offered.
    await page.route(
      (url) => url.searchParams.get('dryRun') === 'true',
      () => {},
    );
    await page.goto(`${t.url}/console#/deals/${deal.id}`);
    await page.getByRole('button', { name: 'Advance to qualified' }).waitFor();
    await t.post(`${t.prefix}/deals/${deal.id}/signals`, { signals: ['budget_approved'] });
    await page.getByRole('button', { name: 'Advance to qualified' }).click();
    await page.getByText(/This deal changed since you opened it: it is now at Sourced\./).waitFor();
    assert.equal((await t.get(`${t.prefix}/deals/${deal.id}`)).body.stage, 'sourced');
    await page.close();
  });

  it('shows the moves the gate would refuse disabled, with its reason (dry runs)', async () => {
    const deal = await createDeal(t, { account: { name: 'Floor Fictional' }, listValueUsd: 100_000 });
    for (let i = 0; i < 4; i++) await t.post(`${t.prefix}/deals/${deal.id}/advance`);
    const page = await open(`#/deals/${deal.id}`);
    await page.getByLabel('Close value (USD)').fill('70000');
    await page.getByText(/\$70,000\.00 is below the negotiation floor \$80,000\.00/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Close won' }).isDisabled(), true);
    assert.equal(await page.getByRole('button', { name: 'Close lost' }).isDisabled(), false);
    await page.close();
  });

  it('a mandate out of bounds shows each violation beside its field', async () => {
    const page = await open('#/new');
    await page.getByLabel('Account name').fill('Bounds Fictional');
    await page.getByLabel('Commission (%)').fill('50');
    await page.getByRole('button', { name: 'Create at sourced' }).click();
    const field = page.getByLabel(/Commission \(%\)/);
    // In words (D-228), the API's own text in its title.
    const violation = page.getByText('Commission 50% is above the 12% maximum');
    await violation.waitFor();
    assert.match((await violation.getAttribute('title')) ?? '', /^mandate\.commissionPct: 0\.5 is above/);
    assert.ok(await field.isVisible());
    await page.close();
  });

  it('the board, a deal page and the desk at 1280 and 390 px wide (docs/console.md’s screenshots)', async () => {
    for (const size of ['wide', 'narrow'] as const) {
      const board = await open('', size);
      await board.getByRole('region', { name: 'closed_won' }).waitFor();
      await board.screenshot({ path: `${SHOTS}board-${size}.png`, fullPage: size === 'wide' });
      const id = (await t.get(`${t.prefix}/deals?stage=closed_won`)).body[0].id;
      await board.goto(`${t.url}/console#/deals/${id}`);
      await board.getByRole('region', { name: 'Settlement' }).waitFor();
      await board.screenshot({ path: `${SHOTS}deal-${size}.png`, fullPage: size === 'wide' });
      await board.goto(`${t.url}/console#/desk`);
      await board.getByLabel('Acting closer').waitFor();
      await board.screenshot({ path: `${SHOTS}desk-${size}.png`, fullPage: size === 'wide' });
      // Every page has the navigation D-43 names.
      for (const name of ['Pipeline', 'Closer desk']) assert.ok(await board.getByRole('link', { name }).isVisible());
      await board.close();
    }
  });

  it('is usable from the keyboard: from the board to a deal, and a claim at the desk, without a mouse', async () => {
    await t.post('/demo/reset');
    const escalated = (
      await t.post(
        `${t.prefix}/sell`,
        dealBody({ account: { name: 'Keys Fictional' }, mandate: { staffing: { closer: 'human' } } }),
      )
    ).body;
    const page = await open();
    const link = page.getByRole('region', { name: 'meeting' }).getByRole('link', { name: 'Keys Fictional' });
    await link.waitFor();
    // Tab until the card's link has the focus, then follow it with Enter.
    for (let i = 0; i < 40 && !(await link.evaluate((el) => el === document.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    assert.ok(await link.evaluate((el) => el === document.activeElement), 'the card link takes the focus');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keys Fictional' }).waitFor();
    // The desk: the acting closer chosen and the gig claimed with the keyboard alone.
    await page.goto(`${t.url}/console#/desk`);
    const select = page.getByLabel('Acting closer');
    await select.focus();
    await page.keyboard.press('ArrowDown');
    const claim = page.getByRole('region', { name: 'Open gigs' }).getByRole('button', { name: 'Claim' });
    await claim.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'My gigs' }).getByRole('button', { name: 'Advance to proposal' }).waitFor();
    const gig = (await t.get(`/closers/gigs/${escalated.gig.id}`)).body;
    assert.equal(gig.status, 'claimed');
    assert.equal(gig.closerId, await select.inputValue());
    await page.close();
  });

  it('the closers: the directory, the match ranking, enrolling at the desk; the demo controls reset and move the clock', async () => {
    await t.post('/demo/reset');
    const page = await open('#/desk');
    await page.getByLabel('Name').fill('Nia Fictional');
    await page.getByLabel('Industries').fill('saas, logistics');
    await page.getByRole('button', { name: 'Enrol' }).click();
    await page.getByText('Enrolled Nia Fictional.').waitFor();
    assert.equal(await page.getByLabel('Acting closer').inputValue(), 'closer_0003');
    await page.getByRole('link', { name: 'Closers' }).click();
    const directory = page.getByRole('table', { name: 'Directory' });
    await directory.getByText('Nia Fictional').waitFor();
    await page.getByLabel('Industry').fill('logistics');
    await page.getByRole('button', { name: 'Rank closers' }).click();
    const ranking = page.getByRole('list', { name: 'Ranking' });
    await ranking.waitFor();
    assert.equal(await ranking.getByRole('listitem').count(), 3);

    // Demo controls: the clock moves (the answer says the new demo time), and a reset wipes.
    await page.getByLabel('Move the clock (hours)').fill('48');
    await page.getByRole('button', { name: 'Move clock' }).click();
    await page.getByText(/Demo time is now/).waitFor();
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Reset demo' }).click();
    await page.getByText('Demo reset.').waitFor();
    assert.equal((await t.get('/health')).body.closers, 2);
    await page.close();
  });

  it('the board filters by stage, owning role and human track', async () => {
    await t.post('/demo/reset');
    await t.post(
      `${t.prefix}/sell`,
      dealBody({ account: { name: 'Human Fictional' }, mandate: { staffing: { closer: 'human' } } }),
    );
    await t.post(`${t.prefix}/sell`, dealBody({ account: { name: 'Won Fictional' } }));
    await createDeal(t, { account: { name: 'Fresh Fictional' } });
    const page = await open();
    const filters = page.getByRole('form', { name: 'Filters' });
    /** Waits until the board shows exactly these deals (a filter answers after a reload of the list). */
    const shows = (expected: string[]) =>
      page.waitForFunction(
        (want) =>
          [...document.querySelectorAll('.card a')]
            .map((a) => a.textContent)
            .sort()
            .join('|') === want,
        [...expected].sort().join('|'),
      );
    await shows(['Fresh Fictional', 'Human Fictional', 'Won Fictional']);
    await filters.getByLabel('Human track').selectOption('true');
    await shows(['Human Fictional']);
    // Each filter cleared shows the whole board again before the next is chosen: a CI run on
    // Node 24 once timed out waiting for the next filter's board (two reloads in flight).
    await filters.getByLabel('Human track').selectOption('');
    await shows(['Fresh Fictional', 'Human Fictional', 'Won Fictional']);
    await filters.getByLabel('Role').selectOption('setter');
    await shows(['Fresh Fictional']);
    await filters.getByLabel('Role').selectOption('');
    await shows(['Fresh Fictional', 'Human Fictional', 'Won Fictional']);
    await filters.getByLabel('Stage').selectOption('closed_won');
    await shows(['Won Fictional']);
    assert.equal(await page.locator('section.column').count(), 1, 'one column: the stage chosen');
    await page.close();
  });

  it('a board of 1,000 deals renders in under a second', async (context) => {
    await t.post('/demo/reset');
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          t.post(`${t.prefix}/deals`, dealBody({ account: { name: `Bulk ${i + j} Fictional` } })),
        ),
      );
    }
    // The time is the page's own, from the navigation's start to the frame after the 1,000th card
    // is in the document (a MutationObserver sees it; the next animation frame is when it shows),
    // so Playwright's round trips are not counted. The best of five loads: one load can lose the
    // machine to the suites running beside it (npm test runs two files at once on two cores); a
    // board that is slow is slow every time.
    const page = await browser.newPage({ viewport: WIDTHS.wide });
    await page.addInitScript(() => {
      const marks = window as unknown as { boardShown?: number };
      new MutationObserver((_, observer) => {
        if (document.querySelectorAll('section[aria-label="sourced"] li').length < 1000) return;
        observer.disconnect();
        requestAnimationFrame(() => setTimeout(() => (marks.boardShown = performance.now())));
      }).observe(document, { childList: true, subtree: true });
    });
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.goto('about:blank');
      await page.goto(`${t.url}/console`);
      const shown = await page.waitForFunction(() => (window as unknown as { boardShown?: number }).boardShown);
      times.push(Math.round((await shown.jsonValue()) as number));
    }
    context.diagnostic(
      `board of 1,000 deals: ${times.join(', ')} ms from navigation to the frame showing the 1,000th card`,
    );
    assert.ok(Math.min(...times) < 1_000, `${times.join(', ')} ms`);
    await page.close();
  });
});
