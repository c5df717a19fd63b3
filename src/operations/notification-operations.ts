// A person's notifications (D-72): the inbox, newest first, with what is unread; one marked read;
// the mail settings. Every credential may ask (`key`), but only a person has an inbox: a request
// made with a key is answered 404 USER_NOT_FOUND, as GET /users/me answers it. Keys mode only.
import { type Static, Type } from '@sinclair/typebox';
import type { Caller } from '../domain/access.ts';
import type { Notification } from '../domain/notifications.ts';
import { EmptyBody } from '../schemas/marketplace.ts';
import {
  NotificationListQuery,
  NotificationSchema,
  NotificationSettingsSchema,
  NotificationSummarySchema,
} from '../schemas/notifications.ts';
import { notificationView } from '../views/notifications.ts';
import { page, read, write } from './operation.ts';

const common = { mount: 'root', keysOnly: true, tag: 'accounts', scope: 'key' } as const;

const listNotifications = page({
  ...common,
  id: 'listNotifications',
  method: 'GET',
  path: '/users/me/notifications',
  summary: "The signed-in person's notifications, newest first (`?unread=true`: those not read)",
  query: NotificationListQuery,
  responses: { 200: Type.Array(NotificationSchema) },
  errors: [400, 404],
  idKind: 'ntf',
  list: 'notifications',
  fetch: (service, filter, afterId, limit, caller) =>
    service.notifications.list({ unread: filter.unread === true, afterId, limit }, caller as Caller),
  view: (n: Notification) => notificationView(n),
});

const getNotificationSummary = read({
  ...common,
  id: 'getNotificationSummary',
  method: 'GET',
  path: '/users/me/notifications/summary',
  summary: "How many of the signed-in person's notifications are unread",
  responses: { 200: NotificationSummarySchema },
  errors: [404],
  read: (service, { caller }) => service.notifications.unread(caller as Caller),
  view: (summary) => summary,
});

const readNotification = write({
  ...common,
  id: 'readNotification',
  method: 'POST',
  path: '/users/me/notifications/{id}/read',
  summary: 'Mark one of your notifications read (again: no change)',
  body: EmptyBody,
  responses: { 200: NotificationSchema },
  errors: [400, 404],
  idempotent: true,
  command: (service, { id, caller }) => service.notifications.markRead(id, caller as Caller),
  answer: (answers) => answers.notification,
});

const getNotificationSettings = read({
  ...common,
  id: 'getNotificationSettings',
  method: 'GET',
  path: '/users/me/notification-settings',
  summary: 'Which of your notifications also come by mail',
  responses: { 200: NotificationSettingsSchema },
  errors: [404],
  read: (service, { caller }) => service.notifications.settings(caller as Caller),
  view: (settings) => settings,
});

const setNotificationSettings = write({
  ...common,
  id: 'setNotificationSettings',
  method: 'PUT',
  path: '/users/me/notification-settings',
  summary: 'Choose which of your notifications also come by mail (the whole settings)',
  body: NotificationSettingsSchema,
  responses: { 200: NotificationSettingsSchema },
  errors: [400, 404],
  idempotent: false,
  command: (service, { body, caller }) =>
    service.notifications.setSettings(body as Static<typeof NotificationSettingsSchema>, caller as Caller),
  answer: (answers) => answers.notificationSettings,
});

export const NOTIFICATION_OPERATIONS = [
  listNotifications,
  getNotificationSummary,
  readNotification,
  getNotificationSettings,
  setNotificationSettings,
];
