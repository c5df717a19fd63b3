// The demo clock's offset in SQL (D-19): kept in the settings row, and every change of it told
// to the other instances when it commits, on a channel of its own (sql-store.ts listens).
import type { SqlSession } from './sql-database.ts';

/** The channel on which instances tell each other of moves of the demo clock (migration-free). */
export const CLOCK_CHANNEL = 'pipeline_demo_clock';

/** The notification of a new offset (`offset`: the offset's expression in SQL). */
export const notifyClock = (offset: string, reset: boolean) =>
  `pg_notify('${CLOCK_CHANNEL}', json_build_object('schema', current_schema(), 'offsetMs', ${offset}, 'reset', ${reset})::text)`;

/** Sets the offset (a reset of the clock when 0, or a move to a given time). */
export async function setClockOffset(session: SqlSession, offsetMs: number): Promise<void> {
  await session.query(
    `WITH moved AS (UPDATE settings SET clock_offset_ms = $1 RETURNING clock_offset_ms)
     SELECT ${notifyClock('clock_offset_ms', true)} FROM moved`,
    [offsetMs],
  );
}

/** Moves the offset on by `deltaMs`, answering the new offset. */
export async function advanceClockOffset(session: SqlSession, deltaMs: number): Promise<number> {
  // One UPDATE: a read then a write would let a racing advance from another instance be lost.
  const [row] = await session.query<{ ms: string | number }>(
    `WITH moved AS (UPDATE settings SET clock_offset_ms = clock_offset_ms + $1 RETURNING clock_offset_ms)
     SELECT clock_offset_ms AS ms, ${notifyClock('clock_offset_ms', false)} FROM moved`,
    [deltaMs],
  );
  return Number(row.ms);
}
