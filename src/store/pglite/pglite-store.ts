// The embedded durable adapter: the PostgreSQL store's SQL on PGlite, no server to install
// (DATABASE_URL=pglite:./data). One process per data folder.

import type { Telemetry } from '../../telemetry.ts';
import { SqlStore } from '../postgres/sql-store.ts';
import type { Store } from '../store.ts';
import { PgliteDatabase } from './pglite-database.ts';

export async function openPgliteStore(dataDir: string | undefined, telemetry?: Telemetry): Promise<Store> {
  const db = await PgliteDatabase.open(dataDir);
  try {
    return await SqlStore.open(db, telemetry);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
