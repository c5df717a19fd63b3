// The production build (scripts/build.mjs): `npm start` runs dist/, made again whenever a source
// it was made from is newer, and builds racing on a fresh clone never leave a broken file.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, statSync, utimesSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
// @ts-expect-error: a plain JavaScript module without types
import { build, ensureBuilt, staleness } from '../scripts/build.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const run = promisify(execFile);

describe('the production build', () => {
  it('is up to date once built, and stale when a source it was made from changes', async () => {
    await ensureBuilt();
    assert.equal(staleness(), undefined);
    const record = JSON.parse(readFileSync(`${ROOT}dist/build.json`, 'utf8'));
    assert.ok(record.inputs.includes('src/main.ts'));
    assert.ok(record.inputs.includes('src/store/postgres/postgres-store.ts'), 'the stores loaded on demand are in');
    assert.ok(!record.inputs.some((p: string) => p.startsWith('node_modules/')), 'packages stay outside');
    const source = `${ROOT}src/domain/gate.ts`;
    const { atime, mtime } = statSync(source);
    try {
      const later = new Date(Date.now() + 60_000);
      utimesSync(source, later, later);
      assert.equal(staleness(), 'src/domain/gate.ts changed');
    } finally {
      utimesSync(source, atime, mtime);
    }
    assert.equal(staleness(), undefined);
  });

  it('builds racing in several processes leave a whole build that runs', async () => {
    await Promise.all([build(), run(process.execPath, ['scripts/build.mjs'], { cwd: ROOT }), build()]);
    assert.equal(staleness(), undefined);
    // The command line from the build answers (and its help names its commands).
    const { stdout } = await run(process.execPath, ['bin/sales-pipeline-gate.mjs', 'help'], { cwd: ROOT });
    assert.match(stdout, /mcp/);
  });

  it('a stack trace from the build names the TypeScript source (source maps)', async () => {
    const script = `process.setSourceMapsEnabled(true);
      const { main } = await import('./dist/cli.js');
      await main(['help'], { out: () => console.log(new Error('where').stack), err: () => {} });`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    // The file named is the checkout's own, not one a directory off (the map is made where it is kept).
    const named = /at main \((.*):\d+:\d+\)/.exec(stdout)?.[1];
    assert.equal(named, `${ROOT}src/cli.ts`, stdout);
  });
});
