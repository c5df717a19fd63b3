// Notifications on PostgreSQL (D-72; migration 024): a row per event and person, numbered by its
// sequence as it is added (an event read twice adds nothing: ON CONFLICT DO NOTHING), people's
// settings, and the notifier's cursor, whose row is its lock. Each write is its own statement.
import { formatId } from '../../domain/ids.ts';
import type {
  MailPlan,
  Notification,
  NotificationDraft,
  NotificationSettings,
  NotifyingType,
} from '../../domain/notifications.ts';
import type { DigestDue, NotificationFilter, NotificationReader, NotificationUnit } from '../notifications.ts';
import type { Send } from './sql-database.ts';
import { parameters } from './sql-parameters.ts';

type Num = string | number;

interface Row {
  number: Num;
  user_id: string;
  principal: string;
  seq: Num;
  type: string;
  title: string;
  deal_id: string | null;
  approval_id: string | null;
  gig_id: string | null;
  at: Num;
  read_at: Num | null;
  mail: string;
  mailed_at: Num | null;
}

const COLUMNS =
  'number, user_id, principal, seq, type, title, deal_id, approval_id, gig_id, at, read_at, mail, mailed_at';

const numberOf = (id: string) => Number(id.slice('ntf_'.length));

function recordOf(row: Row): Notification {
  const found: Notification = {
    id: formatId('ntf', Number(row.number)),
    userId: row.user_id,
    principal: row.principal,
    seq: Number(row.seq),
    type: row.type as NotifyingType,
    title: row.title,
    at: Number(row.at),
    mail: row.mail as MailPlan,
    ...(row.deal_id !== null ? { dealId: row.deal_id } : {}),
    ...(row.approval_id !== null ? { approvalId: row.approval_id } : {}),
    ...(row.gig_id !== null ? { gigId: row.gig_id } : {}),
    ...(row.read_at !== null ? { readAt: Number(row.read_at) } : {}),
    ...(row.mailed_at !== null ? { mailedAt: Number(row.mailed_at) } : {}),
  };
  return found;
}

export class SqlNotificationReader implements NotificationReader {
  constructor(protected readonly send: Send) {}

  async getNotification(id: string) {
    const [row] = await this.send<Row>(`SELECT ${COLUMNS} FROM notifications WHERE number = $1`, [numberOf(id)]);
    return row && recordOf(row);
  }

  async listNotifications(filter: NotificationFilter) {
    const { params, param } = parameters();
    const where = [`user_id = ${param(filter.userId)}`];
    if (filter.unread) where.push('read_at IS NULL');
    if (filter.beforeId !== undefined) where.push(`number < ${param(numberOf(filter.beforeId))}`);
    const rows = await this.send<Row>(
      `SELECT ${COLUMNS} FROM notifications WHERE ${where.join(' AND ')} ORDER BY number DESC LIMIT ${param(filter.limit)}`,
      params,
    );
    return rows.map(recordOf);
  }

  async unreadCount(userId: string) {
    const [row] = await this.send<{ count: Num }>(
      'SELECT count(*) AS count FROM notifications WHERE user_id = $1 AND read_at IS NULL',
      [userId],
    );
    return Number(row.count);
  }

  async notificationSettings(userId: string) {
    const [row] = await this.send<{ email: NotificationSettings['email'] | null }>(
      'SELECT email FROM notification_settings WHERE user_id = $1',
      [userId],
    );
    return row?.email ? { email: row.email } : undefined;
  }
}

export class SqlNotificationUnit extends SqlNotificationReader implements NotificationUnit {
  async addNotifications(drafts: readonly NotificationDraft[]) {
    if (drafts.length === 0) return [];
    const params: unknown[] = [];
    const tuples = drafts.map((d) => {
      const values = [
        d.userId,
        d.principal,
        d.seq,
        d.type,
        d.title,
        d.dealId ?? null,
        d.approvalId ?? null,
        d.gigId ?? null,
        d.at,
        d.readAt ?? null,
        d.mail,
        d.mailedAt ?? null,
      ];
      const first = params.length + 1;
      params.push(...values);
      return `(${values.map((_, i) => `$${first + i}`).join(', ')})`;
    });
    // One statement: its rows are numbered in the order given, and an event's notification of a
    // person that is already there is left as it is (and not answered).
    const rows = await this.send<Row>(
      `INSERT INTO notifications (user_id, principal, seq, type, title, deal_id, approval_id, gig_id, at, read_at, mail, mailed_at)
       VALUES ${tuples.join(', ')} ON CONFLICT (seq, user_id) DO NOTHING RETURNING ${COLUMNS}`,
      params,
    );
    return rows.map(recordOf).sort((a, b) => numberOf(a.id) - numberOf(b.id));
  }

  async markRead(id: string, at: number) {
    await this.send('UPDATE notifications SET read_at = $2 WHERE number = $1 AND read_at IS NULL', [numberOf(id), at]);
    return this.getNotification(id);
  }

  async putNotificationSettings(userId: string, principal: string, settings: NotificationSettings) {
    await this.send(
      `INSERT INTO notification_settings (user_id, principal, email) VALUES ($1, $2, $3::json)
       ON CONFLICT (user_id) DO UPDATE SET email = EXCLUDED.email`,
      [userId, principal, JSON.stringify(settings.email)],
    );
  }

  async digestsDue(lastBefore: number, limit: number) {
    const rows = await this.send<Row>(
      `WITH people AS (
         SELECT DISTINCT n.user_id FROM notifications n
         LEFT JOIN notification_settings s ON s.user_id = n.user_id
         WHERE n.mail = 'digest' AND n.mailed_at IS NULL AND coalesce(s.last_digest_at, 0) <= $1
         ORDER BY n.user_id LIMIT $2)
       SELECT ${COLUMNS.split(', ')
         .map((c) => `n.${c}`)
         .join(', ')} FROM notifications n JOIN people p ON p.user_id = n.user_id
       WHERE n.mail = 'digest' AND n.mailed_at IS NULL ORDER BY n.user_id, n.number`,
      [lastBefore, limit],
    );
    const due = new Map<string, DigestDue>();
    for (const row of rows) {
      const found = recordOf(row);
      let person = due.get(found.userId);
      if (person === undefined) {
        person = { userId: found.userId, principal: found.principal, notifications: [] };
        due.set(found.userId, person);
      }
      person.notifications.push(found);
    }
    return [...due.values()];
  }

  async digestSent(userId: string, principal: string, ids: readonly string[], at: number) {
    await this.send('UPDATE notifications SET mailed_at = $2 WHERE number = ANY($1::bigint[])', [
      ids.map(numberOf),
      at,
    ]);
    await this.send(
      `INSERT INTO notification_settings (user_id, principal, last_digest_at) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET last_digest_at = EXCLUDED.last_digest_at`,
      [userId, principal, at],
    );
  }

  async lockNotifierCursor() {
    const [row] = await this.send<{ cursor: Num }>('SELECT cursor FROM notifier_cursor FOR UPDATE SKIP LOCKED');
    return row === undefined ? undefined : Number(row.cursor);
  }

  async setNotifierCursor(seq: number) {
    await this.send('UPDATE notifier_cursor SET cursor = $1', [seq]);
  }
}
