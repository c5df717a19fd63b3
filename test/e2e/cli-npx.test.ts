// `npx sales-pipeline-gate` as a user runs it from the clone on a machine whose own Node is older
// than the project's (the project brings its Node 22 as the `node` package). npm's npx installs
// the project itself into its npx cache before it runs the bin, and that install checks the
// project's engines (`node >=22`) against the Node npm runs on: on Node 20 it printed a block of
// `npm warn EBADENGINE` lines before the answer, on the first call and on every call whose npx
// cache is new (a fresh HOME, CI). The project's .npmrc keeps npm to its errors (D-271). The
// cache here is a fresh one, so the install runs as on that first call.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { REPO } from '../support/cli.ts';

const OLDEST_MAJOR = 22;

/** A Node older than the project's with an npx beside it (the machine's own), if there is one. */
function oldNode(): { node: string; npx: string } | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs.filter((d) => d !== '' && !d.includes('node_modules'))) {
    const node = join(dir, 'node');
    const npx = join(dir, 'npx');
    if (!existsSync(node) || !existsSync(npx)) continue;
    try {
      const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
      if (Number(version.replace(/^v/, '').split('.')[0]) < OLDEST_MAJOR) return { node, npx: realpathSync(npx) };
    } catch {}
  }
  return undefined;
}

const old = oldNode();
const skip = old === undefined ? `no Node older than ${OLDEST_MAJOR} with an npx on this machine` : false;

describe('npx sales-pipeline-gate on an older Node', { skip }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'cli-npx-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('answers with no npm warning before it: no EBADENGINE block', async () => {
    const { node, npx } = old as NonNullable<typeof old>;
    // A user's shell: the old Node first on the PATH, no npm variables of a running npm script,
    // a user config of its own (none) and a fresh npm cache, without the update check's notice.
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name)) env[name] = value;
    const path = (process.env.PATH ?? '').split(delimiter).filter((d) => !d.includes('node_modules'));
    env.PATH = [dirname(node), ...path].join(delimiter);
    env.npm_config_cache = join(scratch, 'npm-cache');
    env.npm_config_userconfig = join(scratch, 'npmrc');
    env.npm_config_update_notifier = 'false';
    const { stdout, stderr } = await promisify(execFile)(node, [npx, 'sales-pipeline-gate', '--help'], {
      cwd: REPO,
      env,
      timeout: 120_000,
    });
    assert.match(stdout, /^Usage: sales-pipeline-gate/m);
    assert.doesNotMatch(stderr, /EBADENGINE/, stderr);
    assert.doesNotMatch(stderr, /^npm warn/im, stderr);
  });
});
