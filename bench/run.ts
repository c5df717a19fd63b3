// `npm run bench`: the service in its own process, driven by autocannon from this one.
// Prints a table (requests/s, p50/p99 latency, errors, ratio to /health measured in the same
// run: first and last, the ratio to their mean) and writes the figures as JSON. Options:
//   --store memory|postgres|pglite   (postgres reads DATABASE_URL or TEST_DATABASE_URL)
//   --duration <s>  seconds per scenario (default 10)   --connections <n> (default 10)
//   --smoke         one second per scenario, no budget verdict (for CI)
//   --out <file>    where the JSON goes (default bench/results/latest-<store>.json)
//   --only <text>   only the scenarios whose name contains the text, or one of texts split by |
//                   (and /health, first and last)
// On PostgreSQL the run begins with pgbench TPC-B on the same server with the same number of
// clients (bench/pgbench.ts) and every row also says its ratio to it (`vs pgbench`), beside the
// goals of issue 14; the service gets as many database connections as there are clients.
// The row "sell, 100 SSE clients connected" keeps 100 clients of GET /events/stream reading
// every event while the sells run: compare it with the plain sell row (costs.streamedSellToSell
// in requests/s, costs.streamedSellCpuToSell in the service's own CPU per sell).

import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { hasPgbench, type PgbenchFigure, pgbenchTpcB } from './pgbench.ts';
import { cpuMsOf, postgresCpuMs } from './proc-cpu.ts';
import { startServiceProcess } from './service-process.ts';

interface Options {
  store: 'memory' | 'postgres' | 'pglite';
  duration: number;
  connections: number;
  smoke: boolean;
  out?: string;
  only?: string;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { store: 'memory', duration: 10, connections: 10, smoke: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--store') options.store = value() as Options['store'];
    else if (arg === '--duration') options.duration = Number(value());
    else if (arg === '--connections') options.connections = Number(value());
    else if (arg === '--smoke') options.smoke = true;
    else if (arg === '--out') options.out = value();
    else if (arg === '--only') options.only = value();
    else throw new Error(`unknown option ${arg}`);
  }
  if (!['memory', 'postgres', 'pglite'].includes(options.store))
    throw new Error('--store is memory, postgres or pglite');
  if (options.smoke) options.duration = 1;
  return options;
}

const PREFIX = '/pipeline';
const JSON_HEADERS = { 'content-type': 'application/json' };
const dealBody = (i: number, mandate?: unknown) =>
  JSON.stringify({
    account: { name: `Bench Fictional ${i}`, industry: 'saas', actor: 'B2B' },
    listValueUsd: 50_000 + (i % 1000),
    ...(mandate ? { mandate } : {}),
  });

async function post(url: string, body?: string): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: body ? JSON_HEADERS : {}, body });
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Runs `count` setup requests with some concurrency (setup is not measured). */
async function inParallel<T>(count: number, work: (i: number) => Promise<T>, width = 16): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

/** autocannon takes the path from `requests`, not from the top-level options. */
const one = (request: autocannon.Request): Partial<autocannon.Options> => ({ requests: [request] });

interface Scenario {
  name: string;
  /** Work done before measuring; returns the autocannon request options. */
  prepare(url: string, expected: number): Promise<Partial<autocannon.Options>>;
  /**
   * Measured against bench/reference-server.ts instead of the service: bare Fastify that parses
   * and validates the body and stringifies what the service answered to this path; no gate.
   */
  reference?: string;
  /** Extra environment of the service for this scenario (e.g. the request log on). */
  env?: Record<string, string>;
  /** A load that runs alongside the measured requests (started after prepare); stop() reports on it. */
  alongside?(url: string): Promise<{ stop(): Promise<string> }>;
}

/**
 * Advances of fresh deals, in turn: each deal takes five to close, and there are enough deals
 * that none is advanced past terminal. With `ifMatch` each names the version it expects: the
 * k-th pass finds every deal at version k + 1.
 */
async function advances(url: string, expected: number, ifMatch: boolean): Promise<Partial<autocannon.Options>> {
  const ids = await inParallel(
    Math.ceil(expected / 5),
    async (i) => (await post(`${url}${PREFIX}/deals`, dealBody(i))).id,
  );
  let n = 0;
  return {
    // Never more advances than the deals can take before they close (five each), however fast.
    amount: ids.length * 5,
    requests: [
      {
        method: 'POST',
        setupRequest: (request: any) => {
          const k = n++;
          request.path = `${PREFIX}/deals/${ids[k % ids.length]}/advance`;
          if (ifMatch) request.headers = { ...request.headers, 'if-match': `"${1 + Math.floor(k / ids.length)}"` };
          return request;
        },
      },
    ],
  };
}

/**
 * Issue 12: dry runs of a close (D-48) on deals at negotiation, in turn: a dry run changes
 * nothing, so the same deals serve every request. What an agent pays to look before it leaps.
 */
async function dryRunCloses(url: string): Promise<Partial<autocannon.Options>> {
  const ids = await inParallel(100, async (i) => (await post(`${url}${PREFIX}/deals`, dealBody(i))).id);
  for (let step = 0; step < 4; step++)
    await inParallel(ids.length, (i) => post(`${url}${PREFIX}/deals/${ids[i]}/advance`));
  const close = JSON.stringify({ advanceTo: 'closed_won', valueUsd: 45_000 });
  let n = 0;
  return {
    requests: [
      {
        method: 'POST',
        headers: JSON_HEADERS,
        body: close,
        setupRequest: (request: any) => {
          request.path = `${PREFIX}/deals/${ids[n++ % ids.length]}/advance?dryRun=true`;
          return request;
        },
      },
    ],
  };
}

const STREAM_CLIENTS = 100;
/**
 * `count` clients of GET /events/stream (from the oldest kept event: the service was just reset),
 * in a process of their own (bench/stream-clients.ts), each reading everything its stream sends.
 */
async function streamClients(url: string, count: number): Promise<{ stop(): Promise<string> }> {
  const child = fork(fileURLToPath(new URL('./stream-clients.ts', import.meta.url)), [url, String(count)], {
    execArgv: ['--import', 'tsx'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the stream clients exited with code ${code}`)));
  });
  return {
    stop: () =>
      new Promise<string>((resolve) => {
        child.removeAllListeners('exit');
        child.once('message', (report) => resolve(String(report)));
        child.send('stop');
      }),
  };
}

/** The machine's ceiling for a POST whose answer is what `path` answers. */
const ceiling = (path: string, answer: string): Scenario => ({
  name: `POST ceiling: parse, validate, stringify ${answer}`,
  reference: path,
  prepare: async () => one({ method: 'POST', path: '/reference', headers: JSON_HEADERS, body: dealBody(1) }),
});

const HEALTH = 'GET /health';

const SCENARIOS: Scenario[] = [
  { name: HEALTH, prepare: async () => one({ method: 'GET', path: '/health' }) },
  {
    name: `GET ${PREFIX}/deals/{id}`,
    prepare: async (url) => {
      const deal = await post(`${url}${PREFIX}/deals`, dealBody(0));
      return one({ method: 'GET', path: `${PREFIX}/deals/${deal.id}` });
    },
  },
  {
    name: `POST ${PREFIX}/deals`,
    prepare: async () => one({ method: 'POST', path: `${PREFIX}/deals`, headers: JSON_HEADERS, body: dealBody(1) }),
  },
  ceiling(`${PREFIX}/deals`, "a created deal's bytes"),
  {
    name: `POST ${PREFIX}/deals/{id}/advance`,
    prepare: (url, expected) => advances(url, expected, false),
  },
  {
    // Issue 12: the same advances, each naming the version it expects (If-Match, D-47); goal:
    // at least 0.95 of the plain advance row (costs.ifMatchAdvanceToAdvance).
    name: `POST ${PREFIX}/deals/{id}/advance with If-Match`,
    prepare: (url, expected) => advances(url, expected, true),
  },
  {
    name: `POST ${PREFIX}/sell`,
    prepare: async () => one({ method: 'POST', path: `${PREFIX}/sell`, headers: JSON_HEADERS, body: dealBody(2) }),
  },
  {
    // Every request a new key (a first attempt, not a replay): what a client that always sends a
    // key pays. autocannon writes a fresh id into each request ([<id>]); so that the client does
    // the same work in both, the twin row sends the same id in a header the service ignores, and
    // the cost is the ratio of the two (goal: at least 0.85).
    name: `POST ${PREFIX}/sell with Idempotency-Key`,
    prepare: async () => ({
      idReplacement: true,
      requests: [
        {
          method: 'POST',
          path: `${PREFIX}/sell`,
          headers: { ...JSON_HEADERS, 'idempotency-key': 'bench-[<id>]' },
          body: dealBody(2),
        },
      ],
    }),
  },
  {
    name: `POST ${PREFIX}/sell with an unused id header`,
    prepare: async () => ({
      idReplacement: true,
      requests: [
        {
          method: 'POST',
          path: `${PREFIX}/sell`,
          headers: { ...JSON_HEADERS, 'x-bench-id': 'bench-[<id>]' },
          body: dealBody(2),
        },
      ],
    }),
  },
  {
    // Issue 11: 100 clients on the event stream, each reading every event, must not slow the
    // sell by more than 10% (ratio to the plain sell row above, in `costs`).
    name: `POST ${PREFIX}/sell, ${STREAM_CLIENTS} SSE clients connected`,
    prepare: async () => one({ method: 'POST', path: `${PREFIX}/sell`, headers: JSON_HEADERS, body: dealBody(2) }),
    alongside: (url) => streamClients(url, STREAM_CLIENTS),
  },
  {
    // The one-line request log of `npm start` (LOG_LEVEL=info), written to /dev/null: its own
    // cost, beside the plain sell (measured with the log at warn, as every other row).
    name: `POST ${PREFIX}/sell, request log on`,
    env: { LOG_LEVEL: 'info', BENCH_STDOUT: 'ignore' },
    prepare: async () => one({ method: 'POST', path: `${PREFIX}/sell`, headers: JSON_HEADERS, body: dealBody(2) }),
  },
  ceiling(`${PREFIX}/sell`, "a sold deal's bytes"),
  {
    name: 'POST /closers/gigs/{id}/claim',
    prepare: async (url, expected) => {
      // One open gig per claim: deals whose closer role calls for a human escalate at meeting.
      const mandate = { staffing: { closer: 'human' } };
      const gigs = await inParallel(
        expected,
        async (i) => (await post(`${url}${PREFIX}/sell`, dealBody(i, mandate))).gig.id,
      );
      let n = 0;
      return {
        // Never more claims than open gigs (a second claim of a gig is a 409), however fast.
        amount: gigs.length,
        requests: [
          {
            method: 'POST',
            headers: JSON_HEADERS,
            body: JSON.stringify({ closerId: 'closer_0001' }),
            setupRequest: (request: any) => {
              request.path = `/closers/gigs/${gigs[n++ % gigs.length]}/claim`;
              return request;
            },
          },
        ],
      };
    },
  },
  {
    // Last of the demo rows, so that the rows before it run as they did before it existed.
    name: `POST ${PREFIX}/deals/{id}/advance?dryRun=true (a close)`,
    prepare: (url) => dryRunCloses(url),
  },
  {
    name: 'GET /deals?stage=negotiation (ROOT)',
    prepare: async () => one({ method: 'GET', path: '/deals?stage=negotiation' }),
  },
];

interface Figure {
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  ratioToHealth: number;
  /** PostgreSQL: requests/s over pgbench TPC-B's transactions/s in the same run. */
  ratioToPgbench?: number;
  /**
   * The service process's own CPU time (user + system) per request, in µs: what a request costs
   * the service wherever its clients run. On this 2-vCPU machine the load generator and the
   * stream readers take CPU the service would otherwise have, so requests/s alone would charge
   * their work to it. Absent where /proc is not there.
   */
  serviceCpuUsPerRequest?: number;
  /**
   * PostgreSQL on this machine: its processes' CPU time per request, in µs (beside pgbench's
   * per transaction): with the service's, where a request's CPU goes. Absent for a remote server.
   */
  postgresCpuUsPerRequest?: number;
}

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

function postgresUrl(): string {
  const url = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('--store postgres needs DATABASE_URL (or TEST_DATABASE_URL)');
  return url;
}

function storeEnv(options: Options): Record<string, string> {
  if (options.store === 'memory') return { DATABASE_URL: '' };
  if (options.store === 'pglite') return { DATABASE_URL: `pglite:${mkdtempSync(join(tmpdir(), 'bench-pglite-'))}` };
  // As many connections as clients, as pgbench has.
  return { DATABASE_URL: postgresUrl(), DATABASE_POOL_SIZE: String(Math.max(1, options.connections)) };
}

/** The reference server, answering with what the service answers to a POST of `path`. */
async function referenceProcess(env: Record<string, string>, path: string) {
  const service = await startServiceProcess(env);
  let answer: string;
  try {
    answer = JSON.stringify(await post(`${service.url}${path}`, dealBody(1)));
  } finally {
    await service.stop();
  }
  return startServiceProcess({ REFERENCE_BODY: answer }, [], 'bench/reference-server.ts');
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const env = { ...storeEnv(options), TIMER_INTERVAL_SECONDS: '0' };
  const figures: Figure[] = [];
  let healthRps = 0;
  console.log(
    `benchmark: store ${options.store}, ${options.duration}s per scenario, ${options.connections} connections`,
  );
  let pgbench: PgbenchFigure | undefined;
  if (options.store === 'postgres') {
    if (await hasPgbench()) {
      pgbench = await pgbenchTpcB(postgresUrl(), options.connections, options.duration);
      console.log(
        `pgbench TPC-B, ${options.connections} clients: ${pgbench.transactionsPerSecond} transactions/s, p50 ${pgbench.p50Ms} ms, p99 ${pgbench.p99Ms} ms` +
          (pgbench.postgresCpuUsPerTransaction === undefined
            ? ''
            : `; CPU per transaction: postgres ${pgbench.postgresCpuUsPerTransaction} µs, pgbench ${pgbench.clientCpuUsPerTransaction ?? '?'} µs`),
      );
    } else console.log('pgbench is not installed: no reference row');
  }
  // The ceiling rows have no store: they stand beside the in-memory figures only. /health is
  // measured first and again last, and every ratio is to the mean of the two: on a noisy VM
  // one sample of the baseline moved every ratio by 10-15%.
  const [health, ...rest] = SCENARIOS.filter(
    (s) =>
      (options.store === 'memory' || !s.reference) &&
      (s.name === HEALTH || !options.only || options.only.split('|').some((text) => s.name.includes(text))),
  );
  const again: Scenario = { ...health, name: `${HEALTH}, again at the end` };
  for (const scenario of [health, ...rest, again]) {
    // A fresh service per scenario, so one scenario's data does not slow the next.
    const service = scenario.reference
      ? await referenceProcess(env, scenario.reference)
      : await startServiceProcess({ ...env, ...scenario.env });
    try {
      if (!scenario.reference) await post(`${service.url}/demo/reset`);
      const expected = Math.max(2000, Math.ceil((healthRps || 20_000) * options.duration * 0.7));
      const request = await scenario.prepare(service.url, scenario === health || scenario === again ? 0 : expected);
      const side = await scenario.alongside?.(service.url);
      const cpuBefore = cpuMsOf(service.child.pid);
      const postgresBefore = options.store === 'postgres' ? postgresCpuMs() : undefined;
      let cpuAfter: number | undefined;
      let postgresAfter: number | undefined;
      let result: autocannon.Result;
      try {
        result = await autocannon({
          url: service.url,
          connections: options.connections,
          duration: options.duration,
          ...request,
        });
        cpuAfter = cpuMsOf(service.child.pid);
        postgresAfter = postgresBefore === undefined ? undefined : postgresCpuMs();
      } finally {
        // Read for a moment more, so that the last events sold reach every client.
        if (side) await new Promise((resolve) => setTimeout(resolve, 500));
        const report = await side?.stop();
        if (report) console.log(`${scenario.name}: ${report}`);
      }
      const rps = result.requests.average;
      if (scenario === health) healthRps = rps;
      figures.push({
        scenario: scenario.name,
        requestsPerSecond: Math.round(rps),
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        requests: result.requests.total,
        errors: result.errors + result.timeouts + result.non2xx,
        ratioToHealth: 0,
        ...(cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0
          ? { serviceCpuUsPerRequest: Math.round(((cpuAfter - cpuBefore) * 1000) / result.requests.total) }
          : {}),
        ...(postgresBefore !== undefined && postgresAfter !== undefined && result.requests.total > 0
          ? { postgresCpuUsPerRequest: Math.round(((postgresAfter - postgresBefore) * 1000) / result.requests.total) }
          : {}),
      });
    } finally {
      await service.stop();
    }
  }
  const baseline = (figures[0].requestsPerSecond + figures[figures.length - 1].requestsPerSecond) / 2;
  for (const f of figures) {
    f.ratioToHealth = Math.round((f.requestsPerSecond / baseline) * 100) / 100;
    if (pgbench) f.ratioToPgbench = Math.round((f.requestsPerSecond / pgbench.transactionsPerSecond) * 100) / 100;
  }

  // Features every request may pay for, each beside what it adds to (same run).
  const rps = (name: string) => figures.find((f) => f.scenario === name)?.requestsPerSecond ?? 0;
  const ratio = (name: string, base: string) => (rps(base) ? Math.round((rps(name) / rps(base)) * 100) / 100 : 0);
  const cpu = (name: string) => figures.find((f) => f.scenario === name)?.serviceCpuUsPerRequest ?? 0;
  const cpuRatio = (name: string, base: string) => (cpu(base) ? Math.round((cpu(name) / cpu(base)) * 100) / 100 : 0);
  const costs = {
    keyedSellToSell: ratio(`POST ${PREFIX}/sell with Idempotency-Key`, `POST ${PREFIX}/sell with an unused id header`),
    ifMatchAdvanceToAdvance: ratio(
      `POST ${PREFIX}/deals/{id}/advance with If-Match`,
      `POST ${PREFIX}/deals/{id}/advance`,
    ),
    loggedSellToSell: ratio(`POST ${PREFIX}/sell, request log on`, `POST ${PREFIX}/sell`),
    streamedSellToSell: ratio(`POST ${PREFIX}/sell, ${STREAM_CLIENTS} SSE clients connected`, `POST ${PREFIX}/sell`),
    /** The same by the service's CPU per sell (plain / with the clients): its capacity kept. */
    streamedSellCpuToSell: cpuRatio(
      `POST ${PREFIX}/sell`,
      `POST ${PREFIX}/sell, ${STREAM_CLIENTS} SSE clients connected`,
    ),
  };
  console.table(
    figures.map((f) => ({
      scenario: f.scenario,
      'req/s': f.requestsPerSecond,
      'p50 ms': f.p50Ms,
      'p99 ms': f.p99Ms,
      errors: f.errors,
      'vs /health': f.ratioToHealth,
      'service µs/req': f.serviceCpuUsPerRequest ?? '',
      ...(pgbench
        ? {
            'postgres µs/req': f.postgresCpuUsPerRequest ?? '',
            'vs pgbench': f.ratioToPgbench,
            goal: PGBENCH_GOALS[f.scenario] ? `≥ ${PGBENCH_GOALS[f.scenario]}` : '',
          }
        : { budget: BUDGET[f.scenario] ? `≥ ${BUDGET[f.scenario]}` : '' }),
    })),
  );
  console.log(
    `keyed sell / sell: ${costs.keyedSellToSell} (goal ≥ 0.85); advance with If-Match / advance: ${costs.ifMatchAdvanceToAdvance} (goal ≥ 0.95); sell with the request log / sell: ${costs.loggedSellToSell}; ` +
      `sell with ${STREAM_CLIENTS} SSE clients / sell: ${costs.streamedSellToSell} in requests/s, ` +
      `${costs.streamedSellCpuToSell} in the service's CPU per sell (goal ≥ 0.9)`,
  );
  const report = {
    costs,
    takenAt: new Date().toISOString(),
    store: options.store,
    durationSeconds: options.duration,
    connections: options.connections,
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

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
