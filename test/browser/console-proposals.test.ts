// The console's refused proposals (D-61) in Debian's Chromium against a real service on
// a real port. In the demo: a close proposed below the floor through the API is on the deal's
// timeline, marked Refused, with the gate's reason and code; the Proposals page's scorecard and
// refusals by reason match the summary endpoint and its chart has the refusal; a refusal made
// while a page is open shows on it without a reload; an empty service says what the page is for;
// no page overflows at 1280 and 390 px. In keys mode: a Seller sees one row per key, its agent's
// refusals counted against that key, and nothing of another Seller's; a closer sees only its own.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { browserSkip, consolePage, launchChromium, type Size, signedInConsole } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  as,
  bearer,
  enrolCloser,
  escalatedDeal,
  freshDeal,
  type KeyInfo,
  makeKey,
  makeSeller,
  OP,
  startKeysServer,
} from '../support/keys.ts';
import { createDeal, negotiatingCloserGig } from '../support/marketplace-e2e.ts';

// Pictures for a person to look at (never docs/console.md's): .scratch/ is outside the tree's files.
const SHOTS = fileURLToPath(new URL('../../.scratch/console-shots/', import.meta.url));

type Summary = {
  accepted: { agent: number; human: number };
  refused: { agent: number; human: number };
  byCode: Record<string, number>;
};

/** Waits until `check` holds (polling), failing with `what` and the last value seen. */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > end) assert.fail(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

/** The figures of the scorecard's row of an executor. */
async function scorecardRow(page: Page, by: 'agent' | 'human') {
  const row = page.locator(`table.scorecard tr[data-executor="${by}"]`);
  const cell = (figure: string) => row.locator(`[data-figure="${figure}"]`).innerText();
  return { accepted: Number(await cell('accepted')), refused: Number(await cell('refused')), rate: await cell('rate') };
}

/** The refusals the chart's bars add up to. */
const chartTotal = (page: Page) =>
  page
    .locator('.refusal-chart .bars li')
    .evaluateAll((bars) => bars.reduce((sum, bar) => sum + Number(bar.getAttribute('data-refusals')), 0));

/** The page is not wider than its window. */
async function assertNoOverflow(page: Page, what: string) {
  const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
  assert.ok(o.scroll <= o.inner, `${what}: ${o.scroll} > ${o.inner}`);
}

/** The refused proposals of the activity list. */
const refusalsIn = (page: Page): Locator => page.getByRole('list', { name: 'Activity' }).locator('li.refusal');

describe('refused proposals in the console, in Chromium (D-61)', { skip: browserSkip }, () => {
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

  const open = (path = '', size: Size = 'wide'): Promise<Page> => consolePage(browser, t.url, path, size);

  /** A deal the agent works, advanced to negotiation: its next move is a close. */
  async function negotiating(name: string, listValueUsd = 100_000) {
    const deal = await createDeal(t, { account: { name }, listValueUsd });
    for (let i = 0; i < 4; i++) assert.equal((await t.post(`${t.prefix}/deals/${deal.id}/advance`)).status, 200);
    return deal;
  }

  /** Proposes a close won below the floor through the API: the gate's refusal (422). */
  async function closeBelowFloor(dealId: string, valueUsd: number) {
    const refused = await t.post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_won', valueUsd });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'GATE_BELOW_FLOOR');
    return refused.body.error as string;
  }

  it('an empty service says what the Proposals page is for', async () => {
    await t.post('/demo/reset');
    const page = await open('#/proposals');
    await page.getByRole('heading', { name: 'Proposals', level: 1 }).waitFor();
    await page.getByText(/No proposal yet: neither the agent nor a person has proposed a move/).waitFor();
    await page.getByText(/No refusals to chart/).waitFor();
    assert.equal((await scorecardRow(page, 'agent')).rate, '—');
    // Reachable from the navigation, like the other pages.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Pipeline' }).click();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Proposals' }).click();
    await page.getByRole('heading', { name: 'Proposals', level: 1 }).waitFor();
    await page.close();
  });

  it('a close proposed below the floor is on the deal’s timeline, marked Refused, with the gate’s reason', async () => {
    await t.post('/demo/reset');
    const deal = await negotiating('Floor Fictional');
    const reason = await closeBelowFloor(deal.id, 50_000);
    const kept = (await t.get(`${t.prefix}/deals/${deal.id}/proposals`)).body;
    assert.equal(kept.length, 1);
    assert.ok(reason.endsWith(kept[0].reason), `the record keeps the gate’s words: ${kept[0].reason}`);
    const { reason: gate } = kept[0];

    const page = await open(`#/deals/${deal.id}`);
    await page.getByRole('heading', { name: 'Floor Fictional' }).waitFor();
    const refusal = refusalsIn(page);
    await refusal.first().waitFor();
    assert.equal(await refusal.count(), 1);
    const text = await refusal.innerText();
    assert.match(text, /^.*Refused/);
    assert.ok(text.includes(gate), `the gate's reason in ${JSON.stringify(text)}`);
    assert.match(text, /The agent proposed Close won at \$50,000\./);
    assert.match(text, /Below the floor, GATE_BELOW_FLOOR/);
    assert.match(text, /Negotiation$/, 'the stage it was refused at');
    assert.equal(await refusal.getAttribute('title'), gate);
    // Marked by more than colour: a badge with the word, and its own border.
    const look = await refusal.evaluate((li) => {
      const style = getComputedStyle(li);
      return { border: style.borderTopStyle, badge: li.querySelector('.refused-badge')?.textContent };
    });
    assert.deepEqual(look, { border: 'dashed', badge: 'Refused' });
    // Interleaved by time: after the move to negotiation, the last line of the timeline.
    const lines = await page.getByRole('list', { name: 'Activity' }).getByRole('listitem').allInnerTexts();
    assert.match(lines.at(-2) ?? '', /Moved from Proposal to Negotiation/);
    assert.match(lines.at(-1) ?? '', /Refused/);

    // A refusal made while the page is open shows without a reload, newest last.
    const illegal = await t.post(`${t.prefix}/deals/${deal.id}/advance`, { advanceTo: 'meeting' });
    assert.equal(illegal.status, 422, JSON.stringify(illegal.body));
    await until(
      () => refusalsIn(page).count(),
      (n) => n === 2,
      'the second refusal on the open page',
      2_000,
    );
    assert.match(await refusalsIn(page).last().innerText(), new RegExp(illegal.body.code));
    await page.screenshot({ path: `${SHOTS}proposals-deal-wide.png`, fullPage: true });
    await page.close();
  });

  it('the Proposals page: the scorecard and the reasons match the summary, the chart has the refusals', async () => {
    await t.post('/demo/reset');
    const deal = await negotiating('Chart Fictional');
    await closeBelowFloor(deal.id, 10_000);
    await closeBelowFloor(deal.id, 20_000);
    // A human closer's refusal too: a close below the floor through its gig.
    const { gig } = await negotiatingCloserGig(t, 'closer_0001', {
      account: { name: 'Human Fictional' },
      listValueUsd: 100_000,
    });
    const human = await t.post(`/closers/gigs/${gig.id}/advance`, {
      advanceTo: 'closed_won',
      valueUsd: 1_000,
      closerId: 'closer_0001',
    });
    assert.equal(human.status, 422, JSON.stringify(human.body));
    const summary: Summary = (await t.get(`${t.prefix}/proposals/summary`)).body;
    assert.equal(summary.refused.agent, 2);
    assert.equal(summary.refused.human, 1);

    const page = await open('#/proposals');
    for (const by of ['agent', 'human'] as const) {
      const row = await until(
        () => scorecardRow(page, by),
        (r) => r.refused === summary.refused[by],
        `the ${by}'s row`,
      );
      assert.equal(row.accepted, summary.accepted[by], `${by} accepted`);
      const all = summary.accepted[by] + summary.refused[by];
      assert.equal(row.rate, `${Math.round((1000 * summary.refused[by]) / all) / 10}%`, `${by} rate`);
    }
    const reasons = page.getByRole('table', { name: 'Refusals by reason' });
    for (const [code, n] of Object.entries(summary.byCode)) {
      const row = reasons.locator(`tr[data-code="${code}"]`);
      assert.match(await row.innerText(), new RegExp(`${code}\\s+${n}$`));
    }
    // The chart: every refusal in a bar, each bar named by its hour and its count.
    await page.getByRole('heading', { name: 'Refusals over time' }).waitFor();
    assert.equal(await chartTotal(page), 3);
    const labels = await page
      .locator('.refusal-chart .bars li:not([data-refusals="0"])')
      .evaluateAll((bars) => bars.map((bar) => bar.getAttribute('aria-label') ?? ''));
    for (const label of labels) assert.match(label, /: \d+ refusals? \(\d+ by the agent, \d+ by people\)$/);
    assert.match(await page.locator('.refusal-chart figcaption').innerText(), /Refused proposals per hour/);
    // The newest refusals, each linking to its deal.
    const newest = page.getByRole('list', { name: 'Newest refusals' }).getByRole('listitem');
    assert.equal(await newest.count(), 3);
    assert.match(await newest.first().innerText(), /A human closer on gig 1 proposed Close won at \$1,000\./);
    // Filters narrow the chart and the list.
    await page.getByLabel('Executor').selectOption('human');
    await until(
      () => chartTotal(page),
      (n) => n === 1,
      'the chart of the people',
    );
    assert.equal(await newest.count(), 1);
    await page.getByLabel('Executor').selectOption('');
    await newest
      .nth(2)
      .getByRole('link', { name: /^deal \d+$/ })
      .click();
    await page.getByRole('heading', { name: 'Chart Fictional' }).waitFor();
    await page.close();
  });

  it('the Proposals page updates live when the gate refuses a proposal', async () => {
    await t.post('/demo/reset');
    const deal = await negotiating('Live Fictional');
    await closeBelowFloor(deal.id, 5_000);
    const page = await open('#/proposals');
    await until(
      () => scorecardRow(page, 'agent'),
      (r) => r.refused === 1,
      'the first refusal',
    );
    assert.equal(await chartTotal(page), 1);
    const before = (await scorecardRow(page, 'agent')).accepted;

    const started = Date.now();
    await closeBelowFloor(deal.id, 6_000);
    await until(
      () => scorecardRow(page, 'agent'),
      (r) => r.refused === 2,
      'the refusal made while open',
      3_000,
    );
    await until(
      () => chartTotal(page),
      (n) => n === 2,
      'the chart',
      3_000,
    );
    assert.ok(Date.now() - started < 3_000);
    assert.match(
      await page.getByRole('list', { name: 'Newest refusals' }).getByRole('listitem').first().innerText(),
      /Close won at \$6,000\./,
    );
    // A committed move counts too.
    await t.post(`${t.prefix}/deals/${deal.id}/advance`, { advanceTo: 'closed_won', valueUsd: 90_000 });
    await until(
      () => scorecardRow(page, 'agent'),
      (r) => r.accepted === before + 1,
      'the committed close',
      3_000,
    );
    const summary: Summary = (await t.get(`${t.prefix}/proposals/summary`)).body;
    assert.deepEqual(await scorecardRow(page, 'agent'), {
      accepted: summary.accepted.agent,
      refused: summary.refused.agent,
      rate: `${Math.round((1000 * summary.refused.agent) / (summary.accepted.agent + summary.refused.agent)) / 10}%`,
    });
    await page.close();
  });

  it('the Proposals page and a deal with refusals at 1280 and 390 px: no overflow, no script error', async () => {
    await t.post('/demo/reset');
    const deal = await negotiating('Incomprehensibilities Unlimited International Fictional');
    await closeBelowFloor(deal.id, 12_345.67);
    for (const size of ['wide', 'narrow'] as const) {
      const page = await open('#/proposals', size);
      await until(
        () => chartTotal(page),
        (n) => n === 1,
        `the chart at ${size}`,
      );
      await page.waitForLoadState('networkidle');
      await assertNoOverflow(page, `#/proposals at ${size}`);
      assert.ok(
        await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Proposals' }).isVisible(),
      );
      await page.screenshot({ path: `${SHOTS}proposals-${size}.png`, fullPage: true });
      await page.goto(`${t.url}/console#/deals/${deal.id}`);
      await refusalsIn(page).first().waitFor();
      await page.waitForLoadState('networkidle');
      await assertNoOverflow(page, `the deal page at ${size}`);
      await page.close();
    }
  });
});

describe('refused proposals in the console in keys mode, in Chromium (D-61)', { skip: browserSkip }, () => {
  let t: TestServer;
  let browser: Browser;
  let sellerA: KeyInfo;
  let agentA: KeyInfo;
  let carefulA: KeyInfo;
  let closer: KeyInfo;
  let dealA: string;
  let dealB: string;
  let keyB: KeyInfo;
  let idleA: KeyInfo;

  /** Proposes a close below the floor on a deal the agent took to negotiation, with `key`. */
  async function refusedClose(key: string, dealId: string, valueUsd: number) {
    const agent = as(t, bearer(key));
    for (let i = 0; i < 4; i++) assert.equal((await agent.post(`${t.prefix}/deals/${dealId}/advance`, {})).status, 200);
    const refused = await agent.post(`${t.prefix}/deals/${dealId}/advance`, { advanceTo: 'closed_won', valueUsd });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
  }

  before(async () => {
    t = await startKeysServer();
    browser = await launchChromium();
    // Seller A: a console key, an agent that gets refused, an agent that proposes well.
    const a = await makeSeller(t, 'Scorecard Fictional Sales');
    sellerA = await makeKey(t, OP, { name: 'A console', principal: a });
    agentA = await makeKey(t, sellerA.key, { name: 'reckless agent', scopes: ['deals:read', 'deals:propose'] });
    carefulA = await makeKey(t, sellerA.key, { name: 'careful agent', scopes: ['deals:read', 'deals:propose'] });
    dealA = await freshDeal(t, sellerA.key, 'Reckless Fictional');
    await refusedClose(agentA.key, dealA, 1_000);
    const calm = await freshDeal(t, sellerA.key, 'Careful Fictional');
    for (let i = 0; i < 2; i++)
      assert.equal((await as(t, bearer(carefulA.key)).post(`${t.prefix}/deals/${calm}/advance`, {})).status, 200);
    // Seller B: its own agent refused, which A must never see.
    const b = await makeSeller(t, 'Elsewhere Fictional Sales');
    const sellerB = await makeKey(t, OP, { name: 'B console', principal: b });
    keyB = await makeKey(t, sellerB.key, { name: 'agent of B', scopes: ['deals:read', 'deals:propose'] });
    dealB = await freshDeal(t, sellerB.key, 'Not Yours Fictional');
    await refusedClose(keyB.key, dealB, 4_321);
    // A closer refused on a gig of A's: A sees it on its deal, and the closer sees its own.
    const closerId = await enrolCloser(t, 'Gate Fictional Closer');
    closer = await makeKey(t, OP, { name: 'gate desk', principal: closerId });
    const { gigId } = await escalatedDeal(t, sellerA.key, 'Escalated Fictional');
    assert.equal((await as(t, bearer(closer.key)).post(`/closers/gigs/${gigId}/claim`, {})).status, 200);
    const illegal = await as(t, bearer(closer.key)).post(`/closers/gigs/${gigId}/advance`, {
      advanceTo: 'closed_won',
      valueUsd: 20_000,
    });
    assert.ok([409, 422].includes(illegal.status), JSON.stringify(illegal.body));
    // A key that proposes nothing.
    idleA = await makeKey(t, sellerA.key, { name: 'A reader', scopes: ['deals:read'] });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const signedIn = (key: string, size: Size = 'wide') => signedInConsole(browser, t.url, key, size);

  it('a Seller sees one row per key, its reckless agent’s refusal against that key, and nothing of another Seller', async () => {
    const summaryOf = async (keyId: string): Promise<Summary> =>
      (await as(t, bearer(sellerA.key)).get(`${t.prefix}/proposals/summary?keyId=${keyId}`)).body;
    const reckless = await summaryOf(agentA.id);
    assert.deepEqual(reckless.refused, { agent: 1, human: 0 });

    for (const size of ['wide', 'narrow'] as const) {
      const { context, page } = await signedIn(sellerA.key, size);
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Proposals' }).click();
      const perKey = page.getByRole('table', { name: 'By key' });
      const row = perKey.getByRole('row', { name: `reckless agent (${agentA.id})` });
      await row.waitFor();
      assert.equal(await row.locator('[data-figure="refused"]').innerText(), String(reckless.refused.agent));
      assert.equal(
        await row.locator('[data-figure="accepted"]').innerText(),
        String(reckless.accepted.agent + reckless.accepted.human),
      );
      assert.match(await row.innerText(), /Scorecard Fictional Sales/);
      const careful = await summaryOf(carefulA.id);
      const calmRow = perKey.getByRole('row', { name: `careful agent (${carefulA.id})` });
      assert.equal(await calmRow.locator('[data-figure="refused"]').innerText(), '0');
      assert.equal(await calmRow.locator('[data-figure="accepted"]').innerText(), String(careful.accepted.agent));
      // The keys that proposed nothing are named, not tabled.
      await page.getByText(new RegExp(`No proposals yet with the keys? .*A reader \\(${idleA.id}\\)`)).waitFor();

      // The whole: A's own refusals (its agent's and the closer's on its deal), never B's.
      const all: Summary = (await as(t, bearer(sellerA.key)).get(`${t.prefix}/proposals/summary`)).body;
      const agentRow = await until(
        () => scorecardRow(page, 'agent'),
        (r) => r.refused === all.refused.agent,
        'A’s scorecard',
      );
      assert.equal(agentRow.refused, 1);
      assert.equal((await scorecardRow(page, 'human')).refused, 1);
      await until(
        () => chartTotal(page),
        (n) => n === 2,
        'A’s chart',
      );
      const text = await page.locator('main').innerText();
      const dealNumberB = Number(dealB.replace(/^deal_0*/, ''));
      assert.doesNotMatch(text, new RegExp(`${keyB.id}\\b|agent of B|\\$4,321|deal ${dealNumberB}\\b`), 'nothing of B');

      // Charting one key: its refusals only.
      await row.getByRole('button', { name: 'Chart reckless agent' }).click();
      await until(
        () => chartTotal(page),
        (n) => n === 1,
        'the chart of the reckless agent',
      );
      await assertNoOverflow(page, `the Seller's proposals at ${size}`);
      await page.screenshot({ path: `${SHOTS}keys-proposals-${size}.png`, fullPage: true });

      // The deal's timeline names the key that proposed.
      await page.goto(`${t.url}/console#/deals/${dealA}`);
      const refusal = refusalsIn(page);
      await refusal.first().waitFor();
      const named = new RegExp(
        `The agent of Scorecard Fictional Sales with the key “reckless agent” \\(${agentA.id}\\) proposed`,
      );
      await until(
        () => refusal.innerText(),
        (text) => named.test(text),
        'the key named on the timeline',
      );
      // Another Seller's deal is not found, its refusals not shown.
      await page.goto(`${t.url}/console#/deals/${dealB}`);
      await page.getByText(/There is no deal \d+/).waitFor();
      await context.close();
    }
  });

  it('a closer sees only the proposals it made itself', async () => {
    const { context, page } = await signedIn(closer.key);
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.getByRole('link', { name: 'Proposals' }).click();
    const own: Summary = (await as(t, bearer(closer.key)).get(`${t.prefix}/proposals/summary`)).body;
    assert.deepEqual(own.refused, { agent: 0, human: 1 });
    await until(
      () => scorecardRow(page, 'human'),
      (r) => r.refused === 1,
      'the closer’s scorecard',
    );
    assert.equal((await scorecardRow(page, 'agent')).refused, 0);
    const row = page.getByRole('table', { name: 'By key' }).getByRole('row', { name: `gate desk (${closer.id})` });
    assert.equal(await row.locator('[data-figure="refused"]').innerText(), '1');
    const newest = page.getByRole('list', { name: 'Newest refusals' }).getByRole('listitem');
    assert.equal(await newest.count(), 1);
    await until(
      () => newest.innerText(),
      (text) => /Gate Fictional Closer on gig \d+ with the key “gate desk”/.test(text),
      'the closer named with its key',
    );
    assert.doesNotMatch(await page.locator('main').innerText(), /reckless agent|\$1,000\.|\$4,321/);
    await context.close();
  });
});
