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
// - Ids come from sequences (migration 008), taken only once the gate accepted: no row that
//   every creating transaction locks.
// - Puts are buffered and written as one multi-row upsert per table, before the next read of
//   the records and at commit, so a sell (a create and several moves) is one write.
// - A unit of work keeps the records it holds (read under a row lock, or put by it): no one
//   else can change them before it ends, so reading one again costs no statement. Reading a
//   gig locks its deal and all the deal's gigs at once, since what reads a gig loads its deal.
// - Store.read is a READ ONLY REPEATABLE READ transaction: one snapshot, no locks.
//
// Round trips: every method sends its statements when it is called, never after an await, so
// statements reach the server in call order and the `pg` adapter pipelines those sent together
// (BEGIN with the first statement, the last write with COMMIT, reads started at once) into one
// round trip. The server still runs them one after another, each seeing what the last did.

import { compareIds, type IdKind } from '../../domain/ids.ts';
import { eventDealId, type PublicEventDraft } from '../../domain/public-events.ts';
import type { Closer, Deal, Gig, PayoutLine } from '../../domain/records.ts';
import {
  type DealFilter,
  DuplicatePayoutError,
  type EventFilter,
  type GigFilter,
  type Store,
  StoreBusyError,
  type StoredAnswer,
  type StoredEvent,
  type StoreReader,
  type UnitOfWork,
} from '../store.ts';
import { closerValues, dealValues, gigValues, type PayoutRow, payoutFromRow, payoutParams } from './codec.ts';
import { EventSequencer } from './event-sequencer.ts';
import { migrate } from './migrate.ts';
import { later, rollback, type SqlDatabase, type SqlSession, sqlState } from './sql-database.ts';
import { SqlWebhookReader, SqlWebhookUnit, WEBHOOK_TABLES } from './sql-webhooks.ts';

/**
 * serialization_failure, deadlock_detected, and in_failed_sql_transaction (what a statement
 * pipelined behind a deadlocked one reports, D-46): the unit of work is safe to run again.
 */
const RETRYABLE = new Set(['40001', '40P01', '25P02']);
const MAX_ATTEMPTS = 8;

/** The channel on which instances tell each other of moves of the demo clock (migration-free). */
const CLOCK_CHANNEL = 'pipeline_demo_clock';
/** The notification of a new offset (in SQL: $offset names the offset's expression). */
const notifyClock = (offset: string, reset: boolean) =>
  `pg_notify('${CLOCK_CHANNEL}', json_build_object('schema', current_schema(), 'offsetMs', ${offset}, 'reset', ${reset})::text)`;

/** Id order is number order (compareIds): shorter ids first, then byte order ("C" collation). */
const BY_ID = 'length(id), id';
/** Where each kind's numbers come from (D-28, migration 008). */
const NUMBERED: Record<IdKind, { table: string; sequence: string }> = {
  deal: { table: 'deals', sequence: 'deal_numbers' },
  gig: { table: 'gigs', sequence: 'gig_numbers' },
  closer: { table: 'closers', sequence: 'closer_numbers' },
};
const PAYOUT_COLUMNS = 'at, closer_id, gig_id, deal_id, role, kind, amount_cents';

const ignore = () => undefined;

/** Numbered query parameters: param(value) appends one and answers its placeholder. */
function parameters() {
  const params: unknown[] = [];
  return {
    params,
    param: (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    },
  };
}

/** Records after an id in id order (a placeholder for the id). */
const afterId = (placeholder: string) =>
  `(length(id), id) > (length(${placeholder}::text), ${placeholder}::text COLLATE "C")`;

class SqlReader implements StoreReader {
  constructor(protected readonly session: SqlSession) {}

  get webhooks() {
    return new SqlWebhookReader((text, params) => this.send(text, params));
  }

  /**
   * Sends one read now. A unit of work sends its buffered puts just before it, so that it reads
   * its own writes.
   */
  protected send<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
    return this.session.query<R>(text, params);
  }

  protected async docs<T>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.send<{ doc: T }>(text, params)).map((row) => row.doc);
  }

  private async payouts(where: string, id: string): Promise<PayoutLine[]> {
    const rows = await this.send<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE ${where} = $1 ORDER BY seq`, [
      id,
    ]);
    return rows.map(payoutFromRow);
  }

  async getDeal(id: string): Promise<Deal | undefined> {
    return (await this.docs<Deal>('SELECT doc FROM deals WHERE id = $1', [id]))[0];
  }

  async getGig(id: string): Promise<Gig | undefined> {
    return (await this.docs<Gig>('SELECT doc FROM gigs WHERE id = $1', [id]))[0];
  }

  async getCloser(id: string): Promise<Closer | undefined> {
    return (await this.docs<Closer>('SELECT doc FROM closers WHERE id = $1', [id]))[0];
  }

  gigsOfDeal(dealId: string): Promise<Gig[]> {
    return this.docs<Gig>(`SELECT doc FROM gigs WHERE deal_id = $1 ORDER BY ${BY_ID}`, [dealId]);
  }

  // Lists, ledgers, counts and timer scans never lock: they inform, the locked reads decide.
  listDeals(filter: DealFilter) {
    const { params, param } = parameters();
    const where: string[] = [];
    // A stage filter reads the (stage, length(id), id) index from the page's start (migration
    // 002): as a row comparison the cursor is an index bound, so a rare stage among a million
    // deals cannot lead the planner to walk the id index and filter.
    let order = BY_ID;
    if (filter.stage !== undefined) {
      const stage = param(filter.stage);
      where.push(`stage = ${stage}`);
      if (filter.afterId !== undefined) {
        const after = param(filter.afterId);
        where.push(`(stage, length(id), id) > (${stage}::text, length(${after}::text), ${after}::text COLLATE "C")`);
      }
      order = `stage, ${BY_ID}`;
    }
    if (filter.role !== undefined) {
      // D-8 in SQL: gone_dark makes the nurturer; otherwise the stage says setter or closer.
      const goneDark = `EXISTS (SELECT 1 FROM json_array_elements_text(doc->'signals') s WHERE s = 'gone_dark')`;
      const setterStages = `stage IN ('sourced', 'qualified')`;
      if (filter.role === 'nurturer') where.push(goneDark);
      else where.push(`NOT ${goneDark} AND ${filter.role === 'setter' ? '' : 'NOT '}${setterStages}`);
    }
    if (filter.humanTrack !== undefined) {
      where.push(`(doc->>'humanTrack') ${filter.humanTrack ? '=' : 'IS DISTINCT FROM'} 'true'`);
    }
    if (filter.closerId !== undefined) {
      where.push(`id IN (SELECT deal_id FROM gigs WHERE doc->>'closerId' = ${param(filter.closerId)})`);
    }
    if (filter.afterId !== undefined && filter.stage === undefined) where.push(afterId(param(filter.afterId)));
    const limit = param(filter.limit);
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')} ` : '';
    return this.docs<Deal>(`SELECT doc FROM deals ${clause}ORDER BY ${order} LIMIT ${limit}`, params);
  }

  listGigs(filter: GigFilter = {}) {
    const { params, param } = parameters();
    const where: string[] = [];
    if (filter.status !== undefined) where.push(`status = ${param(filter.status)}`);
    if (filter.role !== undefined) where.push(`doc->>'role' = ${param(filter.role)}`);
    if (filter.dealId !== undefined) where.push(`deal_id = ${param(filter.dealId)}`);
    if (filter.closerId !== undefined) where.push(`doc->>'closerId' = ${param(filter.closerId)}`);
    if (filter.afterId !== undefined) where.push(afterId(param(filter.afterId)));
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')} ` : '';
    const limit = filter.limit === undefined ? '' : ` LIMIT ${param(filter.limit)}`;
    return this.docs<Gig>(`SELECT doc FROM gigs ${clause}ORDER BY ${BY_ID}${limit}`, params);
  }

  listClosers(page: { afterId?: string; limit?: number } = {}) {
    const { params, param } = parameters();
    const where = page.afterId === undefined ? '' : ` WHERE ${afterId(param(page.afterId))}`;
    const limit = page.limit === undefined ? '' : ` LIMIT ${param(page.limit)}`;
    return this.docs<Closer>(`SELECT doc FROM closers${where} ORDER BY ${BY_ID}${limit}`, params);
  }

  payoutsOfCloser(closerId: string) {
    return this.payouts('closer_id', closerId);
  }

  async payoutsOfClosers(closerIds: readonly string[]) {
    const ledgers = new Map<string, PayoutLine[]>(closerIds.map((id) => [id, []]));
    if (closerIds.length === 0) return ledgers;
    // The ids travel as one JSON array parameter: the same SQL on `pg` and on PGlite.
    const rows = await this.send<PayoutRow>(
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
    // Kept by the sequencer, plus the creations still in the outbox (migration 009): no scan.
    const [row] = await this.send<{ deals: string | number; closers: string | number }>(
      `SELECT deals + (SELECT count(*) FROM event_outbox WHERE type = 'deal.created') AS deals,
         closers + (SELECT count(*) FROM event_outbox WHERE type = 'closer.enrolled') AS closers FROM event_feed`,
    );
    return { deals: Number(row.deals), closers: Number(row.closers) };
  }

  async clockOffsetMs() {
    const [row] = await this.session.query<{ ms: string | number }>('SELECT clock_offset_ms AS ms FROM settings');
    return Number(row.ms);
  }

  lastSeqRow() {
    return this.send<{ last_seq: string | number }>('SELECT last_seq FROM event_feed');
  }

  /** A page of the feed: only sequenced events are in `events` (see migration 004). */
  async eventsPage(filter: EventFilter): Promise<StoredEvent[]> {
    const { params, param } = parameters();
    const where = [`seq > ${param(filter.after)}`];
    if (filter.type !== undefined) where.push(`type = ${param(filter.type)}`);
    if (filter.dealId !== undefined) where.push(`deal_id = ${param(filter.dealId)}`);
    const rows = await this.send<{ seq: string | number; type: string; at: string | number; data: unknown }>(
      `SELECT seq, type, at, data FROM events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ${param(filter.limit)}`,
      params,
    );
    return rows.map((row) => ({
      seq: Number(row.seq),
      event: { type: row.type, at: Number(row.at), data: row.data } as PublicEventDraft,
    }));
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
  // Puts not yet written.
  private pendingDeals = new Map<string, Deal>();
  private pendingGigs = new Map<string, Gig>();
  private pendingClosers = new Map<string, Closer>();
  /** Outbox rows not yet written (type, deal_id, at, recorded_at, data). */
  private pendingEvents: unknown[][] = [];
  /** Whether this unit of work published anything (the store then sequences after the commit). */
  published = false;
  // Records held: read under a row lock by this unit of work, or put by it. A put replaces what
  // is held; a read that comes back later never replaces a put (the put is newer).
  private readonly heldDeals = new Map<string, Deal>();
  private readonly heldGigs = new Map<string, Gig>();
  private readonly heldClosers = new Map<string, Closer>();
  /** Deals whose gigs were all read under the deal's lock: new gigs of them come only from puts. */
  private readonly dealsWithGigs = new Set<string>();

  override get webhooks() {
    return new SqlWebhookUnit(
      (text, params) => this.send(text, params),
      (after, limit) => this.eventsPage({ after, limit }),
    );
  }

  protected override send<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
    const written = this.flush();
    const rows = this.session.query<R>(text, params);
    // The write's error is the one to report: the read behind it fails only because of it.
    return written.then(
      () => rows,
      (error) => {
        rows.catch(ignore);
        throw error;
      },
    );
  }

  /** Writes every buffered put: one statement, whatever the number of records and tables. */
  flush(): Promise<void> {
    const statements: string[] = [];
    const params: unknown[] = [];
    const deals = [...this.pendingDeals.values()];
    const gigs = [...this.pendingGigs.values()];
    const closers = [...this.pendingClosers.values()];
    if (deals.length > 0) statements.push(upsert('deals', deals.map(dealValues), params));
    if (gigs.length > 0) statements.push(upsert('gigs', gigs.map(gigValues), params));
    if (closers.length > 0) statements.push(upsert('closers', closers.map(closerValues), params));
    if (this.pendingEvents.length > 0) statements.push(outboxInsert(this.pendingEvents, params));
    if (statements.length === 0) return Promise.resolve();
    // Cleared as the write is sent, so that a read racing this flush does not write twice.
    this.pendingDeals = new Map();
    this.pendingGigs = new Map();
    this.pendingClosers = new Map();
    this.pendingEvents = [];
    const last = statements.pop() as string;
    const sql =
      statements.length === 0 ? last : `WITH ${statements.map((s, i) => `w${i} AS (${s})`).join(', ')} ${last}`;
    return this.session.query(sql, params).then(ignore);
  }

  override async getDeal(id: string) {
    const held = this.heldDeals.get(id);
    if (held) return held;
    const [deal] = await this.docs<Deal>('SELECT doc FROM deals WHERE id = $1 FOR UPDATE', [id]);
    if (deal) this.hold(this.heldDeals, deal);
    return deal;
  }

  override async gigsOfDeal(dealId: string) {
    if (this.dealsWithGigs.has(dealId)) return this.heldGigsOf(dealId);
    const gigs = await this.docs<Gig>(`SELECT doc FROM gigs WHERE deal_id = $1 ORDER BY ${BY_ID} FOR UPDATE`, [dealId]);
    this.holdGigsOf(dealId, gigs);
    return gigs;
  }

  override async getGig(id: string) {
    const held = this.heldGigs.get(id);
    if (held && this.dealsWithGigs.has(held.dealId)) return held;
    // What reads a gig goes on to load its deal: lock the deal first (the lock order every unit
    // of work follows), then all its gigs in id order, sent together. The second statement runs
    // once the first holds the deal's lock.
    const deal = later(
      this.docs<Deal>('SELECT doc FROM deals WHERE id = (SELECT deal_id FROM gigs WHERE id = $1) FOR UPDATE', [id]),
    );
    const gigs = this.docs<Gig>(
      `SELECT doc FROM gigs WHERE deal_id = (SELECT deal_id FROM gigs WHERE id = $1) ORDER BY ${BY_ID} FOR UPDATE`,
      [id],
    );
    const [[locked], siblings] = await Promise.all([deal, gigs]);
    if (locked) {
      this.hold(this.heldDeals, locked);
      this.holdGigsOf(locked.id, siblings);
    }
    return siblings.find((gig) => gig.id === id);
  }

  override async getCloser(id: string) {
    const held = this.heldClosers.get(id);
    if (held) return held;
    const [closer] = await this.docs<Closer>('SELECT doc FROM closers WHERE id = $1 FOR UPDATE', [id]);
    if (closer) this.hold(this.heldClosers, closer);
    return closer;
  }

  /** Holds a record read under its lock, unless this unit of work already holds it (or put it). */
  private hold<T extends { id: string }>(held: Map<string, T>, record: T) {
    if (!held.has(record.id)) held.set(record.id, record);
  }

  private holdGigsOf(dealId: string, gigs: readonly Gig[]) {
    for (const gig of gigs) this.hold(this.heldGigs, gig);
    this.dealsWithGigs.add(dealId);
  }

  private heldGigsOf(dealId: string): Gig[] {
    return [...this.heldGigs.values()].filter((gig) => gig.dealId === dealId).sort((a, b) => compareIds(a.id, b.id));
  }

  async nextNumbers() {
    const next = (kind: IdKind) =>
      `(SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM ${NUMBERED[kind].sequence}) AS ${kind}`;
    const [row] = await this.session.query<Record<IdKind, string | number>>(
      `SELECT ${next('deal')}, ${next('gig')}, ${next('closer')}`,
    );
    return { deal: Number(row.deal), gig: Number(row.gig), closer: Number(row.closer) };
  }

  async takeNumber(kind: IdKind) {
    const { table, sequence } = NUMBERED[kind];
    // The table before its sequence, the order the reset's TRUNCATE locks them in: a create
    // racing a reset waits for it instead of deadlocking with it. Sent together.
    const [, [row]] = await Promise.all([
      this.session.query(`LOCK TABLE ${table} IN ROW EXCLUSIVE MODE`),
      this.session.query<{ value: string | number }>(`SELECT nextval('${sequence}') AS value`),
    ]);
    return Number(row.value);
  }

  async putDeal(deal: Deal) {
    this.pendingDeals.set(deal.id, deal);
    this.heldDeals.set(deal.id, deal);
  }

  async putGig(gig: Gig) {
    this.pendingGigs.set(gig.id, gig);
    this.heldGigs.set(gig.id, gig);
  }

  async putCloser(closer: Closer) {
    this.pendingClosers.set(closer.id, closer);
    this.heldClosers.set(closer.id, closer);
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

  // Every change of the offset is told to the other instances when it commits (watchClockOffset).
  async setClockOffsetMs(offsetMs: number) {
    await this.session.query(
      `WITH moved AS (UPDATE settings SET clock_offset_ms = $1 RETURNING clock_offset_ms)
       SELECT ${notifyClock('clock_offset_ms', true)} FROM moved`,
      [offsetMs],
    );
  }

  async advanceClockOffsetMs(deltaMs: number) {
    // One UPDATE: a read then a write would let a racing advance from another instance be lost.
    const [row] = await this.session.query<{ ms: string | number }>(
      `WITH moved AS (UPDATE settings SET clock_offset_ms = clock_offset_ms + $1 RETURNING clock_offset_ms)
       SELECT clock_offset_ms AS ms, ${notifyClock('clock_offset_ms', false)} FROM moved`,
      [deltaMs],
    );
    return Number(row.ms);
  }

  async getAnswer(key: string) {
    const [row] = await this.send<{
      fingerprint: string;
      status: number;
      body: string;
      location: string | null;
      etag: string | null;
      stored_at: string | number;
    }>('SELECT fingerprint, status, body, location, etag, stored_at FROM idempotency_keys WHERE key = $1', [key]);
    if (!row) return undefined;
    const answer: StoredAnswer = {
      fingerprint: row.fingerprint,
      status: row.status,
      body: row.body,
      storedAt: Number(row.stored_at),
    };
    if (row.location !== null) answer.location = row.location;
    if (row.etag !== null) answer.etag = row.etag;
    return answer;
  }

  async putAnswer(key: string, answer: StoredAnswer) {
    await this.send(
      `INSERT INTO idempotency_keys (key, fingerprint, status, body, location, etag, stored_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
         body = excluded.body, location = excluded.location, etag = excluded.etag, stored_at = excluded.stored_at`,
      [
        key,
        answer.fingerprint,
        answer.status,
        answer.body,
        answer.location ?? null,
        answer.etag ?? null,
        answer.storedAt,
      ],
    );
  }

  async purgeAnswers(before: number) {
    const rows = await this.send('DELETE FROM idempotency_keys WHERE stored_at < $1 RETURNING key', [before]);
    return rows.length;
  }

  async publish(events: readonly PublicEventDraft[], recordedAt: number) {
    // Buffered like the puts: written with them, in the unit's last statement.
    for (const event of events) {
      this.pendingEvents.push([
        event.type,
        eventDealId(event) ?? null,
        event.at,
        recordedAt,
        JSON.stringify(event.data),
      ]);
    }
    if (events.length > 0) this.published = true;
  }

  async purgeEvents(before: number) {
    const rows = await this.send('DELETE FROM events WHERE recorded_at < $1 RETURNING seq', [before]);
    return rows.length;
  }

  async lock(name: string) {
    await this.session.query('SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext($1))', [name]);
  }

  async wipe() {
    // Puts made earlier in this unit of work are wiped with the rest, and nothing is held.
    this.pendingDeals = new Map();
    this.pendingGigs = new Map();
    this.pendingClosers = new Map();
    this.pendingEvents = [];
    this.heldDeals.clear();
    this.heldGigs.clear();
    this.heldClosers.clear();
    this.dealsWithGigs.clear();
    await this.session.exec(
      // RESTART IDENTITY restarts the id sequences too (they are owned by the id columns), in
      // this transaction (migration 008).
      `TRUNCATE deals, gigs, closers, payouts, idempotency_keys, event_outbox, events, ${WEBHOOK_TABLES} RESTART IDENTITY;
       UPDATE settings SET clock_offset_ms = 0; UPDATE event_feed SET deals = 0, closers = 0;
       SELECT ${notifyClock('0', true)}`,
    );
  }
}

/** The outbox rows' INSERT (columns as publish buffers them), a parameter per value. */
function outboxInsert(rows: unknown[][], params: unknown[]): string {
  const tuples = rows.map((row) => {
    const placeholders = row.map((value, i) => {
      params.push(value);
      return i === 4 ? `$${params.length}::json` : `$${params.length}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  return `INSERT INTO event_outbox (type, deal_id, at, recorded_at, data) VALUES ${tuples.join(', ')}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SqlStore implements Store {
  private closed = false;
  /** Moves committed outbox rows into the feed (event-sequencer.ts). */
  private readonly sequencer: EventSequencer;

  private constructor(
    private readonly db: SqlDatabase,
    /** The schema the tables are in: instances on other schemas of the database are other services. */
    private readonly schema: string,
  ) {
    this.sequencer = new EventSequencer(db);
  }

  /** Applies pending migrations (never wiping anything) and returns the store. */
  static async open(db: SqlDatabase): Promise<SqlStore> {
    await migrate(db);
    const [{ schema }] = await db.session((session) =>
      session.query<{ schema: string }>('SELECT current_schema() AS schema'),
    );
    return new SqlStore(db, schema);
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

  read<T>(work: (reader: StoreReader) => Promise<T>): Promise<T> {
    return this.db.session(async (session) => {
      // Not awaited: BEGIN goes out with the first read (one round trip on `pg`).
      const begun = later(session.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'));
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

  async transaction<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.session(async (session) => {
          // Not awaited: BEGIN goes out with the unit's first statement (one round trip on `pg`).
          // BEGIN fails only with its connection, and then so does every statement behind it.
          const begun = later(session.query('BEGIN'));
          try {
            const uow = new SqlUnitOfWork(session);
            const result = await work(uow);
            await begun;
            // The last write and COMMIT go out together. Should the write fail, the transaction
            // is aborted and the server answers that COMMIT by rolling back; the write's error
            // is the one thrown (Promise.all rejects with the first failure, the write's).
            await Promise.all([uow.flush(), session.query('COMMIT')]);
            if (uow.published) this.sequencer.soon();
            return result;
          } catch (error) {
            await rollback(session);
            throw error;
          }
        });
      } catch (error) {
        const state = sqlState(error);
        if (state === undefined || !RETRYABLE.has(state)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw new StoreBusyError(error);
        // Jittered backoff, so that the units that collided do not collide again.
        await sleep(Math.random() * 5 * 2 ** Math.min(attempt, 5));
      }
    }
  }

  async events(filter: EventFilter): Promise<StoredEvent[]> {
    // What the caller committed is in the feed before it reads (P-67).
    await this.sequencer.run();
    return this.read((reader) => (reader as SqlReader).eventsPage(filter));
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
