// The store port. Adapters (memory now, PostgreSQL next) implement it and are held to one
// contract suite (test/store/contract.ts). Everything is async so that an adapter may do I/O.
import type { IdKind } from '../domain/ids.ts';
import type { PublicEventDraft } from '../domain/public-events.ts';
import type { Closer, Deal, Gig, GigStatus, PayoutLine } from '../domain/records.ts';
import type { Role, Stage } from '../domain/stages.ts';
import type { AccountReader, AccountUnit } from './accounts.ts';
import type { ApprovalReader, ApprovalUnit } from './approvals.ts';
import type { EventFilter, StoredEvent } from './feed.ts';
import type { InsightReader } from './insights.ts';
import type { LedgerReader, LedgerUnit } from './ledger.ts';
import type { MailReader, MailUnit } from './mail.ts';
import type { NotificationReader, NotificationUnit } from './notifications.ts';
import type { PeopleReader, PeopleUnit } from './people.ts';
import type { ProposalReader, ProposalUnit } from './proposals.ts';
import type { WebhookReader, WebhookUnit } from './webhooks.ts';

export type { EventFilter, StoredEvent } from './feed.ts';

/** Filters of a page of deals (D-39), all optional; `afterId` is exclusive. */
export interface DealFilter {
  stage?: Stage;
  /** The owning role of D-8. */
  role?: Role;
  /** true: on the human track; false: never escalated or de-escalated. */
  humanTrack?: boolean;
  /** Deals with a gig of this closer. */
  closerId?: string;
  /** Deals whose account name contains this text, without regard to case (D-67). */
  q?: string;
  /** D-54: deals of this Seller. */
  sellerId?: string;
  afterId?: string;
  limit: number;
}

/** Filters of a page of gigs (D-39), all optional; `afterId` is exclusive. */
export interface GigFilter {
  status?: GigStatus;
  role?: Role;
  dealId?: string;
  closerId?: string;
  /** D-54: gigs of this Seller's deals. */
  sellerId?: string;
  /** D-54: what a closer sees: open gigs, and its own in any state. */
  openOrCloserId?: string;
  afterId?: string;
  limit?: number;
}

export interface StoreReader {
  getDeal(id: string): Promise<Deal | undefined>;
  /** The answer stored under an idempotency key, however old (the caller judges its age). */
  getAnswer(key: string): Promise<StoredAnswer | undefined>;
  getGig(id: string): Promise<Gig | undefined>;
  getCloser(id: string): Promise<Closer | undefined>;
  gigsOfDeal(dealId: string): Promise<Gig[]>;
  /**
   * A page of deals in id order, filtered. By stage alone it is indexed: a page never reads
   * every deal (a page of 100 in under 5 ms at a million deals).
   */
  listDeals(filter: DealFilter): Promise<Deal[]>;
  /** Gigs in id order, filtered; every matching gig unless `limit` is given. */
  listGigs(filter?: GigFilter): Promise<Gig[]>;
  /** Closers in id order: all of them, or a page. */
  listClosers(page?: { afterId?: string; limit?: number }): Promise<Closer[]>;
  payoutsOfCloser(closerId: string): Promise<PayoutLine[]>;
  /** The ledger lines of each of these closers in one read: every id is a key ([] if none). */
  payoutsOfClosers(closerIds: readonly string[]): Promise<Map<string, PayoutLine[]>>;
  payoutsOfDeal(dealId: string): Promise<PayoutLine[]>;
  counts(): Promise<{ deals: number; closers: number }>;
  /** The demo clock's offset from the machine clock, shared by everything that reads the store. */
  clockOffsetMs(): Promise<number>;
  /** Open or claimed gigs whose timer fell due at or before `now`, earliest first. */
  dueGigs(now: number, limit: number): Promise<Gig[]>;
  /** Deals whose stall timer fell due at or before `now`, earliest first. */
  dueDeals(now: number, limit: number): Promise<Deal[]>;
  /** The webhooks of D-42 and their deliveries (src/store/webhooks.ts). */
  readonly webhooks: WebhookReader;
  /** Sellers and keys (D-51, D-52; src/store/accounts.ts). */
  readonly accounts: AccountReader;
  /** Refused proposals (D-61; src/store/proposals.ts). */
  readonly proposals: ProposalReader;
  /** Users, their tokens, failed sign-ins (D-62, D-63; src/store/people.ts). */
  readonly people: PeopleReader;
  /** The mail outbox (D-64; src/store/mail.ts). */
  readonly mail: MailReader;
  /** Held proposals' approvals (D-69, D-70; src/store/approvals.ts). */
  readonly approvals: ApprovalReader;
  /** People's notifications and their settings (D-72; src/store/notifications.ts). */
  readonly notifications: NotificationReader;
  /** The pipeline's insights (D-73; src/store/insights.ts). */
  readonly insights: InsightReader;
  /** The ledger: transfers, refunds, payouts (D-79 to D-82; src/store/ledger.ts). */
  readonly ledger: LedgerReader;
}

/** An answer stored under an idempotency key (D-37), with what it answered and when. */
export interface StoredAnswer {
  /** Identifies the request: method, path and body (src/service/idempotency.ts). */
  fingerprint: string;
  /** D-54, D-57: the principal that made the request (keys mode): only it is answered again. */
  owner?: string;
  status: number;
  /** The answer's bytes, as sent. */
  body: string;
  location?: string;
  /** The ETag sent with the answer (D-47). */
  etag?: string;
  /** Machine time (not the demo clock) in epoch milliseconds: keys are kept 24 hours of real time. */
  storedAt: number;
}

export interface UnitOfWork extends StoreReader {
  /** The webhooks of D-42: subscriptions, the dispatcher's cursor, deliveries and attempts. */
  readonly webhooks: WebhookUnit;
  readonly accounts: AccountUnit;
  readonly proposals: ProposalUnit;
  readonly people: PeopleUnit;
  readonly mail: MailUnit;
  readonly approvals: ApprovalUnit;
  readonly notifications: NotificationUnit;
  readonly ledger: LedgerUnit;
  /**
   * Whether this run of the unit is its optimistic one (UnitOptions.optimistic, on a store that
   * runs a unit again): a UnitConflictError it throws, or a check its write fails, runs it again
   * with locks. False where units run alone (memory) and on every run after the first.
   */
  readonly runsAgainOnConflict: boolean;
  /**
   * The numbers the next id of each kind would get, without taking them (for tests and
   * diagnostics: the service only ever takes numbers, inside its unit of work).
   */
  nextNumbers(): Promise<Record<IdKind, number>>;
  /** Takes the next number of this kind; rolled back with the unit of work. */
  takeNumber(kind: IdKind): Promise<number>;
  /**
   * Gives the records this unit creates their numbers (D-28), taken now, in the order given, and
   * rolled back (memory) or left as a gap (a database) with the unit: `provisional` are the ids
   * the decision called them (domain/ids.ts); the answer is the real id of each. The one place
   * an id gets its number (D-273): the records are then put, and answers made, with real ids.
   */
  numberIds(provisional: readonly { kind: IdKind; id: string }[]): Promise<Map<string, string>>;
  putDeal(deal: Deal): Promise<void>;
  putGig(gig: Gig): Promise<void>;
  putCloser(closer: Closer): Promise<void>;
  /**
   * A closer as committed, read without locking it: for a unit of work that will not write it
   * (a claim needs only that its closer exists; closers are never deleted but by a reset, which
   * waits for every unit). `getCloser` locks: for the units that may write the closer.
   */
  readCloser(id: string): Promise<Closer | undefined>;
  /** Appends a payout line; a second line for the same gig throws DuplicatePayoutError. */
  appendPayout(line: PayoutLine): Promise<void>;
  setClockOffsetMs(offsetMs: number): Promise<void>;
  /**
   * Moves the demo clock offset forward by deltaMs in one step and returns the new offset, so
   * that racing advances (from several instances) all count.
   */
  advanceClockOffsetMs(deltaMs: number): Promise<number>;
  /**
   * Holds a named lock until the unit of work ends: units that take the same name run one at a
   * time, even across service instances (so that "seed if empty" never seeds twice).
   */
  lock(name: string): Promise<void>;
  /**
   * Stores (or replaces) the answer under a key. `asNew` (D-285): the key had no answer when read
   * outside the unit, and this run is its optimistic one (runsAgainOnConflict): the answer is
   * written only as a new row, behind the key's lock, and should the key have one by then the
   * unit conflicts and runs again, with locks. Where units run alone it changes nothing.
   */
  putAnswer(key: string, answer: StoredAnswer, asNew?: boolean): Promise<void>;
  /** Forgets the answers stored before `before` (machine ms); returns how many. */
  purgeAnswers(before: number): Promise<number>;
  /**
   * Publishes events (D-40): they enter the feed when the unit of work commits, in the order
   * given, and never if it rolls back. `recordedAt` is machine time (retention counts real time).
   */
  publish(events: readonly PublicEventDraft[], recordedAt: number): Promise<void>;
  /** Forgets the feed's events recorded before `before` (machine ms); returns how many. */
  purgeEvents(before: number): Promise<number>;
  /**
   * Deletes every record, stored answer, event of the feed, webhook and delivery, and closers'
   * keys, and restarts the id counters and the demo clock; Sellers and their and the operator's
   * keys stay (D-51), and so do the numbers of Sellers and keys. The feed's seq is not restarted: a reader's cursor stays
   * valid (D-41), and neither is the webhook dispatcher's cursor on it.
   */
  wipe(): Promise<void>;
}

/**
 * D-57: the principal a read or unit of work runs for (keys mode), which a store may hold its
 * statements to (PostgreSQL's row-level security). Unset: the platform's own work, or the demo,
 * which sees everything.
 */
export interface UnitOptions {
  principal?: string;
  /**
   * The unit may read its records without locks (on a database: from the instance's cache of
   * them, or outside a transaction) and check them unchanged with its write; a conflict runs it
   * again, with locks (D-250: a unit in one round trip). For units that read records and
   * write only through the port: a request's command.
   */
  optimistic?: boolean;
}

export interface ReadOptions extends UnitOptions {
  /**
   * The read is one statement (one record, one page, the counts): consistent by itself, so a
   * database runs it without a transaction around it (one statement instead of three). A second
   * statement in such a read throws.
   */
  oneStatement?: boolean;
}

/** The lock a keyed write holds on its key (UnitOfWork.lock): its unit's, or its write's (D-285). */
export const idempotencyLock = (key: string) => `idempotency:${key}`;

export interface Store {
  /**
   * Whether an optimistic unit may run again on a conflict (UnitOfWork.runsAgainOnConflict): false
   * where units run one at a time (memory). A keyed write reads its key first only where it may
   * (D-285): elsewhere that read would only repeat the one inside the unit.
   */
  readonly runsUnitsAgain: boolean;
  /** A consistent read; never sees a unit of work half-done. */
  read<T>(work: (reader: StoreReader) => Promise<T>, options?: ReadOptions): Promise<T>;
  /**
   * One unit of work: all its writes happen or none do (a throw rolls back), and units that
   * touch the same records never interleave. A store may run `work` again from the start after
   * a deadlock or a serialization failure (D-46): it must keep nothing outside the unit.
   */
  transaction<T>(work: (uow: UnitOfWork) => Promise<T>, options?: UnitOptions): Promise<T>;
  /**
   * A page of the feed (D-41). A reader that follows it (each page's last seq as the next
   * `after`) sees every committed event once, in seq order, however many instances write: an
   * event never enters the feed below a seq already readable.
   */
  events(filter: EventFilter, options?: UnitOptions): Promise<StoredEvent[]>;
  /** The highest seq in the feed so far (0 before the first event). */
  lastSeq(): Promise<number>;
  /**
   * Tells the listener when another instance moved the demo clock (`reset: false`, the new
   * offset) or reset it (`reset: true`); also `reset: true` with the stored offset after the
   * store may have missed one (a lost connection). A store only one instance uses tells nothing.
   */
  watchClockOffset(listener: (offsetMs: number, reset: boolean) => void): () => void;
  /**
   * Tells the listener after every commit that made, changed or deleted a webhook, on this
   * instance or (on PostgreSQL, by a notification) on another, and after the notifications'
   * connection was lost and found again (one may have been missed). The webhook worker is woken
   * by it instead of polling for new webhooks (D-249: an idle instance sends next to nothing).
   */
  watchWebhooks(listener: () => void): () => void;
  close(): Promise<void>;
}

/**
 * D-46: units of work kept failing to serialize (or deadlocking) however often they were run
 * again; the client may try later (503 STORE_BUSY).
 */
export class StoreBusyError extends Error {
  constructor(cause: unknown) {
    super('The store is busy: the request collided with others too often.', { cause });
    this.name = 'StoreBusyError';
  }
}

/**
 * What an optimistic unit of work assumed no longer holds (D-278: a key's usage of the day it did
 * not read): the store runs the unit again, with locks. Thrown only where runsAgainOnConflict.
 */
export class UnitConflictError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnitConflictError';
  }
}

/** D-46: the database cannot be reached or went away mid-request (503 STORE_UNAVAILABLE). */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The store cannot be reached.', { cause });
    this.name = 'StoreUnavailableError';
  }
}

export class DuplicatePayoutError extends Error {
  constructor(readonly gigId: string) {
    super(`A payout for gig ${gigId} is already in the ledger.`);
    this.name = 'DuplicatePayoutError';
  }
}
