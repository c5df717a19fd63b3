// Debian's Chromium driven by playwright-core (never a browser download): launched from
// CHROMIUM_PATH or /usr/bin/chromium with the flags a headless test machine needs. On a machine
// without it the browser suites are skipped, except under CI, where .ci/run installs it and its
// absence is a failure.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';

/**
 * Where the console tests' screenshots go: docs/console/ with UPDATE_SCREENSHOTS=1 (docs/console.md
 * shows them), otherwise .scratch/ (so that a test run leaves the working tree clean).
 */
export const SHOTS = fileURLToPath(
  new URL(
    process.env.UPDATE_SCREENSHOTS === '1' ? '../../docs/console/' : '../../.scratch/console-shots/',
    import.meta.url,
  ),
);

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser suites cannot run here, or false when they can. */
export const browserSkip: string | false =
  existsSync(CHROMIUM) || process.env.CI === 'true' ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;

/** The browsers this file's suites launched and have not closed: a failed test pictures their pages. */
const open = new Set<Browser>();

/** extraArgs: more flags, e.g. `--host-resolver-rules=…` to point a name at this machine. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
  open.add(browser);
  browser.on('disconnected', () => open.delete(browser));
  return browser;
}

/** Where a failed test's pictures go (.scratch/, out of the working tree's history). */
const FAILURE_SHOTS = fileURLToPath(new URL('../../.scratch/browser-failures/', import.meta.url));

// Every test of a file that imports this one: when it fails, each page still open is pictured
// and its address and visible text printed, so that a failure on a machine that keeps only the
// log (CI) still says what the page showed.
afterEach(async (t) => {
  if (!('passed' in t) || t.passed || open.size === 0) return;
  mkdirSync(FAILURE_SHOTS, { recursive: true });
  const name = t.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 80);
  let n = 0;
  for (const browser of open) {
    for (const context of browser.contexts()) {
      for (const page of context.pages()) {
        n += 1;
        const file = join(FAILURE_SHOTS, `${name}-${n}.png`);
        try {
          await page.screenshot({ path: file, fullPage: true, timeout: 5_000 });
          const text = await page.evaluate(() => document.body.innerText);
          console.error(
            `failed "${t.name}": page ${n} at ${page.url()}, pictured in ${file}; it showed:\n` +
              text.slice(0, 2_000).replace(/^/gm, '  | '),
          );
        } catch (error) {
          console.error(`failed "${t.name}": page ${n} at ${page.url()} could not be pictured: ${error}`);
        }
      }
    }
  }
});

/**
 * The texts of a select's options, once an option holding `shown` is there (the first option,
 * when none is given): allTextContents does not wait, and a console page fills its selects from
 * lists it reads after it is drawn.
 */
export async function optionTexts(select: Locator, shown?: string | RegExp): Promise<string[]> {
  const options = select.locator('option');
  await (shown === undefined ? options : options.filter({ hasText: shown })).first().waitFor({ state: 'attached' });
  return options.allTextContents();
}

/** The viewports the console is tried and pictured at: a laptop and a phone. */
export const WIDTHS = { wide: { width: 1280, height: 900 }, narrow: { width: 390, height: 844 } };
export type Size = keyof typeof WIDTHS;

/** A page on the console of the service at `base`; any script error fails the test that made it. */
export async function consolePage(browser: Browser, base: string, path = '', size: Size = 'wide'): Promise<Page> {
  const page = await browser.newPage({ viewport: WIDTHS[size] });
  failOnScriptError(page);
  await page.goto(`${base}/console${path}`);
  return page;
}

/**
 * A fresh browser context signed in to the console at `base` with a key (keys mode); answers once
 * the header says who is signed in. Closing the context is the caller's.
 */
export async function signedInConsole(
  browser: Browser,
  base: string,
  key: string,
  size: Size = 'wide',
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: WIDTHS[size] });
  const page = await context.newPage();
  failOnScriptError(page);
  await page.goto(`${base}/console`);
  // D-66: the sign-in page asks for an email and a password first; the key is the other way.
  await page.getByRole('link', { name: 'Sign in with a key' }).click();
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('region', { name: 'Signed in' }).waitFor();
  return { context, page };
}

/**
 * A fresh browser context signed in to the console at `base` as a person, with an email and a
 * password (D-63); answers once the header says who is signed in. Closing the context is the caller's.
 */
export async function personConsole(
  browser: Browser,
  base: string,
  email: string,
  password: string,
  size: Size = 'wide',
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: WIDTHS[size] });
  const page = await context.newPage();
  failOnScriptError(page);
  await page.goto(`${base}/console`);
  const form = page.getByRole('form', { name: 'Sign in as a person' });
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Password').fill(password);
  await form.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('region', { name: 'Signed in' }).waitFor();
  return { context, page };
}

/** A script error on the page fails the test. */
export function failOnScriptError(page: Page): void {
  page.on('pageerror', (error) => assert.fail(`console script error: ${error.message}`));
}
