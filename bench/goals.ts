// What a run is held to: ratios to /health in memory, to pgbench TPC-B on PostgreSQL.
import { KEYS_MODE_CLAIM, KEYS_MODE_CREATE, KEYS_MODE_PLAIN_SELL } from './keys-mode.ts';
import { PREFIX } from './setup.ts';

/** The budget on the in-memory store: ratios to /health in the same run. */
export const BUDGET: Record<string, number> = {
  [`POST ${PREFIX}/sell`]: 0.4,
  [`POST ${PREFIX}/deals`]: 0.6,
  [`GET ${PREFIX}/deals/{id}`]: 0.8,
};

/**
 * Each scenario's goal on PostgreSQL, as a ratio to pgbench TPC-B in the same run. Keys mode's
 * rows are held to their demo rows' goals: a deployment runs in keys mode.
 */
export const PGBENCH_GOALS: Record<string, number> = {
  [`POST ${PREFIX}/deals`]: 0.9,
  [`POST ${PREFIX}/sell`]: 0.8,
  'POST /closers/gigs/{id}/claim': 0.6,
  [`GET ${PREFIX}/deals/{id}`]: 1.5,
  [KEYS_MODE_CREATE]: 0.9,
  [KEYS_MODE_PLAIN_SELL]: 0.8,
  [KEYS_MODE_CLAIM]: 0.6,
};

/**
 * The rows a PostgreSQL run measures again in memory, in the same run, so that the
 * service's CPU per request on the durable path is judged against its CPU for the same request
 * in memory (goal: at most 2.5 times).
 */
export const DURABLE_TO_MEMORY_GOAL = 2.5;
export const MEASURED_IN_MEMORY_TOO = [
  `POST ${PREFIX}/deals`,
  `POST ${PREFIX}/sell`,
  'POST /closers/gigs/{id}/claim',
  KEYS_MODE_CREATE,
  KEYS_MODE_PLAIN_SELL,
  KEYS_MODE_CLAIM,
];

/** The server's CPU per sell at most this share of its CPU per TPC-B transaction. */
export const SERVER_SELL_TO_TPCB_GOAL = 0.7;

/** In memory: each row's requests/s against its bare-Fastify ceiling row of the same run. */
export const CEILING_GOALS: Record<string, { ceiling: string; goal: number }> = {
  [`POST ${PREFIX}/deals`]: { ceiling: "POST ceiling: parse, validate, stringify a created deal's bytes", goal: 0.6 },
  [`POST ${PREFIX}/sell`]: { ceiling: "POST ceiling: parse, validate, stringify a sold deal's bytes", goal: 0.45 },
};
