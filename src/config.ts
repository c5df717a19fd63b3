// Every setting comes from the environment; each is documented in docs/configuration.md (the
// limits of D-44 also in docs/limits.md).

import { boolean, integer, list, number, onOff } from './config-values.ts';
import { isValidOperatorKey } from './domain/keys.ts';
import { DEFAULT_PAYOUT_HOLD_DAYS } from './domain/ledger/holds.ts';
import { DEFAULT_EVENT_RETENTION_HOURS } from './domain/public-events.ts';
import { DEFAULT_STREAMS_PER_CLIENT } from './http/stream-limits.ts';
import { defaultMaxConnections, openFileLimit } from './open-files.ts';
import { DEFAULT_KEYS_PER_PRINCIPAL } from './service/accounts.ts';

export interface Config {
  /**
   * D-50: `demo`, anonymous and open (the default on the in-memory store); `keys`, every request
   * to the demo surface holds a key (the default as soon as DATABASE_URL is set).
   */
  auth: 'demo' | 'keys';
  /** D-52: keys mode's first operator key (OPERATOR_KEY); required in keys mode. */
  operatorKey?: string;
  /**
   * D-3: keys mode serves `POST /demo/reset` and `POST /demo/clock` only when DEMO_CONTROLS=on
   * (default off); the demo always serves them, whatever this says.
   */
  demoControls: boolean;
  port: number;
  host: string;
  dealPrefix: string;
  claimTtlHours: number;
  /** D-80: how long (platform days) a closer's earning is held before a payout run may pay it. */
  payoutHoldDays: number;
  timerIntervalSeconds: number;
  /** How long SIGTERM/SIGINT lets requests and units of work in flight finish before exiting. */
  shutdownTimeoutMs: number;
  logLevel: string;
  /** GET /metrics, and the per-request bookkeeping behind it (on unless METRICS=false). */
  metrics: boolean;
  /** Unset: the in-memory demo store; postgres://… or pglite:… a durable one (src/store/create-store.ts). */
  databaseUrl?: string;
  /**
   * D-77: the PostgreSQL role that owns the tables and migrates them (DATABASE_OWNER_URL);
   * DATABASE_URL's role then only serves. Unset: DATABASE_URL's role does both.
   */
  databaseOwnerUrl?: string;
  /** PostgreSQL connections one instance may hold. */
  databasePoolSize: number;
  /** D-281: on PostgreSQL, units ready while a transaction is in flight commit together in the next. */
  groupCommit: boolean;
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
  /** D-238: open event streams per client (the key's principal; the address in the demo). */
  streamsPerClient: number;
  /** D-75: keys, neither revoked nor expired, one principal may hold. */
  keysPerPrincipal: number;
  /**
   * D-49: the `Host` names answered (lower case; `name` any port, `name:port` that port only);
   * undefined: the default for the address listened on (src/http/origin-guard.ts).
   */
  allowedHosts?: string[];
  /** D-49: origins besides the service's own whose pages may write to the demo (normalized). */
  allowedOrigins: string[];
  /**
   * D-64: keys mode's outgoing mail goes through this SMTP server (SMTP_URL, `smtp://` or
   * `smtps://`, with its credentials); unset, every message is written to the log instead.
   */
  smtpUrl?: string;
  /** D-64: the sender of every message (MAIL_FROM). */
  mailFrom: string;
  /** D-64: the first delay of a failed message's retries (30 s); each later one doubles (tests shorten it). */
  mailRetryBaseMs: number;
  /** D-64: the origin the links in mail point to (PUBLIC_URL, normalized); unset: the request's own. */
  publicUrl?: string;
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
  '/keys',
  '/sellers',
];

/** D-50: AUTH, defaulting by the store: a durable store is never open to anyone unless asked. */
function auth(env: NodeJS.ProcessEnv): { auth: Config['auth']; operatorKey?: string } {
  const raw = env.AUTH;
  if (raw !== undefined && raw !== '' && raw !== 'demo' && raw !== 'keys') {
    throw new Error(`AUTH must be demo or keys, got ${JSON.stringify(raw)}`);
  }
  const mode = raw === 'demo' || raw === 'keys' ? raw : env.DATABASE_URL ? 'keys' : 'demo';
  const operatorKey = env.OPERATOR_KEY || undefined;
  if (mode === 'keys') {
    if (operatorKey === undefined) {
      throw new Error(
        `keys mode (AUTH=keys${raw ? '' : ', the default with DATABASE_URL'}) needs OPERATOR_KEY, the operator's first key: 32 to 256 visible ASCII characters, e.g. from \`openssl rand -base64 48\` (or set AUTH=demo for an anonymous demo anyone can reset)`,
      );
    }
    if (!isValidOperatorKey(operatorKey)) {
      throw new Error(
        `OPERATOR_KEY must be 32 to 256 visible ASCII characters with no spaces (got ${operatorKey.length} characters)`,
      );
    }
  }
  return mode === 'keys' ? { auth: mode, operatorKey } : { auth: mode };
}

/**
 * D-3, D-253: DEMO_CONTROLS, `on` or `off` (default off). Only keys mode reads it: the demo's reset
 * and clock are the demo's own, so asking the demo to go without them refuses to start.
 */
function demoControls(env: NodeJS.ProcessEnv, mode: Config['auth']): boolean {
  const raw = env.DEMO_CONTROLS;
  if (raw === undefined || raw === '') return false;
  if (raw !== 'on' && raw !== 'off') throw new Error(`DEMO_CONTROLS must be on or off, got ${JSON.stringify(raw)}`);
  if (raw === 'off' && mode === 'demo') {
    throw new Error(
      'DEMO_CONTROLS=off is for keys mode: the demo (AUTH=demo) always serves /demo/reset and /demo/clock; set AUTH=keys and OPERATOR_KEY for a deployment without them',
    );
  }
  return raw === 'on';
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

/** A host name, an IPv4 address, or an IPv6 address in brackets. */
const HOST_NAME = String.raw`(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?)`;
const HOST_ENTRY = new RegExp(`^${HOST_NAME}(?::(\\d{1,5}))?$`, 'i');
const ORIGIN = new RegExp(`^([a-z][a-z0-9+.-]*)://(${HOST_NAME})(?::(\\d{1,5}))?$`, 'i');
const validPort = (port: string | undefined) => port === undefined || (Number(port) >= 1 && Number(port) <= 65535);

/** D-49, D-194: `name` (any port) or `name:port`, matched case-insensitively. */
function allowedHosts(env: NodeJS.ProcessEnv): string[] | undefined {
  const example = 'e.g. localhost,api.example.com,[::1]:3000';
  return list(env, 'ALLOWED_HOSTS', example)?.map((entry) => {
    const match = HOST_ENTRY.exec(entry);
    if (match === null || !validPort(match[1])) {
      throw new Error(
        `ALLOWED_HOSTS must list host names or addresses, each with an optional :port, IPv6 in brackets (${example}), got ${JSON.stringify(entry)}`,
      );
    }
    return entry.toLowerCase();
  });
}

/** D-49, D-194: `scheme://host[:port]`, as a browser sends it: lower case, no default port. */
function allowedOrigins(env: NodeJS.ProcessEnv): string[] {
  const example = 'e.g. https://app.example.com,http://localhost:5173';
  return (list(env, 'ALLOWED_ORIGINS', example) ?? []).map((entry) => {
    const match = ORIGIN.exec(entry);
    if (match === null || !validPort(match[3])) {
      const why =
        entry === 'null'
          ? ' (`null` is the origin of sandboxed and file pages, which is never allowed)'
          : entry === '*'
            ? ' (a wildcard would let every page write)'
            : /^[a-z][a-z0-9+.-]*:\/\/[^/]+\/./i.test(entry) || entry.endsWith('/')
              ? ' (an origin has no path, not even a trailing slash)'
              : '';
      throw new Error(
        `ALLOWED_ORIGINS must list origins, each scheme://host[:port] (${example}), got ${JSON.stringify(entry)}${why}`,
      );
    }
    const [, scheme, host, port] = match;
    const lower = scheme.toLowerCase();
    const implied = (lower === 'http' && port === '80') || (lower === 'https' && port === '443');
    return `${lower}://${host.toLowerCase()}${port === undefined || implied ? '' : `:${port}`}`;
  });
}

/**
 * D-64: SMTP_URL, `smtp://` or `smtps://` with a host. A refusal names the variable and never
 * repeats the value, which holds a password.
 */
function smtpUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.SMTP_URL;
  if (raw === undefined || raw.trim() === '') return undefined;
  const example = 'e.g. smtp://user:password@mail.example.com:587 or smtps://user:password@mail.example.com';
  let url: URL | undefined;
  try {
    url = new URL(raw.trim());
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw.trim())?.[1];
    throw new Error(
      `SMTP_URL must be smtp://… or smtps://… with a host (${example}), got ${scheme ? `a ${scheme}: url` : 'something else'}`,
    );
  }
  return raw.trim();
}

/** D-64: MAIL_FROM, an address with an optional name (`Name <address>`), on one line. */
function mailFrom(env: NodeJS.ProcessEnv): string {
  const raw = env.MAIL_FROM;
  if (raw === undefined || raw.trim() === '') return 'Sales pipeline <no-reply@localhost>';
  const value = raw.trim();
  const address = /^(?:[^<>\r\n]*<([^<>\s@]+@[^<>\s@]+)>|([^<>\s@]+@[^<>\s@]+))$/;
  if (!address.test(value)) {
    throw new Error(
      `MAIL_FROM must be an address, with an optional name (e.g. "Sales pipeline <no-reply@example.com>"), got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** D-64: PUBLIC_URL, the http(s) origin links in mail point to: lower case, no default port. */
function publicUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.PUBLIC_URL;
  if (raw === undefined || raw.trim() === '') return undefined;
  const entry = raw.trim();
  const match = ORIGIN.exec(entry);
  const scheme = match?.[1].toLowerCase();
  if (match === null || (scheme !== 'http' && scheme !== 'https') || !validPort(match[3])) {
    const why =
      /^[a-z][a-z0-9+.-]*:\/\/[^/]+\/./i.test(entry) || entry.endsWith('/')
        ? ' (no path, not even a trailing slash)'
        : '';
    throw new Error(
      `PUBLIC_URL must be an http or https origin, scheme://host[:port] (e.g. https://pipeline.example.com), got ${JSON.stringify(raw)}${why}`,
    );
  }
  const [, , host, port] = match;
  const implied = (scheme === 'http' && port === '80') || (scheme === 'https' && port === '443');
  return `${scheme}://${host.toLowerCase()}${port === undefined || implied ? '' : `:${port}`}`;
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
  const mode = auth(env);
  return {
    ...mode,
    demoControls: demoControls(env, mode.auth),
    port,
    host: env.HOST || '127.0.0.1',
    dealPrefix,
    claimTtlHours: number(env, 'CLAIM_TTL_HOURS', 72, 0.001, 24 * 365),
    payoutHoldDays: number(env, 'PAYOUT_HOLD_DAYS', DEFAULT_PAYOUT_HOLD_DAYS, 0, 365),
    timerIntervalSeconds: number(env, 'TIMER_INTERVAL_SECONDS', 5, 0, 86_400),
    shutdownTimeoutMs: Math.round(number(env, 'SHUTDOWN_TIMEOUT_SECONDS', 10, 0.1, 3600) * 1000),
    logLevel: env.LOG_LEVEL || 'info',
    metrics: boolean(env, 'METRICS', true),
    databaseUrl: env.DATABASE_URL || undefined,
    databaseOwnerUrl: env.DATABASE_OWNER_URL || undefined,
    databasePoolSize: number(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    groupCommit: onOff(env, 'GROUP_COMMIT', true),
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: maxConnections(env),
    // 0 turns it off, as unset does.
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 0, 0, 1_000_000) || undefined,
    eventRetentionHours: number(env, 'EVENT_RETENTION_HOURS', DEFAULT_EVENT_RETENTION_HOURS, 0.001, 24 * 3650),
    webhookAllowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE'),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 5000, 10, 3_600_000),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 50, 60_000),
    streamHeartbeatMs: STREAM_HEARTBEAT_MS,
    streamPollMs: integer(env, 'STREAM_POLL_MS', 500, 0, 60_000),
    streamBufferBytes: integer(env, 'STREAM_BUFFER_BYTES', 1024 * 1024, 16 * 1024, 1024 * 1024 * 1024),
    streamsPerClient: integer(env, 'STREAMS_PER_CLIENT', DEFAULT_STREAMS_PER_CLIENT, 1, 1_000_000),
    keysPerPrincipal: integer(env, 'KEYS_PER_PRINCIPAL', DEFAULT_KEYS_PER_PRINCIPAL, 1, 10_000),
    allowedHosts: allowedHosts(env),
    allowedOrigins: allowedOrigins(env),
    smtpUrl: smtpUrl(env),
    mailFrom: mailFrom(env),
    mailRetryBaseMs: integer(env, 'MAIL_RETRY_BASE_MS', 30_000, 10, 3_600_000),
    publicUrl: publicUrl(env),
  };
}
