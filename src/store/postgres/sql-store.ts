// The store port on PostgreSQL SQL, shared by the `pg` adapter (a server) and PGlite
// (embedded): both hand this class a SqlDatabase.
//
// Correctness across instances (issue 4):
// - Every unit of work is one READ COMMITTED transaction. Inside it, reading a deal, a gig,
//   the gigs of a deal or a closer locks those rows (SELECT … FOR UPDATE) until it ends, so
//   operations on one deal or gig serialize and each sees the other's committed result.
// - Locks are taken in one order, deal → its gigs (in id order) → closers: getGig locks the
//   gig's deal before the gig. Two units that still deadlock (two closers locked in opposite
//   orders), or fail to serialize, are rolled back and run again, a bounded number of times.
// - Id counters are rows updated inside the transaction, so a refusal (a rollback) takes none.
// - Puts are buffered and written as one multi-row upsert per table, before the next read of
//   the records and at commit, so a sell (a create and several moves) is one write.
// - Store.read is a READ ONLY REPEATABLE READ transaction: one snapshot, no locks.

import type { IdKind } from '../../domain/ids.ts';
import type { Closer, Deal, Gig, GigStatus, PayoutLine } from '../../domain/records.ts';
import type { Stage } from '../../domain/stages.ts';
import { DuplicatePayoutError, type Store, type StoreReader, type UnitOfWork } from '../store.ts';
import { closerValues, dealValues, gigValues, type PayoutRow, payoutFromRow, payoutParams } from './codec.ts';
import { migrate } from './migrate.ts';
import { type SqlDatabase, type SqlSession, sqlState } from './sql-database.ts';

/** serialization_failure and deadlock_detected: the unit of work is safe to run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 8;

/** Id order is number order (compareIds): shorter ids first, then byte order ("C" collation). */
const BY_ID = 'length(id), id';
const PAYOUT_COLUMNS = 'at, closer_id, gig_id, deal_id, role, kind, amount_cents';

class SqlReader implements StoreReader {
  private readonly forUpdate: string;
  constructor(
    protected readonly session: SqlSession,
    locking: boolean,
  ) {
    this.forUpdate = locking ? ' FOR UPDATE' : '';
  }

  /** A unit of work writes its buffered puts here, so that it reads its own writes. */
  protected async beforeRead(): Promise<void> {}

  private async docs<T>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    await this.beforeRead();
    return (await this.session.query<{ doc: T }>(text, params)).map((row) => row.doc);
  }

  private async payouts(where: string, id: string): Promise<PayoutLine[]> {
    await this.beforeRead();
    const rows = await this.session.query<PayoutRow>(
      `SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE ${where} = $1 ORDER BY seq`,
      [id],
    );
    return rows.map(payoutFromRow);
  }

  async getDeal(id: string) {
    return (await this.docs<Deal>(`SELECT doc FROM deals WHERE id = $1${this.forUpdate}`, [id]))[0];
  }

  async getGig(id: string) {
    if (this.forUpdate) {
      // The deal first: the lock order every unit of work follows (deal, then its gigs).
      await this.beforeRead();
      await this.session.query('SELECT 1 FROM deals WHERE id = (SELECT deal_id FROM gigs WHERE id = $1) FOR UPDATE', [
        id,
      ]);
    }
    return (await this.docs<Gig>(`SELECT doc FROM gigs WHERE id = $1${this.forUpdate}`, [id]))[0];
  }

  async getCloser(id: string) {
    return (await this.docs<Closer>(`SELECT doc FROM closers WHERE id = $1${this.forUpdate}`, [id]))[0];
  }

  gigsOfDeal(dealId: string) {
    return this.docs<Gig>(`SELECT doc FROM gigs WHERE deal_id = $1 ORDER BY ${BY_ID}${this.forUpdate}`, [dealId]);
  }

  // Lists, ledgers, counts and timer scans never lock: they inform, the locked reads decide.
  listDeals(filter: { stage?: Stage; afterId?: string; limit: number }) {
    const params: unknown[] = [];
    const where: string[] = [];
    if (filter.stage !== undefined) {
      params.push(filter.stage);
      where.push(`stage = $${params.length}`);
    }
    if (filter.afterId !== undefined) {
      params.push(filter.afterId);
      where.push(`(length(id), id) > (length($${params.length}::text), $${params.length}::text COLLATE "C")`);
    }
    params.push(filter.limit);
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')} ` : '';
    return this.docs<Deal>(`SELECT doc FROM deals ${clause}ORDER BY ${BY_ID} LIMIT $${params.length}`, params);
  }

  listGigs(filter: { status?: GigStatus } = {}) {
    return filter.status
      ? this.docs<Gig>(`SELECT doc FROM gigs WHERE status = $1 ORDER BY ${BY_ID}`, [filter.status])
      : this.docs<Gig>(`SELECT doc FROM gigs ORDER BY ${BY_ID}`);
  }

  listClosers() {
    return this.docs<Closer>(`SELECT doc FROM closers ORDER BY ${BY_ID}`);
  }

  payoutsOfCloser(closerId: string) {
    return this.payouts('closer_id', closerId);
  }

  async payoutsOfClosers(closerIds: readonly string[]) {
    const ledgers = new Map<string, PayoutLine[]>(closerIds.map((id) => [id, []]));
    if (closerIds.length === 0) return ledgers;
    await this.beforeRead();
    // The ids travel as one JSON array parameter: the same SQL on `pg` and on PGlite.
    const rows = await this.session.query<PayoutRow>(
      `SELECT ${PAYOUT_COLUMNS} FROM payouts
       WHERE closer_id IN (SELECT json_array_elements_text($1::json)) ORDER BY seq`,
      [JSON.stringify(closerIds)],
    );
    for (const row of rows) ledgers.get(row.closer_id)?.push(payoutFromRow(row));
    return ledgers;
  }

  payoutsOfDeal(dealId: string) {
    return this.payouts('deal_id', dealId);
  }

  async counts() {
    await this.beforeRead();
    const [row] = await this.session.query<{ deals: string | number; closers: string | number }>(
      'SELECT (SELECT count(*) FROM deals) AS deals, (SELECT count(*) FROM closers) AS closers',
    );
    return { deals: Number(row.deals), closers: Number(row.closers) };
  }

  async clockOffsetMs() {
    const [row] = await this.session.query<{ ms: string | number }>('SELECT clock_offset_ms AS ms FROM settings');
    return Number(row.ms);
  }

  dueGigs(now: number, limit: number) {
    return this.docs<Gig>(`SELECT doc FROM gigs WHERE timer_due_at <= $1 ORDER BY timer_due_at, ${BY_ID} LIMIT $2`, [
      now,
      limit,
    ]);
  }

  dueDeals(now: number, limit: number) {
    return this.docs<Deal>(`SELECT doc FROM deals WHERE stall_due_at <= $1 ORDER BY stall_due_at, ${BY_ID} LIMIT $2`, [
      now,
      limit,
    ]);
  }
}

/** How each table is upserted: its columns (the document last) and what a second put replaces. */
const UPSERTS = {
  deals: { columns: ['id', 'stage', 'stall_due_at', 'doc'], update: ['stage', 'stall_due_at', 'doc'] },
  gigs: { columns: ['id', 'deal_id', 'status', 'timer_due_at', 'doc'], update: ['status', 'timer_due_at', 'doc'] },
  closers: { columns: ['id', 'doc'], update: ['doc'] },
} as const;

/**
 * One multi-row INSERT … ON CONFLICT DO UPDATE, a parameter per value (appended to params).
 * Plain parameters rather than one JSON array unpacked in SQL: PostgreSQL cannot turn a
 * \u0000 escape inside JSON into text, and a document may carry one.
 */
function upsert(table: keyof typeof UPSERTS, rows: unknown[][], params: unknown[]): string {
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

class SqlUnitOfWork extends SqlReader implements UnitOfWork {
  private deals = new Map<string, Deal>();
  private gigs = new Map<string, Gig>();
  private closers = new Map<string, Closer>();

  constructor(session: SqlSession) {
    super(session, true);
  }

  protected override beforeRead() {
    return this.flush();
  }

  /** Writes every buffered put: one statement, whatever the number of records and tables. */
  async flush(): Promise<void> {
    const statements: string[] = [];
    const params: unknown[] = [];
    if (this.deals.size > 0) statements.push(upsert('deals', [...this.deals.values()].map(dealValues), params));
    if (this.gigs.size > 0) statements.push(upsert('gigs', [...this.gigs.values()].map(gigValues), params));
    if (this.closers.size > 0) statements.push(upsert('closers', [...this.closers.values()].map(closerValues), params));
    if (statements.length === 0) return;
    // Cleared before the write is sent, so that a read racing this flush does not write twice.
    this.deals = new Map();
    this.gigs = new Map();
    this.closers = new Map();
    const last = statements.pop() as string;
    const sql =
      statements.length === 0 ? last : `WITH ${statements.map((s, i) => `w${i} AS (${s})`).join(', ')} ${last}`;
    await this.session.query(sql, params);
  }

  async nextNumbers() {
    const rows = await this.session.query<{ kind: IdKind; value: string | number }>('SELECT kind, value FROM counters');
    const next = { deal: 1, gig: 1, closer: 1 };
    for (const row of rows) next[row.kind] = Number(row.value) + 1;
    return next;
  }

  async takeNumber(kind: IdKind) {
    const [row] = await this.session.query<{ value: string | number }>(
      'UPDATE counters SET value = value + 1 WHERE kind = $1 RETURNING value',
      [kind],
    );
    if (!row) throw new Error(`no id counter for ${kind}`);
    return Number(row.value);
  }

  async putDeal(deal: Deal) {
    this.deals.set(deal.id, deal);
  }

  async putGig(gig: Gig) {
    this.gigs.set(gig.id, gig);
  }

  async putCloser(closer: Closer) {
    this.closers.set(closer.id, closer);
  }

  async appendPayout(line: PayoutLine) {
    // The primary key on gig_id refuses a second line; DO NOTHING keeps the transaction usable
    // and waits for a racing writer of the same line to finish before deciding.
    const inserted = await this.session.query(
      `INSERT INTO payouts (gig_id, closer_id, deal_id, role, kind, amount_cents, at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (gig_id) DO NOTHING RETURNING gig_id`,
      payoutParams(line),
    );
    if (inserted.length === 0) throw new DuplicatePayoutError(line.gigId);
  }

  async setClockOffsetMs(offsetMs: number) {
    await this.session.query('UPDATE settings SET clock_offset_ms = $1', [offsetMs]);
  }

  async advanceClockOffsetMs(deltaMs: number) {
    // One UPDATE: a read then a write would let a racing advance from another instance be lost.
    const [row] = await this.session.query<{ ms: string | number }>(
      'UPDATE settings SET clock_offset_ms = clock_offset_ms + $1 RETURNING clock_offset_ms AS ms',
      [deltaMs],
    );
    return Number(row.ms);
  }

  async lock(name: string) {
    await this.session.query('SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext($1))', [name]);
  }

  async wipe() {
    // Puts made earlier in this unit of work are wiped with the rest.
    this.deals = new Map();
    this.gigs = new Map();
    this.closers = new Map();
    await this.session.exec(
      'TRUNCATE deals, gigs, closers, payouts RESTART IDENTITY; UPDATE counters SET value = 0; UPDATE settings SET clock_offset_ms = 0',
    );
  }
}

async function rollback(session: SqlSession) {
  // A failed ROLLBACK means a dead connection; the adapter discards it, the original error stands.
  await session.query('ROLLBACK').catch(() => undefined);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SqlStore implements Store {
  private closed = false;

  private constructor(private readonly db: SqlDatabase) {}

  /** Applies pending migrations (never wiping anything) and returns the store. */
  static async open(db: SqlDatabase): Promise<SqlStore> {
    await migrate(db);
    return new SqlStore(db);
  }

  read<T>(work: (reader: StoreReader) => Promise<T>): Promise<T> {
    return this.db.session(async (session) => {
      await session.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const result = await work(new SqlReader(session, false));
        await session.query('COMMIT');
        return result;
      } catch (error) {
        await rollback(session);
        throw error;
      }
    });
  }

  async transaction<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.session(async (session) => {
          await session.query('BEGIN');
          try {
            const uow = new SqlUnitOfWork(session);
            const result = await work(uow);
            await uow.flush();
            await session.query('COMMIT');
            return result;
          } catch (error) {
            await rollback(session);
            throw error;
          }
        });
      } catch (error) {
        const state = sqlState(error);
        if (attempt >= MAX_ATTEMPTS || state === undefined || !RETRYABLE.has(state)) throw error;
        // Jittered backoff, so that the units that collided do not collide again.
        await sleep(Math.random() * 5 * 2 ** Math.min(attempt, 5));
      }
    }
  }

  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }
}
