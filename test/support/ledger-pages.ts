// The console's ledger pages as a browser test reads them (test/browser/console-ledger.test.ts):
// a statement's figures and a table's rows as the page shows them, the figures the page must show
// for a statement the API answers, whether a statement adds up, a saved download, and whether a
// page fits a phone's width; and the demo's two won deals. Amounts read as the console writes
// them: USD with 2 decimals.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { type Client, expectStatus } from './keys.ts';

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });
export const usd = (amount: number) => dollars.format(amount);
export const signed = (amount: number) => (amount > 0 ? `+${usd(amount)}` : usd(amount));
export const cents = (amount: number) => Math.round(amount * 100);

/** A statement's figures as the page shows them: each term and its amount. */
export const figuresOf = (region: Locator): Promise<Record<string, string>> =>
  region
    .locator('dl.statement-figures > div')
    .evaluateAll((rows) =>
      Object.fromEntries(
        rows.map((row) => [row.querySelector('dt')?.textContent ?? '', row.querySelector('dd')?.textContent ?? '']),
      ),
    );

/** A table's body rows, a row of cell texts each. */
export const rowsOf = (table: Locator): Promise<string[][]> =>
  table.evaluate((element) =>
    [...(element as HTMLTableElement).tBodies[0].rows].map((row) =>
      [...row.cells].map((cell) => (cell.textContent ?? '').trim()),
    ),
  );

/** Clicks, and answers the file the browser saved: its name and its text. */
export async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') };
}

/** The page fits its width: no sideways scroll. */
export async function fits(page: Page, what: string) {
  const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
  assert.ok(o.scroll <= o.inner, `${what}: ${o.scroll} > ${o.inner} px`);
}

/** A GET that must answer 200: its body. */
export async function read(client: Client, path: string) {
  const answer = await client.get(path);
  expectStatus(answer, 200, `GET ${path}`);
  return answer.body;
}

/** Waits until the statement region shows `expected`, the figures of its month. */
export async function figuresAre(region: Locator, expected: Record<string, string>, what: string) {
  const deadline = Date.now() + 10_000;
  let shown: Record<string, string> = {};
  while (Date.now() < deadline) {
    shown = await figuresOf(region);
    if (JSON.stringify(shown) === JSON.stringify(expected)) return;
    await region.page().waitForTimeout(100);
  }
  assert.deepEqual(shown, expected, what);
}

export const closerFigures = (s: any) => ({
  'Opening balance': usd(s.openingUsd),
  Earned: usd(s.earnedUsd),
  'Clawed back': usd(s.clawedBackUsd),
  'Paid out': usd(s.paidUsd),
  'Closing balance': usd(s.closingUsd),
});

export const sellerFigures = (s: any) => ({
  'Opening balance': usd(s.openingUsd),
  Commissions: usd(s.commissionsUsd),
  'Platform fees': usd(s.platformFeesUsd),
  'Gig fees': usd(s.feesUsd),
  'Refunds given back': usd(s.refundsUsd),
  'Closing balance': usd(s.closingUsd),
});

/** The statement adds up: its figures, and its lines from the opening to the closing. */
export function addsUp(s: any, movements: number, what: string) {
  assert.equal(cents(s.openingUsd) + movements, cents(s.closingUsd), `${what}: the figures add up`);
  const lines = s.lines.reduce((sum: number, line: any) => sum + cents(line.effectUsd), 0);
  assert.equal(cents(s.openingUsd) + lines, cents(s.closingUsd), `${what}: the lines add up`);
}

/** The demo's deals won: one the agent sells and closes at list value, one Ada (`closer_0001`) closes through her gig. */
export async function demoDealsWon(demo: Client, prefix: string): Promise<void> {
  const account = (name: string) => ({ name, industry: 'saas', actor: 'B2B' });
  const sold = await demo.post(`${prefix}/sell`, { account: account('Agent Sold Fictional'), listValueUsd: 10_000 });
  expectStatus(sold, 201, 'POST /sell');
  const made = await demo.post(`${prefix}/sell`, {
    account: account('Ada Closed Fictional'),
    listValueUsd: 30_000,
    mandate: { staffing: { closer: 'human' } },
  });
  expectStatus(made, 201, 'POST /sell, escalated');
  const gig = `/closers/gigs/${made.body.gig.id}`;
  const closerId = 'closer_0001';
  expectStatus(await demo.post(`${gig}/claim`, { closerId }), 200, 'claim');
  for (const advanceTo of ['proposal', 'negotiation', 'closed_won']) {
    const body = { advanceTo, closerId, ...(advanceTo === 'closed_won' ? { valueUsd: 30_000 } : {}) };
    expectStatus(await demo.post(`${gig}/advance`, body), 200, `gig to ${advanceTo}`);
  }
}
