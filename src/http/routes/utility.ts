// Utilities of the demo environment: the index, health, reset and the demo clock (D-2, D-19, D-27).
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { errorResponses, optionalBody } from '../../schemas/common.ts';
import type { PipelineService } from '../../service/pipeline-service.ts';
import type { WriteAnswers } from '../../views/answers.ts';
import type { IndexEntry } from '../app.ts';
import { writeRoute } from '../writes.ts';

const SERVICE_NAME = 'sales-pipeline-service';
export const SERVICE_VERSION = '0.1.0';

const ClockBody = Type.Object(
  {
    advanceHours: Type.Number({
      minimum: 0,
      maximum: 2160,
      description: 'hours to move the demo clock forward; fractions are rounded half-up to the millisecond',
    }),
  },
  { additionalProperties: false },
);

export const utilityRoutes: FastifyPluginAsync<{
  service: PipelineService;
  index: IndexEntry[];
  answers: WriteAnswers;
}> = async (app, { service, index, answers }) => {
  app.get(
    '/',
    {
      schema: {
        summary: 'JSON index of every endpoint of both surfaces',
        operationId: 'getIndex',
        tags: ['demo'],
        response: {
          200: Type.Object({
            service: Type.String(),
            version: Type.String(),
            endpoints: Type.Array(
              Type.Object({
                method: Type.String(),
                path: Type.String(),
                surface: Type.Union([Type.Literal('root'), Type.Literal('demo')]),
                summary: Type.String(),
              }),
            ),
          }),
        },
      },
    },
    async () => ({
      service: SERVICE_NAME,
      version: SERVICE_VERSION,
      endpoints: [...index].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method)),
    }),
  );

  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness and store counts',
        operationId: 'getHealth',
        tags: ['demo'],
        response: { 200: Type.Object({ ok: Type.Boolean(), closers: Type.Integer(), deals: Type.Integer() }) },
      },
    },
    async () => {
      const counts = await service.health();
      return { ok: true, closers: counts.closers, deals: counts.deals };
    },
  );

  app.post(
    '/demo/reset',
    {
      schema: {
        summary: 'Wipe all demo state and re-seed two fictional closers',
        operationId: 'resetDemo',
        tags: ['demo'],
        body: optionalBody(Type.Object({}, { additionalProperties: false })),
        response: {
          200: Type.Object({ reset: Type.Literal(true), seeded: Type.Array(Type.String()) }),
          ...errorResponses(400),
        },
      },
    },
    writeRoute(service, answers.resetDemo, (_request, options) => service.reset(options)),
  );

  app.post(
    '/demo/clock',
    {
      schema: {
        summary: 'Move the demo clock forward and run the platform timers at once',
        operationId: 'advanceDemoClock',
        tags: ['demo'],
        body: ClockBody,
        response: { 200: Type.Object({ now: Type.String({ format: 'date-time' }) }), ...errorResponses(400) },
      },
    },
    writeRoute(
      service,
      answers.advanceDemoClock,
      (request: FastifyRequest<{ Body: Static<typeof ClockBody> }>, options) =>
        service.advanceClock(request.body.advanceHours, options),
    ),
  );
};
