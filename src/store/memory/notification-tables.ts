// The memory adapter's notifications (D-72): by number, with an index of (seq, person) that
// makes each event's notification of a person one; people's settings; the notifier's cursor.
// Units of work run one at a time here; every change pushes its undo.
import { compareIds, formatId } from '../../domain/ids.ts';
import type { Notification, NotificationDraft, NotificationSettings } from '../../domain/notifications.ts';
import type { DigestDue, NotificationFilter, NotificationReader, NotificationUnit } from '../notifications.ts';

export class NotificationTables {
  counter = 0;
  readonly records = new Map<number, Notification>();
  /** `<seq> <userId>` → number: one notification per event and person. */
  readonly bySeqAndUser = new Map<string, number>();
  readonly settings = new Map<string, NotificationSettings>();
  /** Each person's last digest (machine time). */
  readonly lastDigest = new Map<string, number>();
  cursor = 0;
}

const numberOf = (id: string) => Number(id.slice('ntf_'.length));

export class MemoryNotificationReader implements NotificationReader {
  constructor(protected readonly tables: NotificationTables) {}

  async getNotification(id: string) {
    return this.tables.records.get(numberOf(id));
  }

  async listNotifications(filter: NotificationFilter) {
    const page: Notification[] = [];
    let n = filter.beforeId === undefined ? this.tables.counter : numberOf(filter.beforeId) - 1;
    for (; n > 0 && page.length < filter.limit; n--) {
      const found = this.tables.records.get(n);
      if (found?.userId !== filter.userId) continue;
      if (filter.unread && found.readAt !== undefined) continue;
      page.push(found);
    }
    return page;
  }

  async unreadCount(userId: string) {
    let count = 0;
    for (const found of this.tables.records.values())
      if (found.userId === userId && found.readAt === undefined) count++;
    return count;
  }

  async notificationSettings(userId: string) {
    return this.tables.settings.get(userId);
  }
}

export class MemoryNotificationUnit extends MemoryNotificationReader implements NotificationUnit {
  constructor(
    tables: NotificationTables,
    private readonly undo: (() => void)[],
  ) {
    super(tables);
  }

  async addNotifications(drafts: readonly NotificationDraft[]) {
    const added: Notification[] = [];
    for (const draft of drafts) {
      const at = `${draft.seq} ${draft.userId}`;
      if (this.tables.bySeqAndUser.has(at)) continue;
      const tables = this.tables;
      const n = ++tables.counter;
      const notification: Notification = { id: formatId('ntf', n), ...draft };
      tables.records.set(n, notification);
      tables.bySeqAndUser.set(at, n);
      this.undo.push(() => {
        tables.records.delete(n);
        tables.bySeqAndUser.delete(at);
        tables.counter = n - 1;
      });
      added.push(notification);
    }
    return added;
  }

  async markRead(id: string, at: number) {
    const n = numberOf(id);
    const found = this.tables.records.get(n);
    if (found === undefined || found.readAt !== undefined) return found;
    const read = { ...found, readAt: at };
    this.put(n, read, found);
    return read;
  }

  async putNotificationSettings(userId: string, _principal: string, settings: NotificationSettings) {
    const { settings: all } = this.tables;
    const previous = all.get(userId);
    all.set(userId, settings);
    this.undo.push(() => (previous ? all.set(userId, previous) : all.delete(userId)));
  }

  async digestsDue(lastBefore: number, limit: number) {
    const due = new Map<string, DigestDue>();
    for (let n = 1; n <= this.tables.counter; n++) {
      const found = this.tables.records.get(n);
      if (found === undefined || found.mail !== 'digest' || found.mailedAt !== undefined) continue;
      if ((this.tables.lastDigest.get(found.userId) ?? 0) > lastBefore) continue;
      let person = due.get(found.userId);
      if (person === undefined) {
        if (due.size === limit) continue;
        person = { userId: found.userId, principal: found.principal, notifications: [] };
        due.set(found.userId, person);
      }
      person.notifications.push(found);
    }
    return [...due.values()].sort((a, b) => compareIds(a.userId, b.userId));
  }

  async digestSent(userId: string, _principal: string, ids: readonly string[], at: number) {
    for (const id of ids) {
      const n = numberOf(id);
      const found = this.tables.records.get(n);
      if (found !== undefined) this.put(n, { ...found, mailedAt: at }, found);
    }
    const { lastDigest } = this.tables;
    const previous = lastDigest.get(userId);
    lastDigest.set(userId, at);
    this.undo.push(() => (previous === undefined ? lastDigest.delete(userId) : lastDigest.set(userId, previous)));
  }

  async lockNotifierCursor() {
    return this.tables.cursor;
  }

  async setNotifierCursor(seq: number) {
    const tables = this.tables;
    const previous = tables.cursor;
    tables.cursor = seq;
    this.undo.push(() => {
      tables.cursor = previous;
    });
  }

  private put(n: number, changed: Notification, previous: Notification) {
    this.tables.records.set(n, changed);
    this.undo.push(() => this.tables.records.set(n, previous));
  }
}
