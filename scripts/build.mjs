// The production build: src/main.ts (`npm start`) and src/cli.ts (the command line) bundled by
// esbuild into dist/main.js and dist/cli.js, the packages left to node_modules, with source
// maps. `npm start` builds when the output is missing or older than a source it was made from
// (dist/build.json lists them), so a fresh clone needs nothing but `npm ci && npm start`;
// `npm run build` builds at once (for an image whose sources are read-only at run time).
//
// Several processes may start at once on a fresh clone (the tests start service instances in
// parallel): each builds into a folder of its own and renames finished files into dist/, the list
// of sources last, so that no process ever runs a half-written file.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = `${ROOT}dist/`;
const RECORD = `${DIST}build.json`;
const ENTRIES = { main: 'src/main.ts', cli: 'src/cli.ts' };

/** Why the build must be made again, or undefined when it is up to date. */
export function staleness() {
  let record;
  let builtAt;
  try {
    record = JSON.parse(readFileSync(RECORD, 'utf8'));
    builtAt = statSync(RECORD).mtimeMs;
  } catch {
    return 'no build yet';
  }
  for (const input of [...record.inputs, 'scripts/build.mjs', 'package-lock.json']) {
    let changedAt;
    try {
      changedAt = statSync(`${ROOT}${input}`).mtimeMs;
    } catch {
      return `${input} is gone`;
    }
    if (changedAt > builtAt) return `${input} changed`;
  }
  for (const name of Object.keys(ENTRIES)) {
    try {
      statSync(`${DIST}${name}.js`);
    } catch {
      return `dist/${name}.js is missing`;
    }
  }
  return undefined;
}

/** Builds dist/ now. */
export async function build() {
  // The record's time is the build's start: a source saved while esbuild reads makes it stale.
  const startedAt = new Date();
  const { build: esbuild } = await import('esbuild');
  mkdirSync(DIST, { recursive: true });
  // Beside dist/, not in it: a source map names its sources relative to where it is made.
  const scratch = `${ROOT}.dist-build-${process.pid}-${Date.now()}/`;
  try {
    const result = await esbuild({
      absWorkingDir: ROOT,
      entryPoints: ENTRIES,
      outdir: scratch,
      bundle: true,
      platform: 'node',
      format: 'esm',
      // D-190: the oldest Node the project supports (package.json's engines, scripts/runtime.mjs);
      // the output runs unchanged on 24.
      target: 'node22',
      packages: 'external',
      sourcemap: 'linked',
      metafile: true,
      logLevel: 'warning',
    });
    const inputs = Object.keys(result.metafile.inputs).filter((path) => !path.startsWith('node_modules/'));
    for (const name of Object.keys(ENTRIES)) renameSync(`${scratch}${name}.js.map`, `${DIST}${name}.js.map`);
    for (const name of Object.keys(ENTRIES)) renameSync(`${scratch}${name}.js`, `${DIST}${name}.js`);
    writeFileSync(`${scratch}build.json`, `${JSON.stringify({ inputs }, null, 1)}\n`);
    utimesSync(`${scratch}build.json`, startedAt, startedAt);
    renameSync(`${scratch}build.json`, RECORD);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Builds when the build is missing or stale; says so on stderr. */
export async function ensureBuilt() {
  const why = staleness();
  if (why === undefined) return;
  const started = performance.now();
  await build();
  process.stderr.write(`built dist/ (${why}) in ${Math.round(performance.now() - started)} ms\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  await build();
  process.stderr.write(`built dist/ in ${Math.round(performance.now() - started)} ms\n`);
}
