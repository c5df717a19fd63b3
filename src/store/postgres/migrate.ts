// Versioned schema migrations: the SQL files in migrations/ (NNN-name.sql), applied in order at
// start, each recorded in schema_migrations. The whole run is one transaction holding an
// advisory lock, so instances that start at once apply each migration exactly once: the
// others wait, then find it recorded. Migrations only ever add; starting never wipes data.
import { readdir, readFile } from 'node:fs/promises';
import { projectFile } from '../../project-files.ts';
import { PLATFORM, SET_PRINCIPAL, type SqlDatabase } from './sql-database.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATIONS_DIR = projectFile('src/store/postgres/migrations/');

export async function loadMigrations(): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d+-[\w-]+\.sql$/.test(f));
  const migrations = await Promise.all(
    files.map(async (file) => ({
      version: Number.parseInt(file, 10),
      name: file.replace(/\.sql$/, ''),
      sql: await readFile(new URL(file, MIGRATIONS_DIR), 'utf8'),
    })),
  );
  migrations.sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (i > 0 && m.version === migrations[i - 1].version) throw new Error(`two migrations numbered ${m.version}`);
  });
  return migrations;
}

/** Applies the migrations not yet applied; returns the names of those it applied. */
export async function migrate(db: SqlDatabase, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? (await loadMigrations());
  return db.session(async (session) => {
    await session.query('BEGIN');
    try {
      // Migrations see and change every row, whatever row-level security holds (D-57, 011).
      await session.query(SET_PRINCIPAL, [PLATFORM]);
      const [{ schema }] = await session.query<{ schema: string | null }>('SELECT current_schema() AS schema');
      if (!schema) throw new Error('the search_path names no existing schema to create the tables in');
      // Keyed by schema, so that services on different schemas of one database do not wait.
      await session.query('SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext($1))', ['migrate']);
      await session.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const rows = await session.query<{ version: number }>('SELECT version FROM schema_migrations');
      const done = new Set(rows.map((r) => Number(r.version)));
      const known = new Set(all.map((m) => m.version));
      const unknown = [...done].filter((v) => !known.has(v));
      if (unknown.length > 0) {
        // A newer release migrated this database; running older code on it could corrupt data.
        throw new Error(`the database has schema migrations this service does not know: ${unknown.join(', ')}`);
      }
      const applied: string[] = [];
      for (const migration of all) {
        if (done.has(migration.version)) continue;
        await session.exec(migration.sql);
        await session.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        applied.push(migration.name);
      }
      await session.query('COMMIT');
      return applied;
    } catch (error) {
      await session.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
