// The statements a unit of work's buffered puts are written with (sql-unit-of-work.ts flush): one
// multi-row statement a table, each value a parameter appended to the unit's list.
import type { StoredAnswer } from '../store.ts';

/** How each table is upserted: its columns (the document last) and what a second put replaces. */
const UPSERTS = {
  deals: {
    columns: ['id', 'stage', 'stall_due_at', 'seller_id', 'doc'],
    update: ['stage', 'stall_due_at', 'seller_id', 'doc'],
  },
  gigs: {
    columns: ['id', 'deal_id', 'status', 'timer_due_at', 'seller_id', 'closer_id', 'doc'],
    update: ['status', 'timer_due_at', 'seller_id', 'closer_id', 'doc'],
  },
  closers: { columns: ['id', 'doc'], update: ['doc'] },
} as const;

/**
 * One multi-row INSERT … ON CONFLICT DO UPDATE, a parameter per value (appended to params).
 * Plain parameters rather than one JSON array unpacked in SQL: PostgreSQL cannot turn a
 * \u0000 escape inside JSON into text, and a document may carry one.
 */
export function upsert(table: keyof typeof UPSERTS, rows: unknown[][], params: unknown[]): string {
  const { columns, update } = UPSERTS[table];
  const tuples = rows.map((row) => {
    const placeholders = row.map((value, i) => {
      params.push(value);
      return columns[i] === 'doc' ? `$${params.length}::json` : `$${params.length}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}
    ON CONFLICT (id) DO UPDATE SET ${update.map((c) => `${c} = excluded.${c}`).join(', ')}`;
}

/** The answers' upsert (D-37): a second answer for a key replaces the first. */
export function answersUpsert(answers: Map<string, StoredAnswer>, params: unknown[]): string {
  const tuples = [...answers].map(([key, a]) => {
    const first = params.length + 1;
    params.push(key, a.fingerprint, a.status, a.body, a.location ?? null, a.etag ?? null, a.storedAt, a.owner ?? null);
    return `(${Array.from({ length: 8 }, (_, i) => `$${first + i}`).join(', ')})`;
  });
  return `INSERT INTO idempotency_keys (key, fingerprint, status, body, location, etag, stored_at, owner) VALUES ${tuples.join(', ')}
    ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
      body = excluded.body, location = excluded.location, etag = excluded.etag, stored_at = excluded.stored_at,
      owner = excluded.owner`;
}

/** The outbox's columns, as publish buffers a row: the data and the actor are JSON. */
const OUTBOX_COLUMNS = ['type', 'deal_id', 'at', 'recorded_at', 'data', 'seller_id', 'closer_id', 'actor'];
const JSON_COLUMNS = new Set([4, 7]);

/** The outbox rows' INSERT (columns as publish buffers them), a parameter per value. */
export function outboxInsert(rows: unknown[][], params: unknown[]): string {
  const tuples = rows.map((row) => {
    const placeholders = row.map((value, i) => {
      params.push(value);
      return JSON_COLUMNS.has(i) ? `$${params.length}::json` : `$${params.length}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  return `INSERT INTO event_outbox (${OUTBOX_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`;
}
