// The console in keys mode says what is true of the deployment (D-231, D-260, D-262, D-263), in
// Chromium against a real keys-mode service without demo controls: a missing deal's page says
// what the session may see, never a demo reset the deployment does not serve; a rolled key whose
// grace ended is shown ended, with no Roll or Revoke, and links to the key that replaced it (and
// that key back to it); a rolled key still in its grace offers Revoke but not Roll; the
// operator's board names each card's Seller and filters by Seller; the Proposals page fits 390 px
// whatever its keys are named.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkip, launchChromium, type Size, signedInConsole } from '../support/browser.ts';
import type { TestServer } from '../support/http.ts';
import { as, bearer, freshDeal, makeKey, makeSeller, OP, startKeysServer } from '../support/keys.ts';

describe('the console in keys mode says what is true, in Chromium (D-260, D-262, D-263)', { skip: browserSkip }, () => {
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

  const signedIn = (key: string, size: Size = 'wide') => signedInConsole(browser, t.url, key, size);

  it('a missing deal’s page says what the session may see, and no demo reset', async () => {
    const mine = await makeKey(t, OP, { name: 'missing', principal: await makeSeller(t, 'Here Fictional Sales') });
    const theirs = await makeKey(t, OP, { name: 'other', principal: await makeSeller(t, 'There Fictional Sales') });
    const dealId = await freshDeal(t, theirs.key, 'Not Here Fictional');
    const number = dealId.replace(/^deal_0*/, '');

    const seller = await signedIn(mine.key);
    await seller.page.goto(`${t.url}/console#/deals/${dealId}`);
    const said = seller.page.getByRole('alert');
    await said.getByText(`There is no deal ${number} among the deals of Here Fictional Sales`).waitFor();
    assert.equal(
      await said.innerText(),
      `There is no deal ${number} among the deals of Here Fictional Sales: no deal has that id, or it is another Seller’s.`,
    );
    await seller.context.close();

    const operator = await signedIn(OP);
    await operator.page.goto(`${t.url}/console#/deals/deal_9999`);
    await operator.page.getByRole('alert').getByText('There is no deal 9999: no deal has that id.').waitFor();
    assert.doesNotMatch(await operator.page.locator('main').innerText(), /demo reset/);
    await operator.context.close();
  });

  it('a rolled key whose grace ended is shown ended, with no Roll or Revoke, and links to its successor', async () => {
    const principal = await makeSeller(t, 'Rolling Fictional Sales');
    const ended = await makeKey(t, OP, { name: 'Ended Fictional', principal });
    const endedRoll = await as(t, bearer(OP)).post(`/keys/${ended.id}/roll`, { graceSeconds: 0 });
    assert.equal(endedRoll.status, 201, endedRoll.text);
    const successor = endedRoll.body.id as string;
    const graced = await makeKey(t, OP, { name: 'Graced Fictional', principal });
    const gracedRoll = await as(t, bearer(OP)).post(`/keys/${graced.id}/roll`, { graceSeconds: 3_600 });
    assert.equal(gracedRoll.status, 201, gracedRoll.text);
    // The service says which key replaced which.
    assert.equal((await as(t, bearer(OP)).get(`/keys/${ended.id}`)).body.replacedBy, successor);
    assert.equal((await as(t, bearer(OP)).get(`/keys/${successor}`)).body.replacedBy, undefined);

    const { context, page } = await signedIn(OP);
    const table = page.getByRole('table', { name: 'Keys list' });
    const old = table.getByRole('row', { name: `Ended Fictional (${ended.id})` });
    await old.waitFor();
    const oldText = await old.innerText();
    assert.match(oldText, /Ended: expired at /, oldText);
    assert.doesNotMatch(oldText, /Revoked\s+no|\bno\b/, oldText);
    assert.equal(await old.getByRole('button').count(), 0, 'no Roll or Revoke for an ended key');
    assert.match(oldText, new RegExp(`Replaced by ${successor}`), oldText);

    // The link shows the key that replaced it, which names the key it replaces.
    await old.getByRole('link', { name: successor }).click();
    const next = table.getByRole('row', { name: `Ended Fictional (${successor})` });
    await page.waitForFunction((id) => document.activeElement?.id === `key-row-${id}`, successor);
    assert.equal(await next.getAttribute('aria-current'), 'true');
    assert.match(new URL(page.url()).hash, new RegExp(`^#/admin\\?key=${successor}$`));
    assert.match(await next.innerText(), new RegExp(`Replaces ${ended.id}`));
    await next.getByRole('button', { name: 'Roll Ended Fictional' }).waitFor();
    await page.getByRole('heading', { name: 'Admin' }).waitFor();

    // A rolled key still in its grace works until then: Revoke ends it now; it is not rolled again.
    const inGrace = table.getByRole('row', { name: `Graced Fictional (${graced.id})` });
    assert.match(await inGrace.innerText(), /Rolled: works until /);
    assert.equal(await inGrace.getByRole('button', { name: 'Roll Graced Fictional' }).count(), 0);
    await inGrace.getByRole('button', { name: 'Revoke Graced Fictional' }).waitFor();
    await context.close();
  });

  it('the operator’s board names each card’s Seller and filters by Seller', async () => {
    const north = await makeKey(t, OP, { name: 'north', principal: await makeSeller(t, 'North Fictional Sales') });
    const south = await makeKey(t, OP, { name: 'south', principal: await makeSeller(t, 'South Fictional Sales') });
    await freshDeal(t, north.key, 'Northern Deal Fictional');
    await freshDeal(t, south.key, 'Southern Deal Fictional');

    const { context, page } = await signedIn(OP);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Pipeline' }).click();
    const sourced = page.getByRole('region', { name: 'sourced' });
    const northern = sourced.getByRole('listitem').filter({ hasText: 'Northern Deal Fictional' });
    await northern.getByText('Seller: North Fictional Sales').waitFor();
    await sourced
      .getByRole('listitem')
      .filter({ hasText: 'Southern Deal Fictional' })
      .getByText('Seller: South Fictional Sales')
      .waitFor();

    await page
      .getByRole('form', { name: 'Filters' })
      .getByLabel('Seller')
      .selectOption({ label: 'South Fictional Sales' });
    await sourced.getByRole('link', { name: 'Northern Deal Fictional' }).waitFor({ state: 'detached' });
    await sourced.getByRole('link', { name: 'Southern Deal Fictional' }).waitFor();
    const southern = (await as(t, bearer(south.key)).get(`${t.prefix}/deals`)).body.length;
    const summary = await page.getByRole('region', { name: 'Summary' }).innerText();
    assert.match(summary, new RegExp(`Deals\\s+${southern}\\b`), summary);
    await context.close();

    // A Seller's board has neither: its deals are all its own.
    const seller = await signedIn(north.key);
    await seller.page
      .getByRole('region', { name: 'sourced' })
      .getByRole('link', { name: 'Northern Deal Fictional' })
      .waitFor();
    assert.equal(await seller.page.getByText(/^Seller: /).count(), 0);
    assert.equal(await seller.page.getByRole('form', { name: 'Filters' }).getByLabel('Seller').count(), 0);
    await seller.context.close();
  });

  it('the Proposals page fits 390 px whatever its keys are named', async () => {
    const principal = await makeSeller(t, 'Maximiliana Bartholomew-Featherstonehaugh Fictional Sales');
    const seller = await makeKey(t, OP, { name: 'a console key with a long and descriptive name', principal });
    const agent = await makeKey(t, seller.key, {
      name: 'the pricing agent of the north-eastern region',
      scopes: ['deals:read', 'deals:propose'],
    });
    const dealId = await freshDeal(t, seller.key, 'Incomprehensibilities Unlimited International Fictional');
    const proposer = as(t, bearer(agent.key));
    for (let i = 0; i < 4; i++)
      assert.equal((await proposer.post(`${t.prefix}/deals/${dealId}/advance`, {})).status, 200);
    const refused = await proposer.post(`${t.prefix}/deals/${dealId}/advance`, {
      advanceTo: 'closed_won',
      valueUsd: 1,
    });
    assert.equal(refused.status, 422);
    for (const key of [OP, seller.key]) {
      const { context, page } = await signedIn(key, 'narrow');
      await page.goto(`${t.url}/console#/proposals`);
      await page.getByRole('table', { name: 'By key' }).waitFor();
      await page.getByRole('list', { name: 'Newest refusals' }).getByRole('listitem').first().waitFor();
      const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
      assert.ok(o.scroll <= o.inner, `${key === OP ? 'the operator' : 'a Seller'}: ${o.scroll} > ${o.inner}`);
      await context.close();
    }
  });
});
