// The SQL adapter's webhooks (D-42, migration 005). Reads and writes go through the unit of
// work's `send` (so they follow its buffered puts, in call order).

import type { PublicEventType } from '../../domain/public-events.ts';
import type { Webhook } from '../../domain/webhooks.ts';
import type { StoredEvent } from '../store.ts';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  NewDelivery,
  WebhookAttempt,
  WebhookReader,
  WebhookUnit,
} from '../webhooks.ts';
import { eventDataJson, eventFromRow } from './codec.ts';
import { type Send, takeNumber } from './sql-database.ts';

type Num = string | number;
interface HookRow {
  id: string;
  url: string;
  types: PublicEventType[] | null;
  secret: string;
  created_at: Num;
  after_seq: Num;
  owner: string | null;
}

/**
 * The channel on which a commit that made, changed or deleted a webhook tells every instance
 * (its payload the schema), so that their workers wake instead of polling (D-249).
 */
export const WEBHOOKS_CHANNEL = 'pipeline_webhooks';
const NOTIFY = `pg_notify('${WEBHOOKS_CHANNEL}', current_schema())`;

/** D-57: the principal that made a webhook (keys mode), when the record names one. */
type Owned = { owner?: string };

function hookFromRow(row: HookRow): Webhook {
  const hook: Webhook = {
    id: row.id,
    url: row.url,
    secret: row.secret,
    createdAt: Number(row.created_at),
    afterSeq: Number(row.after_seq),
  };
  if (row.types !== null) hook.types = row.types;
  if (row.owner !== null) (hook as Owned).owner = row.owner;
  return hook;
}

const HOOK_COLUMNS = 'id, url, types, secret, created_at, after_seq, owner';

export class SqlWebhookReader implements WebhookReader {
  constructor(protected readonly send: Send) {}

  async get(id: string) {
    const [row] = await this.send<HookRow>(`SELECT ${HOOK_COLUMNS} FROM webhooks WHERE id = $1`, [id]);
    return row ? hookFromRow(row) : undefined;
  }

  async list() {
    const rows = await this.send<HookRow>(`SELECT ${HOOK_COLUMNS} FROM webhooks ORDER BY length(id), id`);
    return rows.map(hookFromRow);
  }

  async attempts(webhookId: string, limit: number) {
    const rows = await this.send<{
      seq: Num;
      attempt: number;
      at: Num;
      status: number | null;
      error: string | null;
      next_attempt_at: Num | null;
    }>(
      `SELECT * FROM (SELECT id, seq, attempt, at, status, error, next_attempt_at FROM webhook_attempts
       WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2) last ORDER BY id`,
      [webhookId, limit],
    );
    return rows.map((row) => {
      const attempt: WebhookAttempt = { webhookId, seq: Number(row.seq), attempt: row.attempt, at: Number(row.at) };
      if (row.status !== null) attempt.status = row.status;
      if (row.error !== null) attempt.error = row.error;
      if (row.next_attempt_at !== null) attempt.nextAttemptAt = Number(row.next_attempt_at);
      return attempt;
    });
  }
}

export class SqlWebhookUnit extends SqlWebhookReader implements WebhookUnit {
  constructor(
    send: Send,
    private readonly feedPage: (
      after: number,
      limit: number,
      types?: readonly PublicEventType[],
    ) => Promise<StoredEvent[]>,
    /** Called when a webhook is put or deleted (the store tells this instance's watchers at commit). */
    private readonly changed: () => void = () => undefined,
  ) {
    super(send);
  }

  async takeNumber() {
    return takeNumber((text, params) => this.send(text, params), 'webhook');
  }

  async put(hook: Webhook) {
    this.changed();
    // The other instances are told when this commits (a notification is sent only then).
    await this.send(
      `WITH put AS (INSERT INTO webhooks (${HOOK_COLUMNS}) VALUES ($1, $2, $3::json, $4, $5, $6, $7)
       ON CONFLICT (id) DO UPDATE SET url = excluded.url, types = excluded.types, secret = excluded.secret
       RETURNING id)
       SELECT ${NOTIFY} FROM put`,
      [
        hook.id,
        hook.url,
        hook.types === undefined ? null : JSON.stringify(hook.types),
        hook.secret,
        hook.createdAt,
        hook.afterSeq,
        (hook as Owned).owner ?? null,
      ],
    );
  }

  async delete(id: string) {
    // Deliveries and attempts go with it (ON DELETE CASCADE).
    const gone = await this.send(
      `WITH gone AS (DELETE FROM webhooks WHERE id = $1 RETURNING id) SELECT ${NOTIFY} FROM gone`,
      [id],
    );
    if (gone.length > 0) this.changed();
    return gone.length > 0;
  }

  async feedLastSeq() {
    const [row] = await this.send<{ last_seq: Num }>('SELECT last_seq FROM event_feed');
    return Number(row.last_seq);
  }

  async holdCursor() {
    await this.send('SELECT cursor FROM webhook_dispatch FOR UPDATE');
  }

  async lockCursor() {
    const [row] = await this.send<{ cursor: Num }>('SELECT cursor FROM webhook_dispatch FOR UPDATE SKIP LOCKED');
    return row === undefined ? undefined : Number(row.cursor);
  }

  async setCursor(seq: number) {
    await this.send('UPDATE webhook_dispatch SET cursor = $1', [seq]);
  }

  feedAfter(after: number, limit: number, types?: readonly PublicEventType[]) {
    return this.feedPage(after, limit, types);
  }

  async addDeliveries(deliveries: readonly NewDelivery[], now: number) {
    if (deliveries.length === 0) return;
    const params: unknown[] = [now];
    const tuples = deliveries.map((d) => {
      const at = params.push(d.webhookId, d.seq, d.event.type, d.event.at, eventDataJson(d.event.data));
      return `($${at - 4}, $${at - 3}, $${at - 2}, $${at - 1}, $${at}::json, $1, $1)`;
    });
    await this.send(
      `INSERT INTO webhook_deliveries (webhook_id, seq, type, at, data, dispatched_at, next_attempt_at)
       VALUES ${tuples.join(', ')} ON CONFLICT (webhook_id, seq) DO NOTHING`,
      params,
    );
  }

  async claim(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]> {
    const rows = await this.send<{
      id: Num;
      webhook_id: string;
      url: string;
      secret: string;
      seq: Num;
      type: string;
      at: Num;
      data: unknown;
      attempts: number;
      dispatched_at: Num;
    }>(
      `UPDATE webhook_deliveries d SET lease_until = $2, attempts = d.attempts + 1
       FROM webhooks w
       WHERE w.id = d.webhook_id AND d.id IN (
         SELECT id FROM webhook_deliveries
         WHERE next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
         ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING d.id, d.webhook_id, w.url, w.secret, d.seq, d.type, d.at, d.data, d.attempts, d.dispatched_at`,
      [now, leaseUntil, limit],
    );
    return rows
      .map((row) => ({
        deliveryId: Number(row.id),
        webhookId: row.webhook_id,
        url: row.url,
        secret: row.secret,
        seq: Number(row.seq),
        event: eventFromRow(row),
        attempt: row.attempts,
        dispatchedAt: Number(row.dispatched_at),
      }))
      .sort((a, b) => a.seq - b.seq);
  }

  async nextClaimAt() {
    // The partial index on next_attempt_at holds only the pending deliveries.
    const [row] = await this.send<{ at: Num | null }>(
      `SELECT min(greatest(next_attempt_at, coalesce(lease_until, 0))) AS at FROM webhook_deliveries
       WHERE next_attempt_at IS NOT NULL`,
    );
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  async record(outcome: AttemptOutcome) {
    // Only while the webhook exists (a deleted one keeps no log); the schedule only for the
    // delivery's latest claim.
    await this.send(
      `WITH logged AS (
         INSERT INTO webhook_attempts (webhook_id, seq, attempt, at, status, error, next_attempt_at)
         SELECT $1, $2, $3, $4, $5, $6, $7 WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = $1))
       UPDATE webhook_deliveries SET lease_until = NULL, next_attempt_at = $7
       WHERE id = $8 AND attempts = $3`,
      [
        outcome.webhookId,
        outcome.seq,
        outcome.attempt,
        outcome.at,
        outcome.status ?? null,
        outcome.error ?? null,
        outcome.nextAttemptAt ?? null,
        outcome.deliveryId,
      ],
    );
  }
}
