// Every environment variable the code reads is in docs/configuration.md: the service's settings
// (src/config.ts), the command line's, the scripts', the benchmarks', CI's and the tests'. A
// setting added without a line there fails here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, read } from '../support/markdown.ts';

const DIRS = ['src', 'scripts', 'bench', 'bin', 'test', '.ci'];

/** What is read from the environment but is no setting of this project's. */
const NOT_SETTINGS = new Map([
  ['PATH', "the shell's"],
  ['HOME', "the shell's"],
  ['NODE_TEST_CONTEXT', "node's test runner's, which it sets itself"],
  ['LOCK_DIR', 'a test hands it to the child process it starts'],
  ['HOLDER', 'a test hands it to the child process it starts'],
]);

/** How a variable is read: `process.env.X`, `env.X`, `env['X']`, `(env, 'X'` (config.ts), `{ X } = process.env`, `${X:-` (shell). */
const READS = [
  /process\.env\.([A-Z][A-Z0-9_]*)/g,
  /\benv\.([A-Z][A-Z0-9_]*)/g,
  /\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g,
  /\(env,\s*'([A-Z][A-Z0-9_]*)'/g,
  /\$\{([A-Z][A-Z0-9_]*):-/g,
];
const DESTRUCTURED = /const\s*\{([^}]*)\}\s*=\s*process\.env/g;

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(path);
    return /\.(ts|tsx|mjs|js)$/.test(entry.name) || dir === '.ci' ? [path] : [];
  });
}

/** Every variable read, with the first file that reads it. */
function variablesRead(): Map<string, string> {
  const found = new Map<string, string>();
  // This file names the ways of reading, not variables.
  for (const file of DIRS.flatMap(files).filter((f) => f !== 'test/docs/configuration.test.ts')) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const names = READS.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1]));
    for (const [, inner] of text.matchAll(DESTRUCTURED))
      names.push(
        ...inner
          .split(',')
          .map((part) => part.split(':')[0].trim())
          .filter(Boolean),
      );
    for (const name of names) if (!found.has(name)) found.set(name, file);
  }
  return found;
}

describe('docs/configuration.md names every variable the code reads', () => {
  const read_ = variablesRead();
  const documented = new Set([...read('docs/configuration.md').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]));

  it('the scan finds the service settings and the tests (or it checks nothing)', () => {
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'STREAM_BUFFER_BYTES',
      'TEST_DATABASE_URL',
      'FUZZ_SEED',
      'BENCH_RUNTIME',
    ])
      assert.ok(read_.has(name), `${name} is read`);
  });

  it('each one has its line', () => {
    const missing = [...read_]
      .filter(([name]) => !documented.has(name) && !NOT_SETTINGS.has(name))
      .map(([name, file]) => `${name} (read in ${file})`);
    assert.deepEqual(missing, [], `not in docs/configuration.md:\n${missing.join('\n')}`);
  });
});
