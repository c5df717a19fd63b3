// Ids a unit of work hands out before it has taken their numbers (issue 14): a create is then
// one statement after the gate's decision, the write itself taking the number, instead of a
// round trip for the number and another for the write. Each reserved id is a stand-in with the
// shape of an id of its kind (so that every check of ids passes), made of digits no sequence
// reaches and of randomness no request can guess (so that no text a client sends holds one).
// The write replaces it, in every value it sends, with the id of the number it takes; the unit's
// result is renamed the same way.
import { randomInt } from 'node:crypto';
import { formatId, type IdKind } from '../../domain/ids.ts';

export interface Reserved {
  kind: IdKind;
  /** The stand-in: `deal_9` and seventeen digits, of which nine random to each process. */
  standIn: string;
}

/** This process's random part of every stand-in; a counter tells a unit's stand-ins apart. */
const PROCESS_DIGITS = randomInt(1e9).toString().padStart(9, '0');
let counter = 0;

export function reserve(kind: IdKind): Reserved {
  counter = (counter + 1) % 1e8;
  return { kind, standIn: `${kind}_9${PROCESS_DIGITS}${counter.toString().padStart(8, '0')}` };
}

/** The SQL of a number taken and its id, as formatId writes it (migration 010's take_number). */
export function takenIdSql(kind: IdKind): string {
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
 * numbers taken (`renamesOfRow` reads it).
 */
export function takingNumbers(statements: readonly string[], params: unknown[], reserved: readonly Reserved[]): string {
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
      SELECT ${names.map((n) => `${n}.v AS ${n}`).join(', ')} FROM ${names.join(', ')}`;
}

/** The real id of each reserved id, from the row of the write that took their numbers. */
export function renamesOfRow(reserved: readonly Reserved[], row: Record<string, string | number>): Renames {
  return new Map(reserved.map((r, i) => [r.standIn, formatId(r.kind, Number(row[`n${i}`]))]));
}

/** A string with every stand-in replaced by its id. */
function renameText(text: string, renames: Renames): string {
  let renamed = text;
  for (const [standIn, id] of renames) if (renamed.includes(standIn)) renamed = renamed.replaceAll(standIn, id);
  return renamed;
}

/** Statement parameters with every stand-in in a text replaced by its id. */
export function renameValues(values: readonly unknown[], renames: Renames): unknown[] {
  return values.map((value) => (typeof value === 'string' ? renameText(value, renames) : value));
}

/** A value (records, events, answers: plain data) with every stand-in replaced by its id. */
export function renameDeep<T>(value: T, renames: Renames): T {
  if (renames.size === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return renameText(v, renames);
    if (Array.isArray(v)) return v.map(walk);
    if (v instanceof Map) return new Map([...v].map(([k, x]) => [walk(k), walk(x)]));
    if (v instanceof Set) return new Set([...v].map(walk));
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
