// The event feed (D-41): every committed change, in seq order, a page at a time.
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { errorResponses } from '../../schemas/common.ts';
import { EventFeedQuery, EventPageSchema } from '../../schemas/events.ts';
import type { PipelineService } from '../../service/pipeline-service.ts';
import { eventPage } from '../../views/events.ts';

export const eventRoutes: FastifyPluginAsync<{ service: PipelineService }> = async (app, { service }) => {
  app.get(
    '/events',
    {
      schema: {
        summary: 'The event feed: every committed change after a seq, in seq order',
        description:
          'Follow `nextAfter` to read every event exactly once, in order, whatever writes meanwhile. A reset empties the feed but seq goes on increasing, so a cursor stays valid.',
        operationId: 'listEvents',
        tags: ['events'],
        querystring: EventFeedQuery,
        response: { 200: Type.Ref(EventPageSchema), ...errorResponses(400) },
      },
    },
    async (request: FastifyRequest<{ Querystring: Static<typeof EventFeedQuery> }>) =>
      eventPage(
        (filter) => service.events(filter),
        request.query,
        () => service.lastSeq(),
      ),
  );
};
