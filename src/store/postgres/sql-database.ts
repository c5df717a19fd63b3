// The small query interface the SQL store is written against, so that one adapter (and one set
// of SQL) runs on a PostgreSQL server through `pg` and embedded through PGlite.
import { StoreBusyError, StoreUnavailableError } from '../store.ts';

export interface SqlSession {
  /**
   * One statement with $1… parameters; the rows it returns. The statement is sent (or queued to
   * be) when query is called, so statements run in call order even when a caller does not wait
   * for one before sending the next; an adapter may pipeline those into one round trip.
   */
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Several statements separated by semicolons, no parameters, one round trip. */
  exec(text: string): Promise<void>;
  /** What the connection under this session holds from one session to the next (the same object each time). */
  readonly connection: ConnectionState;
}

/** A session's statement function, as the SQL store's helpers take it (a unit's, or the pool's). */
export type Send = SqlSession['query'];

/** A connection's own settings, as the store last confirmed them. */
export interface ConnectionState {
  /** The principal the connection is held to (D-57); unset when not known. */
  principal?: string;
}

export interface SqlDatabase {
  /**
   * Runs work on one connection held for its whole duration (a transaction lives on one
   * connection). PGlite has a single connection, so its sessions run one at a time.
   */
  session<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
  /**
   * Listens to a channel's notifications on a connection of its own, connecting again should it
   * be lost; `connected` is told each time listening starts (notifications between a loss and
   * that may have been missed). Absent where one process is the only user (PGlite).
   */
  listen?(channel: string, onMessage: (payload: string) => void, connected: (again: boolean) => void): () => void;
  close(): Promise<void>;
  /** Whether sessions run in parallel, each on a connection of its own (a server's pool; not PGlite). */
  readonly parallel?: boolean;
}

/**
 * The SQLSTATE of a database error, if it is one. A system error of the socket is not, though
 * its code may have the same shape: `EPIPE` (a write to a server that went away, D-46) is five
 * capitals too, and taken for a SQLSTATE it was answered 500 instead of 503 (CI caught it once).
 */
export function sqlState(error: unknown): string | undefined {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  if (syscall !== undefined) return undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** A readable message for any error, including the AggregateError of a failed multi-address connect. */
export function describeError(error: unknown): string {
  if (error instanceof StoreUnavailableError || error instanceof StoreBusyError) return describeError(error.cause);
  if (error instanceof AggregateError && error.errors.length > 0) {
    return [...new Set(error.errors.map(describeError))].join('; ');
  }
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}

/** A promise whose rejection is handled later (awaited after other work): never "unhandled". */
export function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * D-57: the statement that sets the principal row-level security holds a transaction to
 * (migration 011), for that transaction only: migrations, which run in one transaction.
 */
export const SET_PRINCIPAL = "SELECT set_config('pipeline.principal', $1, true)";

/** The same setting for the connection, until it is set again (`hold`). */
export const HOLD_PRINCIPAL = "SELECT set_config('pipeline.principal', $1, false)";

/** The principal of the platform's own work (timers, the sequencer, webhook dispatch, the demo). */
export const PLATFORM = 'platform';

/**
 * Holds the session's connection to `principal` (D-57): nothing to send when it already is, as
 * every connection of the demo (always the platform) is after its first use; otherwise the
 * setting goes out in front of the statements sent with it, by itself, outside any transaction,
 * so that no rollback undoes it. Its promise must be awaited before anything read or written
 * behind it counts: a failed setting leaves the connection's principal unknown, and the work is
 * thrown away. A one-statement read is then the statement alone, and a unit of work pays no
 * statement for its principal (docs/performance.md).
 */
export function hold(session: SqlSession, principal: string): Promise<unknown> | undefined {
  const { connection } = session;
  if (connection.principal === principal) return undefined;
  connection.principal = undefined;
  return later(
    session.query(HOLD_PRINCIPAL, [principal]).then(() => {
      connection.principal = principal;
    }),
  );
}

/**
 * Sends the principal's setting when needed (`hold`) and BEGIN (with `text`'s options) together;
 * their promise. The platform's own units (the sequencer, the webhook worker, the timers) on a
 * connection held to a request's principal set theirs for the transaction only: the connection
 * stays held to that principal, so that its next request of the same principal sends nothing
 * for it (keys mode adds no statement per request).
 */
export function begin(session: SqlSession, principal: string, text = 'BEGIN'): Promise<unknown> {
  const held = session.connection.principal;
  if (principal === PLATFORM && held !== undefined && held !== PLATFORM) {
    return later(Promise.all([session.query(text), session.query(SET_PRINCIPAL, [principal])]));
  }
  return later(Promise.all([hold(session, principal), session.query(text)]));
}

/** Rolls a session's transaction back. */
export async function rollback(session: SqlSession): Promise<void> {
  // A failed ROLLBACK means a dead connection; the adapter discards it, the original error stands.
  await session.query('ROLLBACK').catch(() => undefined);
}

/**
 * Takes the next number of a kind's sequence, owned by its table's id column (D-28, migrations
 * 008 and 010): one statement that locks the table first, the order the demo reset's TRUNCATE
 * locks them in, so a unit that takes a number while a reset runs waits for it instead of
 * deadlocking with it.
 */
export async function takeNumber(
  query: SqlSession['query'],
  kind: 'deal' | 'gig' | 'closer' | 'webhook',
): Promise<number> {
  const [row] = await query<{ value: string | number }>('SELECT take_number($1) AS value', [kind]);
  return Number(row.value);
}
