#!/usr/bin/env node
// The project's command line (`npx sales-pipeline-gate ...` from a clone after npm ci): the
// compiled src/cli.ts (dist/cli.js), built first when missing or stale, as `npm start` does. On
// Node 22 or later: npx puts the project's Node first on the PATH, and run with an older `node`
// it runs itself again on the project's (scripts/runtime.mjs). npm's engine warnings about an
// older machine Node, printed as npx installs the project in its cache, are kept off by the
// project's .npmrc (D-271).
import { ensureBuilt } from '../scripts/build.mjs';
import { onSupportedNode } from '../scripts/runtime.mjs';

await onSupportedNode();
try {
  await ensureBuilt();
  process.setSourceMapsEnabled(true);
  const { main } = await import('../dist/cli.js');
  const code = await main(process.argv.slice(2));
  if (code !== undefined) process.exitCode = code;
} catch (error) {
  process.stderr.write(`sales-pipeline-gate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
