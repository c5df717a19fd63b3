// The demo environment's own operations (D-19, D-27): health, the reset and the demo clock. A
// keys-mode deployment is production (D-3): its health has no counts, and the two controls exist
// only with DEMO_CONTROLS=on.
import { type Static, Type } from '@sinclair/typebox';
import { optionalBody } from '../schemas/common.ts';
import { CLOCK_EXAMPLE } from '../schemas/request-examples.ts';
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
  { additionalProperties: false, examples: [CLOCK_EXAMPLE] },
);

const Counts = Type.Object({ ok: Type.Boolean(), closers: Type.Integer(), deals: Type.Integer() });

/**
 * D-3: keys mode answers `{ok: true}` and no figure about any tenant (it is open to callers
 * without a key). It still reads the store, so a store that does not answer is still an error.
 */
const getHealth = read({
  id: 'getHealth',
  method: 'GET',
  mount: 'root',
  path: '/health',
  summary: 'Liveness (and, in the demo, the store counts)',
  description:
    'Demo mode answers `{ok, closers, deals}`: the store counts. Keys mode answers `{ok: true}` only: ' +
    'no figure about any tenant to a caller without a key (D-3).',
  tag: 'demo',
  responses: { 200: { ...Counts, description: 'Demo mode: liveness and the store counts' } },
  keysResponses: {
    200: Type.Object(
      { ok: Type.Boolean() },
      { additionalProperties: false, description: 'Keys mode: liveness only, no counts' },
    ),
  },
  errors: [],
  scope: 'open',
  read: async (service) => {
    const counts = await service.queries.health();
    return ok(service.keyRing ? undefined : counts);
  },
  view: (counts: { closers: number; deals: number } | undefined) =>
    counts === undefined ? { ok: true } : { ok: true, closers: counts.closers, deals: counts.deals },
});

const resetDemo = write({
  id: 'resetDemo',
  method: 'POST',
  mount: 'root',
  path: '/demo/reset',
  summary: 'Wipe all state; the demo re-seeds two fictional closers',
  description:
    'Served in the demo; in keys mode only when DEMO_CONTROLS=on (D-3), for the operator, and there it seeds ' +
    'no closers (`seeded: []`).',
  tag: 'demo',
  demoControl: true,
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
  description: 'Served in the demo; in keys mode only when DEMO_CONTROLS=on (D-3), for the operator.',
  tag: 'demo',
  demoControl: true,
  body: ClockBody,
  responses: { 200: Type.Object({ now: Type.String({ format: 'date-time' }) }) },
  errors: [400],
  scope: ['admin'],
  idempotent: true,
  command: (service, { body }) => service.platform.advanceClock((body as Static<typeof ClockBody>).advanceHours),
  answer: (answers) => answers.advanceDemoClock,
});

export const DEMO_OPERATIONS = [getHealth, resetDemo, advanceDemoClock];
