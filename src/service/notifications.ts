// D-72, D-277: a person's own notifications: the inbox, newest first, what is unread, one read, and the
// mail settings. Only a person has an inbox: a request made with a key is answered as an
// unknown person's would be (404), and another person's notification is unknown.
import type { Caller } from '../domain/access.ts';
import { couldBeId } from '../domain/ids.ts';
import { DEFAULT_SETTINGS, type Notification, type NotificationSettings } from '../domain/notifications.ts';
import { refuse } from '../domain/refusal.ts';
import type { Store } from '../store/store.ts';
import { fail, ok, RefusedError, type Result } from './result.ts';
import type { UnitCommand } from './unit-command.ts';

interface MachineClock {
  now(): number;
}

export interface InboxPage {
  unread?: boolean;
  afterId?: string;
  limit: number;
}

const KEY_IS_NO_PERSON = refuse.notFound(
  'USER_NOT_FOUND',
  'This request was made with a key, not by a person signed in.',
);

/** The person a request was made by, or the refusal a key gets. */
function personOf(caller: Caller): { userId: string; principal: string } {
  if (caller.userId === undefined) throw new RefusedError(KEY_IS_NO_PERSON);
  return { userId: caller.userId, principal: caller.principal };
}

const as = (caller: Caller) => ({ principal: caller.principal, oneStatement: true });

export class Notifications {
  constructor(
    private readonly store: Store,
    private readonly clock: MachineClock,
  ) {}

  /** The person's notifications after the cursor's, newest first (a key's: none, it is no person). */
  async list(page: InboxPage, caller: Caller): Promise<Notification[]> {
    if (caller.userId === undefined) throw new RefusedError(KEY_IS_NO_PERSON);
    const { userId } = caller;
    const { afterId, ...rest } = page;
    return this.store.read(
      (reader) =>
        reader.notifications.listNotifications({ userId, ...rest, ...(afterId ? { beforeId: afterId } : {}) }),
      as(caller),
    );
  }

  async unread(caller: Caller): Promise<Result<{ unread: number }>> {
    if (caller.userId === undefined) return fail(KEY_IS_NO_PERSON);
    const userId = caller.userId;
    return ok({ unread: await this.store.read((reader) => reader.notifications.unreadCount(userId), as(caller)) });
  }

  /** Marks one of the person's notifications read; reading it again changes nothing. */
  markRead(id: string, caller: Caller): UnitCommand<Notification> {
    return {
      work: async (uow) => {
        const { userId } = personOf(caller);
        const found = couldBeId('ntf', id) ? await uow.notifications.getNotification(id) : undefined;
        if (found?.userId !== userId) throw new RefusedError(refuse.noNotification(id));
        return (await uow.notifications.markRead(id, this.clock.now())) as Notification;
      },
    };
  }

  async settings(caller: Caller): Promise<Result<NotificationSettings>> {
    if (caller.userId === undefined) return fail(KEY_IS_NO_PERSON);
    const userId = caller.userId;
    const found = await this.store.read((reader) => reader.notifications.notificationSettings(userId), as(caller));
    return ok(found ?? DEFAULT_SETTINGS);
  }

  /** The whole settings replaced. */
  setSettings(settings: NotificationSettings, caller: Caller): UnitCommand<NotificationSettings> {
    return {
      work: async (uow) => {
        const { userId, principal } = personOf(caller);
        await uow.notifications.putNotificationSettings(userId, principal, settings);
        return settings;
      },
    };
  }
}
