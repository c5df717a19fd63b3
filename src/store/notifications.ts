// The notifications part of the store port (D-72): every person's inbox, their mail settings,
// and the notifier's cursor on the feed. A notification is unique per event (its seq) and person,
// so two notifiers that read the same event (two instances, a retried round) make one. Every
// adapter implements it; the store contract (test/store/notification-contract.ts) holds them to it.
import type { Notification, NotificationDraft, NotificationSettings } from '../domain/notifications.ts';

/** A page of a person's notifications, newest first; `beforeId` exclusive. */
export interface NotificationFilter {
  userId: string;
  /** Only those not yet read. */
  unread?: boolean;
  beforeId?: string;
  limit: number;
}

/** A person's gigs waiting for their digest, with the person's last digest. */
export interface DigestDue {
  userId: string;
  principal: string;
  notifications: Notification[];
}

export interface NotificationReader {
  getNotification(id: string): Promise<Notification | undefined>;
  listNotifications(filter: NotificationFilter): Promise<Notification[]>;
  unreadCount(userId: string): Promise<number>;
  /** A person's settings; undefined when never set (the defaults apply). */
  notificationSettings(userId: string): Promise<NotificationSettings | undefined>;
}

export interface NotificationUnit extends NotificationReader {
  /**
   * Adds the notifications not already there (one per seq and person) and numbers them
   * (`ntf_NNNN`); answers those added, in the order given.
   */
  addNotifications(drafts: readonly NotificationDraft[]): Promise<Notification[]>;
  /** Marks it read at `at` (once: a read notification keeps its first time). */
  markRead(id: string, at: number): Promise<Notification | undefined>;
  putNotificationSettings(userId: string, principal: string, settings: NotificationSettings): Promise<void>;
  /**
   * The people whose unmailed digest notifications wait and whose last digest was at or before
   * `lastBefore`, oldest notification first within each, at most `limit` people.
   */
  digestsDue(lastBefore: number, limit: number): Promise<DigestDue[]>;
  /** Marks the notifications mailed, and the person's last digest at `at`. */
  digestSent(userId: string, principal: string, ids: readonly string[], at: number): Promise<void>;
  /**
   * The notifier's cursor on the feed, locked until the unit ends; undefined when another unit
   * (of any instance) holds it: one notifier at a time.
   */
  lockNotifierCursor(): Promise<number | undefined>;
  setNotifierCursor(seq: number): Promise<void>;
}
