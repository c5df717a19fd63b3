// The demo environment's own operations (D-19, D-27): health, the reset and the demo clock.
import { type Static, Type } from '@sinclair/typebox';
import { optionalBody } from '../schemas/common.ts';
import { ok } from '../service/result.ts';
import { read, write } from './operation.ts';

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

const getHealth = read({
  id: 'getHealth',
  method: 'GET',
  mount: 'root',
  path: '/health',
  summary: 'Liveness and store counts',
  tag: 'demo',
  responses: { 200: Type.Object({ ok: Type.Boolean(), closers: Type.Integer(), deals: Type.Integer() }) },
  errors: [],
  scope: 'open',
  read: async (service) => ok(await service.queries.health()),
  view: (counts) => ({ ok: true, closers: counts.closers, deals: counts.deals }),
});

const resetDemo = write({
  id: 'resetDemo',
  method: 'POST',
  mount: 'root',
  path: '/demo/reset',
  summary: 'Wipe all demo state and re-seed two fictional closers',
  tag: 'demo',
  body: optionalBody(Type.Object({}, { additionalProperties: false })),
  responses: { 200: Type.Object({ reset: Type.Literal(true), seeded: Type.Array(Type.String()) }) },
  errors: [400],
  scope: ['admin'],
  idempotent: true,
  command: (service) => service.platform.reset(),
  answer: (answers) => answers.resetDemo,
});

const advanceDemoClock = write({
  id: 'advanceDemoClock',
  method: 'POST',
  mount: 'root',
  path: '/demo/clock',
  summary: 'Move the demo clock forward and run the platform timers at once',
  tag: 'demo',
  body: ClockBody,
  responses: { 200: Type.Object({ now: Type.String({ format: 'date-time' }) }) },
  errors: [400],
  scope: ['admin'],
  idempotent: true,
  command: (service, { body }) => service.platform.advanceClock((body as Static<typeof ClockBody>).advanceHours),
  answer: (answers) => answers.advanceDemoClock,
});

export const DEMO_OPERATIONS = [getHealth, resetDemo, advanceDemoClock];
