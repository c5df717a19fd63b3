// The memory adapter's webhooks (D-42): the same logic as PostgreSQL's, in-process. Units of
// work run one at a time here, so the cursor's lock is always free and a claim never races.

import { compareIds } from '../../domain/ids.ts';
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
import type { EventLog } from './event-log.ts';

interface Delivery extends NewDelivery {
  id: number;
  attempts: number;
  dispatchedAt: number;
  /** undefined: done (delivered or given up). */
  nextAttemptAt?: number;
  leaseUntil?: number;
}

/** Attempts kept per webhook (the oldest are dropped past it). */
const ATTEMPTS_KEPT = 1000;

export class WebhookTables {
  counter = 0;
  readonly hooks = new Map<string, Webhook>();
  /** Deliveries not done yet, by id (done ones are dropped: their attempts stay in the log). */
  readonly pending = new Map<number, Delivery>();
  /** The (webhook, seq) pairs of the pending deliveries, so that one is never made twice. */
  readonly made = new Set<string>();
  nextDeliveryId = 1;
  readonly attempts = new Map<string, WebhookAttempt[]>();
  /** The dispatcher's cursor carries on across a wipe (the feed's seq does). */
  constructor(public cursor = 0) {}
}

export class MemoryWebhookReader implements WebhookReader {
  constructor(protected readonly tables: WebhookTables) {}
  async get(id: string) {
    return this.tables.hooks.get(id);
  }
  async list() {
    return [...this.tables.hooks.values()].sort((a, b) => compareIds(a.id, b.id));
  }
  async attempts(webhookId: string, limit: number) {
    return (this.tables.attempts.get(webhookId) ?? []).slice(-limit);
  }
}

export class MemoryWebhookUnit extends MemoryWebhookReader implements WebhookUnit {
  constructor(
    tables: WebhookTables,
    private readonly events: EventLog,
    private readonly undo: (() => void)[],
    /** Called when a webhook is put or deleted (the store tells its watchers at commit). */
    private readonly changed: () => void = () => undefined,
  ) {
    super(tables);
  }
  async takeNumber() {
    const tables = this.tables;
    tables.counter += 1;
    this.undo.push(() => {
      tables.counter -= 1;
    });
    return tables.counter;
  }
  async put(hook: Webhook) {
    const { hooks } = this.tables;
    const previous = hooks.get(hook.id);
    hooks.set(hook.id, hook);
    this.undo.push(() => (previous ? hooks.set(hook.id, previous) : hooks.delete(hook.id)));
    this.changed();
  }
  async delete(id: string) {
    const { hooks, pending, attempts } = this.tables;
    const hook = hooks.get(id);
    if (!hook) return false;
    this.changed();
    const dropped = [...pending.values()].filter((d) => d.webhookId === id);
    const log = attempts.get(id);
    hooks.delete(id);
    attempts.delete(id);
    for (const delivery of dropped) {
      pending.delete(delivery.id);
      this.tables.made.delete(`${delivery.webhookId} ${delivery.seq}`);
    }
    this.undo.push(() => {
      hooks.set(id, hook);
      if (log) attempts.set(id, log);
      for (const delivery of dropped) {
        pending.set(delivery.id, delivery);
        this.tables.made.add(`${delivery.webhookId} ${delivery.seq}`);
      }
    });
    return true;
  }
  async feedLastSeq() {
    return this.events.lastSeq;
  }
  async holdCursor() {
    // Units of work run one at a time here: the cursor is held already.
  }
  async lockCursor() {
    return this.tables.cursor;
  }
  async setCursor(seq: number) {
    const tables = this.tables;
    const previous = tables.cursor;
    tables.cursor = seq;
    this.undo.push(() => {
      tables.cursor = previous;
    });
  }
  async feedAfter(after: number, limit: number, types?: readonly PublicEventType[]): Promise<StoredEvent[]> {
    return this.events.page({ after, limit, ...(types ? { types } : {}) });
  }
  async addDeliveries(deliveries: readonly NewDelivery[], now: number) {
    const { pending, made } = this.tables;
    const added: Delivery[] = [];
    for (const delivery of deliveries) {
      const key = `${delivery.webhookId} ${delivery.seq}`;
      if (made.has(key)) continue;
      made.add(key);
      const row: Delivery = { ...delivery, id: this.tables.nextDeliveryId++, attempts: 0, dispatchedAt: now };
      row.nextAttemptAt = now;
      pending.set(row.id, row);
      added.push(row);
    }
    this.undo.push(() => {
      for (const row of added) {
        pending.delete(row.id);
        made.delete(`${row.webhookId} ${row.seq}`);
      }
    });
  }
  async claim(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]> {
    const due = [...this.tables.pending.values()]
      .filter((d) => (d.nextAttemptAt as number) <= now && (d.leaseUntil === undefined || d.leaseUntil <= now))
      .sort((a, b) => (a.nextAttemptAt as number) - (b.nextAttemptAt as number) || a.id - b.id)
      .slice(0, limit);
    // Not undone: a worker's unit of work claims and ends; nothing after the claim can refuse.
    return due.flatMap((d) => {
      const hook = this.tables.hooks.get(d.webhookId);
      if (!hook) return [];
      d.leaseUntil = leaseUntil;
      d.attempts += 1;
      return [
        {
          deliveryId: d.id,
          webhookId: d.webhookId,
          url: hook.url,
          secret: hook.secret,
          seq: d.seq,
          event: d.event,
          attempt: d.attempts,
          dispatchedAt: d.dispatchedAt,
        },
      ];
    });
  }
  async nextClaimAt() {
    let next: number | undefined;
    for (const d of this.tables.pending.values()) {
      if (d.nextAttemptAt === undefined) continue;
      const at = Math.max(d.nextAttemptAt, d.leaseUntil ?? 0);
      if (next === undefined || at < next) next = at;
    }
    return next;
  }
  async record(outcome: AttemptOutcome) {
    const { hooks, pending, attempts } = this.tables;
    if (!hooks.has(outcome.webhookId)) return;
    const entry: WebhookAttempt = {
      webhookId: outcome.webhookId,
      seq: outcome.seq,
      attempt: outcome.attempt,
      at: outcome.at,
    };
    if (outcome.status !== undefined) entry.status = outcome.status;
    if (outcome.error !== undefined) entry.error = outcome.error;
    if (outcome.nextAttemptAt !== undefined) entry.nextAttemptAt = outcome.nextAttemptAt;
    const log = attempts.get(outcome.webhookId) ?? [];
    log.push(entry);
    if (log.length > ATTEMPTS_KEPT) log.splice(0, log.length - ATTEMPTS_KEPT);
    attempts.set(outcome.webhookId, log);
    const delivery = pending.get(outcome.deliveryId);
    if (!delivery || delivery.attempts !== outcome.attempt) return;
    delivery.leaseUntil = undefined;
    if (outcome.nextAttemptAt === undefined) {
      pending.delete(delivery.id);
      this.tables.made.delete(`${delivery.webhookId} ${delivery.seq}`);
    } else {
      delivery.nextAttemptAt = outcome.nextAttemptAt;
    }
  }
}
