// D-77: migrations as one role, serving as another. With DATABASE_OWNER_URL the migrations run
// over the owner role's connection, which then grants the serving role (DATABASE_URL's) what
// serving needs (serving-grants.ts, D-256); the service serves over DATABASE_URL, whose role then
// needs no right to change a table's definition, and so none to switch its row-level security off.
// The tables go where the serving connection reads them: the owner migrates under the serving
// connection's search_path, whatever its own says.
import { migrate } from './migrate.ts';
import type { SqlDatabase } from './sql-database.ts';

interface ServingSide {
  role: string;
  database: string;
  schema: string | null;
  searchPath: string;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function servingSide(serving: SqlDatabase): Promise<ServingSide> {
  const [row] = await serving.session((session) =>
    session.query<{ role: string; database: string; schema: string | null; path: string }>(
      `SELECT current_user AS role, current_database() AS database, current_schema() AS schema,
         current_setting('search_path') AS path`,
    ),
  );
  return { role: row.role, database: row.database, schema: row.schema, searchPath: row.path };
}

/**
 * The search_path the owner migrates under: the schema the serving role resolves, or, when it
 * resolves none yet (a schema it has no USAGE on until the owner grants it), its search_path with
 * `$user` read as the serving role.
 */
function ownerSearchPath({ role, schema, searchPath }: ServingSide): string {
  if (schema !== null) return ident(schema);
  return searchPath
    .split(',')
    .map((entry) => entry.trim())
    .map((entry) => (entry === '$user' || entry === '"$user"' ? ident(role) : entry))
    .join(', ');
}

/** Applies the pending migrations as `owner` and grants `serving`'s role what serving needs. */
export async function migrateAsOwner(owner: SqlDatabase, serving: SqlDatabase): Promise<string[]> {
  const before = await servingSide(serving);
  const [{ database }] = await owner.session((session) =>
    session.query<{ database: string }>('SELECT current_database() AS database'),
  );
  if (database !== before.database) {
    throw new Error(
      `DATABASE_OWNER_URL names the database ${ident(database)} and DATABASE_URL ${ident(before.database)}: the owner must migrate the database the service serves from`,
    );
  }
  const applied = await migrate(owner, undefined, { searchPath: ownerSearchPath(before), servingRole: before.role });
  // A schema the serving role could not use before is the one the owner just granted it.
  if (before.schema === null && (await servingSide(serving)).schema === null) {
    throw new Error(
      `DATABASE_URL's role ${ident(before.role)} can use no schema of its search_path (${before.searchPath}) even once migrated`,
    );
  }
  return applied;
}
