// Versioned schema migrations: the SQL files in migrations/ (NNN-name.sql), applied in order at
// start, each recorded in schema_migrations. The whole run is one transaction holding an
// advisory lock, so instances that start at once apply each migration exactly once: the
// others wait, then find it recorded. Migrations only ever add; starting never wipes data.
// With DATABASE_OWNER_URL (D-77) they run over the owner role's connection, in the schema the
// serving connection uses, and end by granting the serving role what serving needs.
import { readdir, readFile } from 'node:fs/promises';
import { projectFile } from '../../project-files.ts';
import { grantServing } from './serving-grants.ts';
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

/** How migrations run when `db` is the owner's connection, not the serving one (D-77, owner-migration.ts). */
export interface OwnerMigration {
  /** The search_path to migrate under: the serving connection's (the schema it will read). */
  searchPath: string;
  /** The serving role, given what serving needs once the migrations are applied (serving-grants.ts). */
  servingRole: string;
}

/** Applies the migrations not yet applied; returns the names of those it applied. */
export async function migrate(db: SqlDatabase, migrations?: Migration[], owner?: OwnerMigration): Promise<string[]> {
  const all = migrations ?? (await loadMigrations());
  return db.session(async (session) => {
    await session.query('BEGIN');
    try {
      // Migrations see and change every row, whatever row-level security holds (D-57, 011).
      await session.query(SET_PRINCIPAL, [PLATFORM]);
      // For this transaction only: the connection goes back to its pool as it came.
      if (owner) await session.query("SELECT set_config('search_path', $1, true)", [owner.searchPath]);
      const [{ schema }] = await session.query<{ schema: string | null }>('SELECT current_schema() AS schema');
      if (!schema) {
        throw new Error(
          owner
            ? `the search_path of DATABASE_URL's role (${owner.searchPath}) names no schema the owner role of DATABASE_OWNER_URL may create the tables in`
            : 'the search_path names no existing schema to create the tables in',
        );
      }
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
      // Under the same lock, so that instances starting at once never grant at once (PostgreSQL
      // fails a grant that races another on the same object), and at every start: a table a
      // migration added, or a right taken away by hand, is granted again.
      if (owner) await grantServing(session, owner.servingRole);
      await session.query('COMMIT');
      return applied;
    } catch (error) {
      await session.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
