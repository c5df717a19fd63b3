// The console's ledger pages (D-79 to D-82) in Debian's Chromium against a real keys-mode service
// whose earnings are held no time (PAYOUT_HOLD_DAYS=0) and whose platform clock stands in another
// month than the browser's: two deals of a Seller are closed won by two human closers through
// their gigs, the timers release the commissions and the operator runs the payouts through the
// API. At 1280 and 390 px a closer's desk shows its balances, what was paid out (its "Download
// CSV" the service's CSV) and its statement of the platform's month, the API's figures, adding up;
// an earlier month says it had no movement. The Seller records a partial refund on a won deal's
// page (with an Idempotency-Key) and sees it listed and the settlement's refunded amount; an
// over-refund is refused in words and changes nothing; the Seller's Statement page and the
// operator's (choosing the Seller) show the month's figures. In the demo, the desk's closer view
// shows an earning still held and the Statement page the demo's `seller:none`. The tests take
// docs/console/ledger-*.png (UPDATE_SCREENSHOTS=1).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, consolePage, launchChromium, SHOTS, signedInConsole, WIDTHS } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  as,
  bearer,
  enrolCloser,
  expectStatus,
  type KeyInfo,
  makeKey,
  makeSeller,
  OP,
  wonDeal,
} from '../support/keys.ts';
import {
  addsUp,
  cents,
  closerFigures,
  demoDealsWon,
  downloaded,
  figuresAre,
  fits,
  read,
  rowsOf,
  sellerFigures,
  signed,
  usd,
} from '../support/ledger-pages.ts';

/** The platform's time: February 2027, while the browser's clock is wherever the machine's is. */
const PLATFORM_START = Date.UTC(2027, 1, 10, 9);
const MONTH = '2027-02';

const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });

describe("the console's ledger pages, in Chromium (D-79 to D-82)", { skip: browserSkip }, () => {
  let t: TestServer;
  let browser: Browser;
  let seller: KeyInfo;
  let sellerId: string;
  let paidCloser: KeyInfo;
  let refundedCloser: KeyInfo;
  let refundedDeal: string;
  const started = Date.now();

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestServer({
      config: { auth: 'keys', operatorKey: OP, webhookAllowPrivate: true, payoutHoldDays: 0 },
      clock: { now: () => PLATFORM_START + (Date.now() - started) },
    });
    browser = await launchChromium();
    sellerId = await makeSeller(t, 'Ledger Fictional Sales');
    seller = await makeKey(t, OP, { name: 'ledger seller', principal: sellerId });
    paidCloser = await makeKey(t, OP, { name: 'paid', principal: await enrolCloser(t, 'Paid Fictional Closer') });
    refundedCloser = await makeKey(t, OP, {
      name: 'refunded',
      principal: await enrolCloser(t, 'Refunded Fictional Closer'),
    });
    // Each closer closes one of the Seller's deals won; the hold of 0 days ends at the next timers' run.
    await wonDeal(t, seller.key, paidCloser.key);
    refundedDeal = (await wonDeal(t, seller.key, refundedCloser.key)).dealId;
    await t.server.service.platform.runTimers();
    const run = await as(t, bearer(OP)).post('/payouts/runs', { reference: 'Bank batch 7 (fictional)' });
    expectStatus(run, 200, 'POST /payouts/runs');
    assert.equal(run.body.payouts.length, 2, 'both closers were paid');
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const size of ['wide', 'narrow'] as const) {
    it(`a closer sees its balances, what was paid out and its month's statement, adding up (${WIDTHS[size].width} px)`, async () => {
      const api = as(t, bearer(paidCloser.key));
      const id = paidCloser.principal;
      const balance = await read(api, `/ledger/balances?account=closer:${id}`);
      assert.ok(balance.paidUsd > 0, 'the commission was paid out');
      assert.equal(balance.asOf.slice(0, 7), MONTH, "the platform's month");
      const statement = await read(api, `/closers/closers/${id}/statement?month=${MONTH}`);
      addsUp(statement, cents(statement.earnedUsd) - cents(statement.clawedBackUsd) - cents(statement.paidUsd), id);
      assert.equal(statement.lines.length, 2, 'the commission and the payout');
      const [payout] = await read(api, `/payouts?closerId=${id}`);

      const { context, page } = await signedInConsole(browser, t.url, paidCloser.key, size);
      await page.getByRole('heading', { name: 'Closer desk' }).waitFor();
      const balances = page.getByRole('region', { name: 'Balances' });
      await balances.getByText(usd(balance.paidUsd)).waitFor();
      const terms = await balances
        .locator('dl > div')
        .evaluateAll((rows) =>
          rows.map((row) => `${row.querySelector('dt')?.textContent}: ${row.querySelector('dd')?.textContent}`),
        );
      assert.deepEqual(terms, [
        `Pending: ${usd(balance.pendingUsd)}`,
        `Available: ${usd(balance.availableUsd)}`,
        `Paid out: ${usd(balance.paidUsd)}`,
      ]);

      const paidOut = page.getByRole('table', { name: 'Paid out, newest first' });
      assert.deepEqual(
        (await rowsOf(paidOut)).map((row) => row.slice(1)),
        [[usd(payout.amountUsd), 'Bank batch 7 (fictional)']],
      );

      // The statement opens at the platform's month, not the browser's.
      const region = page.getByRole('region', { name: 'Monthly statement' });
      assert.equal(await region.getByLabel('Month', { exact: true }).inputValue(), MONTH);
      await figuresAre(region, closerFigures(statement), "the month's figures are the API's");
      const lines = await rowsOf(region.getByRole('table', { name: 'Statement lines, February 2027' }));
      assert.deepEqual(
        lines.map((row) => row.slice(1)),
        statement.lines.map((line: any) => [
          line.transfer.kind === 'payout'
            ? 'Paid out'
            : `Commission earned (gig ${Number(line.transfer.gigId.slice(4))})`,
          line.transfer.dealId ? `deal ${Number(line.transfer.dealId.slice(5))}` : '—',
          signed(line.effectUsd),
        ]),
      );
      await region
        .getByText(
          `Opening balance ${usd(statement.openingUsd)} + earned ${usd(statement.earnedUsd)} − clawed back ${usd(statement.clawedBackUsd)} − paid out ${usd(statement.paidUsd)} = closing balance ${usd(statement.closingUsd)}.`,
        )
        .waitFor();
      if (size === 'narrow') {
        await fits(page, 'the desk at 390 px');
        // A phone's picture starts at the balances, below the gigs.
        await page.evaluate(() => document.getElementById('balances-title')?.scrollIntoView());
      }
      await page.screenshot({ path: `${SHOTS}ledger-desk-${size}.png`, fullPage: size === 'wide' });

      if (size === 'wide') {
        const csv = await downloaded(page, () =>
          page
            .getByRole('region', { name: 'Paid out', exact: true })
            .getByRole('button', { name: /^Download CSV/ })
            .click(),
        );
        assert.match(csv.name, new RegExp(`^paid-out-${id}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
        assert.equal(csv.text, (await api.get(`/payouts?closerId=${id}`, { accept: 'text/csv' })).text);
        assert.match(csv.text, /^id,closerId,amountUsd,status,paidAt,reference\r\n/);
      }

      // The month before had no movement: said so, every figure zero.
      await region.getByLabel('Month', { exact: true }).fill('2027-01');
      await region.getByText('Nothing was earned, clawed back or paid out in January 2027.').waitFor();
      const before = await read(api, `/closers/closers/${id}/statement?month=2027-01`);
      await figuresAre(region, closerFigures(before), 'January 2027');
      assert.equal(await region.getByRole('table').count(), 0, 'no empty table');
      await context.close();
    });
  }

  it("a Seller records a partial refund on a won deal's page: listed, and the settlement's refunded", async () => {
    const api = as(t, bearer(seller.key));
    const settlement = await read(api, `${t.prefix}/deals/${refundedDeal}/settlement`);
    assert.equal(settlement.refundedUsd, undefined, 'nothing refunded yet');
    const { context, page } = await signedInConsole(browser, t.url, seller.key, 'wide');
    const keys: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/refunds'))
        keys.push(request.headers()['idempotency-key'] ?? '');
    });
    await page.goto(`${t.url}/console#/deals/${refundedDeal}`);
    const refunds = page.getByRole('region', { name: 'Refunds' });
    await refunds.getByText('No refund recorded: the customer has got nothing back.').waitFor();
    await refunds.getByText('Refunded $0.00 of the final value $20,000.00; $20,000.00 is left to refund.').waitFor();

    const form = refunds.getByRole('form', { name: 'Record a refund' });
    await form.getByLabel('Amount refunded (USD)').fill('5000');
    await form.getByLabel('Reason').fill('Two seats returned (fictional)');
    await form.getByRole('button', { name: 'Record refund' }).click();
    // A quarter of the value: a quarter of the commission and of the platform fee is reversed.
    const reversed = (cents(settlement.closerCommissionUsd) + cents(settlement.platformFeeUsd)) / 400;
    await refunds
      .getByRole('status')
      .getByText(`Refunded $5,000.00: ${usd(reversed)} of the commission and the platform fee was reversed.`)
      .waitFor();
    const table = refunds.getByRole('table', { name: 'Refunds recorded, oldest first' });
    assert.deepEqual(
      (await rowsOf(table)).map((row) => row.slice(1)),
      [['$5,000.00', 'Two seats returned (fictional)', usd(reversed)]],
    );
    await refunds
      .getByText('Refunded $5,000.00 of the final value $20,000.00; $15,000.00 is left to refund.')
      .waitFor();
    await page.getByRole('region', { name: 'Settlement' }).getByText('Refunded').waitFor();
    const facts = (await page.getByRole('region', { name: 'Settlement' }).textContent()) ?? '';
    assert.match(facts, /Refunded\$5,000\.00/);
    assert.equal(await form.getByLabel('Amount refunded (USD)').inputValue(), '', 'the form is emptied');

    assert.equal(keys.length, 1, 'one refund sent');
    assert.match(keys[0], /^console-[0-9a-f]{32}$/, 'with an Idempotency-Key');
    const listed = await read(api, `${t.prefix}/deals/${refundedDeal}/refunds`);
    assert.deepEqual(
      listed.map((r: any) => [r.amountUsd, r.reason]),
      [[5000, 'Two seats returned (fictional)']],
    );
    assert.equal((await read(api, `${t.prefix}/deals/${refundedDeal}/settlement`)).refundedUsd, 5000);
    await page.screenshot({ path: `${SHOTS}ledger-refund-wide.png`, fullPage: true });
    await context.close();
  });

  it('an over-refund is refused in words, and changes nothing', async () => {
    const api = as(t, bearer(seller.key));
    const closer = as(t, bearer(refundedCloser.key));
    const state = async () => ({
      deal: (await read(api, `${t.prefix}/deals/${refundedDeal}`)).version,
      refunds: await read(api, `${t.prefix}/deals/${refundedDeal}/refunds`),
      settlement: await read(api, `${t.prefix}/deals/${refundedDeal}/settlement`),
      closer: (await read(closer, `/ledger/balances?account=closer:${refundedCloser.principal}`)).balanceUsd,
    });
    const was = await state();
    const { context, page } = await signedInConsole(browser, t.url, seller.key, 'narrow');
    await page.goto(`${t.url}/console#/deals/${refundedDeal}`);
    const refunds = page.getByRole('region', { name: 'Refunds' });
    const form = refunds.getByRole('form', { name: 'Record a refund' });
    await form.getByLabel('Amount refunded (USD)').fill('15000.01');
    await form.getByLabel('Reason').fill('Everything returned (fictional)');
    await form.getByRole('button', { name: 'Record refund' }).click();
    await refunds
      .getByRole('alert')
      .getByText(
        'Nothing was refunded: the deal’s refunds together may not pass its final value. At most $15,000.00 is left to refund of the deal’s $20,000.00 ($5,000.00 refunded so far).',
      )
      .waitFor();
    assert.equal((await rowsOf(refunds.getByRole('table'))).length, 1, 'still the one refund');
    assert.equal(await form.getByLabel('Amount refunded (USD)').inputValue(), '15000.01', 'kept to correct');
    assert.deepEqual(await state(), was, 'nothing changed');
    await fits(page, 'the deal page with its refusal at 390 px');
    await page.screenshot({ path: `${SHOTS}ledger-refund-narrow.png`, fullPage: true });
    await context.close();
  });

  for (const size of ['wide', 'narrow'] as const) {
    it(`the Seller's Statement page shows the month's figures, adding up (${WIDTHS[size].width} px)`, async () => {
      const api = as(t, bearer(seller.key));
      const statement = await read(api, `/sellers/${sellerId}/statement?month=${MONTH}`);
      const { commissionsUsd: c, platformFeesUsd: p, feesUsd: f, refundsUsd: r } = statement;
      addsUp(statement, -cents(c) - cents(p) - cents(f) + cents(r), sellerId);
      assert.ok(c > 0 && p > 0 && r > 0, 'commissions, fees and a refund in the month');

      const { context, page } = await signedInConsole(browser, t.url, seller.key, size);
      await nav(page).getByRole('link', { name: 'Statement' }).click();
      await page.getByRole('heading', { name: 'Statement', level: 1 }).waitFor();
      const region = page.getByRole('region', { name: 'Monthly statement' });
      await figuresAre(region, sellerFigures(statement), "the Seller's figures are the API's");
      assert.equal(await region.getByLabel('Month', { exact: true }).inputValue(), MONTH);
      const lines = await rowsOf(region.getByRole('table', { name: 'Statement lines, February 2027' }));
      assert.deepEqual(
        lines.map((row) => row.at(-1)),
        statement.lines.map((line: any) => signed(line.effectUsd)),
      );
      // The refund gives back its share of each: the commission and the platform fee.
      const back = lines.filter((row) => row[1].startsWith('Given back by a refund')).map((row) => row[1]);
      assert.deepEqual(back.sort(), ['Given back by a refund: commission', 'Given back by a refund: platform fee']);
      if (size === 'narrow') await fits(page, 'the Statement page at 390 px');
      await page.screenshot({ path: `${SHOTS}ledger-statement-${size}.png`, fullPage: size === 'wide' });
      if (size === 'wide') {
        const csv = await downloaded(page, () => region.getByRole('button', { name: /^Download CSV/ }).click());
        assert.equal(csv.name, `statement-${sellerId}-${MONTH}.csv`);
        const served = await api.get(`/sellers/${sellerId}/statement?month=${MONTH}`, { accept: 'text/csv' });
        assert.equal(csv.text, served.text);
      }
      await context.close();
    });
  }

  it("the operator chooses a Seller and reads the Seller's statement", async () => {
    const statement = await read(as(t, bearer(OP)), `/sellers/${sellerId}/statement?month=${MONTH}`);
    const { context, page } = await signedInConsole(browser, t.url, OP, 'wide');
    await nav(page).getByRole('link', { name: 'Statement' }).click();
    await page.getByText('Choose a Seller to read its statement.').waitFor();
    await page.getByRole('form', { name: 'Seller' }).getByLabel('Seller').selectOption(sellerId);
    const region = page.getByRole('region', { name: 'Monthly statement' });
    await figuresAre(region, sellerFigures(statement), "the operator's figures of the Seller");
    await page.getByText(/^Ledger Fictional Sales stood at -\$[\d,.]+ as of /).waitFor();
    await context.close();
  });
});

describe('the ledger pages in the demo', { skip: browserSkip }, () => {
  let t: TestServer;
  let browser: Browser;
  before(async () => {
    t = await startTestServer();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it("the desk's closer sees its earning held; the Statement page is the demo's `none`", async () => {
    const demo = as(t, {});
    await demoDealsWon(demo, t.prefix);
    const balance = await read(demo, '/ledger/balances?account=closer:closer_0001');
    assert.ok(balance.pendingUsd > 0, 'held for 14 days');
    const month = balance.asOf.slice(0, 7);
    const page = await consolePage(browser, t.url, '#/desk');
    await page.getByLabel('Acting closer').selectOption('closer_0001');
    const balances = page.getByRole('region', { name: 'Balances' });
    await balances.getByText(usd(balance.pendingUsd)).waitFor();
    await page.getByText('Nothing paid out yet: each payout run pays what is available.').waitFor();
    const mine = await read(demo, `/closers/closers/closer_0001/statement?month=${month}`);
    await figuresAre(page.getByRole('region', { name: 'Monthly statement' }), closerFigures(mine), "Ada's month");

    await nav(page).getByRole('link', { name: 'Statement' }).click();
    const statement = await read(demo, `/sellers/none/statement?month=${month}`);
    assert.ok(statement.platformFeesUsd > 0 && statement.commissionsUsd > 0);
    await figuresAre(page.getByRole('region', { name: 'Monthly statement' }), sellerFigures(statement), 'the demo');
    await page.getByText(/^The demo’s deals stood at/).waitFor();
    await page.close();
  });
});
