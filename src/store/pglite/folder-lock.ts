// One process per PGlite folder (D-45): PGlite is PostgreSQL in this process, with no server to
// arbitrate, so a second process on the same folder would write the same files and corrupt them.
// The folder is claimed with a lock file written whole under a name of its own and then linked
// into place (link fails when the lock exists: one creator wins, and no process ever reads a lock
// half written, which a takeover would take for a stale one); it names its holder's pid and, on
// Linux, the holder's start time, so that a lock left by a killed process is told from a live
// one even when the pid has been reused, and taken over (by one starter: takeOver). A killed
// holder that is still a zombie (exited, not yet reaped by its parent: its pid still answers
// kill(pid, 0)) holds nothing either, and is told apart on Linux by its state (D-204).
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, open, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const LOCK_FILE = 'pipeline-service.lock';

interface Holder {
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat), where known. */
  startTicks?: string;
  since: string;
}

interface ProcStat {
  /** `R`, `S`, `D`, …; `Z` a zombie, `X` dead: exited, its files closed. */
  state: string;
  /** Its start time in clock ticks since boot. */
  startTicks: string;
}

/** A process's state and start time from /proc/<pid>/stat, or undefined where there is no /proc. */
function procStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], startTicks: fields[19] };
  } catch {
    return undefined;
  }
}

function alive(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user, so it is alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // The pid is in use: by the holder, unless it was reused by a process started since, or the
  // holder has exited and waits as a zombie for its parent to reap it (D-204). Without /proc
  // (macOS, Windows) neither can be told, and the holder is taken to be alive.
  const now = procStat(holder.pid);
  if (now === undefined) return true;
  if (now.state === 'Z' || now.state === 'X') return false;
  return holder.startTicks === undefined || now.startTicks === holder.startTicks;
}

/** The lock file's text, or undefined when there is none. */
async function readLock(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function holderOf(text: string): Holder {
  try {
    const parsed = JSON.parse(text) as Holder;
    if (Number.isInteger(parsed.pid) && parsed.pid > 0) return parsed;
  } catch {
    // below
  }
  // Unreadable (damaged, or half written by an older version): nobody can be holding it.
  return { pid: 0, since: 'unknown' };
}

async function readHolder(path: string): Promise<Holder | undefined> {
  const text = await readLock(path);
  return text === undefined ? undefined : holderOf(text);
}

export class FolderInUseError extends Error {
  constructor(folder: string, holder: Holder) {
    super(
      `the PGlite folder ${folder} is in use by process ${holder.pid} (since ${holder.since}): ` +
        'PGlite allows one process per folder; stop that process first, or run several instances on PostgreSQL (DATABASE_URL=postgres://...)',
    );
    this.name = 'FolderInUseError';
  }
}

export interface FolderLock {
  release(): Promise<void>;
}

/**
 * Puts `me` in place as the lock at `path`, whole: written and synced under another name, then
 * linked. False when a lock is there already.
 */
async function claim(path: string, me: Holder): Promise<boolean> {
  const written = `${path}.new-${randomUUID()}`;
  const file = await open(written, 'wx');
  try {
    await file.writeFile(JSON.stringify(me));
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await link(written, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(written, { force: true });
  }
}

/** A takeover marker older than this was left by a starter that died taking over. */
const ABANDONED_MS = 30_000;

/**
 * Removes the stale lock `text` from `path`, if this starter is the one taking it over: of the
 * starters that judged this very lock stale, the one that creates its marker (named after the
 * lock's text, created whole as the lock is) is the only one that may remove it, and does so only
 * if the lock is still that text (no other starter can have replaced it meanwhile: the others
 * wait for the marker, and a live lock's holder removes only its own). The others wait and look
 * again. Moving the lock aside and putting back one found live, as before, could not be made
 * safe: between the two another starter could claim the folder, and two won.
 */
async function takeOver(path: string, text: string, me: Holder): Promise<void> {
  const marker = `${path}.takeover-${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
  if (!(await claim(marker, me))) {
    try {
      if (Date.now() - (await stat(marker)).mtimeMs > ABANDONED_MS) await rm(marker, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    return;
  }
  try {
    if ((await readLock(path)) === text) await rm(path, { force: true });
  } finally {
    await rm(marker, { force: true });
  }
}

/** Claims `folder` for this process, or throws FolderInUseError naming the live holder. */
export async function lockFolder(folder: string): Promise<FolderLock> {
  const path = join(folder, LOCK_FILE);
  const me: Holder = {
    pid: process.pid,
    startTicks: procStat(process.pid)?.startTicks,
    since: new Date().toISOString(),
  };
  // Bounded: each turn either creates the file, finds a live holder, or clears a stale one (or
  // waits while another starter does).
  for (let attempt = 0; attempt < 20; attempt++) {
    if (await claim(path, me)) {
      let released = false;
      return {
        release: async () => {
          if (released) return;
          released = true;
          const holder = await readHolder(path);
          if (holder?.pid === me.pid && holder.since === me.since) await rm(path, { force: true });
        },
      };
    }
    const text = await readLock(path);
    if (text === undefined) continue; // released meanwhile
    const holder = holderOf(text);
    // A lock this very process holds is in use too: a second store on one folder in one
    // process would corrupt it just the same.
    if (holder.pid !== 0 && alive(holder)) throw new FolderInUseError(folder, holder);
    await takeOver(path, text, me);
  }
  throw new Error(`could not lock the PGlite folder ${folder}: its lock file ${path} keeps changing`);
}
