// The runtime: the README's two commands run on Node 22 or later whatever Node the machine has
// (scripts/runtime.mjs). The tests run on it, and so does `npm start`'s service, started here with
// npm as a person would (its Node read from the service's own /metrics, nodejs_version_info).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain JavaScript module without types
import { OLDEST_MAJOR, projectNode } from '../scripts/runtime.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

describe('the runtime', () => {
  it('the tests run on Node 22 or later, the oldest package.json allows', () => {
    assert.ok(major(process.versions.node) >= 22, `the tests run on Node ${process.version}`);
    assert.equal(OLDEST_MAJOR, 22);
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
    assert.equal(pkg.engines.node, `>=${OLDEST_MAJOR}`);
  });

  it("the project's own Node is installed, of the major package.json depends on", async () => {
    const node = projectNode();
    assert.ok(node, 'node_modules/node has no binary: did its install script run?');
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
    const wanted = major(String(pkg.dependencies.node).replace(/^[\^~]/, ''));
    const version = await output(spawn(node, ['--version']));
    assert.equal(major(version.trim()), wanted, version);
  });

  it('`npm start` runs the service on Node 22 or later', async (t) => {
    // npm as the machine runs it: under `npm test`, the same npm on the same Node; else from PATH.
    const [command, args] = process.env.npm_execpath
      ? [process.env.npm_node_execpath ?? 'node', [process.env.npm_execpath, 'start']]
      : ['npm', ['start']];
    const child = spawn(command, args, {
      cwd: ROOT,
      // Its own process group: npm, its shell and the service are stopped together.
      detached: process.platform !== 'win32',
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DATABASE_URL: '',
        TIMER_INTERVAL_SECONDS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.after(() => stop(child));
    const url = await listening(child);
    const metrics = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    const found = /^nodejs_version_info\{[^}]*major="(\d+)"/m.exec(metrics);
    assert.ok(found, 'no nodejs_version_info in /metrics');
    assert.ok(Number(found[1]) >= 22, `the service runs on Node ${found[1]}`);
  });
});

function output(child: ChildProcess): Promise<string> {
  let text = '';
  child.stdout?.on('data', (chunk) => (text += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', () => resolve(text));
  });
}

async function listening(child: ChildProcess): Promise<string> {
  let text = '';
  return new Promise((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error(`no "listening" line within 60 s:\n${text}`)), 60_000);
    const scan = (chunk: Buffer) => {
      text += chunk;
      const found = /listening on (http:\/\/[\w.:[\]]+)/.exec(text);
      if (found) {
        clearTimeout(timeout);
        resolve(found[1]);
      }
    };
    child.stdout?.on('data', scan);
    child.stderr?.on('data', scan);
    child.once('exit', (code) => {
      clearTimeout(timeout);
      reject(new Error(`npm start exited (${code}) before listening:\n${text}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (process.platform === 'win32') child.kill('SIGTERM');
  else process.kill(-child.pid, 'SIGTERM');
  await exited;
}
