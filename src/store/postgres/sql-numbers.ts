// The numbers of a unit's new records on PostgreSQL (D-28, D-185, D-273): taken from the
// sequences once the gate has accepted, all of a unit's in one statement, and answered as the
// real ids, which the records are then written with. take_number (migrations 010, 014) locks the
// kind's table before its sequence, the order a demo reset locks them in.
import { formatId, type IdKind } from '../../domain/ids.ts';
import type { SqlSession } from './sql-database.ts';

/** The kinds numbered here: records a decision creates, refused proposals (D-61), approvals, refunds and payouts. */
export type NumberedKind = IdKind | 'prop' | 'apr' | 'rfd' | 'po';

/** Where each kind's numbers come from (D-28, migration 008). */
const SEQUENCES: Record<IdKind, string> = { deal: 'deal_numbers', gig: 'gig_numbers', closer: 'closer_numbers' };

/** The numbers each kind's sequence would give next, taking none (tests and diagnostics). */
export async function nextNumbers(query: SqlSession['query']): Promise<Record<IdKind, number>> {
  const next = (kind: IdKind) =>
    `(SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM ${SEQUENCES[kind]}) AS ${kind}`;
  const [row] = await query<Record<IdKind, string | number>>(
    `SELECT ${next('deal')}, ${next('gig')}, ${next('closer')}`,
  );
  return { deal: Number(row.deal), gig: Number(row.gig), closer: Number(row.closer) };
}

/** One statement for each count of numbers, so each is prepared once per connection. */
const statements: string[] = [];

function takeNumbersSql(count: number): string {
  statements[count] ??=
    `SELECT ${Array.from({ length: count }, (_, i) => `take_number($${i + 1}) AS n${i}`).join(', ')}`;
  return statements[count];
}

/** The id of a number taken for each kind, in the order given (the select list is taken in order). */
export async function takeIds(query: SqlSession['query'], kinds: readonly NumberedKind[]): Promise<string[]> {
  const [row] = await query<Record<string, string | number>>(takeNumbersSql(kinds.length), kinds);
  return kinds.map((kind, i) => formatId(kind, Number(row[`n${i}`])));
}
