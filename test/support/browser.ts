// Debian's Chromium driven by playwright-core (never a browser download): launched from
// CHROMIUM_PATH or /usr/bin/chromium with the flags a headless test machine needs. On a machine
// without it the browser suites are skipped, except under CI, where .ci/run installs it and its
// absence is a failure.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser suites cannot run here, or false when they can. */
export const browserSkip: string | false =
  existsSync(CHROMIUM) || process.env.CI === 'true' ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;

/** extraArgs: more flags, e.g. `--host-resolver-rules=…` to point a name at this machine. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
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
}
