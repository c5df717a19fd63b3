// The console's Insights page and CSV downloads (D-73, D-74, D-279) in Debian's Chromium against a
// real keys-mode service. A known history (deals won through a closer, won and lost by the
// Seller's key, open ones, a refused proposal) is built through the API; at 1280 and 390 px the
// page's four tables (funnel, weighted forecast, time in stage, win rate by executor) hold the
// figures the API answers the same caller, for a Seller and for the operator (and the operator's
// Seller filter gives that Seller's), and two Sellers never see each other's; each chart's canvas
// is drawn; a phone's page never scrolls sideways; a chart's "Download CSV" saves its table as RFC
// 4180 CSV; each list's "Download CSV" (the board's deals, the refused proposals, the approvals, a
// closer's payouts) saves what the service answers with `Accept: text/csv`; a Seller without deals
// reads that plainly, with no chart; the demo has the page too. The tests take
// docs/console/insights-wide.png and insights-narrow.png (UPDATE_SCREENSHOTS=1).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  browserSkip,
  consolePage,
  launchChromium,
  SHOTS,
  type Size,
  signedInConsole,
  WIDTHS,
} from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  as,
  bearer,
  type Client,
  dealBody,
  enrolCloser,
  escalatedDeal,
  expectStatus,
  heldApproval,
  type KeyInfo,
  makeKey,
  makeSeller,
  OP,
} from '../support/keys.ts';

// The figures as the page must say them: USD with 2 decimals, shares as percentages, days with 2
// decimals, a figure over nothing as "—".
const DASH = '—';
const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const twoDecimals = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const months = new Intl.DateTimeFormat('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' });
const count = (n: number) => n.toLocaleString('en-US');
const share = (x: number | null) => (x === null ? DASH : `${Math.round(x * 10_000) / 100}%`);
const days = (x: number | null) => (x === null ? DASH : twoDecimals.format(x));
const STAGES: Record<string, string> = {
  sourced: 'Sourced',
  qualified: 'Qualified',
  meeting: 'Meeting',
  proposal: 'Proposal',
  negotiation: 'Negotiation',
};
const EXECUTORS: Record<string, string> = { agent: 'The agent', human: 'People' };
const TABLES = ['Funnel by stage', 'Weighted forecast by month', 'Time in stage', 'Win rate by executor'];

type Tables = Record<string, string[][]>;
type Durations = { deals: number; daysP50: number | null; daysP90: number | null };

/** The four insights as the API answers `client` (one Seller's, for the operator's filter). */
async function insightsOf(client: Client, sellerId?: string) {
  const seller = sellerId ? `sellerId=${sellerId}` : '';
  const read = async (path: string) => {
    const answer = await client.get(path);
    expectStatus(answer, 200, `GET ${path}`);
    return answer.body;
  };
  return {
    pipeline: await read(`/insights/pipeline?${seller}`),
    funnel: await read(`/insights/funnel?${seller}`),
    velocity: await read(`/insights/velocity?${seller}`),
    performance: await read(`/insights/performance?by=executor&${seller}`),
  };
}

/** The tables the page must show `client`, each a row of cells per row, its head first. */
async function expectedTables(client: Client, sellerId?: string): Promise<Tables> {
  const { pipeline, funnel, velocity, performance } = await insightsOf(client, sellerId);
  const durations = (d: Durations) => [count(d.deals), days(d.daysP50), days(d.daysP90)];
  return {
    'Funnel by stage': funnel.stages.map((s: any) => [
      STAGES[s.stage],
      count(s.reached),
      count(s.advanced),
      count(s.lost),
      share(s.conversion),
    ]),
    'Weighted forecast by month': pipeline.forecast.map((m: any) => [
      months.format(new Date(`${m.month}-01T00:00:00Z`)),
      count(m.deals),
      dollars.format(m.weightedValueUsd),
    ]),
    'Time in stage': [
      ...velocity.stages.map((s: any) => [STAGES[s.stage], ...durations(s)]),
      ['Creation to won', ...durations(velocity.toWon)],
      ['Creation to lost', ...durations(velocity.toLost)],
    ],
    'Win rate by executor': performance.rows.map((r: any) => [
      EXECUTORS[r.group],
      count(r.deals),
      count(r.won),
      count(r.lost),
      share(r.winRate),
      dollars.format(r.closedValueUsd),
      count(r.proposals.accepted),
      count(r.proposals.refused),
      share(r.refusalRate),
    ]),
  };
}

/** Each table of the page by its caption: a row of cell texts per body row. */
const shownTables = (page: Page): Promise<Tables> =>
  page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('main table')].map((table) => [
        (table as HTMLTableElement).caption?.textContent ?? '',
        [...(table as HTMLTableElement).tBodies[0].rows].map((row) =>
          [...row.cells].map((cell) => (cell.textContent ?? '').trim()),
        ),
      ]),
    ),
  );

/** Waits until the page's tables are `expected` (the page reads them again on a change). */
async function tablesAre(page: Page, expected: Tables, what: string) {
  const deadline = Date.now() + 10_000;
  let shown: Tables = {};
  while (Date.now() < deadline) {
    shown = await shownTables(page);
    if (JSON.stringify(shown) === JSON.stringify(expected)) return;
    await page.waitForTimeout(100);
  }
  assert.deepEqual(shown, expected, what);
}

/** Every chart's canvas, its size and how many of its pixels are painted. */
const canvases = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('main canvas')].map((element) => {
      const canvas = element as HTMLCanvasElement;
      const context = canvas.getContext('2d') as CanvasRenderingContext2D;
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
      return { width: canvas.width, height: canvas.height, painted, role: canvas.getAttribute('role') };
    }),
  );

/** Clicks, and answers the file the browser saved: its name and its text. */
async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') };
}

/** The page fits its width: no sideways scroll. */
async function fits(page: Page, what: string) {
  const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
  assert.ok(o.scroll <= o.inner, `${what}: ${o.scroll} > ${o.inner} px`);
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });

describe("the console's Insights page and CSV downloads, in Chromium (D-73, D-74)", { skip: browserSkip }, () => {
  let t: TestServer;
  let browser: Browser;
  let sellerA: KeyInfo;
  let sellerB: KeyInfo;
  let closer: KeyInfo;
  let empty: KeyInfo;
  let sellerBId: string;

  // The platform's clock, moved on between the moves, so that the deals spent days at stages.
  let offsetMs = 0;
  const later = (hours: number) => {
    offsetMs += hours * 3_600_000;
  };

  /** A fresh deal of the Seller's, moved by its own key through `stages`, `hours` apart. */
  async function walked(key: string, listValueUsd: number, stages: string[], hours: number[]) {
    const seller = as(t, bearer(key));
    const created = await seller.post(`${t.prefix}/deals`, dealBody('Charted Deal Fictional', undefined, listValueUsd));
    expectStatus(created, 201, 'POST /deals');
    for (const [i, advanceTo] of stages.entries()) {
      later(hours[i]);
      const body = advanceTo === 'closed_won' ? { advanceTo, valueUsd: listValueUsd - 1_000 } : { advanceTo };
      expectStatus(await seller.post(`${t.prefix}/deals/${created.body.id}/advance`, body), 200, `to ${advanceTo}`);
    }
    return created.body.id as string;
  }

  /** A fresh deal escalated to a human closer, whose gig the closer claims and closes won, `hours` apart. */
  async function wonByCloser(key: string, hours: number[]) {
    const { gigId } = await escalatedDeal(t, key, 'Closer Won Fictional');
    const gig = as(t, bearer(closer.key));
    later(hours[0]);
    expectStatus(await gig.post(`/closers/gigs/${gigId}/claim`, {}), 200, 'claim');
    for (const [i, advanceTo] of ['proposal', 'negotiation', 'closed_won'].entries()) {
      later(hours[i + 1]);
      const body = advanceTo === 'closed_won' ? { advanceTo, valueUsd: 20_000 } : { advanceTo };
      expectStatus(await gig.post(`/closers/gigs/${gigId}/advance`, body), 200, `gig to ${advanceTo}`);
    }
  }

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestServer({
      config: { auth: 'keys', operatorKey: OP, webhookAllowPrivate: true },
      clock: { now: () => Date.now() + offsetMs },
    });
    browser = await launchChromium();
    const sellerAId = await makeSeller(t, 'Charted Fictional Sales');
    sellerBId = await makeSeller(t, 'Other Charted Fictional');
    sellerA = await makeKey(t, OP, { name: 'charts A', principal: sellerAId });
    sellerB = await makeKey(t, OP, { name: 'charts B', principal: sellerBId });
    empty = await makeKey(t, OP, { name: 'nothing yet', principal: await makeSeller(t, 'Empty Fictional Sales') });
    closer = await makeKey(t, OP, { name: 'charts closer', principal: await enrolCloser(t, 'Chart Fictional Closer') });
    // Seller A: two deals won through the closer, one won and one lost by its own key (the agent's
    // way), a refused proposal on the lost one, and two open deals.
    await wonByCloser(sellerA.key, [5, 31, 52, 19]);
    await wonByCloser(sellerA.key, [11, 7, 26, 40]);
    const stages = ['qualified', 'meeting', 'proposal', 'negotiation'];
    await walked(sellerA.key, 30_000, [...stages, 'closed_won'], [13, 29, 45, 22, 37]);
    const lost = await walked(sellerA.key, 25_000, ['qualified', 'closed_lost'], [17, 60]);
    const refused = await as(t, bearer(sellerA.key)).post(`${t.prefix}/deals/${lost}/advance`, {
      advanceTo: 'meeting',
    });
    assert.ok(refused.status >= 400, `a closed deal's advance is refused: ${refused.text}`);
    await walked(sellerA.key, 40_000, stages.slice(0, 2), [9, 21]);
    await walked(sellerA.key, 55_000, stages.slice(0, 3), [14, 33, 8]);
    // Seller B: one won through the same closer, one open of its own value.
    await wonByCloser(sellerB.key, [3, 12, 18, 27]);
    await walked(sellerB.key, 77_000, stages.slice(0, 1), [6]);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Signed in with `key`, on the Insights page through the menu, its four tables shown. */
  async function insightsPage(key: string, size: Size) {
    const session = await signedInConsole(browser, t.url, key, size);
    await nav(session.page).getByRole('link', { name: 'Insights' }).click();
    await session.page.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    for (const name of TABLES) await session.page.getByRole('table', { name }).waitFor();
    return session;
  }

  for (const size of ['wide', 'narrow'] as const) {
    const px = `${WIDTHS[size].width} px`;

    it(`a Seller's and the operator's tables are the API's, each chart drawn (${px})`, async () => {
      const own = await expectedTables(as(t, bearer(sellerA.key)));
      const others = await expectedTables(as(t, bearer(sellerB.key)));
      const every = await expectedTables(as(t, bearer(OP)));
      // The history makes every table hold something, and the Sellers' figures differ.
      for (const name of TABLES) assert.ok(own[name].length > 0, `${name} has rows`);
      assert.notDeepEqual(own, others, "the two Sellers' figures differ");
      assert.notDeepEqual(own, every, "the Seller's are not everyone's");

      const seller = await insightsPage(sellerA.key, size);
      const { page } = seller;
      await tablesAre(page, own, "the Seller's tables are its own insights'");
      await page.waitForFunction(() => {
        const all = [...document.querySelectorAll('main canvas')] as HTMLCanvasElement[];
        return all.length === 4 && all.every((c) => c.width > 0 && c.height > 0);
      });
      const drawn = await canvases(page);
      assert.equal(drawn.length, 4, 'a chart per table');
      for (const canvas of drawn) {
        assert.ok(canvas.width > 0 && canvas.height > 0, `a canvas of ${canvas.width}×${canvas.height}`);
        assert.ok(canvas.painted > 500, `the chart is drawn (${canvas.painted} pixels painted)`);
        assert.equal(canvas.role, 'img');
      }
      const funnel = page.getByRole('region', { name: 'Funnel' });
      assert.match(
        (await funnel.getByRole('img').getAttribute('aria-label')) ?? '',
        /bar chart of reached, advanced and lost by stage.*table “Funnel by stage”/,
      );
      if (size === 'narrow') await fits(page, 'the Insights page at 390 px');
      await page.screenshot({ path: `${SHOTS}insights-${size}.png`, fullPage: size === 'wide' });
      await seller.context.close();

      // The operator's: every Seller's, then one Seller's through its filter.
      const operator = await insightsPage(OP, size);
      await tablesAre(operator.page, every, "the operator's tables are every Seller's");
      await operator.page.getByRole('form', { name: 'Range' }).getByLabel('Seller').selectOption(sellerBId);
      const chosen = await expectedTables(as(t, bearer(OP)), sellerBId);
      assert.deepEqual(chosen, others, "the operator's figures of a Seller are the Seller's own");
      await tablesAre(operator.page, chosen, "the operator's tables of Seller B");
      if (size === 'narrow') await fits(operator.page, "the operator's Insights page at 390 px");
      await operator.context.close();
    });
  }

  it("a chart's Download CSV saves its table as RFC 4180 CSV; a range narrows the figures", async () => {
    const { context, page } = await insightsPage(sellerA.key, 'wide');
    const { funnel, pipeline } = await insightsOf(as(t, bearer(sellerA.key)));
    const csv = await downloaded(page, () =>
      page
        .getByRole('region', { name: 'Funnel' })
        .getByRole('button', { name: /^Download CSV/ })
        .click(),
    );
    assert.match(csv.name, /^insights-funnel-\d{4}-\d{2}-\d{2}\.csv$/);
    assert.ok(csv.text.endsWith('\r\n') && !/[^\r]\n/.test(csv.text), 'every line ends in CRLF');
    const lines = csv.text.split('\r\n');
    assert.equal(lines[0], 'Stage,Reached,Advanced,Lost,Conversion (%)');
    const sourced = funnel.stages[0];
    const conversion = sourced.conversion === null ? '' : String(Math.round(sourced.conversion * 10_000) / 100);
    assert.equal(lines[1], `Sourced,${sourced.reached},${sourced.advanced},${sourced.lost},${conversion}`);
    assert.equal(lines.length, funnel.stages.length + 2, 'a header, a row per stage, and the last line end');

    const forecast = await downloaded(page, () =>
      page
        .getByRole('region', { name: 'Weighted forecast' })
        .getByRole('button', { name: /^Download CSV/ })
        .click(),
    );
    const [month] = pipeline.forecast;
    assert.deepEqual(forecast.text.split('\r\n').slice(0, 2), [
      'Month,Deals,Weighted value (USD)',
      `${month.month},${month.deals},${month.weightedValueUsd}`,
    ]);

    // A range before any deal was made: the cohort's charts say so; the forecast (now) stays.
    const range = page.getByRole('form', { name: 'Range' });
    await range.getByLabel('From').fill('2020-01-01');
    await range.getByLabel('To').fill('2020-02-01');
    await page.getByText('No deal was created in this range').waitFor();
    assert.equal(await page.getByRole('table', { name: 'Funnel by stage' }).count(), 0, 'no empty funnel drawn');
    await page.getByRole('table', { name: 'Weighted forecast by month' }).waitFor();
    await range.getByRole('button', { name: 'The last 90 days' }).click();
    await page.getByRole('table', { name: 'Funnel by stage' }).waitFor();
    await context.close();
  });

  it("each list's Download CSV saves what the service answers as CSV, with the session's cookie", async () => {
    const csvOf = async (key: string, path: string) => {
      const answer = await as(t, bearer(key)).get(path, { accept: 'text/csv' });
      expectStatus(answer, 200, `GET ${path} as CSV`);
      return answer.text;
    };
    const agent = await makeKey(t, OP, {
      name: 'held agent',
      principal: sellerA.principal,
      scopes: ['deals:read', 'deals:propose'],
      policy: { allowedMoves: [] },
    });
    await heldApproval(t, sellerA.key, agent.key);

    const { context, page } = await signedInConsole(browser, t.url, sellerA.key, 'wide');
    await page.getByRole('region', { name: 'sourced' }).waitFor();
    const deals = await downloaded(page, () => page.getByRole('button', { name: /^Download CSV/ }).click());
    assert.match(deals.name, /^deals-\d{4}-\d{2}-\d{2}\.csv$/);
    assert.equal(deals.text, await csvOf(sellerA.key, `${t.prefix}/deals`));
    assert.match(deals.text, /^id,sellerId,version,account\.name,/);
    assert.equal(
      deals.text.split('\r\n').length - 2,
      (await as(t, bearer(sellerA.key)).get(`${t.prefix}/deals`)).body.length,
    );

    await nav(page).getByRole('link', { name: 'Proposals' }).click();
    await page.getByRole('table', { name: 'Scorecard' }).waitFor();
    const proposals = await downloaded(page, () => page.getByRole('button', { name: /^Download CSV/ }).click());
    assert.match(proposals.name, /^refused-proposals-/);
    assert.equal(proposals.text, await csvOf(sellerA.key, `${t.prefix}/proposals`));
    assert.ok(proposals.text.split('\r\n').length > 2, 'the refused proposal is in it');

    await nav(page).getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('heading', { name: 'Approvals', exact: true }).waitFor();
    const approvals = await downloaded(page, () => page.getByRole('button', { name: /^Download CSV/ }).click());
    assert.match(approvals.name, /^approvals-/);
    assert.equal(approvals.text, await csvOf(sellerA.key, '/approvals?status=pending'));
    assert.equal(approvals.text.split('\r\n').length, 3, 'a header and the one pending approval');
    await context.close();

    const desk = await signedInConsole(browser, t.url, closer.key, 'wide');
    const register = desk.page.getByRole('region', { name: 'Register and payouts' });
    const payouts = await downloaded(desk.page, () => register.getByRole('button', { name: /^Download CSV/ }).click());
    assert.match(payouts.name, new RegExp(`^payouts-${closer.principal}-`));
    assert.equal(payouts.text, await csvOf(closer.key, `/closers/closers/${closer.principal}`));
    assert.match(payouts.text, /^at,gigId,dealId,kind,amountUsd\r\n/);
    assert.equal(payouts.text.split('\r\n').length - 2, 3, 'a payout per deal the closer won');
    await desk.context.close();
  });

  it('a Seller without deals reads that plainly: no chart, no empty axes', async () => {
    const { context, page } = await signedInConsole(browser, t.url, empty.key, 'narrow');
    await nav(page).getByRole('link', { name: 'Insights' }).click();
    await page.getByText('No deals yet, so there is nothing to chart').waitFor();
    assert.equal(await page.locator('main canvas').count(), 0, 'no chart');
    assert.equal(await page.locator('main table').count(), 0, 'no table');
    await fits(page, 'the empty Insights page at 390 px');
    await context.close();
  });
});

describe('the Insights page in the demo, under another deal prefix', { skip: browserSkip }, () => {
  let t: TestServer;
  let browser: Browser;
  before(async () => {
    t = await startTestServer({ config: { dealPrefix: '/sales' } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('is in the menu, its tables are the API’s, and the board’s CSV is the served list’s', async () => {
    const page = await consolePage(browser, t.url);
    await page.getByRole('heading', { name: 'Pipeline' }).waitFor();
    await nav(page).getByRole('link', { name: 'Insights' }).click();
    await page.getByText('No deals yet, so there is nothing to chart').waitFor();
    const demo = as(t, {});
    const created = await demo.post('/sales/deals', {
      account: { name: 'Demo Chart Fictional', industry: 'saas', actor: 'B2B' },
      listValueUsd: 12_000,
    });
    expectStatus(created, 201, 'POST /sales/deals');
    const moved = await demo.post(`/sales/deals/${created.body.id}/advance`, { advanceTo: 'qualified' });
    expectStatus(moved, 200, 'the agent advances it');
    // The page reads the insights again when a deal changes (the event stream).
    await page.getByRole('table', { name: 'Funnel by stage' }).waitFor();
    await tablesAre(page, await expectedTables(demo), "the demo's tables");
    await nav(page).getByRole('link', { name: 'Pipeline' }).click();
    await page.getByRole('region', { name: 'qualified' }).getByRole('link', { name: 'Demo Chart Fictional' }).waitFor();
    const deals = await downloaded(page, () => page.getByRole('button', { name: /^Download CSV/ }).click());
    const served = await demo.get('/sales/deals', { accept: 'text/csv' });
    assert.equal(deals.text, served.text);
    assert.match(deals.text, /Demo Chart Fictional/);
    await page.close();
  });
});
