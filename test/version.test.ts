// The version is written once (src/version.ts) and is package.json's: every surface that states
// it (the index, the contract, the MCP servers, the probes) reads it from there.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { SERVICE_VERSION } from '../src/version.ts';

it("src/version.ts states package.json's version", () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(SERVICE_VERSION, pkg.version);
});
