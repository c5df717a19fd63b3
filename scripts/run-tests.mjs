// Runs every test file under test/ with node's test runner through tsx, then closes with a
// summary: node's own reporter output first, unchanged, then the counts of
// scripts/test-summary.mjs, which also says which suites were skipped and why. The very last
// line is `N passed, N failed, N skipped`, a form CI readers of node's runner recognise; there
// failed counts failed tests and suites, skipped counts skipped tests and suites (a skipped
// PostgreSQL suite must not read as nothing skipped). The exit code is the runner's.
// On Node 22 or later: `npm test` runs it on the project's Node, and `node scripts/run-tests.mjs`
// on an older one runs itself again there (scripts/runtime.mjs); the runner and every process a
// test starts are that Node (process.execPath). The files are listed here, not globbed by the
// runner, so that `npm test -- <files>` and the whole suite take the same path.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './build.mjs';
import { onSupportedNode } from './runtime.mjs';

function find(dir) {
  let found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found = found.concat(find(path));
    else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

/**
 * `--unit` (`npm run test:unit`): the tests that run in-process, by folder: the domain, the
 * service, the views and the HTTP door through Fastify's inject. No port, no database server, no
 * browser, no child process (test/support/in-process-guard.ts fails a test that tries), so they
 * take seconds. The whole suite runs them too, once.
 */
const UNIT_FOLDERS = ['test/domain', 'test/service', 'test/views', 'test/http'];
/**
 * Files elsewhere that run in-process too: the group commit's batcher and its numbers against a
 * fake server, the record cache, the in-memory feed, the events' JSON as stored.
 */
const UNIT_FILES = [
  'test/store/event-log.test.ts',
  'test/store/column.test.ts',
  'test/store/event-data-json.test.ts',
  'test/store/group-commit.test.ts',
  'test/store/number-taker.test.ts',
  'test/store/record-cache.test.ts',
];
/** Files in those folders that are not in-process, and why: the whole suite runs them. */
const NOT_UNIT = new Map([
  ['test/http/log-destination.test.ts', 'starts a child process and reads its log'],
  ['test/service/webhook-address-policy.test.ts', 'delivers to a receiver listening on a port'],
]);
const GUARD = new URL('../test/support/in-process-guard.ts', import.meta.url).href;

await onSupportedNode();
const args = process.argv.slice(2);
const unit = args.includes('--unit');
const only = args.filter((arg) => arg !== '--unit');
// The tests that start `npm start`'s process run the build: made once here, before they race.
// No unit test starts a process.
if (!unit) await ensureBuilt();

const selected =
  only.length > 0 ? only : unit ? [...UNIT_FOLDERS.flatMap(find), ...UNIT_FILES].sort() : find('test').sort();
const files = unit ? selected.filter((file) => !NOT_UNIT.has(file.split('\\').join('/'))) : selected;
const scratch = mkdtempSync(join(tmpdir(), 'test-summary-'));
const countsFile = join(scratch, 'counts.json');
// Node's default reporter: spec on a terminal, tap otherwise. Naming a second reporter turns the
// default off, so it is named too.
const reporter = process.stdout.isTTY ? 'spec' : 'tap';
const summaryReporter = fileURLToPath(new URL('test-summary.mjs', import.meta.url));
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    ...(unit ? ['--import', GUARD] : []),
    '--test',
    '--test-concurrency=2',
    `--test-reporter=${reporter}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${summaryReporter}`,
    `--test-reporter-destination=${countsFile}`,
    ...files,
  ],
  { stdio: 'inherit' },
);

let counts;
try {
  counts = JSON.parse(readFileSync(countsFile, 'utf8'));
} catch {
  counts = undefined;
}
rmSync(scratch, { recursive: true, force: true });
console.log(summaryLines(counts, files.length).join('\n'));
process.exit(result.status ?? 1);

function summaryLines(c, fileCount) {
  if (c === undefined) return ['summary: the test runner reported no results', '0 passed, 1 failed'];
  const reasons = Object.entries(c.skippedSuites);
  const skippedSuites = reasons.reduce((sum, [, names]) => sum + names.length, 0);
  const cancelled = c.cancelled > 0 ? ` (${c.cancelled} cancelled)` : '';
  const lines = [
    `summary: ${plural(fileCount, 'test file')}; ${c.passed + c.failed + c.skipped + c.todo} tests: ${c.passed} passed, ` +
      `${c.failed} failed${cancelled}, ${c.skipped} skipped, ${c.todo} todo; ` +
      `${c.suites} suites: ${c.failedSuites} failed, ${skippedSuites} skipped`,
  ];
  for (const [reason, names] of reasons) {
    lines.push(
      `summary: ${plural(names.length, 'suite')} skipped: ${names.map((n) => JSON.stringify(n)).join(', ')}; why: ${reason}`,
    );
  }
  for (const f of c.failures ?? []) {
    lines.push(`summary: FAILED ${f.file ? relative(process.cwd(), f.file) : '?'}: ${JSON.stringify(f.name)}`);
    lines.push(...f.why.split('\n').map((line) => `summary:   ${line}`));
  }
  lines.push(`${c.passed} passed, ${c.failed + c.failedSuites} failed, ${c.skipped + skippedSuites} skipped`);
  return lines;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
