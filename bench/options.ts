// The bench's command line (bench/run.ts lists the options) and the store it names: the
// service's environment for that store, and where the PostgreSQL server is.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Options {
  store: 'memory' | 'postgres' | 'pglite';
  duration: number;
  connections: number;
  smoke: boolean;
  out?: string;
  only?: string;
  /** PostgreSQL's group commit in the service (GROUP_COMMIT); absent: the service's default. */
  groupCommit?: 'on' | 'off';
  /**
   * Seconds of the same load before each measured run, not measured (0: none). Default 3 in
   * memory and 10 on a durable store: there the service reaches its steady cost only after
   * 6,000 to 9,000 requests (V8 still compiling its request path and its batches' code), which
   * at a durable row's 1,000 to 1,500 a second is 6 to 9 s; a 3 s warm-up measured a keys-mode
   * sell at 844 to 1,059 µs of the service's CPU, a 10 s one at 547 to 556 (docs/performance.md).
   */
  warmup: number;
  /**
   * Rounds of the scenarios (every row but /health): each row's figure is its median round's, and
   * on PostgreSQL each row is followed by pgbench, its ratio to the TPC-B runs before and after it.
   */
  repeat: number;
}

export function parseOptions(argv: string[]): Options {
  // The warm-up's default depends on the store, which may come after it: set once both are read.
  const options: Options = { store: 'memory', duration: 10, connections: 10, smoke: false, warmup: 3, repeat: 1 };
  let warmup: number | undefined;
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
    else if (arg === '--group-commit') options.groupCommit = value() as Options['groupCommit'];
    else if (arg === '--warmup') warmup = Number(value());
    else if (arg === '--repeat') options.repeat = Number(value());
    else throw new Error(`unknown option ${arg}`);
  }
  if (!['memory', 'postgres', 'pglite'].includes(options.store))
    throw new Error('--store is memory, postgres or pglite');
  if (options.groupCommit !== undefined && !['on', 'off'].includes(options.groupCommit))
    throw new Error('--group-commit is on or off');
  options.warmup = warmup ?? (options.store === 'memory' ? 3 : 10);
  if (!(options.warmup >= 0)) throw new Error('--warmup is a number of seconds');
  if (!Number.isInteger(options.repeat) || options.repeat < 1) throw new Error('--repeat is a whole number of rounds');
  // The smoke run (CI) checks that every scenario runs, not its speed.
  if (options.smoke) {
    options.duration = 1;
    options.warmup = 0;
    options.repeat = 1;
  }
  return options;
}

export function postgresUrl(): string {
  const url = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('--store postgres needs DATABASE_URL (or TEST_DATABASE_URL)');
  return url;
}

/**
 * D-77: the owner role's URL that goes with postgresUrl(), if any: DATABASE_OWNER_URL with
 * DATABASE_URL, TEST_DATABASE_OWNER_URL with TEST_DATABASE_URL (CI's two roles). The service
 * migrates as it and serves as postgresUrl()'s role.
 */
export function postgresOwnerUrl(): string | undefined {
  const { DATABASE_URL, DATABASE_OWNER_URL, TEST_DATABASE_OWNER_URL } = process.env;
  return (DATABASE_URL ? DATABASE_OWNER_URL : TEST_DATABASE_OWNER_URL) || undefined;
}

export function storeEnv(options: Options): Record<string, string> {
  // --group-commit goes to every service the run starts; without it the service's default holds.
  return { ...storeOnlyEnv(options), ...(options.groupCommit ? { GROUP_COMMIT: options.groupCommit } : {}) };
}

function storeOnlyEnv(options: Options): Record<string, string> {
  // The demo's semantics on every store (keys mode, the durable default, is its own scenario).
  // DATABASE_OWNER_URL goes with a PostgreSQL DATABASE_URL only (D-77): emptied for the others,
  // which a run on PostgreSQL starts too (its rows again in memory).
  if (options.store === 'memory') return { DATABASE_URL: '', DATABASE_OWNER_URL: '', AUTH: 'demo' };
  if (options.store === 'pglite')
    return {
      DATABASE_URL: `pglite:${mkdtempSync(join(tmpdir(), 'bench-pglite-'))}`,
      DATABASE_OWNER_URL: '',
      AUTH: 'demo',
    };
  // As many connections as clients, as pgbench has.
  const owner = postgresOwnerUrl();
  return {
    DATABASE_URL: postgresUrl(),
    ...(owner === undefined ? {} : { DATABASE_OWNER_URL: owner }),
    DATABASE_POOL_SIZE: String(Math.max(1, options.connections)),
    AUTH: 'demo',
  };
}
