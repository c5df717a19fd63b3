// GET /metrics: what this instance did, in Prometheus's text format, kept by prom-client. Per
// app: requests by route (a histogram of latency, whose _count is the request count), the gate's
// decisions, units of work run again, timer runs and webhook attempts (src/telemetry.ts is the
// port the lower layers report through). Per process, once: Node's own (heap, event-loop delay,
// garbage collection, open files), so that servers started in one process do not each start
// their own probes. Counters start at zero with the process, as Prometheus expects.
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { Telemetry } from '../telemetry.ts';

/** Seconds: from a fast read to a slow webhook receiver. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export interface Metrics {
  telemetry: Telemetry;
  /** An answer was sent: its method, route pattern (undefined: none matched), status, and time. */
  answered(method: string, route: string | undefined, status: number, seconds: number): void;
  /** GET /metrics's body. */
  text(): Promise<string>;
  contentType: string;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Requests answered, by method, route pattern and status: time from arrival to the answer sent',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const decisions = new Counter({
    name: 'pipeline_gate_decisions_total',
    help: 'Commands the gate decided, by command, outcome (accepted or refused), refusal code, and whether a dry run',
    labelNames: ['command', 'outcome', 'code', 'dry_run'] as const,
    registers,
  });
  const retried = new Counter({
    name: 'pipeline_units_retried_total',
    help: 'Units of work run again after a deadlock or serialization failure, by SQLSTATE',
    labelNames: ['sqlstate'] as const,
    registers,
  });
  const timerRuns = new Histogram({
    name: 'pipeline_timer_run_duration_seconds',
    help: 'Runs of the platform timers (claim expiry, unclaimed gigs, stalls, retention), by outcome',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const timersFired = new Counter({
    name: 'pipeline_timers_fired_total',
    help: 'Timers fired by the platform timers (each in a unit of work of its own)',
    registers,
  });
  const webhookAttempts = new Histogram({
    name: 'pipeline_webhook_attempt_duration_seconds',
    help: 'Webhook delivery attempts, by outcome (delivered: a 2xx answer; failed: anything else, retried later)',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  return {
    telemetry: {
      decided(command, refusalCode, dryRun) {
        decisions.inc({
          command,
          outcome: refusalCode === undefined ? 'accepted' : 'refused',
          code: refusalCode ?? '',
          dry_run: dryRun ? 'true' : 'false',
        });
      },
      unitRetried(sqlState) {
        retried.inc({ sqlstate: sqlState });
      },
      timersRan(seconds, fired) {
        timerRuns.observe({ outcome: fired === 'failed' ? 'failed' : 'ok' }, seconds);
        if (fired !== 'failed') timersFired.inc(fired);
      },
      webhookAttempted(delivered, seconds) {
        webhookAttempts.observe({ outcome: delivered ? 'delivered' : 'failed' }, seconds);
      },
    },
    answered(method, route, status, seconds) {
      // A path that names no route is one label, not one per path a client tried.
      requests.observe({ method, route: route ?? 'unmatched', status_code: status }, seconds);
    },
    async text() {
      return `${await processMetrics().metrics()}\n${await registry.metrics()}`;
    },
    contentType: registry.contentType,
  };
}
