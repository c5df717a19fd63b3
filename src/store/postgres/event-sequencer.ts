// The feed's sequencer on PostgreSQL and PGlite (D-41, migrations 004, 006, 015 and 018): it moves
// the outbox rows of every committed transaction into the feed, a unit's rows together, each row's
// events (one row per unit's write, migration 015) expanded in publishing order, giving them
// their seq, and counts the deals and closers they create (/health, migration 009). Run before
// every read of the feed, so that a reader sees what it committed, and in the background
// SEQUENCE_DELAY_MS after a commit that published (the commits of that moment share the run).
import type { SqlDatabase } from './sql-database.ts';

const ignore = () => undefined;

/** Outbox rows (a unit's events each, migration 015) moved per run at most; a full run is followed by another at once. */
const SEQUENCE_BATCH = 1000;

/**
 * How long after a commit that published the background run waits, commits meanwhile sharing
 * it. No reader waits for it (every read of the feed runs the sequencer first, D-167), so it only
 * keeps the outbox drained: each run has a cost of its own (its plans, its commit, the feed
 * row), and runs 100 ms apart instead of 5 cost the server a tenth to a quarter less per sell
 * (docs/performance.md: where the server's time goes).
 */
const SEQUENCE_DELAY_MS = 100;

/** One run (migration 018: the feed row's lock, then the move, in one statement). */
const SEQUENCE = `SELECT sequence_events(${SEQUENCE_BATCH}) AS moved`;

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
   * After a commit that published: runs within SEQUENCE_DELAY_MS, commits that arrive
   * meanwhile sharing the run. A failure is left to the next run (the rows wait in the outbox).
   */
  soon(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.closed) this.run().catch(ignore);
    }, SEQUENCE_DELAY_MS);
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
        const [row] = await session.query<{ moved: string | number }>(SEQUENCE);
        return Number(row?.moved ?? 0);
      });
      // A full batch may have left more behind.
      if (moved < SEQUENCE_BATCH) return;
    }
  }
}
