// Runs every test file under test/ (and src/) with node's test runner through tsx.
// Node 20's runner does not expand globs itself, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  let found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found = found.concat(find(path));
    else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only : find('test').sort();
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
