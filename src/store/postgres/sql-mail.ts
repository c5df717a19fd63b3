// The SQL adapter's mail outbox (D-64, migration 022). Reads and writes go through the unit of
// work's `send` (so they follow its buffered puts, in call order). Claims lock the rows they
// take and skip those another transaction holds, so instances claiming at once never take the
// same message. Memory's reference behaviour is src/store/memory/mail-tables.ts.
import type { MailMessage, MailReader, MailUnit } from '../mail.ts';
import type { Send } from './sql-database.ts';

type Num = string | number;

/** What never changes of a message: its document. Its sending's state is in columns. */
type MailDoc = Pick<MailMessage, 'to' | 'subject' | 'text' | 'linkBase' | 'nonce'>;

type MailRow = {
  id: string;
  principal: string;
  created_at: Num;
  attempts: Num;
  next_attempt_at: Num;
  sent_at: Num | null;
  failed_at: Num | null;
  last_error: string | null;
  doc: MailDoc;
};

const COLUMNS = 'id, principal, created_at, attempts, next_attempt_at, sent_at, failed_at, last_error, doc';
/** Neither sent nor given up: the rows of the partial index mail_outbox_due. */
const UNSENT = 'sent_at IS NULL AND failed_at IS NULL';

function mailFromRow(row: MailRow): MailMessage {
  const { to, subject, text, linkBase, nonce } = row.doc;
  return {
    id: row.id,
    principal: row.principal,
    to,
    subject,
    text,
    linkBase,
    nonce,
    createdAt: Number(row.created_at),
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    ...(row.sent_at === null ? {} : { sentAt: Number(row.sent_at) }),
    ...(row.failed_at === null ? {} : { failedAt: Number(row.failed_at) }),
    ...(row.last_error === null ? {} : { lastError: row.last_error }),
  };
}

export class SqlMailReader implements MailReader {
  constructor(protected readonly send: Send) {}

  async getMail(id: string) {
    const [row] = await this.send<MailRow>(`SELECT ${COLUMNS} FROM mail_outbox WHERE id = $1`, [id]);
    return row && mailFromRow(row);
  }

  async nextMailDue() {
    const [row] = await this.send<{ due: Num | null }>(
      `SELECT min(next_attempt_at) AS due FROM mail_outbox WHERE ${UNSENT}`,
    );
    return row?.due == null ? undefined : Number(row.due);
  }
}

export class SqlMailUnit extends SqlMailReader implements MailUnit {
  async putMail(message: MailMessage) {
    const doc: MailDoc = {
      to: message.to,
      subject: message.subject,
      text: message.text,
      linkBase: message.linkBase,
      nonce: message.nonce,
    };
    // A plain INSERT: a tenant may add its own messages, but neither read nor change any (022).
    await this.send(
      `INSERT INTO mail_outbox (id, principal, created_at, attempts, next_attempt_at, sent_at, failed_at, last_error, doc)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::json)`,
      [
        message.id,
        message.principal,
        message.createdAt,
        message.attempts,
        message.nextAttemptAt,
        message.sentAt ?? null,
        message.failedAt ?? null,
        message.lastError ?? null,
        JSON.stringify(doc),
      ],
    );
  }

  async claimMail(now: number, leaseUntil: number, limit: number) {
    // SKIP LOCKED: a row another claim holds is left to it. One that claim committed meanwhile is
    // read again as it now is (leased past `now`), and is not due.
    const rows = await this.send<MailRow & { due: Num }>(
      `WITH due AS (
         SELECT id, next_attempt_at AS due FROM mail_outbox
         WHERE ${UNSENT} AND next_attempt_at <= $1
         ORDER BY next_attempt_at, created_at, id LIMIT $3
         FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE mail_outbox m SET attempts = m.attempts + 1, next_attempt_at = $2
         FROM due WHERE m.id = due.id
         RETURNING ${COLUMNS.split(', ')
           .map((column) => `m.${column}`)
           .join(', ')}, due.due)
       SELECT * FROM claimed ORDER BY due, created_at, id`,
      [now, leaseUntil, limit],
    );
    return rows.map(mailFromRow);
  }

  async mailSent(id: string, attempt: number, at: number) {
    await this.send('UPDATE mail_outbox SET sent_at = $3 WHERE id = $1 AND attempts = $2 AND sent_at IS NULL', [
      id,
      attempt,
      at,
    ]);
  }

  async mailFailed(id: string, attempt: number, error: string, at: number, retryAt: number | undefined) {
    // No retry: given up (failed_at), never claimed again; a retry: due again at retryAt.
    await this.send(
      `UPDATE mail_outbox SET last_error = $3,
         failed_at = CASE WHEN $5::bigint IS NULL THEN $4::bigint ELSE failed_at END,
         next_attempt_at = coalesce($5::bigint, next_attempt_at)
       WHERE id = $1 AND attempts = $2 AND sent_at IS NULL`,
      [id, attempt, error, at, retryAt ?? null],
    );
  }
}
