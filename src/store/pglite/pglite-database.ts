// SqlDatabase on PGlite: PostgreSQL compiled to WebAssembly, in this process, over a data
// folder (or in memory). It has one connection, so sessions (units of work) run one at a time.
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import type { SqlDatabase, SqlSession } from '../postgres/sql-database.ts';
import { type FolderLock, lockFolder } from './folder-lock.ts';

export class PgliteDatabase implements SqlDatabase {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly sql: SqlSession;

  private constructor(
    private readonly db: PGlite,
    private readonly lock?: FolderLock,
  ) {
    this.sql = {
      // PGlite's one connection, the same for every session.
      connection: {},
      query: async <R>(text: string, params?: readonly unknown[]) =>
        (await db.query<R>(text, params as unknown[] | undefined)).rows,
      exec: async (text: string) => {
        await db.exec(text);
      },
    };
  }

  /** A data folder path, or undefined for a database that lives in memory only. */
  static async open(dataDir: string | undefined): Promise<PgliteDatabase> {
    if (dataDir === undefined) return new PgliteDatabase(await PGlite.create('memory://'));
    await mkdir(dataDir, { recursive: true });
    // Before PGlite touches a file: a second process must not even open it (D-45).
    const lock = await lockFolder(dataDir);
    try {
      return new PgliteDatabase(await PGlite.create(dataDir), lock);
    } catch (error) {
      await lock.release();
      throw new Error(damaged(error));
    }
  }

  session<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
    const run = this.queue.then(() => work(this.sql));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close() {
    await this.queue;
    try {
      await this.db.close();
    } finally {
      await this.lock?.release();
    }
  }
}

/**
 * What a folder PGlite cannot open is told as: its own reason (PostgreSQL's checks name a damaged
 * page or control file; a missing write-ahead log only aborts the WebAssembly), and what to do.
 * Nothing is repaired or overwritten: the folder is left as it was for whoever looks at it.
 */
function damaged(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return (
    `${reason.replace(/ Build with -sASSERTIONS for more info\.?$/, '')}: the folder is not a database PGlite can ` +
    'open, its files damaged or incomplete; keep it aside, and restore a copy or start on a new folder'
  );
}
