// Store selection from DATABASE_URL: unset → the in-memory demo store (D-3);
// postgres://… or postgresql://… → PostgreSQL; pglite:PATH → embedded PGlite on a data folder
// (pglite:memory:// for one that lives in memory). Adapters are imported only when chosen.
// DATABASE_OWNER_URL (D-77) goes with a PostgreSQL DATABASE_URL only.
import { resolve } from 'node:path';
import type { Telemetry } from '../telemetry.ts';
import { MemoryStore } from './memory/memory-store.ts';
import { describeError } from './postgres/sql-database.ts';
import type { Store } from './store.ts';

export interface StoreOptions {
  /** PostgreSQL connections this instance may hold (default 10). */
  poolSize?: number;
  /** D-281: group commit on PostgreSQL (default on). */
  groupCommit?: boolean;
  /** Where units of work run again are reported (GET /metrics). */
  telemetry?: Telemetry;
  /**
   * D-57 (keys mode): on PostgreSQL, refuse to start when the role connected as is a superuser
   * or has BYPASSRLS, to which row-level security does not apply (the error names the role and
   * the fix). Not made on PGlite, which runs as its superuser (the application's filters are the
   * wall there), nor in memory.
   */
  requireRowSecurity?: boolean;
  /**
   * D-77 (DATABASE_OWNER_URL, PostgreSQL only): the role that owns the tables. Migrations run as
   * it, and it grants DATABASE_URL's role what serving needs; the service serves as the latter.
   */
  ownerUrl?: string;
  /** Told the start-up's warnings (the serving role owns the tables, D-77), for the log. */
  warn?: (message: string) => void;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** The URL with its password masked, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
}

/** The data folder of a pglite: URL, or undefined for an in-memory PGlite. */
export function pgliteDataDir(url: string): string | undefined {
  const rest = url.slice('pglite:'.length).replace(/^\/\//, '');
  if (rest === '' || rest === 'memory' || rest === 'memory:' || rest === 'memory://') return undefined;
  return resolve(rest);
}

/**
 * The store a DATABASE_URL picks, in words for the start-up line: `memory`, `postgres
 * HOST[:PORT]/DB` (never the user or the password) or `pglite FOLDER` (`pglite in memory`).
 */
export function describeStore(databaseUrl?: string): string {
  const url = databaseUrl?.trim();
  if (!url) return 'memory';
  if (/^pglite:/i.test(url)) return `pglite ${pgliteDataDir(url) ?? 'in memory'}`;
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      const { host, pathname } = new URL(url);
      return `postgres ${host}${pathname}`;
    } catch {
      // createStore refuses such a URL before anything is started
    }
  }
  return redactUrl(url);
}

/** D-77: DATABASE_OWNER_URL is a PostgreSQL role's, beside a PostgreSQL DATABASE_URL; the refusal otherwise. */
function ownerUrlRefusal(url: string | undefined, ownerUrl: string): string | undefined {
  if (url === undefined || !POSTGRES_URL.test(url)) {
    return (
      `DATABASE_OWNER_URL applies to PostgreSQL only (a DATABASE_URL of postgres://…), and DATABASE_URL is ` +
      `${url ? describeStore(url) : 'unset (the in-memory store)'}: unset DATABASE_OWNER_URL, or point DATABASE_URL at PostgreSQL` +
      (url && /^pglite:/i.test(url) ? ' (PGlite runs as one superuser: there is no other role to own the tables)' : '')
    );
  }
  if (!POSTGRES_URL.test(ownerUrl))
    return `DATABASE_OWNER_URL must start with postgres:// or postgresql://, got ${redactUrl(ownerUrl)}`;
  try {
    new URL(ownerUrl);
  } catch {
    return `DATABASE_OWNER_URL is not a valid URL: ${redactUrl(ownerUrl)}`;
  }
  return undefined;
}

export async function createStore(databaseUrl?: string, options: StoreOptions = {}): Promise<Store> {
  const url = databaseUrl?.trim();
  const ownerUrl = options.ownerUrl?.trim() || undefined;
  if (ownerUrl !== undefined) {
    const refusal = ownerUrlRefusal(url, ownerUrl);
    if (refusal !== undefined) throw new Error(refusal);
  }
  if (!url) return new MemoryStore();
  if (POSTGRES_URL.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new Error(`DATABASE_URL is not a valid URL: ${redactUrl(url)}`);
    }
    const { openPostgresStore } = await import('./postgres/postgres-store.ts');
    try {
      return await openPostgresStore(
        url,
        {
          poolSize: options.poolSize,
          groupCommit: options.groupCommit,
          requireRowSecurity: options.requireRowSecurity,
          ownerUrl,
          warn: options.warn,
        },
        options.telemetry,
      );
    } catch (error) {
      throw new Error(`cannot open the PostgreSQL database at ${redactUrl(url)}: ${describeError(error)}`);
    }
  }
  if (/^pglite:/i.test(url)) {
    const dataDir = pgliteDataDir(url);
    const { openPgliteStore } = await import('./pglite/pglite-store.ts');
    try {
      return await openPgliteStore(dataDir, options.telemetry);
    } catch (error) {
      throw new Error(`cannot open the PGlite database ${dataDir ?? 'in memory'}: ${describeError(error)}`);
    }
  }
  throw new Error(
    `DATABASE_URL must start with postgres://, postgresql:// or pglite: (for example pglite:./data), got ${redactUrl(url)}`,
  );
}
