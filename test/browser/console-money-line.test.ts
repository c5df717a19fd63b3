// D-73: the board's money line is the money insight's, for the same caller. A Seller whose deal a
// closer closed won reads the closer's commission there (it once read $0.00: the board added up
// closers' ledgers, which a Seller's key may not read), and the operator reads every Seller's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkip, launchChromium, signedInConsole } from '../support/browser.ts';
import type { TestServer } from '../support/http.ts';
import { as, bearer, enrolCloser, makeKey, makeSeller, OP, startKeysServer, wonDeal } from '../support/keys.ts';

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

describe("the board's money line is the money insight's, in Chromium (D-73)", { skip: browserSkip }, () => {
  let t: TestServer;
  let browser: Browser;
  before(async () => {
    t = await startKeysServer();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it("a Seller's commissions paid, won value and platform fees; the operator's every Seller's", async () => {
    const seller = await makeKey(t, OP, { name: 'board', principal: await makeSeller(t, 'Money Line Fictional') });
    const other = await makeKey(t, OP, { name: 'other', principal: await makeSeller(t, 'Other Line Fictional') });
    const closer = await makeKey(t, OP, { name: 'closer', principal: await enrolCloser(t, 'Commission Fictional') });
    await wonDeal(t, seller.key, closer.key);
    await wonDeal(t, other.key, closer.key);
    for (const [key, deals] of [
      [seller.key, 1],
      [OP, 2],
    ] as const) {
      const money = (await as(t, bearer(key)).get('/insights/money')).body;
      assert.equal(money.closedWon.deals, deals);
      assert.ok(money.commissionsUsd > 0, 'a commission was paid');
      const session = await signedInConsole(browser, t.url, key, 'wide');
      // The operator's first page is its keys: the board is a link away, for a Seller too.
      await session.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Pipeline' }).click();
      const summary = session.page.getByRole('region', { name: 'Summary' });
      await summary.getByText(dollars.format(money.commissionsUsd)).waitFor();
      const text = await summary.innerText();
      assert.match(text, new RegExp(`Commissions paid\\s+\\${dollars.format(money.commissionsUsd)}`));
      assert.match(text, new RegExp(`Won value\\s+\\${dollars.format(money.closedWon.valueUsd)}`));
      assert.match(text, new RegExp(`Platform fees\\s+\\${dollars.format(money.platformFeesUsd)}`));
      await session.context.close();
    }
  });
});
