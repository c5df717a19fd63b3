// One scenario measured: a fresh service for it (or the reference server, for a ceiling row),
// its data prepared, autocannon's load for the run's duration, and the CPU the service and a
// local PostgreSQL spent meanwhile.
import { request as httpRequest } from 'node:http';
import autocannon from 'autocannon';
import type { Options } from './options.ts';
import { cpuMsOf, postgresCpuMs } from './proc-cpu.ts';
import type { Scenario } from './scenarios.ts';
import { startServiceProcess } from './service-process.ts';
import { dealBody, OPERATOR_HEADERS, PREFIX, post } from './setup.ts';

export interface Figure {
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The 97.5th percentile: an upper bound of the 95th (autocannon gives no 95th). */
  p97_5Ms: number;
  requests: number;
  errors: number;
  ratioToHealth: number;
  /**
   * PostgreSQL: requests/s over pgbench TPC-B's transactions/s in the same run (with --repeat, the
   * median round's, to the TPC-B runs just before and after the row in that round).
   */
  ratioToPgbench?: number;
  /**
   * --repeat: every round's requests/s, ratio to pgbench and CPU per request (the service's and the
   * server's), in order; the figure is the median round's.
   */
  rounds?: Pick<
    Figure,
    'requestsPerSecond' | 'ratioToPgbench' | 'serviceCpuUsPerRequest' | 'postgresCpuUsPerRequest'
  >[];
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
  /**
   * The load generator's CPU (this process: autocannon) per request, in µs: the third share of
   * the machine, beside pgbench's own client CPU per transaction.
   */
  loadCpuUsPerRequest?: number;
  /**
   * PostgreSQL: the units of work run again during the run (a conflict, D-250's stale copy),
   * per 1,000 requests, from the service's `pipeline_units_retried_total`.
   */
  retriesPerThousand?: number;
}

/** The service's count of units run again (GET /metrics), or undefined where it has none. */
async function unitsRetried(url: string): Promise<number | undefined> {
  const response = await fetch(`${url}/metrics`);
  if (!response.ok) return undefined;
  let total = 0;
  for (const line of (await response.text()).split('\n'))
    if (line.startsWith('pipeline_units_retried_total')) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
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

/**
 * The bare node:http floor of a sell watched by stream clients (bench/reference-stream-server.ts),
 * given the bytes the service answers to a sell and the bytes one sell sends a stream client.
 */
async function streamReferenceProcess(env: Record<string, string>) {
  const service = await startServiceProcess(env);
  let answer: string;
  let events: Buffer;
  try {
    const received: Buffer[] = [];
    const stream = await new Promise<import('node:http').ClientRequest>((resolve) => {
      const req = httpRequest(`${service.url}/events/stream`, (response) => {
        response.on('data', (chunk: Buffer) => received.push(chunk));
        resolve(req);
      });
      req.on('error', () => undefined);
      req.end();
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    received.length = 0;
    answer = JSON.stringify(await post(`${service.url}${PREFIX}/sell`, dealBody(1)));
    await new Promise((resolve) => setTimeout(resolve, 500));
    events = Buffer.concat(received);
    stream.destroy();
  } finally {
    await service.stop();
  }
  return startServiceProcess(
    { REFERENCE_BODY: answer, REFERENCE_EVENTS: events.toString('base64') },
    [],
    'bench/reference-stream-server.ts',
  );
}

/**
 * Measures one scenario whose data is to serve `expected` requests. Answers its figure (the
 * ratios are set once every scenario has run) and its mean requests/s as autocannon gave it.
 */
export async function measure(
  scenario: Scenario,
  options: Options,
  env: Record<string, string>,
  expected: number,
): Promise<{ figure: Figure; rps: number }> {
  // A fresh service per scenario, so one scenario's data does not slow the next.
  const service = scenario.reference
    ? await referenceProcess(env, scenario.reference)
    : scenario.referenceStream
      ? await streamReferenceProcess({ ...env, ...scenario.env })
      : await startServiceProcess({ ...env, ...scenario.env });
  try {
    await reset(scenario, service.url);
    const request = await warmedUp(scenario, service.url, options, expected);
    const side = await scenario.alongside?.(service.url);
    const retriedBefore = options.store === 'postgres' ? await unitsRetried(service.url) : undefined;
    const cpuBefore = cpuMsOf(service.child.pid);
    const postgresBefore = options.store === 'postgres' ? postgresCpuMs() : undefined;
    let cpuAfter: number | undefined;
    let postgresAfter: number | undefined;
    const loadBefore = process.cpuUsage();
    let loadCpu: NodeJS.CpuUsage | undefined;
    let result: autocannon.Result;
    try {
      result = await autocannon({
        url: service.url,
        connections: scenario.connections ?? options.connections,
        duration: options.duration,
        ...request,
      });
      loadCpu = process.cpuUsage(loadBefore);
      cpuAfter = cpuMsOf(service.child.pid);
      postgresAfter = postgresBefore === undefined ? undefined : postgresCpuMs();
    } finally {
      // Read for a moment more, so that the last events sold reach every client.
      if (side) await new Promise((resolve) => setTimeout(resolve, 500));
      const report = await side?.stop();
      if (report) console.log(`${scenario.name}: ${report}`);
    }
    // A row with a number of requests (one per prepared record) runs until they are all sent,
    // whatever the duration (autocannon's `amount`): say so when that was shorter.
    if (request.amount !== undefined && result.duration < options.duration)
      console.warn(`${scenario.name}: its ${request.amount} prepared records lasted ${result.duration} s only`);
    const retriedAfter = retriedBefore === undefined ? undefined : await unitsRetried(service.url);
    const rps = result.requests.average;
    const figure: Figure = {
      scenario: scenario.name,
      requestsPerSecond: Math.round(rps),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      p97_5Ms: result.latency.p97_5,
      requests: result.requests.total,
      errors: result.errors + result.timeouts + unexpected(result, scenario.expectedStatus),
      ratioToHealth: 0,
      ...(cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0
        ? { serviceCpuUsPerRequest: Math.round(((cpuAfter - cpuBefore) * 1000) / result.requests.total) }
        : {}),
      ...(postgresBefore !== undefined && postgresAfter !== undefined && result.requests.total > 0
        ? { postgresCpuUsPerRequest: Math.round(((postgresAfter - postgresBefore) * 1000) / result.requests.total) }
        : {}),
      ...(loadCpu && result.requests.total > 0
        ? { loadCpuUsPerRequest: Math.round((loadCpu.user + loadCpu.system) / result.requests.total) }
        : {}),
      ...(retriedBefore !== undefined && retriedAfter !== undefined && result.requests.total > 0
        ? { retriesPerThousand: Math.round(((retriedAfter - retriedBefore) * 1000) / result.requests.total) }
        : {}),
    };
    return { figure, rps };
  } finally {
    await service.stop();
  }
}

/**
 * The scenario's requests for the measured run, after `options.warmup` seconds of the same load
 * on the same service. A run on a fresh process measured the JIT compiling the request path too:
 * the first seconds of a create on PostgreSQL cost the service 1,241 µs a request, warm ones 408
 * (docs/performance.md), and pgbench, the reference, measures a server that needs no warming.
 * The warm-up's requests are made by `prepare` for the share of `expected` its seconds take, and
 * the measured run's by `prepare` again after a reset (unless the scenario reuses them, a read).
 */
async function warmedUp(
  scenario: Scenario,
  url: string,
  options: Options,
  expected: number,
): Promise<Partial<autocannon.Options>> {
  if (options.warmup <= 0) return scenario.prepare(url, expected);
  const reuse = scenario.warmup === 'reuse';
  // At most the measured run's data: a durable row's warm-up is longer than its run, and a row
  // that prepares one record per request (a claim's gig) runs until they are used, so twice as
  // many would make its warm-up twice as long as its run.
  const share = Math.max(
    expected > 0 ? 500 : 0,
    Math.min(expected, Math.ceil((expected * options.warmup) / options.duration)),
  );
  const warm = await scenario.prepare(url, reuse ? expected : share);
  await autocannon({
    url,
    connections: scenario.connections ?? options.connections,
    duration: options.warmup,
    ...warm,
  });
  if (reuse) return warm;
  // The measured run starts from a reset store, as it did before the warm-up, in a warm process:
  // what the warm-up wrote would otherwise weigh on it (a stream client that connects after it is
  // sent every event of its sells, and the demo's stream row then measured nothing).
  await reset(scenario, url);
  return scenario.prepare(url, expected);
}

/** The service's store reset (a reference server has none; keys mode resets by the operator's key). */
async function reset(scenario: Scenario, url: string): Promise<void> {
  if (scenario.reference || scenario.referenceStream) return;
  await post(`${url}/demo/reset`, undefined, scenario.env?.AUTH === 'keys' ? OPERATOR_HEADERS : {});
}

/** Answers of another status than the scenario's (a 2xx unless it names one: a refusal's 422). */
function unexpected(result: autocannon.Result, status: number | undefined): number {
  if (status === undefined) return result.non2xx;
  const stats = (result as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  return Object.entries(stats).reduce((n, [code, { count }]) => (Number(code) === status ? n : n + count), 0);
}
