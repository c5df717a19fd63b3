// The events (D-40 to D-42): the feed a page at a time, and webhooks that deliver it. The live
// stream (GET /events/stream) is a transport of its own (src/http/routes/event-stream.ts).
import { type Static, Type } from '@sinclair/typebox';
import { EventFeedQuery, EventPageSchema } from '../schemas/events.ts';
import {
  AttemptsQuery,
  WebhookAttemptSchema,
  WebhookBody,
  WebhookCreatedSchema,
  WebhookSchema,
} from '../schemas/webhooks.ts';
import { ok } from '../service/result.ts';
import { eventPage } from '../views/events.ts';
import { attemptView, webhookView } from '../views/webhooks.ts';
import { read, write } from './operation.ts';
import { DEMO_STORE, READ_HINTS } from './tool-notes.ts';

/**
 * D-58: a webhook belongs to the principal that made it, is listed only to it and the operator,
 * and delivers only what that principal may see.
 */
const WEBHOOKS = ['webhooks:manage', 'admin'] as const;

const listEvents = read({
  id: 'listEvents',
  method: 'GET',
  mount: 'root',
  path: '/events',
  summary: 'The event feed: every committed change after a seq, in seq order',
  description:
    'Follow `nextAfter` to read every event exactly once, in order, whatever writes meanwhile. A reset empties the feed but seq goes on increasing, so a cursor stays valid.',
  tag: 'events',
  query: EventFeedQuery,
  responses: { 200: Type.Ref(EventPageSchema) },
  errors: [400],
  // D-54: a Seller reads the events of its deals, a closer those about itself, the operator all.
  scope: ['events:read', 'admin'],
  read: async (service, { query, caller }) =>
    ok(
      await eventPage(
        (filter) => service.queries.events(filter, caller),
        query as Static<typeof EventFeedQuery>,
        () => service.queries.lastSeq(),
      ),
    ),
  view: (page) => page,
  tool: {
    name: 'list_events',
    title: 'Demo store: list events',
    description: () =>
      `${DEMO_STORE} the event feed (GET /events): every committed change (deal.created, deal.stage_changed, ` +
      'deal.closed, gig.posted, gig.claimed, payout.posted, demo.reset, ...) with a seq above `after` (0, the ' +
      'default, reads from the oldest kept), in seq order, at most `limit` (1 to 1000, default 100), optionally only ' +
      'one `type` or the events about one deal (`dealId`). Answers {events, nextAfter}: pass nextAfter as after to ' +
      'read on; every event comes exactly once, in order. A reset empties the feed but seq goes on increasing, so ' +
      'a saved nextAfter stays valid. A bad argument is an error result (400 INVALID_QUERY) carrying the HTTP error ' +
      'body {error, code, violations}.',
    annotations: READ_HINTS,
  },
});

const createWebhook = write({
  id: 'createWebhook',
  method: 'POST',
  mount: 'root',
  path: '/webhooks',
  summary: 'Subscribe a url to the events published from now on (signed, retried until delivered)',
  description:
    'Each matching event is POSTed as its JSON, signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The answer is the only one that shows the `secret`.',
  tag: 'events',
  body: WebhookBody,
  responses: { 201: Type.Ref(WebhookCreatedSchema) },
  errors: [400, 422],
  scope: WEBHOOKS,
  idempotent: true,
  command: (service, { body, caller }) => {
    const { url, types } = body as Static<typeof WebhookBody>;
    return service.webhooks.create({ url, types }, caller?.principal);
  },
  answer: (answers) => answers.createWebhook,
});

const listWebhooks = read({
  id: 'listWebhooks',
  method: 'GET',
  mount: 'root',
  path: '/webhooks',
  summary:
    "Every webhook the key's principal made (the operator: every one), in id order (secrets are never shown again)",
  tag: 'events',
  responses: { 200: Type.Array(Type.Ref(WebhookSchema)) },
  errors: [400],
  scope: WEBHOOKS,
  read: async (service, { caller }) => ok(await service.webhooks.list(caller)),
  view: (hooks) => hooks.map(webhookView),
});

const getWebhook = read({
  id: 'getWebhook',
  method: 'GET',
  mount: 'root',
  path: '/webhooks/{id}',
  summary: 'One webhook',
  tag: 'events',
  responses: { 200: Type.Ref(WebhookSchema) },
  errors: [404],
  scope: WEBHOOKS,
  read: (service, { id, caller }) => service.webhooks.get(id, caller),
  view: webhookView,
});

const deleteWebhook = write({
  id: 'deleteWebhook',
  method: 'DELETE',
  mount: 'root',
  path: '/webhooks/{id}',
  summary: 'Delete a webhook: nothing more is delivered to it',
  tag: 'events',
  responses: { 204: Type.Null({ description: 'deleted' }) },
  errors: [404],
  scope: WEBHOOKS,
  idempotent: false,
  command: (service, { id, caller }) => service.webhooks.delete(id, caller),
  answer: (answers) => answers.deleteWebhook,
});

const listWebhookDeliveries = read({
  id: 'listWebhookDeliveries',
  method: 'GET',
  mount: 'root',
  path: '/webhooks/{id}/deliveries',
  summary: "A webhook's last delivery attempts, oldest first: each event's attempts, answers and next try",
  tag: 'events',
  query: AttemptsQuery,
  responses: { 200: Type.Array(Type.Ref(WebhookAttemptSchema)) },
  errors: [400, 404],
  scope: WEBHOOKS,
  read: (service, { id, query, caller }) =>
    service.webhooks.attempts(id, (query as Static<typeof AttemptsQuery>).limit ?? 100, caller),
  view: (attempts) => attempts.map(attemptView),
});

export const EVENT_OPERATIONS = [
  listEvents,
  createWebhook,
  listWebhooks,
  getWebhook,
  deleteWebhook,
  listWebhookDeliveries,
];
