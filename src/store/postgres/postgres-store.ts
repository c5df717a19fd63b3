// The PostgreSQL adapter of the store port: DATABASE_URL=postgres://… (issue 4).
import type { Telemetry } from '../../telemetry.ts';
import type { Store } from '../store.ts';
import { PgDatabase, type PgOptions } from './pg-database.ts';
import { SqlStore } from './sql-store.ts';

export async function openPostgresStore(
  connectionString: string,
  options: PgOptions = {},
  telemetry?: Telemetry,
): Promise<Store> {
  const db = new PgDatabase(connectionString, options);
  try {
    return await SqlStore.open(db, telemetry);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
