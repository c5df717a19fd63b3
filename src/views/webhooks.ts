// Webhooks (D-42) → JSON. The secret appears only in the answer that created the webhook.
import { type Webhook, webhookTypes } from '../domain/webhooks.ts';
import type { WebhookAttempt } from '../store/webhooks.ts';
import { iso } from './records.ts';

export const webhookView = (hook: Webhook) => ({
  id: hook.id,
  url: hook.url,
  types: [...webhookTypes(hook)],
  createdAt: iso(hook.createdAt),
});

export const webhookCreatedView = (hook: Webhook) => ({ ...webhookView(hook), secret: hook.secret });

export function attemptView(attempt: WebhookAttempt) {
  const view: Record<string, unknown> = {
    eventId: `evt_${attempt.seq}`,
    seq: attempt.seq,
    attempt: attempt.attempt,
    at: iso(attempt.at),
  };
  if (attempt.status !== undefined) view.status = attempt.status;
  if (attempt.error !== undefined) view.error = attempt.error;
  if (attempt.nextAttemptAt !== undefined) view.nextAttemptAt = iso(attempt.nextAttemptAt);
  return view;
}
