// The feed's sequencer on PostgreSQL and PGlite (D-41, migrations 004, 006 and 015): it moves
// the outbox rows of every committed transaction into the feed, a unit's rows together, each row's
// events (one row per unit's write, migration 015) expanded in publishing order, giving them
// their seq, and counts the deals and closers they create (/health, migration 009). Run a few
// milliseconds after a commit that published (commits of that moment share the run) and before
// every read of the feed, so that a reader sees what it committed.
import { begin, later, PLATFORM, rollback, type SqlDatabase } from './sql-database.ts';

const ignore = () => undefined;

/** Outbox rows (a unit's events each, migration 015) moved per run at most; a full run is followed by another at once. */
const SEQUENCE_BATCH = 1000;

/**
 * Migration 006 says why this order can never skip a reader. The feed row's lock comes first,
 * in a statement of its own, so that the move's snapshot is taken after the last sequencer
 * committed; the statements are sent together (one round trip).
 */
const SEQUENCE = `WITH moved AS (
    DELETE FROM event_outbox WHERE xid IN (
      SELECT xid FROM event_outbox ORDER BY position LIMIT ${SEQUENCE_BATCH})
    RETURNING xid, position, types, deal_ids, ats, recorded_ats, data, seller_ids, closer_ids, actors),
  events_moved AS (
    SELECT min(m.position) OVER (PARTITION BY m.xid) AS first, m.position, e.*
    FROM moved m, unnest(m.types, m.deal_ids, m.ats, m.recorded_ats, m.data, m.seller_ids, m.closer_ids, m.actors)
      WITH ORDINALITY AS e(type, deal_id, at, recorded_at, data, seller_id, closer_id, actor, n)),
  inserted AS (
    INSERT INTO events (seq, type, deal_id, at, recorded_at, data, seller_id, closer_id, actor)
    SELECT (SELECT last_seq FROM event_feed) + row_number() OVER (ORDER BY first, position, n),
      type, deal_id, at, recorded_at, data, seller_id, closer_id, actor FROM events_moved
    RETURNING seq, type)
  UPDATE event_feed SET last_seq = (SELECT max(seq) FROM inserted),
    deals = deals + (SELECT count(*) FROM inserted WHERE type = 'deal.created'),
    closers = closers + (SELECT count(*) FROM inserted WHERE type = 'closer.enrolled')
  WHERE EXISTS (SELECT 1 FROM inserted) RETURNING (SELECT count(*) FROM moved) AS moved`;

export class EventSequencer {
  private closed = false;
  /** The run in progress, and the one that must follow it (coalesced runs). */
  private running: Promise<void> | undefined;
  private again: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: SqlDatabase) {}

  /**
   * Runs once more after any run in progress (whose snapshot may predate what the caller
   * committed); concurrent callers share that one run.
   */
  run(): Promise<void> {
    if (!this.running) {
      this.running = this.runOnce().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    if (!this.again) {
      this.again = this.running.catch(ignore).then(() => {
        this.again = undefined;
        return this.run();
      });
    }
    return this.again;
  }

  /**
   * After a commit that published: runs within a few milliseconds, commits that arrive
   * meanwhile sharing the run. A failure is left to the next run (the rows wait in the outbox).
   */
  soon(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.closed) this.run().catch(ignore);
    }, 5);
    this.timer.unref();
  }

  /** Stops scheduling runs and waits for the one in progress. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(ignore);
  }

  private async runOnce(): Promise<void> {
    for (;;) {
      const moved = await this.db.session(async (session) => {
        const begun = begin(session, PLATFORM);
        try {
          const locked = later(session.query('SELECT last_seq FROM event_feed FOR UPDATE'));
          const rows = later(session.query<{ moved: string | number }>(SEQUENCE));
          const committed = later(session.query('COMMIT'));
          await Promise.all([begun, locked, rows, committed]);
          return Number((await rows)[0]?.moved ?? 0);
        } catch (error) {
          await rollback(session);
          throw error;
        }
      });
      // A full batch may have left more behind.
      if (moved < SEQUENCE_BATCH) return;
    }
  }
}
