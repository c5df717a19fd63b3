// The console says what is true (D-228, D-231, D-261, D-263), in Chromium against a real demo
// service: a missing deal's page names the demo reset, which the demo serves; a claimed gig's
// brief at the desk gives the deal's stage now, not the one it was posted at; the new-deal form
// says in words what is wrong with which field (never the validator's "must NOT have fewer than 1
// characters" or "must be >= 0.005"), a staffing rule's part included; the Proposals page fits
// 390 px, its scorecard inside its box; a deal's activity numbers its entries 1, 2, 3… with the
// refused proposals between them unnumbered.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, consolePage, launchChromium, type Size } from '../support/browser.ts';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { ADA, createDeal, negotiatingCloserGig } from '../support/marketplace-e2e.ts';

/** The numbers a person sees beside a list's items (Chromium's list markers, as read out), in order. */
async function markers(page: Page, list: string): Promise<{ number: string; text: string }[]> {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
    nodes: { nodeId: string; role?: { value: string }; name?: { value: string }; childIds?: string[] }[];
  };
  await cdp.detach();
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const target = nodes.find((n) => n.role?.value === 'list' && n.name?.value === list);
  assert.ok(target, `the list “${list}” is in the accessibility tree`);
  const text = (id: string): string => {
    const node = byId.get(id);
    if (!node) return '';
    if (node.role?.value === 'StaticText') return node.name?.value ?? '';
    return (node.childIds ?? []).map(text).join('');
  };
  return (target.childIds ?? []).flatMap((id) => {
    const item = byId.get(id);
    if (item?.role?.value !== 'listitem') return [];
    const marker = (item.childIds ?? []).map((c) => byId.get(c)).find((c) => c?.role?.value === 'ListMarker');
    const rest = (item.childIds ?? []).filter((c) => byId.get(c)?.role?.value !== 'ListMarker');
    return [{ number: (marker?.name?.value ?? '').trim(), text: rest.map(text).join('') }];
  });
}

describe('the console says what is true, in Chromium (D-228, D-231, D-261, D-263)', { skip: browserSkip }, () => {
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

  const open = (path = '', size: Size = 'wide'): Promise<Page> => consolePage(browser, t.url, path, size);

  it('a missing deal’s page in the demo says a demo reset may have wiped it', async () => {
    const page = await open('#/deals/deal_9999');
    await page.getByRole('alert').getByText('There is no deal 9999: it may have been wiped by a demo reset.').waitFor();
    await page.close();
  });

  it('the board’s search box finds deals by their account name, without regard to case (D-67)', async () => {
    await t.post(`${t.prefix}/deals`, {
      account: { ...account(), name: 'Zephyr Search Fictional' },
      listValueUsd: 9_000,
    });
    await t.post(`${t.prefix}/deals`, {
      account: { ...account(), name: 'ZEPHYR Labs Fictional' },
      listValueUsd: 9_000,
    });
    await t.post(`${t.prefix}/deals`, { account: { ...account(), name: 'Quasar Fictional' }, listValueUsd: 9_000 });
    const page = await open();
    await page.getByRole('link', { name: 'Quasar Fictional' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).fill('zephyr');
    await page.getByRole('link', { name: 'Quasar Fictional' }).waitFor({ state: 'detached' });
    const cards = page.getByRole('region', { name: 'sourced' }).getByRole('link');
    assert.deepEqual((await cards.allTextContents()).sort(), ['ZEPHYR Labs Fictional', 'Zephyr Search Fictional']);
    await page.getByRole('searchbox', { name: 'Search' }).fill('no such account');
    await page.getByText('No deal matches these filters.').waitFor();
    await page.close();
  });

  it('a claimed gig’s brief at the desk gives the deal’s stage now, as the line below it does', async () => {
    await t.post('/demo/reset');
    const { gig } = await negotiatingCloserGig(t, ADA, { account: { name: 'Moved On Fictional' } });
    const page = await open('#/desk');
    const mine = page.getByRole('region', { name: 'My gigs' }).getByRole('listitem', { name: /Moved On Fictional/ });
    await mine.getByText(/^Its deal, deal \d+, is at Negotiation\.$/).waitFor();
    const brief = await mine.locator('.brief').innerText();
    assert.match(brief, /· at Negotiation ·/, brief);
    assert.doesNotMatch(brief, /Meeting/, 'not the stage the gig was posted at');
    assert.equal(gig.brief.stage, 'meeting', 'the brief itself keeps the stage it was posted at');
    await page.close();
  });

  it('the new-deal form says in words what is wrong with which field', async () => {
    const page = await open('#/new');
    const form = page.getByRole('form', { name: 'New deal' });
    // The platform's defaults are in: the person's changes then stay.
    await page.waitForFunction(() => (document.querySelector('input[step="1"]') as HTMLInputElement)?.value === '14');
    await page.getByLabel('List value (USD)').fill('');
    // "Create at sourced" sends the form as it is: an empty account name too.
    await page.getByRole('button', { name: 'Create at sourced' }).click();
    const name = page.getByText('Account name cannot be empty');
    await name.waitFor();
    assert.equal(await name.getAttribute('title'), 'account.name: must NOT have fewer than 1 characters');
    const value = page.getByText('List value must be at least $0.01');
    await value.waitFor();
    assert.equal(await value.getAttribute('title'), 'listValueUsd: must be >= 0.005');
    // Each beside its own field.
    assert.equal(await page.locator('label', { hasText: 'Account name' }).getByRole('alert').count(), 1);
    assert.equal(await page.locator('label', { hasText: 'List value (USD)' }).getByRole('alert').count(), 1);
    let text = await form.innerText();
    assert.doesNotMatch(text, /must NOT|>=|listValueUsd|account\.name/, text);

    // The mandate's own checks: a staffing rule's part is said beside its role, in its words.
    await page.getByLabel('Account name').fill('Bounds Fictional');
    await page.getByLabel('List value (USD)').fill('20000');
    const closer = page.getByRole('group', { name: 'closer' });
    await closer.getByLabel('Staffed by').selectOption('humanIf');
    await closer.getByLabel('Deal size at least (USD)').fill('-5');
    await page.getByRole('button', { name: 'Create at sourced' }).click();
    const size = closer.getByText('Closer’s deal size must be from $0 to $1,000,000,000,000');
    await size.waitFor();
    assert.match((await size.getAttribute('title')) ?? '', /^mandate\.staffing\.closer\.humanIf\.minDealSizeUsd: /);
    text = await form.innerText();
    assert.doesNotMatch(text, /minDealSizeUsd|must be a number from/, text);
    await page.close();
  });

  it('the Proposals page fits 390 px: no page overflow, and its scorecard inside its box', async () => {
    await t.post('/demo/reset');
    const deal = await createDeal(t, { account: { name: 'Narrow Fictional' }, listValueUsd: 100_000 });
    for (let i = 0; i < 4; i++) assert.equal((await t.post(`${t.prefix}/deals/${deal.id}/advance`)).status, 200);
    const refused = await t.post(`${t.prefix}/deals/${deal.id}/advance`, { advanceTo: 'closed_won', valueUsd: 1 });
    assert.equal(refused.status, 422);
    const page = await open('#/proposals', 'narrow');
    await page.locator('table.scorecard tr[data-executor="agent"] [data-figure="refused"]').getByText('1').waitFor();
    await page.waitForLoadState('networkidle');
    const widths = await page.evaluate(() => {
      const box = document.querySelector('table.scorecard')?.closest('.table-scroll') as HTMLElement;
      return {
        page: document.documentElement.scrollWidth,
        window: innerWidth,
        scorecard: box.scrollWidth,
        box: box.clientWidth,
      };
    });
    assert.ok(widths.page <= widths.window, `the page: ${JSON.stringify(widths)}`);
    assert.ok(widths.scorecard <= widths.box, `the scorecard is cut off: ${JSON.stringify(widths)}`);
    await page.close();
  });

  it('a deal’s activity numbers its entries 1, 2, 3…, the refused proposals between them unnumbered', async () => {
    const deal = await createDeal(t, { account: { name: 'Numbered Fictional' }, listValueUsd: 100_000 });
    for (let i = 0; i < 4; i++) assert.equal((await t.post(`${t.prefix}/deals/${deal.id}/advance`)).status, 200);
    for (const valueUsd of [1, 2]) {
      const refused = await t.post(`${t.prefix}/deals/${deal.id}/advance`, { advanceTo: 'closed_won', valueUsd });
      assert.equal(refused.status, 422);
    }
    const won = await t.post(`${t.prefix}/deals/${deal.id}/advance`, { advanceTo: 'closed_won', valueUsd: 90_000 });
    assert.equal(won.status, 200, JSON.stringify(won.body));
    const page = await open(`#/deals/${deal.id}`);
    const list = page.getByRole('list', { name: 'Activity' });
    await list.locator('li.refusal').nth(1).waitFor();
    await list.getByText(/Closed won at \$90,000/).waitFor();
    const items = await markers(page, 'Activity');
    const entries = items.filter((item) => !item.text.includes('Refused'));
    const refusals = items.filter((item) => item.text.includes('Refused'));
    assert.equal(refusals.length, 2, JSON.stringify(items));
    assert.deepEqual(
      entries.map((item) => item.number),
      entries.map((_, i) => `${i + 1}.`),
      `the entries are numbered in sequence: ${JSON.stringify(items)}`,
    );
    assert.ok(
      refusals.every((item) => item.number === ''),
      `no refusal has a number: ${JSON.stringify(refusals)}`,
    );
    // The close after the refusals follows the entry before them.
    assert.match(entries.at(-1)?.text ?? '', /Closed won/);
    await page.close();
  });
});
