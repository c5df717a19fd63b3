// The webhook part of the store port (D-42): the subscriptions, the dispatcher's cursor on the
// feed, the deliveries it makes due, and the attempts made. Every adapter implements it and the
// store contract (test/store/contract.ts) holds them to it.
import type { PublicEventDraft, PublicEventType } from '../domain/public-events.ts';
import type { Webhook } from '../domain/webhooks.ts';
import type { StoredEvent } from './feed.ts';

/** One attempt to deliver an event to a webhook, as GET /webhooks/{id}/deliveries lists it. */
export interface WebhookAttempt {
  webhookId: string;
  seq: number;
  /** 1 for the first attempt of this event to this webhook. */
  attempt: number;
  /** Machine epoch ms the attempt was made. */
  at: number;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** Why there is no 2xx status: no answer (refused, timed out, a forbidden address…). */
  error?: string;
  /** When the next attempt is due; absent when delivered or given up. */
  nextAttemptAt?: number;
}

/** A delivery the dispatcher makes due: an event for a webhook. */
export interface NewDelivery {
  webhookId: string;
  seq: number;
  event: PublicEventDraft;
}

/** A delivery claimed by a sender: its lease is taken and `attempt` counted. */
export interface ClaimedDelivery {
  deliveryId: number;
  webhookId: string;
  url: string;
  secret: string;
  seq: number;
  event: PublicEventDraft;
  /** The number of this attempt (1-based): also the claim's token. */
  attempt: number;
  /** When the delivery was first due (the schedule gives up 3 days after it). */
  dispatchedAt: number;
}

/** What a sender reports of its attempt: the attempt, which delivery it was, and whether it got through. */
export interface AttemptOutcome extends WebhookAttempt {
  deliveryId: number;
  delivered: boolean;
}

export interface WebhookReader {
  get(id: string): Promise<Webhook | undefined>;
  /** Every webhook, in id order. */
  list(): Promise<Webhook[]>;
  /** The last `limit` attempts made for a webhook, oldest first. */
  attempts(webhookId: string, limit: number): Promise<WebhookAttempt[]>;
}

export interface WebhookUnit extends WebhookReader {
  /** Takes the next webhook number (restarted by wipe); rolled back with the unit of work. */
  takeNumber(): Promise<number>;
  put(hook: Webhook): Promise<void>;
  /** Deletes a webhook with its deliveries and attempts; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** The feed's last seq so far (a new webhook gets the events after it). */
  feedLastSeq(): Promise<number>;
  /**
   * Waits for the dispatcher's cursor and holds it until the unit of work ends. A unit that
   * creates a webhook holds it before reading feedLastSeq: no dispatcher can then pass an event
   * above that seq before the webhook is committed and seen.
   */
  holdCursor(): Promise<void>;
  /**
   * The dispatcher's cursor on the feed, locked until the unit of work ends; undefined when
   * another unit of work (of any instance) holds it: one dispatcher at a time.
   */
  lockCursor(): Promise<number | undefined>;
  setCursor(seq: number): Promise<void>;
  /** Events after a seq, in seq order (what the dispatcher reads under the cursor's lock). */
  feedAfter(after: number, limit: number, types?: readonly PublicEventType[]): Promise<StoredEvent[]>;
  /** Makes deliveries due at `now` (a delivery already made for the event and webhook is kept). */
  addDeliveries(deliveries: readonly NewDelivery[], now: number): Promise<void>;
  /**
   * Claims up to `limit` deliveries due at `now` whose lease is free, earliest first: each
   * gets a lease until `leaseUntil` and its attempt counted. Units of work that claim at once
   * (from any instance) never claim the same delivery; one whose sender died is claimed again
   * once its lease ran out.
   */
  claim(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * When the next delivery may be claimed: the earliest of the pending deliveries' next
   * attempts and, for a claimed one, its lease's end (its sender may die). Undefined when
   * nothing is pending. The worker sleeps until then instead of polling (D-249).
   */
  nextClaimAt(): Promise<number | undefined>;
  /**
   * Records an attempt. The delivery's schedule changes only if `attempt` is still its latest
   * claim (a sender whose lease ran out and was claimed again only adds to the log).
   */
  record(outcome: AttemptOutcome): Promise<void>;
}
