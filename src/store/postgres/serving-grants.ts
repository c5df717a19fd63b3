// D-77, D-256: what the serving role holds when another role owns the tables (DATABASE_OWNER_URL).
// The owner grants it at every start, after the migrations and in their transaction: the rows
// of the service's tables (never their definition: a role that may ALTER a table may switch its
// row-level security off), its sequences' numbers and its functions. Whatever the role held on
// them before is taken back first, so that these lists are the whole of its rights there, however
// they were left (by hand, by an older release). The objects are those the owner owns in the
// schema being migrated; anything else in the schema is left as it is.
import type { SqlSession } from './sql-database.ts';

/** What serving does with the rows of a table: read them and write them, each under its policies. */
const ROWS = 'SELECT, INSERT, UPDATE, DELETE';

/**
 * Tables given less: the payout ledger only grows (D-24: its trigger refuses an update or a
 * delete anyway), and the record of the migrations is the owner's. No table is given TRUNCATE:
 * a TRUNCATE passes every policy, and the demo reset empties the tables through wipe_tables(),
 * which runs as the owner (migration 020).
 */
const TABLE_RIGHTS: ReadonlyMap<string, string | undefined> = new Map([
  ['payouts', 'SELECT, INSERT'],
  // D-79: the ledger and the records of its refunds and payouts only grow (their triggers refuse the rest).
  ['transfers', 'SELECT, INSERT'],
  ['refunds', 'SELECT, INSERT'],
  ['closer_payouts', 'SELECT, INSERT'],
  ['schema_migrations', undefined],
]);

/** Numbers taken (nextval, sql-numbers.ts) and the next one read (nextNumbers); never set. */
const SEQUENCE_RIGHTS = 'USAGE, SELECT';

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Grants `role` what serving needs on the owner's objects of the current schema (see above). */
export async function grantServing(session: SqlSession, role: string): Promise<void> {
  const [{ owner, schema, usage }] = await session.query<{ owner: string; schema: string; usage: boolean }>(
    `SELECT current_user AS owner, current_schema() AS schema,
       has_schema_privilege($1, current_schema(), 'USAGE') AS usage`,
    [role],
  );
  // The owner serving too: nothing to grant (and taking rights back would take the owner's own).
  if (owner === role) return;
  const objects = await session.query<{ kind: string; name: string; object: string }>(
    `SELECT CASE WHEN c.relkind = 'S' THEN 'sequence' ELSE 'table' END AS kind, c.relname AS name,
       format('%I.%I', n.nspname, c.relname) AS object
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'S') AND pg_get_userbyid(c.relowner) = current_user
     UNION ALL
     SELECT 'function', p.proname, format('%I.%I(%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid))
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = current_schema() AND pg_get_userbyid(p.proowner) = current_user
     ORDER BY 1, 2`,
  );
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const to = ident(role);
  const statements: string[] = [];
  if (!usage) statements.push(`GRANT USAGE ON SCHEMA ${ident(schema)} TO ${to}`);
  const tables = of('table');
  if (tables.length > 0) statements.push(`REVOKE ALL ON TABLE ${tables.map((t) => t.object).join(', ')} FROM ${to}`);
  const byRights = new Map<string, string[]>();
  for (const table of tables) {
    const rights = TABLE_RIGHTS.has(table.name) ? TABLE_RIGHTS.get(table.name) : ROWS;
    if (rights !== undefined) byRights.set(rights, [...(byRights.get(rights) ?? []), table.object]);
  }
  for (const [rights, names] of byRights) statements.push(`GRANT ${rights} ON TABLE ${names.join(', ')} TO ${to}`);
  const sequences = of('sequence').map((s) => s.object);
  if (sequences.length > 0) {
    statements.push(`REVOKE ALL ON SEQUENCE ${sequences.join(', ')} FROM ${to}`);
    statements.push(`GRANT ${SEQUENCE_RIGHTS} ON SEQUENCE ${sequences.join(', ')} TO ${to}`);
  }
  const functions = of('function').map((f) => f.object);
  if (functions.length > 0) {
    statements.push(`REVOKE ALL ON FUNCTION ${functions.join(', ')} FROM ${to}`);
    statements.push(`GRANT EXECUTE ON FUNCTION ${functions.join(', ')} TO ${to}`);
  }
  // One script (no statement of it prepared: each names this schema's objects).
  if (statements.length > 0) await session.exec(statements.join(';\n'));
}
