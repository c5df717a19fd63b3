// SqlDatabase on a PostgreSQL server through node-postgres: a pool of connections, one
// checked out per session (so units of work run in parallel, serialized by row locks).
// Connections are pipelined: statements a session sends before the answers to earlier ones
// arrive go out at once, so they cost one network round trip between them.
import type { Writable } from 'node:stream';
import pg from 'pg';
import { StoreUnavailableError } from '../store.ts';
import { type ConnectionState, type SqlDatabase, type SqlSession, sqlState } from './sql-database.ts';

export interface PgOptions {
  /** Connections this instance may hold; several instances share the server's max_connections. */
  poolSize?: number;
  /**
   * A pool (createPool) to take connections from instead of a pool of its own: closing the
   * database leaves it open. Tests open many stores on one bounded pool.
   */
  pool?: pg.Pool;
  /**
   * D-57: refuse to open the store when the role connected as is a superuser or has BYPASSRLS
   * (row-level security would not apply to it; role-check.ts). Keys mode asks for it.
   */
  requireRowSecurity?: boolean;
}

/**
 * Statements are prepared, by name, once per connection: the server parses (and mostly plans)
 * each text once instead of on every request. Measured on PostgreSQL with 10 clients: creates
 * 794 → 1,171/s, reads of a deal 2,355 → 3,020/s (docs/performance.md). The texts are the
 * store's own (values travel as parameters), so they are few; those that vary with the number
 * of rows written, or are long, past the cap go unnamed, parsed and planned each time.
 * The length cap keeps a bulk write's one-off text out of every connection's cache, and sits
 * well above any one request's write: when keys mode's columns took a keyed sell's write from
 * under 2,000 characters to 2,099, planning it cost the server 1.8 ms a sell and halved the
 * keyed sell on PostgreSQL (docs/performance.md). A test holds the service's statements to it.
 */
const MAX_NAMED = 400;
const MAX_NAMED_LENGTH = 16_000;
const names = new Map<string, string>();
function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED && text.length <= MAX_NAMED_LENGTH) {
    name = `pipeline_${names.size}`;
    names.set(text, name);
  }
  return name;
}

/** What each pooled connection holds from one session to the next (a connection lives in one pool). */
const connections = new WeakMap<pg.PoolClient, ConnectionState>();

const APPLICATION_NAME = 'sales-pipeline-service';
/** How long a lost listening connection waits before connecting again. */
const LISTEN_RETRY_MS = 1000;

/** A pool of at most `max` connections, as the store uses them. */
export function createPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    // An unreachable server fails a request (and startup) instead of hanging it forever.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: APPLICATION_NAME,
    // Each statement still has its own Sync: an error fails that statement only (and, inside
    // a transaction, aborts it, so the ones behind it fail too), exactly as if sent one by one.
    pipeline: true,
  });
  // An idle connection the server drops (a restart, a failover) is removed from the pool and
  // reported here; the next unit of work gets a fresh connection, so there is nothing to do.
  pool.on('error', () => undefined);
  // No JIT compilation: the service's statements are short, and an insight's (D-73) plan is
  // costed high enough to be compiled at every read (about 300 ms of 376 for the money at
  // 100,000 deals, measured with EXPLAIN ANALYZE), where it runs in 40 to 60 ms without. Set as
  // each connection opens, its first statement (a DATABASE_URL's own `options` stay its own).
  pool.on('connect', (client) => {
    client.query('SET jit = off').catch(() => undefined);
  });
  return pool;
}

export class PgDatabase implements SqlDatabase {
  private readonly pool: pg.Pool;
  /** Whether the pool is this database's own, ended when it closes (not one it was given). */
  private readonly ownPool: boolean;
  private readonly listeners = new Set<() => void>();
  readonly parallel = true;

  constructor(
    private readonly connectionString: string,
    options: PgOptions = {},
  ) {
    this.ownPool = options.pool === undefined;
    this.pool = options.pool ?? createPool(connectionString, options.poolSize);
  }

  async session<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
    // A query that fails without a SQLSTATE lost its connection: that client must not be reused.
    let broken: Error | undefined;
    // A connection that dies while checked out (the server restarts, an administrator ends it)
    // is reported here: without a listener it would be an uncaught error that ends the process.
    // The query in flight fails too, so the unit of work rolls back (nothing was committed).
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    const track = <R>(promise: Promise<R>) =>
      promise.catch((error: unknown) => {
        const state = sqlState(error);
        if (state === undefined) broken = error instanceof Error ? error : new Error(String(error));
        // D-46: a connection lost mid-request (no SQLSTATE), or the server going away or not
        // accepting connections (class 08, 57P01 to 57P03), is the store being unavailable.
        if (state === undefined || state.startsWith('08') || /^57P0[1-3]$/.test(state)) {
          throw new StoreUnavailableError(error);
        }
        throw error;
      });
    // Statements sent in one turn of the event loop (BEGIN and the first read, the last write and
    // COMMIT) leave in one write to the socket: `pg` writes each statement by itself, and on this
    // machine a write to the server costs the service about 25 µs of CPU and the server a wake-up.
    const socket = (client as unknown as { connection?: { stream?: Partial<Writable> } }).connection?.stream;
    let corked = false;
    const uncork = () => {
      corked = false;
      socket?.uncork?.();
    };
    const batch = () => {
      if (corked || socket?.cork === undefined) return;
      corked = true;
      socket.cork();
      // After every promise job of this turn (the statements they send join the batch).
      process.nextTick(uncork);
    };
    const connection = connections.get(client) ?? {};
    connections.set(client, connection);
    const session: SqlSession = {
      connection,
      query: async <R>(text: string, params?: readonly unknown[]) => {
        batch();
        return (await track(client.query({ text, values: params as unknown[] | undefined, name: statementName(text) })))
          .rows as R[];
      },
      exec: async (text: string) => {
        batch();
        await track(client.query(text));
      },
    };
    try {
      return await work(session);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  listen(channel: string, onMessage: (payload: string) => void, connected: (again: boolean) => void): () => void {
    let stopped = false;
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    let attempts = 0;
    const lost = (which: pg.Client) => {
      if (client !== which) return;
      client = undefined;
      which.end().catch(() => undefined);
      if (stopped || retry) return;
      retry = setTimeout(() => {
        retry = undefined;
        void connect();
      }, LISTEN_RETRY_MS);
      retry.unref();
    };
    const connect = async () => {
      const again = attempts++ > 0;
      const next = new pg.Client({
        connectionString: this.connectionString,
        application_name: `${APPLICATION_NAME} (listening)`,
        connectionTimeoutMillis: 10_000,
      });
      client = next;
      next.on('notification', (message) => {
        if (message.channel === channel && message.payload !== undefined) onMessage(message.payload);
      });
      next.on('error', () => lost(next));
      next.on('end', () => lost(next));
      try {
        await next.connect();
        await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        if (stopped) return void next.end().catch(() => undefined);
        // The connection is idle: it must not keep the process alive.
        (next as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
        connected(again);
      } catch {
        lost(next);
      }
    };
    void connect();
    const stop = () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      client?.end().catch(() => undefined);
      client = undefined;
      this.listeners.delete(stop);
    };
    this.listeners.add(stop);
    return stop;
  }

  async close() {
    for (const stop of [...this.listeners]) stop();
    if (this.ownPool) await this.pool.end();
  }
}
