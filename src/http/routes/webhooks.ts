// Webhooks (D-42): subscribe a url to the events, list, read, delete, and see the attempts.
// Deliveries themselves are the worker's (src/service/webhooks/worker.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Webhook } from '../../domain/webhooks.ts';
import { errorResponses, IdParams } from '../../schemas/common.ts';
import {
  AttemptsQuery,
  WebhookAttemptSchema,
  WebhookBody,
  WebhookCreatedSchema,
  WebhookSchema,
} from '../../schemas/webhooks.ts';
import type { PipelineService, Result } from '../../service/pipeline-service.ts';
import type { Answer } from '../../views/answers.ts';
import { refusalBody, statusOf } from '../../views/errors.ts';
import { attemptView, webhookCreatedView, webhookView } from '../../views/webhooks.ts';
import { writeRoute } from '../writes.ts';

type IdParam = { Params: Static<typeof IdParams> };

const created = (result: Result<Webhook>): Answer =>
  result.ok
    ? { status: 201, body: webhookCreatedView(result.value), location: `/webhooks/${result.value.id}` }
    : { status: statusOf(result.refusal), body: refusalBody(result.refusal) };

export const webhookRoutes: FastifyPluginAsync<{ service: PipelineService }> = async (app, { service }) => {
  app.post(
    '/webhooks',
    {
      schema: {
        summary: 'Subscribe a url to the events published from now on (signed, retried until delivered)',
        description:
          'Each matching event is POSTed as its JSON, signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The answer is the only one that shows the `secret`.',
        operationId: 'createWebhook',
        tags: ['events'],
        body: WebhookBody,
        response: { 201: Type.Ref(WebhookCreatedSchema), ...errorResponses(400, 422) },
      },
    },
    writeRoute(service, created, (request: FastifyRequest<{ Body: Static<typeof WebhookBody> }>, options) =>
      service.webhooks.create({ url: request.body.url, types: request.body.types }, options),
    ),
  );

  app.get(
    '/webhooks',
    {
      schema: {
        summary: 'Every webhook, in id order (secrets are never shown again)',
        operationId: 'listWebhooks',
        tags: ['events'],
        response: { 200: Type.Array(Type.Ref(WebhookSchema)), ...errorResponses(400) },
      },
    },
    async () => (await service.webhooks.list()).map(webhookView),
  );

  app.get<IdParam>(
    '/webhooks/:id',
    {
      schema: {
        summary: 'One webhook',
        operationId: 'getWebhook',
        tags: ['events'],
        params: IdParams,
        response: { 200: Type.Ref(WebhookSchema), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const result = await service.webhooks.get(request.params.id);
      if (!result.ok) return reply.code(statusOf(result.refusal)).send(refusalBody(result.refusal));
      return webhookView(result.value);
    },
  );

  app.delete<IdParam>(
    '/webhooks/:id',
    {
      schema: {
        summary: 'Delete a webhook: nothing more is delivered to it',
        operationId: 'deleteWebhook',
        tags: ['events'],
        params: IdParams,
        response: { 204: Type.Null({ description: 'deleted' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const result = await service.webhooks.delete(request.params.id);
      if (!result.ok) return reply.code(statusOf(result.refusal)).send(refusalBody(result.refusal));
      return reply.code(204).send();
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        summary: "A webhook's last delivery attempts, oldest first: each event's attempts, answers and next try",
        operationId: 'listWebhookDeliveries',
        tags: ['events'],
        params: IdParams,
        querystring: AttemptsQuery,
        response: { 200: Type.Array(Type.Ref(WebhookAttemptSchema)), ...errorResponses(400, 404) },
      },
    },
    async (
      request: FastifyRequest<{ Params: Static<typeof IdParams>; Querystring: Static<typeof AttemptsQuery> }>,
      reply,
    ) => {
      const result = await service.webhooks.attempts(request.params.id, request.query.limit ?? 100);
      if (!result.ok) return reply.code(statusOf(result.refusal)).send(refusalBody(result.refusal));
      return result.value.map(attemptView);
    },
  );
};
