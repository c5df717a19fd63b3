// What the service does at start on a PGlite folder whose files were damaged: it
// refuses to start, with PGlite's own reason and what to do, and leaves the folder as it was.
// A folder whose process was killed is not damaged: PGlite replays its write-ahead log (the crash
// test, test/postgres/crash.test.ts, kills a service four times under load and finds every
// acknowledged write). Damage is what a disk or a hand does: a zeroed control file, a deleted
// write-ahead log, a catalog page overwritten.
import assert from 'node:assert/strict';
import { cp, mkdtemp, open, readdir, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LOCK_FILE } from '../../src/store/pglite/folder-lock.ts';
import { openPgliteStore } from '../../src/store/pglite/pglite-store.ts';
import { startOnFolder } from '../support/instances.ts';

const root = await mkdtemp(join(tmpdir(), 'pipeline-damaged-'));
after(() => rm(root, { recursive: true, force: true }));

/** Overwrites `length` bytes of the file at `offset` with `byte`. */
async function overwrite(file: string, offset: number, length: number, byte: number) {
  const handle = await open(file, 'r+');
  await handle.write(Buffer.alloc(length, byte), 0, length, offset);
  await handle.close();
}

/** Every file under the folder, sorted. */
async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir, { recursive: true })) {
    if ((await stat(join(dir, name))).isFile()) out.push(name);
  }
  return out.sort();
}

describe('a damaged PGlite folder at start', () => {
  const healthy = join(root, 'healthy');
  before(async () => {
    const store = await openPgliteStore(healthy);
    await store.close();
  });
  const copy = async (name: string) => {
    const dir = join(root, name);
    await cp(healthy, dir, { recursive: true });
    return dir;
  };

  it('a healthy copy starts (the damage below is what fails)', async () => {
    const run = await startOnFolder(await copy('copy'));
    assert.match(run.output, /listening on/, run.output);
  });

  const damages: [string, (dir: string) => Promise<void>, RegExp][] = [
    ['a zeroed control file', (dir) => overwrite(join(dir, 'global', 'pg_control'), 0, 512, 0), /failed to initialize/],
    [
      'a deleted write-ahead log',
      async (dir) => {
        for (const name of await readdir(join(dir, 'pg_wal')))
          if (/^[0-9A-F]{24}$/.test(name)) await unlink(join(dir, 'pg_wal', name));
      },
      /Aborted\(\)/,
    ],
    [
      'an overwritten catalog page',
      // pg_proc of the service's database (oid 5), its first pages: read by every query plan.
      (dir) => overwrite(join(dir, 'base', '5', '1255'), 0, 8192 * 4, 0x5a),
      /invalid page in block \d+ of relation "base\/5\/1255"/,
    ],
  ];
  for (const [what, damage, reason] of damages) {
    it(`${what}: refuses to start, saying why and what to do, and leaves the folder as it was`, async () => {
      const dir = await copy(what.replaceAll(' ', '-'));
      await damage(dir);
      const before = await files(dir);
      const run = await startOnFolder(dir);
      assert.notEqual(run.code, 0, run.output);
      assert.doesNotMatch(run.output, /listening on/);
      assert.match(run.output, new RegExp(`cannot start: cannot open the PGlite database ${dir}: `));
      assert.match(run.output, reason);
      assert.match(
        run.output,
        /files damaged or incomplete; keep it aside, and restore a copy or start on a new folder/,
      );
      // The folder is left for whoever looks at it: no file removed or added (PGlite's own
      // postmaster.pid aside, which it writes before it reads the folder; PostgreSQL may also
      // have updated its control file), and the service's lock let go.
      const names = async () => (await files(dir)).filter((name) => name !== 'postmaster.pid');
      assert.deepEqual(
        await names(),
        before.filter((name) => name !== 'postmaster.pid'),
      );
      assert.ok(!(await files(dir)).includes(LOCK_FILE), 'the lock file was left behind');
    });
  }
});
