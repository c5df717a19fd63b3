// The SQL adapter's Sellers and keys (D-51, D-52, migration 011). Reads and writes go through the
// unit of work's `send` (so they follow its buffered puts, in call order). Memory's reference
// behaviour is src/store/memory/account-tables.ts.
import type { ApiKey } from '../../domain/keys.ts';
import type { DailyLimits, KeyUsage } from '../../domain/policy.ts';
import type { Seller } from '../../domain/records.ts';
import type { ConsoleSession } from '../../domain/sessions.ts';
import type { AccountReader, AccountUnit, KeyFilter } from '../accounts.ts';
import type { UsageAdded } from './buffered-writes.ts';
import { keyFromRow } from './codec.ts';
import type { Send } from './sql-database.ts';

type Num = string | number;
type KeyRow = { doc: ApiKey; last_used_at: Num | null };

const KEY_COLUMNS = 'doc, last_used_at';
const BY_ID = 'length(id), id';
const afterId = (placeholder: string) =>
  `(length(id), id) > (length(${placeholder}::text), ${placeholder}::text COLLATE "C")`;

/** The sequences of the numbers of Sellers and keys: owned by no table, never restarted. */
const NUMBERS = { seller: 'seller_numbers', key: 'key_numbers' } as const;

/** A page's WHERE and LIMIT, its parameters appended to `params`. */
function paged(where: string[], params: unknown[], page: { afterId?: string; limit?: number }) {
  if (page.afterId !== undefined) where.push(afterId(`$${params.push(page.afterId)}`));
  const clause = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  const limit = page.limit === undefined ? '' : ` LIMIT $${params.push(page.limit)}`;
  return `${clause} ORDER BY ${BY_ID}${limit}`;
}

export class SqlAccountReader implements AccountReader {
  constructor(protected readonly send: Send) {}

  async getSeller(id: string) {
    const [row] = await this.send<{ doc: Seller }>('SELECT doc FROM sellers WHERE id = $1', [id]);
    return row?.doc;
  }

  async listSellers(page: { afterId?: string; limit?: number }) {
    const params: unknown[] = [];
    const rows = await this.send<{ doc: Seller }>(`SELECT doc FROM sellers${paged([], params, page)}`, params);
    return rows.map((row) => row.doc);
  }

  async getKey(id: string) {
    const [row] = await this.send<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return row && keyFromRow(row);
  }

  async listKeys(filter: KeyFilter) {
    const params: unknown[] = [];
    const where = filter.principal === undefined ? [] : [`principal = $${params.push(filter.principal)}`];
    const rows = await this.send<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys${paged(where, params, filter)}`, params);
    return rows.map(keyFromRow);
  }

  /** The day's closes through the key: the sum of the rows its closing units added (migration 025). */
  async keyUsage(keyId: string, day: string): Promise<KeyUsage> {
    const [row] = await this.send<{ closes: string | number; closed_value_cents: string | number }>(
      `SELECT coalesce(sum(closes), 0) AS closes, coalesce(sum(closed_value_cents), 0) AS closed_value_cents
       FROM key_closes WHERE key_id = $1 AND day = $2`,
      [keyId, day],
    );
    return { day, closes: Number(row.closes), closedValueCents: Number(row.closed_value_cents) };
  }

  async keyByHash(hash: string) {
    const [row] = await this.send<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $1`, [hash]);
    return row && keyFromRow(row);
  }

  /**
   * The keys whose mark is above `since`, and the highest mark stored: one statement, one row at
   * least (the mark, with no key when none changed). Changes of keys run one at a time (putKey's
   * lock), so a mark is never committed below one already read.
   */
  async keysChangedSince(since: number) {
    const rows = await this.send<{ top: Num; doc: ApiKey | null; last_used_at: Num | null }>(
      `SELECT t.top, k.doc, k.last_used_at
       FROM (SELECT greatest($1::bigint, coalesce(max(mark), 0)) AS top FROM api_keys) t
       LEFT JOIN api_keys k ON k.mark > $1::bigint ORDER BY k.mark`,
      [since],
    );
    const keys = rows.flatMap((row) => (row.doc === null ? [] : [keyFromRow(row as KeyRow)]));
    return { keys, mark: Number(rows[0]?.top ?? since) };
  }

  /** As keysChangedSince, for the console's sessions (D-63). */
  async sessionsChangedSince(since: number) {
    const rows = await this.send<SessionRow & { top: Num }>(
      `SELECT t.top, ${SESSION_COLUMNS.map((column) => `s.${column}`).join(', ')}
       FROM (SELECT greatest($1::bigint, coalesce(max(mark), 0)) AS top FROM console_sessions) t
       LEFT JOIN console_sessions s ON s.mark > $1::bigint ORDER BY s.mark`,
      [since],
    );
    const sessions = rows.flatMap((row) => (row.id === null ? [] : [sessionFromRow(row)]));
    return { sessions, mark: Number(rows[0]?.top ?? since) };
  }
}

export const SESSION_COLUMNS = [
  'id',
  'hash',
  'principal',
  'key_id',
  'user_id',
  'created_at',
  'expires_at',
  'ended_at',
] as const;

export type SessionRow = {
  id: string | null;
  hash: string;
  principal: string;
  /** A key's session names its key, a person's its user (migration 022). */
  key_id: string | null;
  user_id: string | null;
  created_at: Num;
  expires_at: Num;
  ended_at: Num | null;
};

export function sessionFromRow(row: SessionRow): ConsoleSession {
  return {
    id: row.id as string,
    hash: row.hash,
    principal: row.principal,
    ...(row.key_id === null ? {} : { keyId: row.key_id }),
    ...(row.user_id === null ? {} : { userId: row.user_id }),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    ...(row.ended_at === null ? {} : { endedAt: Number(row.ended_at) }),
  };
}

export class SqlAccountUnit extends SqlAccountReader implements AccountUnit {
  constructor(
    send: Send,
    /** Keeps a usage for the unit's last statement (sql-unit-of-work.ts flush). */
    private readonly bufferUsage: (added: UsageAdded) => void,
  ) {
    super(send);
  }

  async addKeyUsage(keyId: string, principal: string, usage: KeyUsage, within?: DailyLimits) {
    this.bufferUsage({ keyId, principal, usage, ...(within ? { within } : {}) });
  }

  async putSession(session: ConsoleSession) {
    // Serialized like keys' changes (putKey), so that marks commit in mark order.
    const locked = this.send('SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext($1))', [
      'console_sessions',
    ]);
    const written = this.send(
      `INSERT INTO console_sessions (id, hash, principal, key_id, user_id, created_at, expires_at, ended_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO UPDATE SET ended_at = excluded.ended_at, expires_at = excluded.expires_at,
         mark = nextval('console_session_marks')`,
      [
        session.id,
        session.hash,
        session.principal,
        session.keyId ?? null,
        session.userId ?? null,
        session.createdAt,
        session.expiresAt,
        session.endedAt ?? null,
      ],
    );
    await Promise.all([locked, written]);
  }

  async purgeSessions(before: number) {
    await this.send('DELETE FROM console_sessions WHERE expires_at < $1', [before]);
  }

  async takeNumber(kind: 'seller' | 'key') {
    const sequence = NUMBERS[kind];
    if (sequence === undefined) throw new Error(`no numbers of kind ${String(kind)}`);
    const [row] = await this.send<{ value: Num }>(`SELECT nextval('${sequence}') AS value`);
    return Number(row.value);
  }

  async putSeller(seller: Seller) {
    await this.send(
      `INSERT INTO sellers (id, created_at, doc) VALUES ($1, $2, $3::json)
       ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at, doc = excluded.doc`,
      [seller.id, seller.createdAt, JSON.stringify(seller)],
    );
  }

  async putKey(key: ApiKey) {
    // Changes of keys are serialized (a transaction-long lock, sent with the write: no round
    // trip of its own), so that their marks commit in mark order: an instance that read up to a
    // mark never misses one committed below it later (keysChangedSince).
    const locked = this.send('SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext($1))', ['api_keys']);
    const written = this.send(
      `INSERT INTO api_keys (id, hash, principal, last_used_at, doc) VALUES ($1, $2, $3, $4, $5::json)
       ON CONFLICT (id) DO UPDATE SET hash = excluded.hash, principal = excluded.principal,
         last_used_at = excluded.last_used_at, doc = excluded.doc, mark = nextval('api_key_marks')`,
      [key.id, key.hash, key.principal, key.lastUsedAt ?? null, JSON.stringify(key)],
    );
    await Promise.all([locked, written]);
  }

  async touchKeys(lastUsed: ReadonlyMap<string, number>) {
    if (lastUsed.size === 0) return;
    // Only ever later; the mark stays (not a change other instances need to learn of).
    await this.send(
      `UPDATE api_keys k SET last_used_at = t.at
       FROM (SELECT key AS id, value::bigint AS at FROM json_each_text($1::json)) t
       WHERE k.id = t.id AND (k.last_used_at IS NULL OR k.last_used_at < t.at)`,
      [JSON.stringify(Object.fromEntries(lastUsed))],
    );
  }
}
