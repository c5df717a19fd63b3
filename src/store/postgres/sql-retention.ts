// What the platform's timers purge on PostgreSQL: idempotency keys' answers past their time to
// live (D-37), and the feed's events past its retention (EVENT_RETENTION_HOURS).
import type { Send } from './sql-database.ts';

/** Deletes the answers stored before `before`; answers how many. */
export async function purgeAnswers(send: Send, before: number): Promise<number> {
  const rows = await send('DELETE FROM idempotency_keys WHERE stored_at < $1 RETURNING key', [before]);
  return rows.length;
}

/** Deletes the events recorded before `before`; answers how many. */
export async function purgeEvents(send: Send, before: number): Promise<number> {
  // The oldest events, in seq order, up to the first one still within retention (migration 017):
  // the primary key finds it, walking from the oldest, and no index on recorded_at is kept.
  const [row] = await send<{ purged: string | number }>(
    `WITH purged AS (DELETE FROM events WHERE seq < coalesce(
       (SELECT seq FROM events WHERE recorded_at >= $1 ORDER BY seq LIMIT 1), 9223372036854775807) RETURNING 1)
     SELECT count(*) AS purged FROM purged`,
    [before],
  );
  return Number(row.purged);
}
