// D-57: row-level security is the second wall only if it applies. PostgreSQL skips every policy
// for a superuser and for a role with BYPASSRLS (FORCE ROW LEVEL SECURITY notwithstanding), so
// a service in keys mode refuses to start on such a role rather than run without the wall.
// PGlite runs as its own superuser: there the application's filters are the only wall, and this
// check is not made. D-77: a serving role that owns the tables is not refused, but warned of.
import type { SqlDatabase } from './sql-database.ts';

/** What the role the service connects as may skip. */
export interface RoleRights {
  role: string;
  superuser: boolean;
  bypassRls: boolean;
}

/** The current role's rights that would skip row-level security. */
export async function roleRights(database: SqlDatabase): Promise<RoleRights> {
  const [row] = await database.session((session) =>
    session.query<{ role: string; superuser: boolean; bypass: boolean }>(
      'SELECT current_user AS role, rolsuper AS superuser, rolbypassrls AS bypass FROM pg_roles WHERE rolname = current_user',
    ),
  );
  return { role: row.role, superuser: row.superuser === true, bypassRls: row.bypass === true };
}

/** The refusal's message for a role that would skip row-level security, or undefined when it applies. */
export function rowSecurityRefusal({ role, superuser, bypassRls }: RoleRights): string | undefined {
  if (!superuser && !bypassRls) return undefined;
  const what =
    superuser && bypassRls ? 'is a superuser with BYPASSRLS' : superuser ? 'is a superuser' : 'has BYPASSRLS';
  const quoted = `"${role.replace(/"/g, '""')}"`;
  return (
    `the PostgreSQL role ${quoted} ${what}: row-level security (D-57) would not apply to it, ` +
    `and in keys mode the service does not run without it. Connect as a role that is neither: ` +
    `ALTER ROLE ${quoted} NOSUPERUSER NOBYPASSRLS (run by a superuser), or create a dedicated role ` +
    '(CREATE ROLE pipeline LOGIN NOSUPERUSER NOBYPASSRLS) that owns the database or its schema'
  );
}

/** Throws when the role `database` connects as would skip row-level security (see above). */
export async function assertRowSecurityApplies(database: SqlDatabase): Promise<void> {
  const refusal = rowSecurityRefusal(await roleRights(database));
  if (refusal !== undefined) throw new Error(refusal);
}

/**
 * D-77: whether the role the service serves as owns a table of its schema that has row-level
 * security (or may act as its owner: a member of the owning role, a superuser). Such a role can
 * switch the policies off (ALTER TABLE … DISABLE ROW LEVEL SECURITY, or NO FORCE), so the wall
 * holds only as long as nothing that runs SQL as it does so.
 */
export async function ownsWalledTables(database: SqlDatabase): Promise<{ role: string; owns: boolean }> {
  const [row] = await database.session((session) =>
    session.query<{ role: string; owns: boolean }>(
      `SELECT current_user AS role, EXISTS (
         SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relrowsecurity
           AND pg_has_role(current_user, c.relowner, 'MEMBER')) AS owns`,
    ),
  );
  return { role: row.role, owns: row.owns === true };
}

/** The start-up's warning when the serving role owns the tables: the risk, and the fix. */
export function ownershipWarning(role: string): string {
  const quoted = `"${role.replace(/"/g, '""')}"`;
  return (
    `the PostgreSQL role ${quoted} the service serves as owns its tables: a role that owns a table can ` +
    'disable its row-level security (ALTER TABLE … DISABLE ROW LEVEL SECURITY, or NO FORCE), so the ' +
    'wall between tenants (D-57, D-77) holds only as long as nothing running SQL as that role does so. ' +
    'Set DATABASE_OWNER_URL to a separate role that owns the tables and migrates them, and keep ' +
    `DATABASE_URL's role for serving (docs/production.md: Durable store)`
  );
}
