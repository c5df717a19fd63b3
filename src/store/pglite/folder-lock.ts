// One process per PGlite folder (D-45): PGlite is PostgreSQL in this process, with no server to
// arbitrate, so a second process on the same folder would write the same files and corrupt them.
// The folder is claimed with a lock file written whole under a name of its own and then linked
// into place (link fails when the lock exists: one creator wins, and no process ever reads a lock
// half written, which a takeover would take for a stale one); it names its holder's pid and, on Linux, the holder's start time, so that a lock left by a killed
// process is told from a live one even when the pid has been reused, and taken over. A killed
// holder that is still a zombie (exited, not yet reaped by its parent: its pid still answers
// kill(pid, 0)) holds nothing either, and is told apart on Linux by its state (D-204).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, open, readFile, rename, rm } from 'node:fs/promises';
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

async function readHolder(path: string): Promise<Holder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Holder;
    return Number.isInteger(parsed.pid) && parsed.pid > 0 ? parsed : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Unreadable or half written (a holder killed while writing it): nobody can be holding it.
    return { pid: 0, since: 'unknown' };
  }
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

/** Claims `folder` for this process, or throws FolderInUseError naming the live holder. */
export async function lockFolder(folder: string): Promise<FolderLock> {
  const path = join(folder, LOCK_FILE);
  const me: Holder = {
    pid: process.pid,
    startTicks: procStat(process.pid)?.startTicks,
    since: new Date().toISOString(),
  };
  // Bounded: each turn either creates the file, finds a live holder, or clears a stale one.
  for (let attempt = 0; attempt < 10; attempt++) {
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
    const holder = await readHolder(path);
    if (holder === undefined) continue; // released meanwhile
    // A lock this very process holds is in use too: a second store on one folder in one
    // process would corrupt it just the same.
    if (holder.pid !== 0 && alive(holder)) throw new FolderInUseError(folder, holder);
    // Stale: moved aside atomically, so that of two processes taking it over one moves it and
    // the other finds it gone. What was moved is checked: if another process had taken the lock
    // over meanwhile, its live lock is put back (link fails rather than overwrite) and the next
    // turn finds it held.
    const aside = `${path}.stale-${randomUUID()}`;
    try {
      await rename(path, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = await readHolder(aside);
    if (moved !== undefined && (moved.pid !== holder.pid || moved.since !== holder.since)) {
      try {
        await link(aside, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        throw new Error(
          `could not lock the PGlite folder ${folder}: other processes are starting on it at this moment`,
        );
      } finally {
        await rm(aside, { force: true });
      }
      continue;
    }
    await rm(aside, { force: true });
  }
  throw new Error(`could not lock the PGlite folder ${folder}: its lock file ${path} keeps changing`);
}
