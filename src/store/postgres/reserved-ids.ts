// The numbers of a unit's new records taken by its write (D-193): a create is then one
// statement after the gate's decision, the write itself taking the number, instead of a round
// trip for the number and another for the write. Until then the records carry their provisional
// ids (domain/ids.ts); the write replaces each, in every value it sends, with the id of the
// number it takes, and the unit's result is renamed the same way.
import { formatId, type IdKind, renameText } from '../../domain/ids.ts';

/** The kinds whose numbers a write takes: records a decision creates, and refused proposals (D-61). */
export type ReservedKind = IdKind | 'prop';

export interface Reserved {
  kind: ReservedKind;
  /** The provisional id the decision gave the record. */
  standIn: string;
}

/** The SQL of a number taken and its id, as formatId writes it (migration 010's take_number). */
export function takenIdSql(kind: ReservedKind): string {
  return `SELECT v, '${kind}_' || CASE WHEN v < 10000 THEN lpad(v::text, 4, '0') ELSE v::text END AS id
    FROM (SELECT take_number('${kind}') AS v) AS taken`;
}

/** The real id of each stand-in, once the numbers are taken. */
export type Renames = Map<string, string>;

/**
 * The write that also takes the numbers of the ids reserved, one per id, before its rows are
 * written (`statements`, a unit's buffered writes, become its CTEs): every value that holds a
 * stand-in gets the id in its place. The stand-ins travel as parameters, pushed onto `params`,
 * so that the statement's text is the same from one unit to the next. Its one row holds the
 * numbers taken (`renamesOfRow` reads it), and the columns `also` names.
 */
export function takingNumbers(
  statements: readonly string[],
  params: unknown[],
  reserved: readonly Reserved[],
  also: readonly string[] = [],
): string {
  // The parameter of each stand-in, added (after the values) where a value first holds it.
  const standIns: number[] = [];
  const renamed = (k: number) => {
    const value = params[k - 1];
    const held = typeof value === 'string' ? reserved.filter((r) => value.includes(r.standIn)) : [];
    if (held.length === 0) return `$${k}`;
    let expression = `$${k}::text`;
    for (const r of held) {
      const i = reserved.indexOf(r);
      standIns[i] ??= params.push(r.standIn);
      expression = `replace(${expression}, $${standIns[i]}, (SELECT id FROM n${i}))`;
    }
    return `(${expression})`;
  };
  const writes = statements.map((s, i) => `w${i} AS (${s.replace(/\$(\d+)/g, (_, k) => renamed(Number(k)))})`);
  const names = reserved.map((_, i) => `n${i}`);
  const numbers = reserved.map((r, i) => `${names[i]} AS MATERIALIZED (${takenIdSql(r.kind)})`);
  return `WITH ${[...numbers, ...writes].join(', ')}
      SELECT ${[...names.map((n) => `${n}.v AS ${n}`), ...also].join(', ')} FROM ${names.join(', ')}`;
}

/** The real id of each reserved id, from the row of the write that took their numbers. */
export function renamesOfRow(reserved: readonly Reserved[], row: Record<string, string | number>): Renames {
  return new Map(reserved.map((r, i) => [r.standIn, formatId(r.kind, Number(row[`n${i}`]))]));
}

/** Statement parameters with every stand-in in a text replaced by its id. */
export function renameValues(values: readonly unknown[], renames: Renames): unknown[] {
  return values.map((value) => (typeof value === 'string' ? renameText(value, renames) : value));
}
