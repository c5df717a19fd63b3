// The statements a unit of work's buffered puts are written with (sql-unit-of-work.ts flush): one
// multi-row statement a table, each value a parameter appended to the unit's list.

import type { DailyLimits, KeyUsage } from '../../domain/policy.ts';
import type { StoredAnswer } from '../store.ts';
import { FACT_COLUMNS } from './codec.ts';

/** How each table is upserted: its columns, in its values' order, and what a second put replaces. */
const UPSERTS = {
  // D-73: a deal's facts after its document (codec.ts dealValues).
  deals: {
    columns: ['id', 'stage', 'stall_due_at', 'seller_id', 'doc', ...FACT_COLUMNS],
    update: ['stage', 'stall_due_at', 'seller_id', 'doc', ...FACT_COLUMNS],
  },
  gigs: {
    columns: ['id', 'deal_id', 'status', 'timer_due_at', 'seller_id', 'closer_id', 'doc'],
    update: ['status', 'timer_due_at', 'seller_id', 'closer_id', 'doc'],
  },
  closers: { columns: ['id', 'doc'], update: ['doc'] },
} as const;

/** The columns a value is cast for (a document is JSON, a deal's moves JSONB). */
const CASTS: Record<string, string> = { doc: '::json', moves: '::jsonb' };

/**
 * One multi-row INSERT … ON CONFLICT DO UPDATE, a parameter per value (appended to params).
 * Plain parameters rather than one JSON array unpacked in SQL: PostgreSQL cannot turn a
 * \u0000 escape inside JSON into text, and a document may carry one.
 */
export function upsert(table: keyof typeof UPSERTS, rows: unknown[][], params: unknown[]): string {
  const { update } = UPSERTS[table];
  return `${insertInto(table, rows, params)}
    ON CONFLICT (id) DO UPDATE SET ${update.map((c) => `${c} = excluded.${c}`).join(', ')}`;
}

/** New rows only: none replaces a row of its id, and the statement returns a row for each inserted. */
export function insertNew(table: keyof typeof UPSERTS, rows: unknown[][], params: unknown[]): string {
  return `${insertInto(table, rows, params)} ON CONFLICT (id) DO NOTHING RETURNING 1`;
}

function insertInto(table: keyof typeof UPSERTS, rows: unknown[][], params: unknown[]): string {
  const { columns } = UPSERTS[table];
  const tuples = rows.map((row) => {
    const placeholders = row.map((value, i) => {
      params.push(value);
      return `$${params.length}${CASTS[columns[i] as string] ?? ''}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`;
}

/** The answers' rows' values, appended to params. */
function answerTuples(answers: readonly (readonly [string, StoredAnswer])[], params: unknown[]): string {
  const tuples = answers.map(([key, a]) => {
    const first = params.length + 1;
    params.push(key, a.fingerprint, a.status, a.body, a.location ?? null, a.etag ?? null, a.storedAt, a.owner ?? null);
    return `(${Array.from({ length: 8 }, (_, i) => `$${first + i}`).join(', ')})`;
  });
  return `INSERT INTO idempotency_keys (key, fingerprint, status, body, location, etag, stored_at, owner) VALUES ${tuples.join(', ')}`;
}

/** The answers' upsert (D-37): a second answer for a key replaces the first. */
export function answersUpsert(answers: readonly (readonly [string, StoredAnswer])[], params: unknown[]): string {
  return `${answerTuples(answers, params)}
    ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
      body = excluded.body, location = excluded.location, etag = excluded.etag, stored_at = excluded.stored_at,
      owner = excluded.owner`;
}

/**
 * D-285: answers whose keys were read free, inserted as new rows only: a row found (a racing
 * request with the key committed first) is left as it is and not counted, and the write's check
 * then fails it (writeOf).
 */
export function answersInsert(answers: readonly (readonly [string, StoredAnswer])[], params: unknown[]): string {
  return `${answerTuples(answers, params)} ON CONFLICT (key) DO NOTHING RETURNING 1`;
}

/** A key's closes of a day, as a unit adds them (D-68, migration 025): a row each, never updated. */
export interface UsageAdded {
  keyId: string;
  principal: string;
  usage: KeyUsage;
  /**
   * D-278: present when the key's policy counts the day: the daily limits (none when an approval
   * passed them) the day's closes, this one added, must stay within. Written behind the key's lock.
   */
  within?: DailyLimits;
}

/** The unit's closes through keys, a row each: an insert waits on no other unit's closes. */
export function usageInsert(added: readonly UsageAdded[], params: unknown[]): string {
  const tuples = added.map(({ keyId, principal, usage }) => {
    const first = params.length + 1;
    params.push(keyId, usage.day, principal, usage.closes, usage.closedValueCents);
    return `(${Array.from({ length: 5 }, (_, i) => `$${first + i}`).join(', ')})`;
  });
  return `INSERT INTO key_closes (key_id, day, principal, closes, closed_value_cents) VALUES ${tuples.join(', ')}`;
}

/**
 * D-278: a close through a key whose policy counts the day, as two statements of the unit's write
 * (its CTEs, the second naming the first: `name`), which goes out behind the key's lock
 * (sql-unit-of-work.ts flush), so that its snapshot holds every close committed before the lock
 * was granted. It folds the day's rows into one, so that the next unit behind the lock sums one
 * row (and the closes made before the policy was set), not one per close of the day; and it
 * writes only within `within`, else raises serialization_failure (expect_unchanged, migration
 * 016): the store then runs the unit again, the usage read first.
 */
export function foldedUsage(
  { keyId, principal, usage, within }: UsageAdded,
  params: unknown[],
): { remove: string; insert: (removed: string) => string } {
  const p = params.length;
  params.push(keyId, usage.day, principal, usage.closes, usage.closedValueCents);
  params.push(within?.closes ?? null, within?.closedValueCents ?? null);
  const [key, day, owner, closes, value, mostCloses, mostValue] = Array.from({ length: 7 }, (_, i) => `$${p + i + 1}`);
  const remove = `DELETE FROM key_closes WHERE key_id = ${key} AND day = ${day} RETURNING closes, closed_value_cents`;
  const insert = (removed: string) => `INSERT INTO key_closes (key_id, day, principal, closes, closed_value_cents)
    SELECT ${key}, ${day}, ${owner}, coalesce(sum(closes), 0) + ${closes}::bigint,
      coalesce(sum(closed_value_cents), 0) + ${value}::bigint FROM ${removed}
    HAVING expect_unchanged(
      (${mostCloses}::bigint IS NULL OR coalesce(sum(closes), 0) + ${closes}::bigint <= ${mostCloses}::bigint)
      AND (${mostValue}::bigint IS NULL OR coalesce(sum(closed_value_cents), 0) + ${value}::bigint <= ${mostValue}::bigint))`;
  return { remove, insert };
}

/** A unit's closes through keys whose policy counts the day, one per key and day, in lock order. */
export function foldedByKey(pending: readonly UsageAdded[]): UsageAdded[] {
  const byKey = new Map<string, UsageAdded>();
  for (const added of pending) {
    if (added.within === undefined) continue;
    const at = `${added.keyId} ${added.usage.day}`;
    const before = byKey.get(at);
    const usage = before && {
      day: added.usage.day,
      closes: before.usage.closes + added.usage.closes,
      closedValueCents: before.usage.closedValueCents + added.usage.closedValueCents,
    };
    byKey.set(at, usage ? { ...added, usage } : added);
  }
  return [...byKey.keys()].sort().map((at) => byKey.get(at) as UsageAdded);
}

/** A unit's events as its outbox row holds them (migration 015): a column each, in publishing order. */
export interface OutboxColumns {
  types: string[];
  dealIds: (string | null)[];
  ats: number[];
  recordedAts: number[];
  /** Each event's data as JSON text. */
  data: string[];
  sellerIds: (string | null)[];
  closerIds: (string | null)[];
  /** Each event's actor as JSON text, or null. */
  actors: (string | null)[];
}

export const emptyOutbox = (): OutboxColumns => ({
  types: [],
  dealIds: [],
  ats: [],
  recordedAts: [],
  data: [],
  sellerIds: [],
  closerIds: [],
  actors: [],
});

/**
 * A string in which JSON.stringify escapes something other than `"` and `\`: a control character
 * (written `\n`, `\u0001`…) or a surrogate (a lone one is written `\ud800`).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const NOT_PLAIN = /[\u0000-\u001f\ud800-\udfff]/;

/**
 * An array parameter as PostgreSQL's array literal, written here rather than by the driver:
 * PGlite does not quote a JSON text inside one. Every element is quoted (its `"` and `\`
 * escaped), null is NULL.
 */
export function arrayLiteral(values: readonly (string | number | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const value = values[i];
    if (value === null) {
      out += 'NULL';
      continue;
    }
    const text = String(value);
    // Where JSON.stringify escapes only `"` and `\` (every JSON text, every id), its quoting is
    // the array literal's, at a third of two replaceAll passes' time: a sell's events' data,
    // 10 kB of JSON, took 58 µs of the service's CPU that way and take 16 this way (Node 22).
    out += NOT_PLAIN.test(text) ? `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"` : JSON.stringify(text);
  }
  return `${out}}`;
}

/** The unit's one outbox row (migration 015): its events' columns as array parameters. */
export function outboxInsert(events: OutboxColumns, params: unknown[]): string {
  const first = params.length + 1;
  params.push(
    arrayLiteral(events.types),
    arrayLiteral(events.dealIds),
    arrayLiteral(events.ats),
    arrayLiteral(events.recordedAts),
    arrayLiteral(events.data),
    arrayLiteral(events.sellerIds),
    arrayLiteral(events.closerIds),
    arrayLiteral(events.actors),
  );
  const types = ['text[]', 'text[]', 'bigint[]', 'bigint[]', 'json[]', 'text[]', 'text[]', 'json[]'];
  return `INSERT INTO event_outbox (types, deal_ids, ats, recorded_ats, data, seller_ids, closer_ids, actors)
    VALUES (${types.map((type, i) => `$${first + i}::${type}`).join(', ')})`;
}
