// Webhooks (D-42): a subscription to the public events of D-40, and the retry schedule of its
// deliveries. Pure: times are machine epoch milliseconds (deliveries retry in real time).
import { PUBLIC_EVENT_TYPES, type PublicEventType } from './public-events.ts';

export interface Webhook {
  /** `whk_` and a number padded to four digits. */
  id: string;
  url: string;
  /** The event types it gets; undefined: every type, those added later included. */
  types?: readonly PublicEventType[];
  /** `whsec_` + base64 of 24 random bytes; shown once, in the answer that created it. */
  secret: string;
  createdAt: number;
  /** The feed's last seq when it was created: it gets the events after it. */
  afterSeq: number;
  /** D-57: the principal that made it (keys mode); absent in the demo. */
  owner?: string;
}

export const formatWebhookId = (n: number) => `whk_${String(n).padStart(4, '0')}`;

/** Whether a string could be a webhook id (one of any other shape names nothing: 404). */
export const couldBeWebhookId = (id: string) => id.length <= 24 && /^whk_\d{4,}$/.test(id);

export const webhookTypes = (hook: Webhook): readonly PublicEventType[] => hook.types ?? PUBLIC_EVENT_TYPES;

export const webhookWants = (hook: Webhook, type: PublicEventType) =>
  hook.types === undefined || hook.types.includes(type);

/**
 * D-42's schedule in multiples of the retry base (5 s by default): after attempt 1 about 5 s,
 * then 30 s, 2 min, 10 min, 1 h, then every 6 h, until 3 days after the event was dispatched.
 */
const STEPS = [1, 6, 24, 120, 720];
const EVERY = 4320; // 6 h at the default base
const GIVE_UP_AFTER = 51_840; // 3 days at the default base

/**
 * When the attempt after attempt number `attempt` (1-based) is due, or undefined when the
 * delivery is given up. `dispatchedAt` is when the delivery was made due the first time.
 */
export function nextAttemptAt(attempt: number, now: number, dispatchedAt: number, baseMs: number): number | undefined {
  const delay = (STEPS[attempt - 1] ?? EVERY) * baseMs;
  const next = now + delay;
  return next - dispatchedAt > GIVE_UP_AFTER * baseMs ? undefined : next;
}
