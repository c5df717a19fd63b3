// The PostgreSQL adapter of the store port: DATABASE_URL=postgres://… (issue 4).
import type { Telemetry } from '../../telemetry.ts';
import type { Store } from '../store.ts';
import { PgDatabase, type PgOptions } from './pg-database.ts';
import { assertRowSecurityApplies } from './role-check.ts';
import { SqlStore } from './sql-store.ts';

export { assertRowSecurityApplies } from './role-check.ts';

export async function openPostgresStore(
  connectionString: string,
  options: PgOptions = {},
  telemetry?: Telemetry,
): Promise<Store> {
  const db = new PgDatabase(connectionString, options);
  try {
    // Before any migration: a role that would skip row-level security changes nothing.
    if (options.requireRowSecurity) await assertRowSecurityApplies(db);
    return await SqlStore.open(db, telemetry);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
