// `npm run lint:contract`: starts the service on a free port, takes the contract it serves
// (GET /openapi.json) and lints it with Redocly (recommended rules) and Spectral (spectral:oas).
// Zero errors and zero warnings, or the run fails; the exceptions live in .redocly.lint-ignore.yaml
// and .spectral.yaml, each with its reason.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/server.ts';

const server = await startServer({ config: { port: 0, host: '127.0.0.1', timerIntervalSeconds: 0 }, log: false });
const contract = await (await fetch(`${server.url}/openapi.json`)).text();
await server.close();

// The ignore file names the document by its path relative to the config: lint it beside copies.
const dir = mkdtempSync(join(tmpdir(), 'contract-'));
writeFileSync(join(dir, 'openapi.json'), contract);
for (const file of ['redocly.yaml', '.redocly.lint-ignore.yaml', '.spectral.yaml']) copyFileSync(file, join(dir, file));

const bin = (name: string) => join(process.cwd(), 'node_modules', '.bin', name);
const run = (command: string, args: string[]) => {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  return spawnSync(bin(command), args, { cwd: dir, stdio: 'inherit' }).status;
};
const redocly = run('redocly', ['lint', 'openapi.json', '--max-problems', '50']);
const spectral = run('spectral', ['lint', 'openapi.json', '--ruleset', '.spectral.yaml', '--fail-severity', 'hint']);
if (redocly !== 0 || spectral !== 0) {
  console.error(`\ncontract lint failed (redocly exit ${redocly}, spectral exit ${spectral})`);
  process.exit(1);
}
console.log('\ncontract lint: redocly and spectral report no problem');
