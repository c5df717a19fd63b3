// Every setting comes from the environment; each is documented in README.md (the limits of
// D-44 also in docs/limits.md).
import { defaultMaxConnections, openFileLimit } from './open-files.ts';

export interface Config {
  port: number;
  host: string;
  dealPrefix: string;
  claimTtlHours: number;
  timerIntervalSeconds: number;
  /** How long SIGTERM/SIGINT lets requests and units of work in flight finish before exiting. */
  shutdownTimeoutMs: number;
  logLevel: string;
  /** GET /metrics, and the per-request bookkeeping behind it (on unless METRICS=false). */
  metrics: boolean;
  /** Unset: the in-memory demo store; postgres://… or pglite:… a durable one (src/store/create-store.ts). */
  databaseUrl?: string;
  /** PostgreSQL connections one instance may hold. */
  databasePoolSize: number;
  /** D-44: a request's headers must arrive within this (fixed; tests shorten it). */
  headersTimeoutMs: number;
  /** D-44: the whole request, headers and body, must arrive within this. */
  requestTimeoutMs: number;
  /** D-44: an idle keep-alive connection is closed after this (fixed; tests shorten it). */
  keepAliveTimeoutMs: number;
  /** D-44: open connections; past it the longest-idle one is closed to make room. */
  maxConnections: number;
  /** D-44: requests one address may make per minute; undefined: no limit (the default). */
  rateLimitPerMinute?: number;
  /** D-41: how long (real time) the feed keeps an event. */
  eventRetentionHours: number;
  /** D-42: deliver webhooks to loopback and private addresses (local development and tests only). */
  webhookAllowPrivate: boolean;
  /** D-42: the first delay of the retry schedule (5 s); the others are multiples of it (tests shorten it). */
  webhookRetryBaseMs: number;
  /** D-42: a delivery attempt without an answer in this long failed (10 s; tests shorten it). */
  webhookTimeoutMs: number;
  /** D-41: a heartbeat comment on every event stream this often (fixed at 15 s; tests shorten it). */
  streamHeartbeatMs: number;
  /** The event stream also polls the feed this often (other instances' writes); 0: only local commits. */
  streamPollMs: number;
  /** An event stream whose client leaves more than this unread is ended. */
  streamBufferBytes: number;
}

export const HEADERS_TIMEOUT_MS = 10_000;
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;
export const STREAM_HEARTBEAT_MS = 15_000;

const RESERVED_PREFIXES = [
  '/closers',
  '/demo',
  '/deals',
  '/gigs',
  '/health',
  '/docs',
  '/mcp',
  '/.well-known',
  '/events',
  '/webhooks',
  '/console',
  '/metrics',
];

function number(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new Error(`${name} must be a number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback = false): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const value = number(env, name, fallback, min, max);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, got ${JSON.stringify(env[name])}`);
  return value;
}

/** Below the open-file limit, or the cap would not stop a flood from taking every descriptor. */
function maxConnections(env: NodeJS.ProcessEnv): number {
  const limit = openFileLimit();
  const max = limit === undefined || limit === Number.POSITIVE_INFINITY ? 1_000_000 : limit - 1;
  try {
    return integer(env, 'MAX_CONNECTIONS', defaultMaxConnections(limit), 1, max);
  } catch (error) {
    if (limit === undefined || limit === Number.POSITIVE_INFINITY) throw error;
    throw new Error(`${(error as Error).message} (it must stay below this process's open-file limit, ${limit})`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dealPrefix = env.DEAL_PREFIX ?? '/pipeline';
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(dealPrefix)) {
    throw new Error(
      `DEAL_PREFIX must look like /pipeline (slash-separated, no trailing slash), got ${JSON.stringify(dealPrefix)}`,
    );
  }
  if (RESERVED_PREFIXES.some((p) => dealPrefix === p || dealPrefix.startsWith(`${p}/`))) {
    throw new Error(`DEAL_PREFIX ${dealPrefix} collides with a path the service already serves`);
  }
  const port = number(env, 'PORT', 3000, 0, 65535);
  if (!Number.isInteger(port)) throw new Error('PORT must be an integer');
  return {
    port,
    host: env.HOST || '127.0.0.1',
    dealPrefix,
    claimTtlHours: number(env, 'CLAIM_TTL_HOURS', 72, 0.001, 24 * 365),
    timerIntervalSeconds: number(env, 'TIMER_INTERVAL_SECONDS', 5, 0, 86_400),
    shutdownTimeoutMs: Math.round(number(env, 'SHUTDOWN_TIMEOUT_SECONDS', 10, 0.1, 3600) * 1000),
    logLevel: env.LOG_LEVEL || 'info',
    metrics: boolean(env, 'METRICS', true),
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolSize: number(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: maxConnections(env),
    // 0 turns it off, as unset does.
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 0, 0, 1_000_000) || undefined,
    eventRetentionHours: number(env, 'EVENT_RETENTION_HOURS', 72, 0.001, 24 * 3650),
    webhookAllowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE'),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 5000, 10, 3_600_000),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 50, 60_000),
    streamHeartbeatMs: STREAM_HEARTBEAT_MS,
    streamPollMs: integer(env, 'STREAM_POLL_MS', 500, 0, 60_000),
    streamBufferBytes: integer(env, 'STREAM_BUFFER_BYTES', 1024 * 1024, 16 * 1024, 1024 * 1024 * 1024),
  };
}
