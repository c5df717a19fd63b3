// The PostgreSQL adapter of the store port: DATABASE_URL=postgres://… (D-125).
import type { Telemetry } from '../../telemetry.ts';
import type { Store } from '../store.ts';
import { PgDatabase, type PgOptions } from './pg-database.ts';
import { assertRowSecurityApplies, ownershipWarning, ownsWalledTables } from './role-check.ts';
import { describeError } from './sql-database.ts';
import { SqlStore } from './sql-store.ts';

export { assertRowSecurityApplies } from './role-check.ts';

export interface PostgresStoreOptions extends PgOptions {
  /**
   * D-77 (DATABASE_OWNER_URL): the role that owns the tables. The migrations run over a
   * connection as it, which grants the serving role (the connection string's) what serving
   * needs; it serves nothing, and its connection is closed once the store is open.
   */
  ownerUrl?: string;
  /** Told the start-up's warnings: the serving role owns the tables (D-77). */
  warn?: (message: string) => void;
  /** D-281: units ready while a transaction is in flight commit together in the next (default on). */
  groupCommit?: boolean;
}

export async function openPostgresStore(
  connectionString: string,
  options: PostgresStoreOptions = {},
  telemetry?: Telemetry,
): Promise<Store> {
  const db = new PgDatabase(connectionString, options);
  let store: Store | undefined;
  try {
    // Before any migration: a role that would skip row-level security changes nothing.
    if (options.requireRowSecurity) await assertRowSecurityApplies(db);
    store = await openAs(db, options.ownerUrl, options.groupCommit, telemetry);
    const { role, owns } = await ownsWalledTables(db);
    if (owns) options.warn?.(ownershipWarning(role));
    return store;
  } catch (error) {
    await (store ?? db).close().catch(() => undefined);
    throw error;
  }
}

/** The store on `db`, migrated over `db` itself or, given an owner's URL, over a connection as that role. */
async function openAs(
  db: PgDatabase,
  ownerUrl: string | undefined,
  groupCommit: boolean | undefined,
  telemetry?: Telemetry,
): Promise<Store> {
  if (ownerUrl === undefined) return SqlStore.open(db, telemetry, { groupCommit });
  const owner = new PgDatabase(ownerUrl, { poolSize: 1 });
  try {
    return await SqlStore.open(db, telemetry, { owner, groupCommit });
  } catch (error) {
    throw new Error(`migrating as the owner role of DATABASE_OWNER_URL: ${describeError(error)}`, { cause: error });
  } finally {
    await owner.close().catch(() => undefined);
  }
}
