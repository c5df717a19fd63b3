// A person's notifications (D-72, D-277): a page of the inbox, the unread count, one marked read,
// and the mail settings. Like `/approvals`, these routes are keys mode's only, so web/openapi.d.ts
// (generated from the demo's contract) does not have them: they are typed here, after
// src/schemas/notifications.ts, and go with the session's cookie. Only a person has an inbox: a
// key's session is answered 404 USER_NOT_FOUND, so the console never asks for one.
import type { NotificationSettings, NotifyingType } from '../src/domain/notifications.ts';
import { call, nextCursor, type Outcome } from './api.ts';
import { AUTH, type Session } from './session.ts';

export type NotificationType = NotifyingType;

/** One notification, as `GET /users/me/notifications` answers it. */
export interface Notification {
  /** `ntf_NNNN`: never shown. */
  id: string;
  type: NotificationType;
  /** What happened, in the service's words (the mail's subject too). */
  title: string;
  dealId?: string;
  approvalId?: string;
  gigId?: string;
  /** When the event happened (platform clock). */
  at: string;
  read: boolean;
  readAt?: string;
}

export type MailSettings = NotificationSettings;

/** How many notifications a page of the inbox holds; older ones come with "Show older". */
export const INBOX_PAGE = 20;

const PATH = '/users/me/notifications';

export const inbox = {
  /** One page, newest first; `next` is the cursor of the page after it (the Link header), if any. */
  async page(unreadOnly: boolean, cursor?: string): Promise<{ records: Notification[]; next?: string }> {
    const query = new URLSearchParams({ limit: String(INBOX_PAGE) });
    if (unreadOnly) query.set('unread', 'true');
    if (cursor) query.set('cursor', cursor);
    const answer = await call<Notification[]>('GET', `${PATH}?${query}`);
    if (!answer.ok) throw new Error(`reading the notifications: ${answer.error.error}`);
    return { records: answer.data, next: nextCursor(answer.response) };
  },
  /** How many are unread (D-277): the header's count, without a page of notifications. */
  async unread(): Promise<number | undefined> {
    const answer = await call<{ unread: number }>('GET', `${PATH}/summary`);
    return answer.ok ? answer.data.unread : undefined;
  },
  /** Marks one read; a read one stays as it was (its first time). */
  markRead: (id: string): Promise<Outcome<Notification>> =>
    call<Notification>('POST', `${PATH}/${encodeURIComponent(id)}/read`, {}),
  settings: (): Promise<Outcome<MailSettings>> => call<MailSettings>('GET', '/users/me/notification-settings'),
  /** The whole settings: every one of the three is sent. */
  saveSettings: (settings: MailSettings): Promise<Outcome<MailSettings>> =>
    call<MailSettings>('PUT', '/users/me/notification-settings', settings),
};

/** Whether the session has an inbox: a person's, in keys mode (a key is no person, D-277). */
export const hasInbox = (session: Session | undefined): boolean => AUTH === 'keys' && session?.user !== undefined;

/** The console page a notification is about: the approvals page, the deal, or the closer desk. */
export function routeOf(n: Pick<Notification, 'type' | 'dealId'>): string {
  if (n.type === 'gig.posted') return '/desk';
  if (n.type === 'approval.requested' || n.dealId === undefined) return '/approvals';
  return `/deals/${encodeURIComponent(n.dealId)}`;
}
