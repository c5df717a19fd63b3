// Reads on PostgreSQL SQL (the `pg` adapter and PGlite): what Store.read runs in its READ ONLY
// REPEATABLE READ snapshot, and what a unit of work reads (sql-unit-of-work.ts overrides the
// reads of records with locked ones). Lists, ledgers, counts and timer scans never lock.

import { PLATFORM_EVENTS } from '../../domain/access.ts';
import type { Closer, Deal, Gig, PayoutLine } from '../../domain/records.ts';
import type { AccountReader } from '../accounts.ts';
import type { ApprovalReader } from '../approvals.ts';
import type { InsightReader } from '../insights.ts';
import type { LedgerReader } from '../ledger.ts';
import type { MailReader } from '../mail.ts';
import type { NotificationReader } from '../notifications.ts';
import type { PeopleReader } from '../people.ts';
import type { ProposalReader } from '../proposals.ts';
import type { DealFilter, EventFilter, GigFilter, StoredEvent, StoreReader } from '../store.ts';
import { closerFromDoc, type EventRow, eventFromRow, PAYOUT_COLUMNS, type PayoutRow, payoutFromRow } from './codec.ts';
import { SqlAccountReader } from './sql-accounts.ts';
import { readAnswer } from './sql-answers.ts';
import { SqlApprovalReader } from './sql-approvals.ts';
import type { SqlSession } from './sql-database.ts';
import { SqlInsights } from './sql-insights.ts';
import { SqlLedgerReader } from './sql-ledger.ts';
import { SqlMailReader } from './sql-mail.ts';
import { SqlNotificationReader } from './sql-notifications.ts';
import { parameters } from './sql-parameters.ts';
import { SqlPeopleReader } from './sql-people.ts';
import { SqlProposalReader } from './sql-proposals.ts';
import { SqlWebhookReader } from './sql-webhooks.ts';

/**
 * Id order is number order (compareIds): shorter ids first, then byte order ("C" collation).
 * Deals and gigs keep their ids' length in id_len (migration 011: length() is not leakproof, so
 * under row-level security a bound on it is no index bound); closers have no such column.
 */
export const BY_ID = 'id_len, id';
const CLOSERS_BY_ID = 'length(id), id';
const quoted = (types: readonly string[]) => types.map((type) => `'${type}'`).join(', ');
/** The event types every principal sees besides its own (seesEvent, D-58). */
const SHARED = { platform: quoted(PLATFORM_EVENTS) };
/**
 * The type the feed's index by type leaves out (migration 031): a read of other types says so,
 * as a literal, so that the planner may use that index.
 */
const UNINDEXED_TYPE = 'deal.stage_changed';

export const ignore = () => undefined;

/** The statement of a page of the feed (SqlReader.eventsPage). */
export function feedQuery(filter: EventFilter): { text: string; params: unknown[] } {
  const { params, param } = parameters();
  const where = [`seq > ${param(filter.after)}`];
  if (filter.type !== undefined) where.push(`type = ${param(filter.type)}`);
  if (filter.types !== undefined) where.push(`type = ANY(${param(filter.types)}::text[])`);
  const types = filter.types ?? (filter.type === undefined ? undefined : [filter.type]);
  if (types !== undefined && !types.includes(UNINDEXED_TYPE)) where.push(`type <> '${UNINDEXED_TYPE}'`);
  if (filter.dealId !== undefined) where.push(`deal_id = ${param(filter.dealId)}`);
  // D-58: a principal's view, as seesEvent says (the types every principal of its kind sees
  // are literals, so that the statement stays one prepared shape).
  if (filter.sellerId !== undefined)
    where.push(`(seller_id = ${param(filter.sellerId)} OR type IN (${SHARED.platform}))`);
  if (filter.closerId !== undefined) {
    // D-237: the postings of the gigs open now, and of the closer's own.
    const closer = param(filter.closerId);
    where.push(
      `(closer_id = ${closer} OR type IN (${SHARED.platform}) OR (type = 'gig.posted' AND EXISTS (SELECT 1 FROM gigs g ` +
        `WHERE g.id = (events.data->'gig'->>'id') AND (g.status = 'open' OR g.closer_id = ${closer}))))`,
    );
  }
  return {
    text: `SELECT seq, type, at, data, seller_id, closer_id, actor FROM events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ${param(filter.limit)}`,
    params,
  };
}

/** Deals or gigs after an id in id order (a placeholder for the id). */
const afterId = (placeholder: string) =>
  `(id_len, id) > (length(${placeholder}::text), ${placeholder}::text COLLATE "C")`;

/** Closers after an id in id order. */
const closerAfterId = (placeholder: string) =>
  `(length(id), id) > (length(${placeholder}::text), ${placeholder}::text COLLATE "C")`;

export class SqlReader implements StoreReader {
  constructor(protected readonly session: SqlSession) {}

  get webhooks() {
    return new SqlWebhookReader((text, params) => this.send(text, params));
  }

  get accounts(): AccountReader {
    return new SqlAccountReader((text, params) => this.send(text, params));
  }

  get proposals(): ProposalReader {
    return new SqlProposalReader((text, params) => this.send(text, params));
  }

  get people(): PeopleReader {
    return new SqlPeopleReader((text, params) => this.send(text, params));
  }

  get mail(): MailReader {
    return new SqlMailReader((text, params) => this.send(text, params));
  }

  get approvals(): ApprovalReader {
    return new SqlApprovalReader((text, params) => this.send(text, params));
  }

  get ledger(): LedgerReader {
    return new SqlLedgerReader((text, params) => this.send(text, params));
  }

  get insights(): InsightReader {
    return new SqlInsights((text, params) => this.send(text, params));
  }

  get notifications(): NotificationReader {
    return new SqlNotificationReader((text, params) => this.send(text, params));
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

  getAnswer(key: string) {
    return readAnswer((text, params) => this.send(text, params), key);
  }

  async getDeal(id: string): Promise<Deal | undefined> {
    return (await this.docs<Deal>('SELECT doc FROM deals WHERE id = $1', [id]))[0];
  }

  async getGig(id: string): Promise<Gig | undefined> {
    return (await this.docs<Gig>('SELECT doc FROM gigs WHERE id = $1', [id]))[0];
  }

  async getCloser(id: string): Promise<Closer | undefined> {
    const [closer] = await this.docs<Closer>('SELECT doc FROM closers WHERE id = $1', [id]);
    return closer && closerFromDoc(closer);
  }

  gigsOfDeal(dealId: string): Promise<Gig[]> {
    return this.docs<Gig>(`SELECT doc FROM gigs WHERE deal_id = $1 ORDER BY ${BY_ID}`, [dealId]);
  }

  // Lists, ledgers, counts and timer scans never lock: they inform, the locked reads decide.
  listDeals(filter: DealFilter) {
    const { params, param } = parameters();
    const where: string[] = [];
    // A stage filter reads the (stage, id_len, id) index from the page's start (migrations
    // 002, 011): as a row comparison the cursor is an index bound, so a rare stage among a million
    // deals cannot lead the planner to walk the id index and filter. After a cursor, the stage
    // is bounded by row comparisons only, the cursor below and the stage's end above: beside a
    // plain `stage = $1` the index scan started at the stage's first entry and walked to the
    // cursor (633 index buffers, 12.8 ms, half-way into 100,000 deals of a stage; now 104, 1.1 ms).
    let order = BY_ID;
    if (filter.stage !== undefined) {
      const stage = param(filter.stage);
      if (filter.afterId !== undefined) {
        const after = param(filter.afterId);
        where.push(`(stage, id_len, id) > (${stage}::text, length(${after}::text), ${after}::text COLLATE "C")`);
        where.push(`(stage, id_len) < (${stage}::text, 2147483647)`);
      } else {
        where.push(`stage = ${stage}`);
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
      where.push(`id IN (SELECT deal_id FROM gigs WHERE closer_id = ${param(filter.closerId)})`);
    }
    if (filter.sellerId !== undefined) where.push(`seller_id = ${param(filter.sellerId)}`);
    // D-67: a substring of the account's name, without regard to case (strpos: no pattern
    // characters to escape, as LIKE would have).
    if (filter.q !== undefined) where.push(`strpos(lower(doc->'account'->>'name'), lower(${param(filter.q)})) > 0`);
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
    if (filter.closerId !== undefined) where.push(`closer_id = ${param(filter.closerId)}`);
    if (filter.sellerId !== undefined) where.push(`seller_id = ${param(filter.sellerId)}`);
    if (filter.openOrCloserId !== undefined) {
      where.push(`(status = 'open' OR closer_id = ${param(filter.openOrCloserId)})`);
    }
    if (filter.afterId !== undefined) where.push(afterId(param(filter.afterId)));
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')} ` : '';
    const limit = filter.limit === undefined ? '' : ` LIMIT ${param(filter.limit)}`;
    return this.docs<Gig>(`SELECT doc FROM gigs ${clause}ORDER BY ${BY_ID}${limit}`, params);
  }

  listClosers(page: { afterId?: string; limit?: number } = {}) {
    const { params, param } = parameters();
    const where = page.afterId === undefined ? '' : ` WHERE ${closerAfterId(param(page.afterId))}`;
    const limit = page.limit === undefined ? '' : ` LIMIT ${param(page.limit)}`;
    return this.docs<Closer>(`SELECT doc FROM closers${where} ORDER BY ${CLOSERS_BY_ID}${limit}`, params).then((docs) =>
      docs.map(closerFromDoc),
    );
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
      `SELECT deals + (SELECT count(*) FROM event_outbox, unnest(types) AS type WHERE type = 'deal.created') AS deals,
         closers + (SELECT count(*) FROM event_outbox, unnest(types) AS type WHERE type = 'closer.enrolled') AS closers
       FROM event_feed`,
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
    const { text, params } = feedQuery(filter);
    const rows = await this.send<EventRow & { seq: string | number }>(text, params);
    return rows.map((row) => ({
      seq: Number(row.seq),
      event: eventFromRow(row),
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
