// A unit of work's buffered writes (sql-unit-of-work.ts): what it put, published, recorded and
// counted since its last write, and the statements they go out as: each a CTE of one statement,
// whatever the number of records and tables (buffered-writes.ts makes each).
import type { TransferDraft } from '../../domain/ledger/transfers.ts';
import type { RefusedProposal } from '../../domain/proposals.ts';
import { eventDealId, type PublicEventDraft } from '../../domain/public-events.ts';
import type { Closer, Deal, Gig } from '../../domain/records.ts';
import { idempotencyLock, type StoredAnswer } from '../store.ts';
import {
  answersInsert,
  answersUpsert,
  emptyOutbox,
  foldedByKey,
  foldedUsage,
  insertNew,
  type OutboxColumns,
  outboxInsert,
  type UsageAdded,
  upsert,
  usageInsert,
} from './buffered-writes.ts';
import { closerValues, dealValues, eventDataJson, gigValues } from './codec.ts';
import { transfersInsert } from './sql-ledger.ts';
import { proposalWrites } from './sql-proposals.ts';

export interface PendingWrites {
  deals: Map<string, Deal>;
  gigs: Map<string, Gig>;
  closers: Map<string, Closer>;
  /** The unit's outbox row (migration 015). */
  events: OutboxColumns;
  /** Refused proposals to record (D-61). */
  proposals: RefusedProposal[];
  /** Answers to store under their Idempotency-Keys (D-37). */
  answers: Map<string, StoredAnswer>;
  /** Closes added to keys' usage of the day (D-68). */
  usage: UsageAdded[];
  /** A close's settlement and a fulfilment's fee (D-79), booked with the unit's write. */
  transfers: TransferDraft[];
}

export const noWrites = (): PendingWrites => ({
  deals: new Map(),
  gigs: new Map(),
  closers: new Map(),
  events: emptyOutbox(),
  proposals: [],
  answers: new Map(),
  usage: [],
  transfers: [],
});

/**
 * The statements of the writes (their values appended to params), and the keys whose locks go
 * out just before them: a close through a key whose policy counts the day folds the key's usage
 * behind its lock (D-278), so the server grants the lock and runs the write (and the COMMIT sent
 * with it) with no round trip between.
 */
export function statementsOf(
  pending: PendingWrites,
  params: unknown[],
  fresh?: Fresh,
): { statements: string[]; locks: string[]; inserted: { statement: number; rows: number }[] } {
  const statements: string[] = [];
  const inserted: { statement: number; rows: number }[] = [];
  const write = <R extends { id: string }>(
    table: 'deals' | 'gigs' | 'closers',
    records: Map<string, R>,
    values: (r: R) => unknown[],
  ) => {
    // D-281: records numbered outside the unit's transaction are inserted, never upserted over a
    // row of the same id (one a demo reset let another unit number again).
    const [news, others] = split([...records.values()], (record) => fresh?.records.has(record.id) === true);
    if (others.length > 0) statements.push(upsert(table, others.map(values), params));
    if (news.length > 0) {
      inserted.push({ statement: statements.length, rows: news.length });
      statements.push(insertNew(table, news.map(values), params));
    }
  };
  // D-73: each deal's facts ride in its row (dealValues, migration 027).
  write('deals', pending.deals, dealValues);
  write('gigs', pending.gigs, gigValues);
  write('closers', pending.closers, closerValues);
  if (pending.proposals.length > 0) statements.push(...proposalWrites(pending.proposals, params));
  if (pending.transfers.length > 0) statements.push(transfersInsert(pending.transfers, params));
  if (pending.events.types.length > 0) statements.push(outboxInsert(pending.events, params));
  const locks: string[] = [];
  if (pending.answers.size > 0) {
    // D-285: an answer whose key was read free is inserted behind the key's lock (the one a keyed
    // unit that reads its key inside its transaction takes), and counted with the new records.
    const [news, others] = split([...pending.answers], ([key]) => fresh?.answers.has(key) === true);
    if (others.length > 0) statements.push(answersUpsert(others, params));
    if (news.length > 0) {
      for (const [key] of news) locks.push(idempotencyLock(key));
      inserted.push({ statement: statements.length, rows: news.length });
      statements.push(answersInsert(news, params));
    }
  }
  const plain = pending.usage.filter((added) => added.within === undefined);
  if (plain.length > 0) statements.push(usageInsert(plain, params));
  for (const added of foldedByKey(pending.usage)) {
    locks.push(`key-usage:${added.keyId}`);
    const fold = foldedUsage(added, params);
    statements.push(fold.remove);
    statements.push(fold.insert(`w${statements.length - 1}`));
  }
  return { statements, locks, inserted };
}

/** Statements as the CTEs of one: `WITH w0 AS (…), w1 AS (…)`. */
const withClause = (statements: readonly string[]) => `WITH ${statements.map((s, i) => `w${i} AS (${s})`).join(', ')}`;

/** A lock held to the end of the transaction, named (UnitOfWork.lock). */
export const LOCK = 'SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext($1))';

/** The version every row a unit writes gets: its transaction's id, as xmin shows it. */
const XID = 'pg_current_xact_id()::xid::text AS xid';

/** Those of `all` that are new, and the others. */
function split<T>(all: T[], isNew: (item: T) => boolean): [T[], T[]] {
  const news = all.filter(isNew);
  return [news, news.length === 0 ? all : all.filter((item) => !isNew(item))];
}

/** What a unit numbered, or found free, outside its transaction: written only as new rows. */
export interface Fresh {
  /** Records' ids (D-281). */
  records: ReadonlySet<string>;
  /** Idempotency keys (D-285). */
  answers: ReadonlySet<string>;
}

/**
 * The statements that write `pending`, if anything: the locks of the keys whose usage the write
 * folds (D-278) and of the idempotency keys whose answers it inserts (D-285), then the write, one
 * statement. A `versioned` write (an optimistic unit's) answers
 * its transaction's id, the version of every row it wrote, and fails with serialization_failure
 * unless every record and answer of `fresh` was new.
 */
export function writeOf(
  pending: PendingWrites,
  fresh: Fresh,
  versioned: boolean,
): { statements: { text: string; params: unknown[] }[] } | undefined {
  const params: unknown[] = [];
  const { statements, locks, inserted } = statementsOf(pending, params, fresh);
  if (statements.length === 0) return undefined;
  const locked = locks.map((name) => ({ text: LOCK, params: [name] as unknown[] }));
  if (versioned) {
    const all = inserted.reduce((n, { rows }) => n + rows, 0);
    const counted = inserted.map(({ statement }) => `(SELECT count(*) FROM w${statement})`).join(' + ');
    const fresh = inserted.length === 0 ? '' : `, expect_unchanged(${counted} = ${all}) AS fresh`;
    return { statements: [...locked, { text: `${withClause(statements)} SELECT ${XID}${fresh}`, params }] };
  }
  const last = statements.pop() as string;
  const text = statements.length === 0 ? last : `${withClause(statements)} ${last}`;
  return { statements: [...locked, { text, params }] };
}

/** Appends events to a unit's outbox row (migration 015: each column an array, in publishing order). */
export function bufferEvents(outbox: OutboxColumns, events: readonly PublicEventDraft[], recordedAt: number): void {
  for (const event of events) {
    outbox.types.push(event.type);
    outbox.dealIds.push(eventDealId(event) ?? null);
    outbox.ats.push(event.at);
    outbox.recordedAts.push(recordedAt);
    outbox.data.push(eventDataJson(event.data));
    // D-57: who the event concerns and who caused it, beside its data.
    outbox.sellerIds.push(event.sellerId ?? null);
    outbox.closerIds.push(event.closerId ?? null);
    outbox.actors.push(event.actor === undefined ? null : JSON.stringify(event.actor));
  }
}
