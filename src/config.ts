// Every setting comes from the environment; each is documented in README.md.
export interface Config {
  port: number;
  host: string;
  dealPrefix: string;
  claimTtlHours: number;
  timerIntervalSeconds: number;
  logLevel: string;
  /** Unset: the in-memory demo store; postgres://… or pglite:… a durable one (src/store/create-store.ts). */
  databaseUrl?: string;
  /** PostgreSQL connections one instance may hold. */
  databasePoolSize: number;
}

const RESERVED_PREFIXES = ['/closers', '/demo', '/deals', '/gigs', '/health', '/docs', '/mcp', '/.well-known'];

function number(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new Error(`${name} must be a number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
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
    logLevel: env.LOG_LEVEL || 'info',
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolSize: number(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
  };
}
