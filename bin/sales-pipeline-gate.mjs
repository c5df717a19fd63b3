#!/usr/bin/env node
// The project's command line (`npx sales-pipeline-gate ...` from a clone after npm ci). The code is
// TypeScript run through tsx, as `npm start` runs it: tsx is registered here, then src/cli.ts runs.
import { register } from 'tsx/esm/api';

register();
const { main } = await import(new URL('../src/cli.ts', import.meta.url).href);
try {
  const code = await main(process.argv.slice(2));
  if (code !== undefined) process.exitCode = code;
} catch (error) {
  process.stderr.write(`sales-pipeline-gate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
