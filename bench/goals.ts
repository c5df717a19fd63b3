// What a run is held to: ratios to /health in memory, to pgbench TPC-B on PostgreSQL.
import { PREFIX } from './setup.ts';

/** The budget of issue 5 (in-memory store): ratios to /health in the same run. */
export const BUDGET: Record<string, number> = {
  [`POST ${PREFIX}/sell`]: 0.4,
  [`POST ${PREFIX}/deals`]: 0.6,
  [`GET ${PREFIX}/deals/{id}`]: 0.8,
};

/** Issue 14: each scenario's goal on PostgreSQL, as a ratio to pgbench TPC-B in the same run. */
export const PGBENCH_GOALS: Record<string, number> = {
  [`POST ${PREFIX}/deals`]: 0.8,
  [`POST ${PREFIX}/sell`]: 0.8,
  'POST /closers/gigs/{id}/claim': 0.5,
  [`GET ${PREFIX}/deals/{id}`]: 1.5,
};
