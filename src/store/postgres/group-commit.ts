// Group commit on PostgreSQL (D-281): the units of work that are ready to commit while a
// transaction is in flight go together in the next one. A unit is ready when it decided on
// records from the instance's cache (D-250) and has sent nothing: all it has left is its checks
// and its write. A batch is BEGIN, each unit's statements (behind its principal, D-57, when it
// differs from the one before), and COMMIT, sent in one write: one round trip, one BEGIN and
// COMMIT and one WAL flush for the batch, where each unit paid its own.
//
// - A batch never waits for company: with no batch in flight the first unit goes at once, alone.
//   Units ready meanwhile wait for it and go together in the next, at most `maxUnits` of them and
//   `maxBytes` of statements.
// - No unit's promise settles before its batch has committed (or failed): no answer is sent for
//   a write that is not durable.
// - A unit whose statement fails (a check that finds a record changed, a constraint) aborts the
//   transaction: the batch is rolled back whole, the unit is rejected with its own error (the
//   store runs a conflict again alone, with locks, as a unit that conflicted always was), and the
//   others go again in the next batch, before anything that arrived later. Savepoints would keep
//   the others' work, but only at two more statements per unit and a second round trip per batch
//   (COMMIT can no longer travel with the statements, since ROLLBACK TO must follow a failure):
//   every batch would pay what only a failing one needs.
// - A unit that would certainly fail is refused before it is sent (`stale`, and a record an
//   earlier unit of the batch writes): two units of one deal behave as if run one after the other,
//   the second running again on what the first committed, and no batch rolls back for it.
// - A connection lost mid-batch rejects every unit with its error: whether COMMIT reached the
//   server is unknown, so no unit is acknowledged (the client's retry with its Idempotency-Key
//   answers what was committed).
import type { Gig } from '../../domain/records.ts';
import { StoreUnavailableError, UnitConflictError } from '../store.ts';
import type { Expectations } from './check-unchanged.ts';
import { NUMBER_TAKER_DEFAULTS, NumberTaker, type NumberTakerOptions } from './number-taker.ts';
import { later, SET_PRINCIPAL, type SqlDatabase, sqlState } from './sql-database.ts';

export interface Statement {
  text: string;
  params: readonly unknown[];
}

/** What a ready unit hands over: its statements and what they touch. */
export interface GroupedUnit {
  principal: string;
  /** Its checks, the locks its write needs, and its write, in the order they run. */
  statements: Statement[];
  /** The records its statements check or write (`deal:…`, `gigs:…` for a deal's set, `closer:…`). */
  touches: ReadonlySet<string>;
  /** Those it writes. */
  writes: ReadonlySet<string>;
  /** Whether a record it used has changed since it was read (the cache knows a newer version). */
  stale(): boolean;
  /**
   * Told its statements' rows once its batch committed, before the next batch is taken: what it
   * wrote is then in the cache, so that a unit waiting on an older version is refused unsent.
   */
  committed(rows: unknown[][]): void;
}

export interface GroupCommitOptions {
  /** Most units in one transaction. */
  maxUnits: number;
  /** Most bytes of statements (texts and parameters) in one transaction. */
  maxBytes: number;
  /** Most batches in flight at once, each on a connection of its own. */
  inFlight: number;
  /** When numbers are taken ahead, how many and for how long (D-283). */
  numbers: NumberTakerOptions;
}

export const GROUP_COMMIT_DEFAULTS: GroupCommitOptions = {
  maxUnits: 64,
  maxBytes: 1 << 20,
  // Two: while one batch waits for its WAL flush, the next is sent (measured: one in flight held
  // the create to 767/s, two gave 1,047/s; three no more than two, docs/performance.md).
  inFlight: 2,
  numbers: NUMBER_TAKER_DEFAULTS,
};

interface Waiting {
  unit: GroupedUnit;
  bytes: number;
  resolve(rows: unknown[][]): void;
  reject(error: unknown): void;
}

/**
 * The records a unit's statements check or write, and those it writes: a deal, a deal's set of
 * gigs (a gig written changes its deal's set), a closer, an answer inserted under its key (D-285).
 */
export function touchedBy(
  expected: Expectations,
  put: { deals: ReadonlySet<string>; gigs: ReadonlySet<string>; closers: ReadonlySet<string> },
  gigs: ReadonlyMap<string, Gig>,
  freshAnswers: ReadonlySet<string> = new Set(),
): { touches: Set<string>; writes: Set<string> } {
  const writes = new Set<string>();
  // D-285: two requests with one key never share a batch; the second runs again, with the lock.
  for (const key of freshAnswers) writes.add(`answer:${key}`);
  for (const id of put.deals) writes.add(`deal:${id}`);
  for (const id of put.gigs) {
    const dealId = gigs.get(id)?.dealId;
    if (dealId !== undefined) writes.add(`gigs:${dealId}`);
  }
  for (const id of put.closers) writes.add(`closer:${id}`);
  const touches = new Set(writes);
  for (const id of expected.deals.keys()) touches.add(`deal:${id}`);
  for (const id of expected.gigSets.keys()) touches.add(`deal:${id}`).add(`gigs:${id}`);
  for (const id of expected.lockedClosers.keys()) touches.add(`closer:${id}`);
  for (const id of expected.readClosers.keys()) touches.add(`closer:${id}`);
  return { touches, writes };
}

/** How many bytes a unit's statements send, roughly: what bounds a batch's size. */
function sizeOf(unit: GroupedUnit): number {
  let bytes = 0;
  for (const { text, params } of unit.statements) {
    bytes += text.length;
    for (const value of params) bytes += typeof value === 'string' ? value.length : 8;
  }
  return bytes;
}

export class GroupCommit {
  private readonly waiting: Waiting[] = [];
  /** Batches in flight, each with the records its units write. */
  private readonly flying = new Set<ReadonlySet<string>>();

  /**
   * Numbers for a ready unit (number-taker.ts), taken outside any transaction, so that the unit
   * need not begin one it would then commit alone; those of units waiting together in one statement.
   */
  readonly numbers: NumberTaker;

  constructor(
    private readonly db: SqlDatabase,
    private readonly options: GroupCommitOptions = GROUP_COMMIT_DEFAULTS,
    /** Told each batch's size as it commits (the metrics' histogram). */
    private readonly committed: (units: number) => void = () => undefined,
  ) {
    this.numbers = new NumberTaker(
      (work) => this.db.session((session) => work((text, params) => session.query(text, params))),
      options.numbers,
    );
  }

  /** Commits the unit's statements with the others ready now; each statement's rows, once committed. */
  commit(unit: GroupedUnit): Promise<unknown[][]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ unit, bytes: sizeOf(unit), resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.flying.size < this.options.inFlight) {
      const { batch, writes } = this.take();
      if (batch.length === 0) return;
      this.flying.add(writes);
      void this.run(batch).then((settle) => {
        // The next batch is taken before any unit of this one is answered: a unit that arrives
        // from an answer's continuation finds nothing in flight when nothing waited.
        this.flying.delete(writes);
        this.next();
        settle();
      });
    }
  }

  /**
   * The next batch, in arrival order, and the records it writes. A unit that uses a record a batch
   * in flight writes waits for it (it would wait for that batch's row locks, then fail); one that
   * could only fail is refused at once.
   */
  private take(): { batch: Waiting[]; writes: Set<string> } {
    const batch: Waiting[] = [];
    const writes = new Set<string>();
    let bytes = 0;
    const flying = [...this.flying];
    for (let i = 0; i < this.waiting.length && batch.length < this.options.maxUnits; ) {
      const next = this.waiting[i];
      if (batch.length > 0 && bytes + next.bytes > this.options.maxBytes) break;
      const touches = [...next.unit.touches];
      if (flying.some((written) => touches.some((record) => written.has(record)))) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      if (next.unit.stale() || touches.some((record) => writes.has(record))) {
        next.reject(new UnitConflictError('a record this unit read was changed by a unit committed before it'));
        continue;
      }
      for (const record of next.unit.writes) writes.add(record);
      bytes += next.bytes;
      batch.push(next);
    }
    return { batch, writes };
  }

  /**
   * Sends the batch and waits for its outcome; tells each committed unit (so the cache knows what
   * it wrote before the next batch is taken) and puts back those to send again. Answers the
   * units' promises when its result is called. Never rejects.
   */
  private async run(batch: Waiting[]): Promise<() => void> {
    // Each statement's promise, with the unit it belongs to (-1: the batch's own) and whether it
    // is one of the unit's own statements (not its principal's setting).
    const sent: { unit: number; own: boolean; rows: Promise<unknown[]>; answered?: unknown[] }[] = [];
    let failure: { unit: number; error: unknown } | undefined;
    try {
      await this.db.session(async (session) => {
        const send = (unit: number, text: string, params?: readonly unknown[], own = false) => {
          sent.push({ unit, own, rows: later(session.query(text, params)) });
        };
        send(-1, 'BEGIN');
        let principal = session.connection.principal;
        batch.forEach(({ unit }, i) => {
          // For this transaction only: the connection stays held to its own principal.
          if (unit.principal !== principal) send(i, SET_PRINCIPAL, [unit.principal]);
          principal = unit.principal;
          for (const { text, params } of unit.statements) send(i, text, params, true);
        });
        send(-1, 'COMMIT');
        // In the order sent: the first failure is the cause, those behind it only its echo.
        for (const statement of sent) {
          try {
            statement.answered = await statement.rows;
          } catch (error) {
            failure ??= { unit: statement.unit, error };
          }
        }
      });
    } catch (error) {
      failure ??= { unit: -1, error };
    }
    if (failure === undefined) {
      this.committed(batch.length);
      const answers = batch.map((waiting, i) => {
        const rows = sent.filter((statement) => statement.unit === i && statement.own).map((s) => s.answered ?? []);
        try {
          waiting.unit.committed(rows);
          return () => waiting.resolve(rows);
        } catch (error) {
          return () => waiting.reject(error);
        }
      });
      return () => {
        for (const answer of answers) answer();
      };
    }
    const { unit, error } = failure;
    // The batch's own statement failed, or the connection did: every unit shares the outcome.
    if (unit === -1 || error instanceof StoreUnavailableError || sqlState(error) === undefined) {
      return () => {
        for (const waiting of batch) waiting.reject(error);
      };
    }
    // The others were rolled back with it: they go first in the next batch.
    this.waiting.unshift(...batch.filter((_, i) => i !== unit));
    return () => batch[unit].reject(error);
  }
}
