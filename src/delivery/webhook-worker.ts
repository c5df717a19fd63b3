// The webhook worker (D-42), one in every instance. A dispatcher follows the feed with a
// durable cursor (one instance at a time: the cursor row is locked, SKIP LOCKED) and makes a
// delivery due for every webhook an event matches; senders claim due deliveries with a lease
// (FOR UPDATE SKIP LOCKED on PostgreSQL: exactly one instance sends each attempt) and POST
// them, signed as Standard Webhooks says, outside any transaction. A sender that dies leaves
// its lease to run out and the delivery is claimed again: at least once, never lost. Sends are
// bounded per instance and each attempt by a timeout, so a slow receiver never slows the API
// or the other receivers.
//
// Idle means idle (D-249): the worker is woken by this instance's commits (while there are
// webhooks), by any instance's commit that makes or deletes a webhook (Store.watchWebhooks: a
// notification on PostgreSQL), and by a timer set for the next delivery that falls due (a retry,
// or a lease that runs out); it polls only as a fallback, every POLL_MS. An instance without
// traffic sends the database nothing between those polls.

import { Webhook as Signer } from 'standardwebhooks';
import { seesEvent, visibilityOfPrincipal } from '../domain/access.ts';
import { nextAttemptAt, webhookWants } from '../domain/webhooks.ts';
import type { Store } from '../store/store.ts';
import type { ClaimedDelivery, NewDelivery } from '../store/webhooks.ts';
import type { Telemetry } from '../telemetry.ts';
import { eventView } from '../views/events.ts';
import { stringify } from '../views/exact-json.ts';
import { postOnce } from './http-post.ts';
import { Rounds } from './rounds.ts';

export interface WebhookWorkerOptions {
  /** WEBHOOK_ALLOW_PRIVATE: deliver to loopback and private addresses (local development, tests). */
  allowPrivate: boolean;
  /** WEBHOOK_RETRY_BASE_MS: the schedule's first delay (5 s); the others are multiples of it. */
  retryBaseMs: number;
  /** Where each attempt is reported (GET /metrics). */
  telemetry?: Telemetry;
  /** WEBHOOK_TIMEOUT_MS: an attempt without an answer in this long failed (10 s). */
  timeoutMs: number;
  /** Sends at once per instance. */
  concurrency?: number;
  /** How often the worker looks for work without being woken (a fallback; POLL_MS by default). */
  pollMs?: number;
  /** How long a claim holds a delivery; past it, the delivery is claimed again. */
  leaseMs?: number;
}

/** Machine time: the schedule runs on real time, never on the demo clock. */
export interface MachineClock {
  now(): number;
}

interface Log {
  error(context: object, message: string): void;
}

const DISPATCH_PAGE = 500;
const ROUND_GAP_MS = 25;
/** The fallback poll: whatever no wake-up reached this instance (a notification lost in flight). */
export const POLL_MS = 10_000;
/** A dispatcher that found the cursor held by another instance looks again this soon (doubling). */
const SKIPPED_RETRY_MS = 50;
const USER_AGENT = 'sales-pipeline-webhooks/1';

/** The headers and body of one delivery, signed with the webhook's secret (Standard Webhooks). */
export function signedRequest(delivery: ClaimedDelivery, now: number) {
  const body = stringify(eventView({ seq: delivery.seq, event: delivery.event }));
  const id = `evt_${delivery.seq}`;
  const seconds = Math.floor(now / 1000);
  const signature = new Signer(delivery.secret).sign(id, new Date(seconds * 1000), body);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': id,
      'webhook-timestamp': String(seconds),
      'webhook-signature': signature,
    },
  };
}

export class WebhookWorker {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private inFlight = 0;
  /** Whether the last dispatch found a webhook or a delivery in flight: commits wake the worker only then. */
  private busy = true;
  /** When the next delivery may be claimed (a retry, a lease's end), as the last claim saw it. */
  private nextClaimAt: number | undefined;
  /** Dispatches in a row that found the cursor held by another instance. */
  private skipped = 0;
  /** Whether this instance committed since the worker last moved the outbox into the feed. */
  private sinceCommit = false;
  private readonly pollMs: number;
  private readonly sends = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly concurrency: number;
  private readonly leaseMs: number;

  constructor(
    private readonly store: Store,
    private readonly clock: MachineClock,
    private readonly options: WebhookWorkerOptions,
    private readonly log?: Log,
  ) {
    this.concurrency = options.concurrency ?? 8;
    this.pollMs = options.pollMs ?? POLL_MS;
    // The attempt's timeout and a margin: a live sender always records before its lease ends.
    this.leaseMs = options.leaseMs ?? options.timeoutMs + 30_000;
  }

  start(): void {
    this.wake();
  }

  /**
   * After a commit: looks for work now, unless the last round found no webhook (a webhook made
   * meanwhile, on any instance, wakes the worker through Store.watchWebhooks): an instance
   * without webhooks costs the API's writes nothing.
   */
  committed(): void {
    // Remembered even while idle: the round that finds a webhook then moves what was committed
    // meanwhile into the feed before it reads it.
    this.sinceCommit = true;
    if (this.busy) this.wake();
  }

  /** Looks for work now (after a send that ended, or a poll); runs once more if busy. */
  wake(): void {
    this.rounds.wake();
  }

  /**
   * Its rounds: the dispatch, then the claims and sends. (A wake that came after the last round's
   * check is not lost: it runs now. The 250 ms poll used to hide such a loss; the fallback poll is
   * 10 s away.)
   */
  private readonly rounds = new Rounds({
    round: async () => {
      await this.dispatch();
      await this.claimAndSend();
    },
    after: () => this.schedule(),
    gapMs: ROUND_GAP_MS,
    stopped: () => this.stopped,
    failed: (error) => this.log?.error({ err: error }, 'webhook worker failed'),
  });

  /** Sets the one timer: the next due delivery, a held cursor's retry, or the fallback poll. */
  private schedule(): void {
    if (this.stopped) return;
    let delay = this.pollMs;
    if (this.skipped > 0) delay = Math.min(delay, SKIPPED_RETRY_MS * 2 ** (this.skipped - 1));
    if (this.busy && this.nextClaimAt !== undefined) {
      delay = Math.min(delay, Math.max(ROUND_GAP_MS, this.nextClaimAt - this.clock.now()));
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, delay);
    this.timer.unref();
  }

  /** Stops looking for work and aborts sends in flight (their leases run out: sent again later). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort();
    await this.rounds.current;
    await Promise.all([...this.sends]);
  }

  /** Follows the feed from the cursor: a delivery for each matching webhook, then the cursor on. */
  async dispatch(): Promise<void> {
    // On PostgreSQL, reading the last seq first moves what this instance committed into the
    // feed at once (each instance also does so within 100 ms of its own commits): only
    // after a commit woke the worker, so that a poll or a timer costs no sequencer run.
    if (this.busy && this.sinceCommit) {
      this.sinceCommit = false;
      await this.store.lastSeq();
    }
    for (;;) {
      const full = await this.store.transaction(async (uow) => {
        const cursor = await uow.webhooks.lockCursor();
        // Another instance dispatches: what this instance committed may be past its snapshot,
        // so this one looks again soon (schedule), until it holds the cursor itself.
        if (cursor === undefined) {
          this.skipped++;
          return false;
        }
        this.skipped = 0;
        const hooks = await uow.webhooks.list();
        const wasBusy = this.busy;
        this.busy = hooks.length > 0 || this.inFlight > 0;
        // Commits made while the worker was idle did not wake it, and their events may not be
        // in the feed this round read: another round reads them, after the sequencer's run.
        if (this.busy && !wasBusy) this.rounds.more();
        if (hooks.length === 0) {
          // Nothing to deliver to: a webhook created later only gets events after it anyway.
          const last = await uow.webhooks.feedLastSeq();
          if (last > cursor) await uow.webhooks.setCursor(last);
          return false;
        }
        const events = await uow.webhooks.feedAfter(cursor, DISPATCH_PAGE);
        if (events.length === 0) return false;
        const due: NewDelivery[] = [];
        for (const { seq, event } of events) {
          for (const hook of hooks) {
            // D-58: only what the webhook's principal may see.
            if (
              seq > hook.afterSeq &&
              webhookWants(hook, event.type) &&
              seesEvent(visibilityOfPrincipal(hook.owner), event)
            )
              due.push({ webhookId: hook.id, seq, event });
          }
        }
        await uow.webhooks.addDeliveries(due, this.clock.now());
        await uow.webhooks.setCursor(events[events.length - 1].seq);
        return events.length === DISPATCH_PAGE;
      });
      if (!full || this.stopped) return;
    }
  }

  private async claimAndSend(): Promise<void> {
    const free = this.concurrency - this.inFlight;
    // Without a webhook there is no delivery (they go with their webhook); a full worker is
    // woken by each send that ends.
    if (!this.busy || free <= 0 || this.stopped) {
      if (!this.busy) this.nextClaimAt = undefined;
      return;
    }
    const now = this.clock.now();
    const claimed = await this.store.transaction(async (uow) => {
      // Sent together (one round trip): the claim, then when the next one falls due.
      const [taken, next] = await Promise.all([
        uow.webhooks.claim(now, now + this.leaseMs, free),
        uow.webhooks.nextClaimAt(),
      ]);
      this.nextClaimAt = next;
      return taken;
    });
    for (const delivery of claimed) {
      this.inFlight++;
      const send = this.send(delivery)
        .catch((error) => {
          if (!this.stopped) this.log?.error({ err: error }, 'webhook delivery failed to record');
        })
        .finally(() => {
          this.inFlight--;
          this.sends.delete(send);
          this.wake();
        });
      this.sends.add(send);
    }
  }

  /** One attempt: sent, then its outcome recorded (unless the worker stopped meanwhile). */
  private async send(delivery: ClaimedDelivery): Promise<void> {
    const at = this.clock.now();
    const started = performance.now();
    const { body, headers } = signedRequest(delivery, at);
    const outcome = await postOnce(delivery.url, headers, body, {
      timeoutMs: this.options.timeoutMs,
      allowPrivate: this.options.allowPrivate,
      signal: this.abort.signal,
    });
    if (this.stopped) return;
    const delivered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    this.options.telemetry?.webhookAttempted(delivered, (performance.now() - started) / 1000);
    const next = delivered
      ? undefined
      : nextAttemptAt(delivery.attempt, this.clock.now(), delivery.dispatchedAt, this.options.retryBaseMs);
    await this.store.transaction((uow) =>
      uow.webhooks.record({
        deliveryId: delivery.deliveryId,
        webhookId: delivery.webhookId,
        seq: delivery.seq,
        attempt: delivery.attempt,
        at,
        ...(outcome.status !== undefined ? { status: outcome.status } : {}),
        ...(outcome.error !== undefined ? { error: outcome.error.slice(0, 500) } : {}),
        delivered,
        ...(next !== undefined ? { nextAttemptAt: next } : {}),
      }),
    );
  }
}
