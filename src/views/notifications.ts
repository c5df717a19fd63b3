// A person's notifications (D-72) → JSON, as the inbox and the console show them.
import type { Notification } from '../domain/notifications.ts';
import { iso } from './records.ts';

export const notificationView = (n: Notification) => ({
  id: n.id,
  type: n.type,
  title: n.title,
  ...(n.dealId !== undefined ? { dealId: n.dealId } : {}),
  ...(n.approvalId !== undefined ? { approvalId: n.approvalId } : {}),
  ...(n.gigId !== undefined ? { gigId: n.gigId } : {}),
  at: iso(n.at),
  read: n.readAt !== undefined,
  ...(n.readAt !== undefined ? { readAt: iso(n.readAt) } : {}),
});
