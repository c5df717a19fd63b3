// What a run reports once every scenario has run: each figure's ratios (to /health, to
// pgbench), the costs of the features a request may pay for, the table, the JSON, and the
// verdict in the exit code.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  BUDGET,
  CEILING_GOALS,
  DURABLE_TO_MEMORY_GOAL,
  MEASURED_IN_MEMORY_TOO,
  PGBENCH_GOALS,
  SERVER_SELL_TO_TPCB_GOAL,
} from './goals.ts';
import { DEMO_ROW_OF } from './keys-mode.ts';
import type { Figure } from './measure.ts';
import type { Options } from './options.ts';
import type { PgbenchFigure } from './pgbench.ts';
import {
  KEYS_MODE_SELL,
  POLICY_SELL,
  REFUSED_CLOSE,
  SELL_BESIDE_SIGN_INS,
  STREAM_CLIENTS,
  STREAM_FLOOR,
  STREAMS_OF_ONE_SELLER,
  STREAMS_OF_TEN_SELLERS,
} from './scenarios.ts';
import { PREFIX } from './setup.ts';

/**
 * Sets every figure's ratios and answers the /health baseline they are to: the mean of the first
 * and the last row, /health measured before and after the rest.
 */
export function setRatios(figures: Figure[], pgbench: PgbenchFigure | undefined): number {
  const baseline = (figures[0].requestsPerSecond + figures[figures.length - 1].requestsPerSecond) / 2;
  for (const f of figures) {
    f.ratioToHealth = Math.round((f.requestsPerSecond / baseline) * 100) / 100;
    // A row measured in rounds (--repeat) keeps its ratio to the TPC-B runs beside it.
    if (pgbench && f.ratioToPgbench === undefined)
      f.ratioToPgbench = Math.round((f.requestsPerSecond / pgbench.transactionsPerSecond) * 100) / 100;
  }
  return baseline;
}

/**
 * A row's requests/s over its ceiling row's. With --repeat, the median of each round's ratio: in a
 * round the ceiling runs right after its row, so each round's ratio is of one minute of this
 * machine, whose speed moves by half within minutes; the median rows' figures may come from two
 * different rounds. A round's ratio where both have rounds, else the figures'.
 */
export function ratioToCeiling(row: Figure | undefined, ceiling: Figure | undefined): number | undefined {
  if (!row?.requestsPerSecond || !ceiling?.requestsPerSecond) return undefined;
  const mine = row.rounds;
  const theirs = ceiling.rounds;
  // A round whose ceiling answered nothing has no ratio.
  const ratios =
    mine && theirs && mine.length === theirs.length
      ? mine.flatMap((r, i) =>
          theirs[i].requestsPerSecond > 0 ? [r.requestsPerSecond / theirs[i].requestsPerSecond] : [],
        )
      : [];
  const ratio = ratios.length > 0 ? medianBy(ratios, (r) => r) : row.requestsPerSecond / ceiling.requestsPerSecond;
  return Math.round(ratio * 100) / 100;
}

/** The median item by `by`: the lower of the middle two of an even count (a row's median round, a median ratio). */
export function medianBy<T>(items: readonly T[], by: (item: T) => number): T {
  const sorted = [...items].sort((a, b) => by(a) - by(b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** Features every request may pay for, each beside what it adds to (same run). */
export function costsOf(figures: Figure[], pgbench?: PgbenchFigure, inMemory: Figure[] = []) {
  const rps = (name: string) => figures.find((f) => f.scenario === name)?.requestsPerSecond ?? 0;
  const round = (n: number) => Math.round(n * 100) / 100;
  const sell = figures.find((f) => f.scenario === `POST ${PREFIX}/sell`);
  // The service's CPU per request on PostgreSQL over its CPU for the same row in memory.
  const durableToMemory: Record<string, number> = {};
  for (const name of MEASURED_IN_MEMORY_TOO) {
    const durable = figures.find((f) => f.scenario === name)?.serviceCpuUsPerRequest;
    const memory = inMemory.find((f) => f.scenario === `${name}, in memory`)?.serviceCpuUsPerRequest;
    if (durable && memory) durableToMemory[name] = round(durable / memory);
  }
  // In memory: each row against its bare-Fastify ceiling row.
  const toCeiling: Record<string, number> = {};
  for (const [name, { ceiling }] of Object.entries(CEILING_GOALS)) {
    const found = ratioToCeiling(
      figures.find((f) => f.scenario === name),
      figures.find((f) => f.scenario === ceiling),
    );
    if (found !== undefined) toCeiling[name] = found;
  }
  const ratio = (name: string, base: string) => (rps(base) ? Math.round((rps(name) / rps(base)) * 100) / 100 : 0);
  const cpu = (name: string) => figures.find((f) => f.scenario === name)?.serviceCpuUsPerRequest ?? 0;
  const cpuRatio = (name: string, base: string) => (cpu(base) ? Math.round((cpu(name) / cpu(base)) * 100) / 100 : 0);
  // Keys mode's create, sell and claim over their demo rows, where both ran.
  const keysModeToDemo: Record<string, number> = {};
  for (const [name, demo] of Object.entries(DEMO_ROW_OF))
    if (rps(name) && rps(demo)) keysModeToDemo[name] = ratio(name, demo);
  return {
    keyedSellToSell: ratio(`POST ${PREFIX}/sell with Idempotency-Key`, `POST ${PREFIX}/sell with an unused id header`),
    keysModeSellToKeyedSell: ratio(KEYS_MODE_SELL, `POST ${PREFIX}/sell with Idempotency-Key`),
    /** D-63: keyed sells beside a flood of password sign-ins over the same sells alone. */
    sellBesideSignInsToKeysSell: ratio(SELL_BESIDE_SIGN_INS, KEYS_MODE_SELL),
    /** D-68: a sell through a key with a policy of daily limits over one through a key without. */
    policySellToKeysSell: ratio(POLICY_SELL, KEYS_MODE_SELL),
    ifMatchAdvanceToAdvance: ratio(
      `POST ${PREFIX}/deals/{id}/advance with If-Match`,
      `POST ${PREFIX}/deals/{id}/advance`,
    ),
    loggedSellToSell: ratio(`POST ${PREFIX}/sell, request log on`, `POST ${PREFIX}/sell`),
    /** A refused proposal (kept on the record, D-61) against an accepted advance. */
    refusedToAdvance: ratio(REFUSED_CLOSE, `POST ${PREFIX}/deals/{id}/advance`),
    streamedSellToSell: ratio(`POST ${PREFIX}/sell, ${STREAM_CLIENTS} SSE clients connected`, `POST ${PREFIX}/sell`),
    /** D-58: 100 stream clients of 10 Sellers against 100 of one, by the service's CPU per sell (one / ten). */
    streamsOfTenToOne: cpuRatio(STREAMS_OF_ONE_SELLER, STREAMS_OF_TEN_SELLERS),
    /** The same by the service's CPU per sell (plain / with the clients): its capacity kept. */
    streamedSellCpuToSell: cpuRatio(
      `POST ${PREFIX}/sell`,
      `POST ${PREFIX}/sell, ${STREAM_CLIENTS} SSE clients connected`,
    ),
    /** The server's CPU per sell over its CPU per TPC-B transaction (goal ≤ 0.7). */
    ...(sell?.postgresCpuUsPerRequest && pgbench?.postgresCpuUsPerTransaction
      ? { serverSellToTpcb: round(sell.postgresCpuUsPerRequest / pgbench.postgresCpuUsPerTransaction) }
      : {}),
    durableToMemory,
    /** Keys mode's create, sell and claim over the demo's, in requests/s. */
    keysModeToDemo,
    toCeiling,
    /** The service's CPU per sell with 100 stream clients over without them (goal ≤ 1.5). */
    streamedSellCpuOverSell: cpuRatio(
      `POST ${PREFIX}/sell, ${STREAM_CLIENTS} SSE clients connected`,
      `POST ${PREFIX}/sell`,
    ),
    /** The same over bare node:http writing the same bytes to the same readers (goal ≤ 1.5). */
    streamedSellCpuOverFloor: cpuRatio(`POST ${PREFIX}/sell, ${STREAM_CLIENTS} SSE clients connected`, STREAM_FLOOR),
  };
}

export type Costs = ReturnType<typeof costsOf>;

/** The figures as a table, then the costs in a line with their goals. */
export function printTable(figures: Figure[], pgbench: PgbenchFigure | undefined, costs: Costs): void {
  console.table(
    figures.map((f) => ({
      scenario: f.scenario,
      'req/s': f.requestsPerSecond,
      'p50 ms': f.p50Ms,
      'p97.5 ms': f.p97_5Ms,
      'p99 ms': f.p99Ms,
      errors: f.errors,
      'vs /health': f.ratioToHealth,
      'service µs/req': f.serviceCpuUsPerRequest ?? '',
      'load µs/req': f.loadCpuUsPerRequest ?? '',
      ...(pgbench
        ? {
            'postgres µs/req': f.postgresCpuUsPerRequest ?? '',
            'retries ‰': f.retriesPerThousand ?? '',
            'vs pgbench': f.ratioToPgbench ?? '',
            goal: PGBENCH_GOALS[f.scenario] ? `≥ ${PGBENCH_GOALS[f.scenario]}` : '',
          }
        : { budget: BUDGET[f.scenario] ? `≥ ${BUDGET[f.scenario]}` : '' }),
    })),
  );
  console.log(
    `keyed sell / sell: ${costs.keyedSellToSell} (goal ≥ 0.85); keys mode's keyed sell / keyed sell: ${costs.keysModeSellToKeyedSell} (goal ≥ 0.95); advance with If-Match / advance: ${costs.ifMatchAdvanceToAdvance} (goal ≥ 0.95); sell with the request log / sell: ${costs.loggedSellToSell}; ` +
      `sell with ${STREAM_CLIENTS} SSE clients / sell: ${costs.streamedSellToSell} in requests/s, ` +
      `${costs.streamedSellCpuToSell} in the service's CPU per sell (goal ≥ 0.9); ` +
      `refused close / advance: ${costs.refusedToAdvance} (goal ≥ 0.5); ` +
      `the service's CPU per sell with 100 stream clients of one Seller / of 10 Sellers: ${costs.streamsOfTenToOne} (goal ≥ 1); ` +
      `keys mode's keyed sell beside a flood of password sign-ins / alone: ${costs.sellBesideSignInsToKeysSell}; ` +
      `keyed sell through a key with a policy / without: ${costs.policySellToKeysSell} (goal ≥ 0.9)`,
  );
  const keysMode = Object.entries(costs.keysModeToDemo).map(([name, ratio]) => `${name} / demo mode: ${ratio}`);
  if (keysMode.length > 0) console.log(`keys mode / demo mode in requests/s: ${keysMode.join('; ')}`);
  // The durable path's and the stream's costs against their goals, each ratio with its goal.
  const lines: string[] = [];
  if (costs.serverSellToTpcb !== undefined)
    lines.push(
      `the server's CPU per sell / per TPC-B transaction: ${costs.serverSellToTpcb} (goal ≤ ${SERVER_SELL_TO_TPCB_GOAL})`,
    );
  for (const [name, ratio] of Object.entries(costs.durableToMemory))
    lines.push(`the service's CPU on PostgreSQL / in memory, ${name}: ${ratio} (goal ≤ ${DURABLE_TO_MEMORY_GOAL})`);
  for (const [name, ratio] of Object.entries(costs.toCeiling))
    lines.push(`${name} / its ceiling row: ${ratio} (goal ≥ ${CEILING_GOALS[name].goal})`);
  if (costs.streamedSellCpuOverSell)
    lines.push(
      `the service's CPU per sell with ${STREAM_CLIENTS} stream clients / without: ${costs.streamedSellCpuOverSell} (goal ≤ 1.5)`,
    );
  if (costs.streamedSellCpuOverFloor)
    lines.push(`… / bare node:http writing the same bytes to them: ${costs.streamedSellCpuOverFloor} (goal ≤ 1.5)`);
  if (lines.length > 0) console.log(`cost goals: ${lines.join('; ')}`);
}

/** The run as JSON: where --out says, else bench/results/latest-<store>[-smoke].json. */
export function writeReport(
  options: Options,
  figures: Figure[],
  costs: Costs,
  baseline: number,
  pgbench: PgbenchFigure | undefined,
): void {
  const report = {
    costs,
    takenAt: new Date().toISOString(),
    store: options.store,
    durationSeconds: options.duration,
    connections: options.connections,
    ...(options.groupCommit ? { groupCommit: options.groupCommit } : {}),
    node: process.version,
    /** Ratios are to the mean of the two /health runs, the first and the last. */
    healthBaseline: Math.round(baseline),
    ...(pgbench ? { pgbench } : {}),
    figures,
  };
  const out = options.out ?? `bench/results/latest-${options.store}${options.smoke ? '-smoke' : ''}.json`;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`figures written to ${out}`);
}

/** Exit code 1 on errors in any scenario or, in memory and not a smoke run, on a missed budget. */
export function verdict(options: Options, figures: Figure[]): void {
  const errors = figures.filter((f) => f.errors > 0);
  if (errors.length > 0) {
    console.error(`errors in: ${errors.map((f) => `${f.scenario} (${f.errors})`).join(', ')}`);
    process.exitCode = 1;
  }
  if (!options.smoke && options.store === 'memory') {
    const misses = figures.filter((f) => BUDGET[f.scenario] !== undefined && f.ratioToHealth < BUDGET[f.scenario]);
    for (const f of misses)
      console.error(`over budget: ${f.scenario} at ${f.ratioToHealth} of /health (budget ${BUDGET[f.scenario]})`);
    if (misses.length > 0) process.exitCode = 1;
  }
}
