// SqlDatabase on a PostgreSQL server through node-postgres: a pool of connections, one
// checked out per session (so units of work run in parallel, serialized by row locks).
// Connections are pipelined: statements a session sends before the answers to earlier ones
// arrive go out at once, so they cost one network round trip between them.
import pg from 'pg';
import { type SqlDatabase, type SqlSession, sqlState } from './sql-database.ts';

export interface PgOptions {
  /** Connections this instance may hold; several instances share the server's max_connections. */
  poolSize?: number;
}

export class PgDatabase implements SqlDatabase {
  private readonly pool: pg.Pool;

  constructor(connectionString: string, options: PgOptions = {}) {
    this.pool = new pg.Pool({
      connectionString,
      max: options.poolSize ?? 10,
      // An unreachable server fails a request (and startup) instead of hanging it forever.
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      application_name: 'sales-pipeline-service',
      // Each statement still has its own Sync: an error fails that statement only (and, inside
      // a transaction, aborts it, so the ones behind it fail too), exactly as if sent one by one.
      pipeline: true,
    });
    // An idle connection the server drops (a restart, a failover) is removed from the pool and
    // reported here; the next unit of work gets a fresh connection, so there is nothing to do.
    this.pool.on('error', () => undefined);
  }

  async session<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
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
        if (sqlState(error) === undefined) broken = error instanceof Error ? error : new Error(String(error));
        throw error;
      });
    const session: SqlSession = {
      query: async <R>(text: string, params?: readonly unknown[]) =>
        (await track(client.query(text, params as unknown[] | undefined))).rows as R[],
      exec: async (text: string) => {
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

  async close() {
    await this.pool.end();
  }
}
