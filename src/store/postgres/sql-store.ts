// The store port on PostgreSQL SQL, shared by the `pg` adapter (a server) and PGlite
// (embedded): both hand this class a SqlDatabase. Reads are in sql-reader.ts, the unit of work
// in sql-unit-of-work.ts.
//
// Correctness across instances (D-129):
// - Every unit of work is one READ COMMITTED transaction. Inside it, reading a deal, a gig,
//   the gigs of a deal or a closer locks those rows (SELECT … FOR UPDATE) until it ends, so
//   operations on one deal or gig serialize and each sees the other's committed result.
// - Locks are taken in one order, deal → its gigs (in id order) → closers: getGig locks the
//   gig's deal before the gig, and closers are locked in id order (D-46). Two units that
//   still deadlock, or fail to serialize, are rolled back and run again, a bounded number of
//   times; then StoreBusyError (503 STORE_BUSY).
// - Ids come from sequences (migration 008), taken only once the gate accepted: no row that
//   every creating transaction locks. A unit takes all its numbers in one statement
//   (sql-numbers.ts, D-273), then writes its records with their real ids: a create is BEGIN
//   with that statement, then its write with COMMIT: two round trips.
// - Puts are buffered and written as one multi-row upsert per table, before the next read of
//   the records and at commit, so a sell (a create and several moves) is one write.
// - A unit of work keeps the records it holds (read under a row lock, or put by it): no one
//   else can change them before it ends, so reading one again costs no statement. Reading a
//   gig locks its deal and all the deal's gigs at once, since what reads a gig loads its deal.
// - A request's command is optimistic (UnitOptions.optimistic, D-250): it takes its
//   records from this instance's cache of them (record-cache.ts), without locks, and its write
//   goes out as BEGIN, the checks (check-unchanged.ts: they lock the rows in the order above and
//   raise 40001 if one is not the version taken), the write and COMMIT: one round trip. A record
//   the cache lacks begins the transaction and is read under its lock, as above. A conflict
//   rolls back and runs the unit again, with locks; a refusal decided on cached records is
//   checked before it stands.
// - A close through a key whose policy counts the day (D-278) goes out behind the key's lock,
//   sent with the write: the lock, the fold of the key's usage of the day (which raises 40001
//   over the limits), the write and COMMIT, in one round trip.
// - Store.read is a READ ONLY REPEATABLE READ transaction: one snapshot, no locks.
// - D-57: every statement runs as the principal row-level security holds it to (migration 011):
//   UnitOptions.principal, or `platform` for the platform's own work. The connection keeps it
//   from one use to the next, and it is set again, before BEGIN, only when it changes (`hold`).
//
// Round trips: every method sends its statements when it is called, never after an await, so
// statements reach the server in call order and the `pg` adapter pipelines those sent together
// (BEGIN with the first statement, the last write with COMMIT, reads started at once) into one
// round trip. The server still runs them one after another, each seeing what the last did.

import { NO_TELEMETRY, type Telemetry } from '../../telemetry.ts';
import type { EventFilter, ReadOptions, Store, StoredEvent, StoreReader, UnitOfWork, UnitOptions } from '../store.ts';
import { StoreBusyError, UnitConflictError } from '../store.ts';
import { EventSequencer } from './event-sequencer.ts';
import { GROUP_COMMIT_DEFAULTS, GroupCommit, type GroupCommitOptions } from './group-commit.ts';
import { LazySession } from './lazy-session.ts';
import { migrate } from './migrate.ts';
import { migrateAsOwner } from './owner-migration.ts';
import { RecordCache } from './record-cache.ts';
import { CLOCK_CHANNEL } from './sql-clock.ts';
import { begin, hold, PLATFORM, rollback, type SqlDatabase, type SqlSession, sqlState } from './sql-database.ts';
import { ignore, SqlReader } from './sql-reader.ts';
import { SqlUnitOfWork } from './sql-unit-of-work.ts';
import { WEBHOOKS_CHANNEL } from './sql-webhooks.ts';

/**
 * serialization_failure, deadlock_detected, and in_failed_sql_transaction (what a statement
 * pipelined behind a deadlocked one reports, D-46): the unit of work is safe to run again.
 */
const RETRYABLE = new Set(['40001', '40P01', '25P02']);
const MAX_ATTEMPTS = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SqlStore implements Store {
  readonly runsUnitsAgain = true;
  private closed = false;
  /** Moves committed outbox rows into the feed (event-sequencer.ts). */
  private readonly sequencer: EventSequencer;
  /** The records this instance last read or wrote, for optimistic units (record-cache.ts). */
  private readonly cache = new RecordCache();
  /** Told after this instance's commits that changed webhooks (watchWebhooks). */
  private readonly webhookWatchers = new Set<() => void>();

  private constructor(
    private readonly db: SqlDatabase,
    /** The schema the tables are in: instances on other schemas of the database are other services. */
    private readonly schema: string,
    private readonly telemetry: Telemetry,
    /** Where ready units commit together (D-281); unset, each unit commits alone. */
    private readonly group: GroupCommit | undefined,
  ) {
    this.sequencer = new EventSequencer(db);
  }

  /**
   * Applies pending migrations (never wiping anything) and returns the store. With `owner`, a
   * connection as the role that owns the tables, they run over it, and `db`'s role is granted
   * what serving needs (D-77, owner-migration.ts); the caller closes `owner`.
   */
  static async open(
    db: SqlDatabase,
    telemetry: Telemetry = NO_TELEMETRY,
    options: { owner?: SqlDatabase; groupCommit?: boolean | Partial<GroupCommitOptions> } = {},
  ): Promise<SqlStore> {
    if (options.owner) await migrateAsOwner(options.owner, db);
    else await migrate(db);
    const [{ schema }] = await db.session((session) =>
      session.query<{ schema: string }>('SELECT current_schema() AS schema'),
    );
    // On by default where units run in parallel on a pool of connections (a server, not PGlite).
    const { groupCommit = db.parallel === true } = options;
    const group = groupCommit
      ? new GroupCommit(db, { ...GROUP_COMMIT_DEFAULTS, ...(groupCommit === true ? {} : groupCommit) }, (units) =>
          telemetry.committedTogether?.(units),
        )
      : undefined;
    return new SqlStore(db, schema, telemetry, group);
  }

  watchClockOffset(listener: (offsetMs: number, reset: boolean) => void): () => void {
    if (!this.db.listen) return () => undefined;
    const readOffset = () => this.read((reader) => reader.clockOffsetMs());
    return this.db.listen(
      CLOCK_CHANNEL,
      (payload) => {
        const told = JSON.parse(payload) as { schema: string; offsetMs: number; reset: boolean };
        if (told.schema === this.schema) listener(Number(told.offsetMs), told.reset === true);
      },
      (again) => {
        // Listening (again): what was missed meanwhile is read, and taken as it is after a loss.
        readOffset().then((offsetMs) => listener(offsetMs, again), ignore);
      },
    );
  }

  watchWebhooks(listener: () => void): () => void {
    this.webhookWatchers.add(listener);
    // Other instances' commits arrive as notifications (sql-webhooks.ts); after a lost
    // connection one may have been missed, so the listener is told then too.
    const stopListening = this.db.listen?.(
      WEBHOOKS_CHANNEL,
      (payload) => {
        if (payload === this.schema) listener();
      },
      (again) => {
        if (again) listener();
      },
    );
    return () => {
      this.webhookWatchers.delete(listener);
      stopListening?.();
    };
  }

  read<T>(work: (reader: StoreReader) => Promise<T>, options?: ReadOptions): Promise<T> {
    const principal = options?.principal ?? PLATFORM;
    if (options?.oneStatement) return this.readOne(work, principal);
    return this.db.session(async (session) => {
      // Not awaited: BEGIN and the principal (D-57) go out with the first read (one round trip on `pg`).
      const begun = begin(session, principal, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const result = await work(new SqlReader(session));
        await begun;
        await session.query('COMMIT');
        return result;
      } catch (error) {
        await rollback(session);
        throw error;
      }
    });
  }

  /**
   * A read of one statement (ReadOptions.oneStatement), outside any transaction: the statement
   * alone, behind the principal's setting when the connection is not yet held to it (`hold`),
   * both in one write and one round trip.
   */
  private readOne<T>(work: (reader: StoreReader) => Promise<T>, principal: string): Promise<T> {
    return this.db.session(async (session) => {
      let held: Promise<unknown> | undefined;
      let sent = false;
      const once: SqlSession = {
        query: <R>(text: string, params?: readonly unknown[]) => {
          if (sent) return Promise.reject(new Error(`a read of one statement sent a second: ${text.slice(0, 80)}`));
          sent = true;
          held = hold(session, principal);
          return session.query<R>(text, params);
        },
        exec: () => Promise.reject(new Error('a read of one statement sent a script')),
        connection: session.connection,
      };
      const result = await work(new SqlReader(once));
      // What was read counts only if it was read as the principal.
      await held;
      return result;
    });
  }

  async transaction<T>(work: (uow: UnitOfWork) => Promise<T>, options?: UnitOptions): Promise<T> {
    const principal = options?.principal ?? PLATFORM;
    for (let attempt = 1; ; attempt++) {
      // Its connection is taken at its first statement (lazy-session.ts): a unit that commits in
      // a group (D-281) never takes one of its own.
      const session = new LazySession(this.db);
      try {
        // The first attempt of an optimistic unit reads without locks; one that conflicted runs
        // again with them, so that it cannot conflict again and again.
        const optimistic = options?.optimistic === true && attempt === 1;
        const uow = new SqlUnitOfWork(session, { principal, cache: this.cache, optimistic, group: this.group });
        try {
          const result = await work(uow);
          await uow.commit();
          if (uow.published) this.sequencer.soon();
          if (uow.webhooksChanged) for (const watcher of this.webhookWatchers) watcher();
          return result;
        } catch (error) {
          await uow.abandon();
          throw error;
        } finally {
          await session.release();
        }
      } catch (error) {
        // D-278: an optimistic unit whose assumption failed runs again as one that conflicted.
        const state = error instanceof UnitConflictError ? '40001' : sqlState(error);
        if (state === undefined || !RETRYABLE.has(state)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw new StoreBusyError(error);
        this.telemetry.unitRetried(state);
        // Jittered backoff, so that the units that collided do not collide again.
        await sleep(Math.random() * 5 * 2 ** Math.min(attempt, 5));
      }
    }
  }

  async events(filter: EventFilter, options?: UnitOptions): Promise<StoredEvent[]> {
    // What the caller committed is in the feed before it reads (D-167).
    await this.sequencer.run();
    return this.read((reader) => (reader as SqlReader).eventsPage(filter), options);
  }

  async lastSeq(): Promise<number> {
    await this.sequencer.run();
    return this.read(async (reader) => {
      const [row] = await (reader as SqlReader).lastSeqRow();
      return Number(row.last_seq);
    });
  }

  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.sequencer.close();
    await this.db.close();
  }
}
