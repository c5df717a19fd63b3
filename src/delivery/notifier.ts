// The notifier (D-72), one in every keys-mode instance. It follows the feed with a durable cursor
// (its row is the lock: one instance at a time, SKIP LOCKED) and, for each event that concerns
// people, adds a notification per person, unique per event and person, so an event read twice
// (two instances, a round retried) notifies once. A notification's mail is written to the outbox
// in the same unit: approvals and outcomes at once, gigs as one digest per person at most every
// 15 minutes (made under the same lock, so no two instances send the same digest).
//
// Idle means idle: this instance's commits wake it (at most one round a second under load), a
// round that found the cursor held tries again in a second, and a poll every POLL_MS finds other
// instances' events and the digests falling due.
import {
  DEFAULT_SETTINGS,
  DIGEST_EVERY_MS,
  mailPlanOf,
  NOTIFYING_TYPES,
  type Notification,
  type NotificationDraft,
  type NotificationSettings,
  type NotifyingType,
  notifies,
  titleOf,
} from '../domain/notifications.ts';
import type { PublicEventDraft } from '../domain/public-events.ts';
import type { Closer } from '../domain/records.ts';
import type { User } from '../domain/users.ts';
import { roleScopes } from '../domain/users.ts';
import type { StoredEvent } from '../store/feed.ts';
import type { Store, UnitOfWork } from '../store/store.ts';
import { Rounds } from './rounds.ts';

const PLATFORM = { principal: 'platform' } as const;
const PAGE = 200;
const GAP_MS = 1_000;
const POLL_MS = 30_000;
const PEOPLE_PAGE = 1_000;

export interface NotifierOptions {
  /** Where mail's links go: PUBLIC_URL, or this instance's own address. */
  origin: string;
  pollMs?: number;
}

interface MachineClock {
  now(): number;
}

interface Log {
  error(context: object, message: string): void;
}

/** Everyone of a principal who can still act (enabled, with a password). */
async function peopleOf(uow: UnitOfWork, principal: string): Promise<User[]> {
  const people: User[] = [];
  let afterId: string | undefined;
  for (;;) {
    const page = await uow.people.listUsers({ principal, afterId, limit: PEOPLE_PAGE });
    people.push(...page.filter((user) => user.disabledAt === undefined && user.passwordHash !== undefined));
    if (page.length < PEOPLE_PAGE) return people;
    afterId = page[page.length - 1].id;
  }
}

/** What a round read once for all its events: the closers, and each principal's people. */
interface RoundReads {
  closers?: Closer[];
  people: Map<string, User[]>;
  settings: Map<string, NotificationSettings>;
}

/** D-72: who an event concerns. */
async function concerned(
  uow: UnitOfWork,
  event: Extract<PublicEventDraft, { type: NotifyingType }>,
  round: RoundReads,
): Promise<User[]> {
  if (event.type === 'gig.posted') {
    const industry = event.data.gig.brief.account.industry?.toLowerCase();
    if (industry === undefined) return [];
    round.closers ??= await uow.listClosers();
    const closers = round.closers.filter((closer) => closer.industries.some((i) => i.toLowerCase() === industry));
    const people: User[] = [];
    for (const closer of closers) {
      let theirs = round.people.get(closer.id);
      if (theirs === undefined) {
        theirs = await peopleOf(uow, closer.id);
        round.people.set(closer.id, theirs);
      }
      people.push(...theirs);
    }
    return people;
  }
  const approval = event.data;
  if (event.type === 'approval.requested') {
    // Those who may decide it: the Seller's people whose role may, never the key's maker.
    const deciders = await peopleOf(uow, approval.principal);
    return deciders.filter(
      (user) => roleScopes(user.role).includes('approvals:decide') && user.id !== approval.keyCreatedBy,
    );
  }
  if (approval.keyCreatedBy === undefined) return [];
  const maker = await uow.people.getUser(approval.keyCreatedBy);
  return maker && maker.disabledAt === undefined ? [maker] : [];
}

/** The console page a notification links to. */
function pathOf(n: Pick<Notification, 'type' | 'dealId' | 'gigId'>): string {
  if (n.type === 'gig.posted') return '/console/#/desk';
  if (n.type === 'approval.requested') return '/console/#/approvals';
  return `/console/#/deals/${n.dealId}`;
}

const mailId = () => `mail_${crypto.randomUUID().replaceAll('-', '')}`;

export class Notifier {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private sinceCommit = false;
  private readonly rounds = new Rounds({
    round: () => this.round(),
    after: () => this.schedule(),
    gapMs: GAP_MS,
    stopped: () => this.stopped,
    failed: (error) => this.log?.error({ err: error }, 'notifier failed'),
    yieldFirst: true,
  });
  /** Whether the last round found the cursor held by another instance. */
  private skipped = false;

  constructor(
    private readonly store: Store,
    private readonly clock: MachineClock,
    private readonly options: NotifierOptions,
    /** Told when a round wrote mail (the mail worker wakes). */
    private readonly mailed: () => void = () => {},
    private readonly log?: Log,
  ) {}

  start(): void {
    this.rounds.wake();
  }

  /** This instance committed: the feed may hold events for people. */
  committed(): void {
    this.sinceCommit = true;
    this.rounds.wake();
  }

  wake(): void {
    this.rounds.wake();
  }

  /** The rounds under way, if any (a test waits for them). */
  get settled(): Promise<void> {
    return this.rounds.current ?? Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.rounds.current;
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.rounds.wake();
      },
      this.skipped ? GAP_MS : (this.options.pollMs ?? POLL_MS),
    );
    this.timer.unref();
  }

  /** One round: the feed's new events notified, page after page, then the digests due. */
  async round(): Promise<void> {
    // On PostgreSQL, reading the last seq moves this instance's commits into the feed at once.
    if (this.sinceCommit) {
      this.sinceCommit = false;
      await this.store.lastSeq();
    }
    let wroteMail = false;
    for (;;) {
      const outcome = await this.store.transaction(async (uow) => {
        const cursor = await uow.notifications.lockNotifierCursor();
        if (cursor === undefined) return { held: true, more: false, mail: false };
        // Only the events that concern people are read (most of a busy feed does not): the feed's
        // last seq first, so that a page not full moves the cursor past everything up to it.
        const last = await uow.webhooks.feedLastSeq();
        const events = await uow.webhooks.feedAfter(cursor, PAGE, NOTIFYING_TYPES);
        let mail = false;
        const reads: RoundReads = { people: new Map(), settings: new Map() };
        for (const stored of events) mail = (await this.notify(uow, stored, reads)) || mail;
        const full = events.length === PAGE;
        const reached = full ? events[events.length - 1].seq : Math.max(last, events.at(-1)?.seq ?? 0);
        if (reached > cursor) await uow.notifications.setNotifierCursor(reached);
        if (!full) mail = (await this.digests(uow)) || mail;
        return { held: false, more: full, mail };
      }, PLATFORM);
      this.skipped = outcome.held;
      wroteMail ||= outcome.mail;
      if (!outcome.more || this.stopped) break;
    }
    if (wroteMail) this.mailed();
  }

  /** The notifications of one event, and their mail at once where it goes at once. */
  private async notify(uow: UnitOfWork, { seq, event }: StoredEvent, reads: RoundReads): Promise<boolean> {
    if (!notifies(event)) return false;
    const people = await concerned(uow, event, reads);
    if (people.length === 0) return false;
    const now = this.clock.now();
    const title = titleOf(event);
    const ids =
      event.type === 'gig.posted'
        ? { dealId: event.data.gig.dealId, gigId: event.data.gig.id }
        : { dealId: event.data.dealId, approvalId: event.data.id };
    const drafts: NotificationDraft[] = [];
    for (const user of people) {
      let settings = reads.settings.get(user.id);
      if (settings === undefined) {
        settings = (await uow.notifications.notificationSettings(user.id)) ?? DEFAULT_SETTINGS;
        reads.settings.set(user.id, settings);
      }
      const mail = mailPlanOf(event.type, settings);
      drafts.push({
        userId: user.id,
        principal: user.principal,
        seq,
        type: event.type,
        title,
        ...ids,
        at: event.at,
        mail,
        ...(mail === 'now' ? { mailedAt: now } : {}),
      });
    }
    const added = await uow.notifications.addNotifications(drafts);
    const byId = new Map(people.map((user) => [user.id, user]));
    let mailed = false;
    for (const notification of added) {
      if (notification.mail !== 'now') continue;
      const user = byId.get(notification.userId) as User;
      await this.putMail(uow, user, notification.title, [notification], pathOf(notification), now);
      mailed = true;
    }
    return mailed;
  }

  /** One mail per person whose gigs wait and whose last digest is 15 minutes old or more. */
  private async digests(uow: UnitOfWork): Promise<boolean> {
    const now = this.clock.now();
    const due = await uow.notifications.digestsDue(now - DIGEST_EVERY_MS, 50);
    for (const person of due) {
      const user = await uow.people.getUser(person.userId);
      const ids = person.notifications.map((n) => n.id);
      if (user !== undefined && user.disabledAt === undefined) {
        const count = person.notifications.length;
        const subject = count === 1 ? person.notifications[0].title : `${count} new gigs for you`;
        await this.putMail(uow, user, subject, person.notifications, '/console/#/desk', now);
      }
      await uow.notifications.digestSent(person.userId, person.principal, ids, now);
    }
    return due.length > 0;
  }

  private async putMail(
    uow: UnitOfWork,
    user: User,
    subject: string,
    notifications: readonly Notification[],
    path: string,
    now: number,
  ): Promise<void> {
    const lines = notifications.map((n) => `- ${n.title}`).join('\n');
    await uow.mail.putMail({
      id: mailId(),
      principal: user.principal,
      to: user.email,
      subject,
      text:
        `Hello ${user.name},\n\n${lines}\n\nSee it in the console: {{link}}\n\n` +
        'You can choose which of these mails you get in the console, under your notifications.\n',
      linkBase: `${this.options.origin}${path}`,
      // No token: the link opens the console, where the person signs in as usual.
      nonce: '',
      createdAt: now,
      attempts: 0,
      nextAttemptAt: now,
    });
  }
}
