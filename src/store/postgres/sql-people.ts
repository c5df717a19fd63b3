// The SQL adapter's people (D-62, D-63, migration 022): users, their one-time tokens, the failed
// sign-ins that lock an email, and a person's console sessions. Reads and writes go through the
// unit of work's `send` (so they follow its buffered puts, in call order). Memory's reference
// behaviour is src/store/memory/people-tables.ts.
import type { ConsoleSession } from '../../domain/sessions.ts';
import { emailKey, type OneTimeToken, type SignInThrottle, type User } from '../../domain/users.ts';
import type { PeopleReader, PeopleUnit, UserFilter } from '../people.ts';
import { SESSION_COLUMNS, type SessionRow, sessionFromRow } from './sql-accounts.ts';
import type { Send } from './sql-database.ts';
import { parameters } from './sql-parameters.ts';

type Num = string | number;

/** Id order is number order (compareIds); id_len keeps it an index bound under row-level security. */
const BY_ID = 'id_len, id';

type TokenRow = {
  hash: string;
  purpose: OneTimeToken['purpose'];
  user_id: string;
  principal: string;
  created_at: Num;
  expires_at: Num;
  used_at: Num | null;
};

const tokenFromRow = (row: TokenRow): OneTimeToken => ({
  hash: row.hash,
  purpose: row.purpose,
  userId: row.user_id,
  principal: row.principal,
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
  ...(row.used_at === null ? {} : { usedAt: Number(row.used_at) }),
});

export class SqlPeopleReader implements PeopleReader {
  constructor(protected readonly send: Send) {}

  private async users(text: string, params: readonly unknown[]): Promise<User[]> {
    return (await this.send<{ doc: User }>(text, params)).map((row) => row.doc);
  }

  async getUser(id: string) {
    const [user] = await this.users('SELECT doc FROM users WHERE id = $1', [id]);
    return user;
  }

  async userByEmail(email: string) {
    const [user] = await this.users('SELECT doc FROM users WHERE email_key = $1', [emailKey(email)]);
    return user;
  }

  async emailTaken(email: string) {
    const [row] = await this.send<{ taken: boolean }>('SELECT email_taken($1) AS taken', [emailKey(email)]);
    return row?.taken === true;
  }

  listUsers(filter: UserFilter) {
    const { params, param } = parameters();
    const where: string[] = [];
    if (filter.principal !== undefined) where.push(`principal = ${param(filter.principal)}`);
    if (filter.afterId !== undefined) {
      const after = param(filter.afterId);
      where.push(`(id_len, id) > (length(${after}::text), ${after}::text COLLATE "C")`);
    }
    const clause = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    const limit = filter.limit === undefined ? '' : ` LIMIT ${param(filter.limit)}`;
    return this.users(`SELECT doc FROM users${clause} ORDER BY ${BY_ID}${limit}`, params);
  }

  enabledAdmins(principal: string) {
    return this.users(
      `SELECT doc FROM users WHERE principal = $1 AND role = 'admin' AND disabled_at IS NULL ORDER BY ${BY_ID}`,
      [principal],
    );
  }

  /**
   * As keysChangedSince (sql-accounts.ts): one statement, one row at least (the mark, with no
   * user when none changed). Writes of users run one at a time (putUser's lock), so a mark is
   * never committed below one already read.
   */
  async usersChangedSince(since: number) {
    const rows = await this.send<{ top: Num; doc: User | null }>(
      `SELECT t.top, u.doc
       FROM (SELECT greatest($1::bigint, coalesce(max(mark), 0)) AS top FROM users) t
       LEFT JOIN users u ON u.mark > $1::bigint ORDER BY u.mark`,
      [since],
    );
    const users = rows.flatMap((row) => (row.doc === null ? [] : [row.doc]));
    return { users, mark: Number(rows[0]?.top ?? since) };
  }

  async tokenByHash(hash: string) {
    const [row] = await this.send<TokenRow>(
      'SELECT hash, purpose, user_id, principal, created_at, expires_at, used_at FROM one_time_tokens WHERE hash = $1',
      [hash],
    );
    return row && tokenFromRow(row);
  }

  async getThrottle(id: string) {
    const [row] = await this.send<{ failures: Num[]; locked_until: Num | null }>(
      'SELECT failures, locked_until FROM sign_in_throttles WHERE id = $1',
      [id],
    );
    if (row === undefined) return undefined;
    const throttle: SignInThrottle = { id, failures: row.failures.map(Number) };
    return row.locked_until === null ? throttle : { ...throttle, lockedUntil: Number(row.locked_until) };
  }

  async sessionsOfUser(userId: string): Promise<ConsoleSession[]> {
    const rows = await this.send<SessionRow>(
      `SELECT ${SESSION_COLUMNS.join(', ')} FROM console_sessions WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
    return rows.map(sessionFromRow);
  }
}

export class SqlPeopleUnit extends SqlPeopleReader implements PeopleUnit {
  async takeUserNumber() {
    const [row] = await this.send<{ value: Num }>("SELECT nextval('user_numbers') AS value");
    return Number(row.value);
  }

  async putUser(user: User) {
    // Writes of users are serialized (a transaction-long lock, sent with the write), so that
    // their marks commit in mark order (usersChangedSince). A second user of an email breaks
    // email_key's uniqueness: the statement fails, and the unit with it.
    const locked = this.send('SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext($1))', ['users']);
    const written = this.send(
      `INSERT INTO users (id, email_key, principal, role, disabled_at, doc) VALUES ($1, $2, $3, $4, $5, $6::json)
       ON CONFLICT (id) DO UPDATE SET email_key = excluded.email_key, principal = excluded.principal,
         role = excluded.role, disabled_at = excluded.disabled_at, doc = excluded.doc, mark = nextval('user_marks')`,
      [user.id, emailKey(user.email), user.principal, user.role, user.disabledAt ?? null, JSON.stringify(user)],
    );
    await Promise.all([locked, written]);
  }

  async putToken(token: OneTimeToken) {
    await this.send(
      `INSERT INTO one_time_tokens (hash, purpose, user_id, principal, created_at, expires_at, used_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (hash) DO UPDATE SET purpose = excluded.purpose, user_id = excluded.user_id,
         principal = excluded.principal, created_at = excluded.created_at, expires_at = excluded.expires_at,
         used_at = excluded.used_at`,
      [
        token.hash,
        token.purpose,
        token.userId,
        token.principal,
        token.createdAt,
        token.expiresAt,
        token.usedAt ?? null,
      ],
    );
  }

  async putThrottle(throttle: SignInThrottle) {
    if (throttle.failures.length === 0 && throttle.lockedUntil === undefined) {
      await this.send('DELETE FROM sign_in_throttles WHERE id = $1', [throttle.id]);
      return;
    }
    await this.send(
      `INSERT INTO sign_in_throttles (id, failures, locked_until) VALUES ($1, $2::bigint[], $3)
       ON CONFLICT (id) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until`,
      [throttle.id, throttle.failures, throttle.lockedUntil ?? null],
    );
  }
}
