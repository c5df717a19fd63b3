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

type DecisionLabels = { command: string; outcome: 'accepted' | 'refused'; code: string; dry_run: 'true' | 'false' };
type Tally = { readonly labels: DecisionLabels; count: number };

/**
 * The gate's decisions, counted here and added to the counter when /metrics is read: prom-client
 * makes a string of an inc's labels on every call, and a sell decides six times. Each label set
 * is found by lookups of the strings it is made of (no string built per decision), and is added
 * to the counter in the order it was first seen, so the exposition lists them as before.
 */
class DecisionTallies {
  /** By dry run (0 or 1), command and refusal code (undefined: accepted). */
  private readonly index = [new Map<string, Map<string | undefined, Tally>>(), new Map()];
  private readonly order: Tally[] = [];

  add(command: string, refusalCode: string | undefined, dryRun: boolean): void {
    const byCommand = this.index[dryRun ? 1 : 0] as Map<string, Map<string | undefined, Tally>>;
    let byCode = byCommand.get(command);
    if (byCode === undefined) {
      byCode = new Map();
      byCommand.set(command, byCode);
    }
    let tally = byCode.get(refusalCode);
    if (tally === undefined) {
      const labels: DecisionLabels = {
        command,
        outcome: refusalCode === undefined ? 'accepted' : 'refused',
        code: refusalCode ?? '',
        dry_run: dryRun ? 'true' : 'false',
      };
      tally = { labels, count: 0 };
      byCode.set(refusalCode, tally);
      this.order.push(tally);
    }
    tally.count++;
  }

  /** Hands over what was counted since the last call. */
  flush(add: (labels: DecisionLabels, count: number) => void): void {
    for (const tally of this.order) {
      if (tally.count === 0) continue;
      add(tally.labels, tally.count);
      tally.count = 0;
    }
  }
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
  const tallies = new DecisionTallies();
  new Counter({
    name: 'pipeline_gate_decisions_total',
    help: 'Commands the gate decided, by command, outcome (accepted or refused), refusal code, and whether a dry run',
    labelNames: ['command', 'outcome', 'code', 'dry_run'] as const,
    registers,
    collect() {
      tallies.flush((labels, count) => this.inc(labels, count));
    },
  });
  const retried = new Counter({
    name: 'pipeline_units_retried_total',
    help: 'Units of work run again after a deadlock or serialization failure, by SQLSTATE',
    labelNames: ['sqlstate'] as const,
    registers,
  });
  const batches = new Histogram({
    name: 'pipeline_group_commit_units',
    help: 'Transactions of group commit (D-281) on PostgreSQL, by how many units of work each committed',
    buckets: [1, 2, 4, 8, 16, 32, 64],
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
        tallies.add(command, refusalCode, dryRun);
      },
      unitRetried(sqlState) {
        retried.inc({ sqlstate: sqlState });
      },
      committedTogether(units) {
        batches.observe(units);
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
