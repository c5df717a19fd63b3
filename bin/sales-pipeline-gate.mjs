#!/usr/bin/env node
// The project's command line (`npx sales-pipeline-gate ...` from a clone after npm ci): the
// compiled src/cli.ts (dist/cli.js), built first when missing or stale, as `npm start` does.
import { ensureBuilt } from '../scripts/build.mjs';

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
