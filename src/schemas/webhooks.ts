// Webhooks (D-42): a subscription to the public events, its answer (the secret shown once), and
// the log of delivery attempts.
import { Type } from '@sinclair/typebox';
import { PUBLIC_EVENT_TYPES } from '../domain/public-events.ts';
import { Timestamp } from './common.ts';
import { EventTypeSchema } from './events.ts';
import { WEBHOOK_EXAMPLE } from './request-examples.ts';

export const MAX_WEBHOOK_URL = 2000;

export const WebhookBody = Type.Object(
  {
    // The url's form is checked where its address is (src/service/webhooks/url-check.ts, answered
    // 400 INVALID_BODY `url: is not a URL`); `format` states it, Ajv does not check it again.
    url: Type.String({
      minLength: 1,
      maxLength: MAX_WEBHOOK_URL,
      format: 'uri',
      description:
        'where each event is POSTed: an http or https URL whose host is not, and does not resolve to, a loopback, private or link-local address',
    }),
    types: Type.Optional(
      Type.Array(EventTypeSchema, {
        minItems: 1,
        maxItems: PUBLIC_EVENT_TYPES.length * 2,
        description: 'the event types to receive; absent: every type',
      }),
    ),
  },
  { additionalProperties: false, examples: [WEBHOOK_EXAMPLE] },
);

const webhookFields = {
  id: Type.String({ description: '`whk_` and a number' }),
  url: Type.String(),
  types: Type.Array(EventTypeSchema, { description: 'the event types it receives' }),
  createdAt: Timestamp,
};

export const WebhookSchema = Type.Object(webhookFields, {
  $id: 'Webhook',
  description: 'a subscription to the events published after it was created',
  examples: [
    {
      id: 'whk_0001',
      url: 'https://receiver.example/hooks/pipeline',
      types: ['deal.closed'],
      createdAt: '2026-01-05T09:00:00.000Z',
    },
  ],
});

export const WebhookCreatedSchema = Type.Object(
  {
    ...webhookFields,
    secret: Type.String({
      description:
        'the signing secret, `whsec_` + base64 of 24 random bytes: shown only in this answer; verify each delivery with it',
    }),
  },
  {
    $id: 'WebhookCreated',
    examples: [
      {
        id: 'whk_0001',
        url: 'https://receiver.example/hooks/pipeline',
        types: ['deal.closed'],
        createdAt: '2026-01-05T09:00:00.000Z',
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
    ],
  },
);

export const WebhookAttemptSchema = Type.Object(
  {
    eventId: Type.String({ description: 'the event delivered, `evt_` and its seq (also the `webhook-id` header)' }),
    seq: Type.Integer({ minimum: 1 }),
    attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt of this event' }),
    at: Timestamp,
    status: Type.Optional(Type.Integer({ description: "the receiver's HTTP status (only a 2xx delivers)" })),
    error: Type.Optional(Type.String({ description: 'why no status: refused, timed out, a forbidden address…' })),
    nextAttemptAt: Type.Optional({
      ...Timestamp,
      description: 'when it is tried again; absent once delivered or given up',
    }),
  },
  { $id: 'WebhookAttempt' },
);

export const AttemptsQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'the last attempts answered' }),
    ),
  },
  { additionalProperties: false },
);
