// `npm run bench`: the service in its own process, driven by autocannon from this one.
// Prints a table (requests/s, p50/p99 latency, errors, ratio to /health measured in the same
// run: first and last, the ratio to their mean) and writes the figures as JSON. Options:
//   --store memory|postgres|pglite   (postgres reads DATABASE_URL or TEST_DATABASE_URL)
//   --duration <s>  seconds per scenario (default 10)   --connections <n> (default 10)
//   --smoke         one second per scenario, no budget verdict (for CI)
//   --out <file>    where the JSON goes (default bench/results/latest-<store>.json)
//   --only <text>   only the scenarios whose name contains the text, or one of texts split by |
//                   (a text ending in $ is a whole name)
//                   (and /health, first and last)
//   --group-commit on|off   GROUP_COMMIT of every service the run starts (PostgreSQL's group
//                   commit); without it the service's default holds
//   --warmup <s>    seconds of each scenario's load before it is measured (default 3 in memory,
//                   10 on PostgreSQL and PGlite, 0: none; none with --smoke): the figures are of a
//                   warm service, as pgbench's are of a warm server, not of the JIT compiling the
//                   request path (measure.ts; options.ts says why a durable row needs longer)
//   --repeat <n>    rounds of the rows (default 1): each row's figure is its median round's; on
//                   PostgreSQL pgbench runs after each row, a row's ratio to the TPC-B beside it;
//                   in memory a row's ratio to its ceiling is the median of its rounds' (report.ts)
// On PostgreSQL the run begins and ends with pgbench TPC-B on the same server with the same number
// of clients (bench/pgbench.ts) and every row also says its ratio to their mean (`vs pgbench`; with
// --repeat, to the runs just before and after it), beside the
// goals (goals.ts); the service gets as many database connections as there are clients. The
// create, the sell and the claim run twice: in the demo (AUTH=demo) and in keys mode by a
// principal's key (keys-mode.ts), as a deployment runs them, each held to the same goal.
// The row "sell, 100 SSE clients connected" keeps 100 clients of GET /events/stream reading
// every event while the sells run: compare it with the plain sell row (costs.streamedSellToSell
// in requests/s, costs.streamedSellCpuToSell in the service's own CPU per sell).
// What is measured is in scenarios.ts (their data made by setup.ts); how one scenario is measured
// in measure.ts; what is printed, written and held to in report.ts and goals.ts; the command line
// in options.ts. This file runs them in order.

import { MEASURED_IN_MEMORY_TOO } from './goals.ts';
import { type Figure, measure } from './measure.ts';
import { type Options, parseOptions, postgresOwnerUrl, postgresUrl, storeEnv } from './options.ts';
import { hasPgbench, type PgbenchFigure, pgbenchTpcB } from './pgbench.ts';
import { costsOf, medianBy, printTable, setRatios, verdict, writeReport } from './report.ts';
import { HEALTH, SCENARIOS, type Scenario } from './scenarios.ts';

/** Whether --only's text names a scenario: a part of its name, or the whole name when it ends in `$`. */
const named = (name: string, text: string) => (text.endsWith('$') ? name === text.slice(0, -1) : name.includes(text));

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const env = { ...storeEnv(options), TIMER_INTERVAL_SECONDS: '0' };
  const figures: Figure[] = [];
  let healthRps = 0;
  console.log(
    `benchmark: store ${options.store}, ${options.duration}s per scenario, ${options.connections} connections` +
      (options.groupCommit ? `, GROUP_COMMIT=${options.groupCommit}` : ''),
  );
  let pgbench: PgbenchFigure | undefined;
  const withPgbench = options.store === 'postgres' && (await hasPgbench());
  if (options.store === 'postgres' && !withPgbench) console.log('pgbench is not installed: no reference row');
  if (withPgbench) pgbench = await tpcB(options, 'first');
  // The ceiling rows have no store: they stand beside the in-memory figures only. /health is
  // measured first and again last, and every ratio is to the mean of the two: on a noisy VM
  // one sample of the baseline moved every ratio by 10-15%.
  const [health, ...rest] = SCENARIOS.filter(
    (s) =>
      (options.store === 'memory' || (!s.reference && !s.referenceStream)) &&
      (s.only === undefined || s.only === options.store) &&
      (s.name === HEALTH || !options.only || options.only.split('|').some((text) => named(s.name, text))),
  );
  const again: Scenario = { ...health, name: `${HEALTH}, again at the end` };
  const expected = () => Math.max(2000, Math.ceil((healthRps || 20_000) * options.duration * 0.7));
  const first = await measure(health, options, env, 0);
  healthRps = first.rps;
  figures.push(first.figure);
  // --repeat: the rows in rounds, each row's figure its median round's. On PostgreSQL pgbench runs
  // after each row, and a row's ratio is to the TPC-B just before and just after it: this machine's
  // speed moves by half within minutes (in one run of three rounds the same sell cost the service
  // 451, 539 and 747 µs and the server 352, 437 and 646, TPC-B's own server 906 to 1,191 µs a
  // transaction), so a row is held to the server's rate of its own minute, not of its round's two or
  // three, and one slow round is outvoted.
  const tpcBs: PgbenchFigure[] = pgbench ? [pgbench] : [];
  const rounds: Figure[][] = [];
  for (let round = 1; round <= options.repeat; round++) {
    const measured: Figure[] = [];
    for (const scenario of rest) {
      const { figure } = await measure(scenario, options, env, expected());
      if (pgbench && options.repeat > 1) {
        const after = await tpcB(options, `after ${scenario.name}, round ${round} of ${options.repeat}`);
        const reference = (tpcBs[tpcBs.length - 1].transactionsPerSecond + after.transactionsPerSecond) / 2;
        figure.ratioToPgbench = Math.round((figure.requestsPerSecond / reference) * 100) / 100;
        tpcBs.push(after);
      }
      measured.push(figure);
    }
    rounds.push(measured);
  }
  figures.push(...rest.map((_, i) => medianRound(rounds.map((measured) => measured[i]))));
  figures.push((await measure(again, options, env, 0)).figure);
  // pgbench again at the end (after the last round, with --repeat), every ratio without one of
  // its own to the mean of all: this shared machine's speed drifts over the minutes between them
  // (TPC-B read 1,295 to 1,656 transactions/s in one hour).
  if (pgbench && options.repeat === 1) tpcBs.push(await tpcB(options, 'again at the end'));
  if (pgbench) pgbench = meanOf(tpcBs);
  // On PostgreSQL, the rows with goals again in memory, so that the service's CPU per
  // request on the durable path is compared with its CPU for the same request, in the same run,
  // after the same warm-up (the run's: 10 s unless --warmup says otherwise).
  const inMemory: Figure[] = [];
  if (options.store === 'postgres' && !options.smoke) {
    const memoryEnv = { ...storeEnv({ ...options, store: 'memory' }), TIMER_INTERVAL_SECONDS: '0' };
    for (const scenario of rest.filter((s) => MEASURED_IN_MEMORY_TOO.includes(s.name))) {
      // Sized for the memory store's rate, not the run's /health on PostgreSQL: a claim in memory
      // goes at 6,000/s and more, and one prepared gig a claim sized by PostgreSQL's /health ran
      // out after 4 s of 5 (G10). Twice as many take a few seconds more to make in memory.
      const { figure } = await measure(scenario, { ...options, store: 'memory' }, memoryEnv, 2 * expected());
      inMemory.push({ ...figure, scenario: `${scenario.name}, in memory` });
    }
  }
  const baseline = setRatios(figures, pgbench);
  const costs = costsOf(figures, pgbench, inMemory);
  printTable([...figures, ...inMemory], pgbench, costs);
  writeReport(options, [...figures, ...inMemory], costs, baseline, pgbench);
  verdict(options, figures);
}

/** pgbench TPC-B on the run's server with the run's clients, printed. */
async function tpcB(options: Options, when: string): Promise<PgbenchFigure> {
  const figure = await pgbenchTpcB(postgresOwnerUrl() ?? postgresUrl(), options.connections, options.duration);
  console.log(
    `pgbench TPC-B (${when}), ${options.connections} clients: ${figure.transactionsPerSecond} transactions/s, p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms` +
      (figure.postgresCpuUsPerTransaction === undefined
        ? ''
        : `; CPU per transaction: postgres ${figure.postgresCpuUsPerTransaction} µs, pgbench ${figure.clientCpuUsPerTransaction ?? '?'} µs`),
  );
  return figure;
}

/** The pgbench runs as one reference: each figure their mean. */
function meanOf(runs: PgbenchFigure[]): PgbenchFigure {
  const mean = (values: (number | undefined)[]) =>
    values.some((v) => v === undefined) ? undefined : (values as number[]).reduce((a, b) => a + b, 0) / values.length;
  const whole = (values: (number | undefined)[]) => {
    const m = mean(values);
    return m === undefined ? undefined : Math.round(m);
  };
  const postgres = whole(runs.map((r) => r.postgresCpuUsPerTransaction));
  const client = whole(runs.map((r) => r.clientCpuUsPerTransaction));
  return {
    transactionsPerSecond: whole(runs.map((r) => r.transactionsPerSecond)) as number,
    p50Ms: Math.round((mean(runs.map((r) => r.p50Ms)) as number) * 100) / 100,
    p99Ms: Math.round((mean(runs.map((r) => r.p99Ms)) as number) * 100) / 100,
    transactions: runs.reduce((n, r) => n + r.transactions, 0),
    ...(postgres === undefined ? {} : { postgresCpuUsPerTransaction: postgres }),
    ...(client === undefined ? {} : { clientCpuUsPerTransaction: client }),
  };
}

/** A row's rounds as one figure: its median round's (by ratio to pgbench, else requests/s), with every round's. */
function medianRound(measured: Figure[]): Figure {
  if (measured.length === 1) return measured[0];
  const median = medianBy(measured, (f) => f.ratioToPgbench ?? f.requestsPerSecond);
  return {
    ...median,
    rounds: measured.map(({ requestsPerSecond, ratioToPgbench, serviceCpuUsPerRequest, postgresCpuUsPerRequest }) => ({
      requestsPerSecond,
      ratioToPgbench,
      serviceCpuUsPerRequest,
      postgresCpuUsPerRequest,
    })),
  };
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
