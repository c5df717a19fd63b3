// A unit of work's session whose connection is taken from the pool at its first statement, not
// when the unit starts: a unit that decides on cached records (D-250) and commits in a group
// (group-commit.ts) never needs one of its own, and one that does holds it only from its first
// statement to its end, not while the gate decides.
import type { ConnectionState, SqlDatabase, SqlSession } from './sql-database.ts';

export class LazySession implements SqlSession {
  private held: SqlSession | undefined;
  private acquiring: Promise<SqlSession> | undefined;
  /** Ends the pool's session once the unit is done with it. */
  private finish: (() => void) | undefined;
  private finished: Promise<unknown> | undefined;
  /** Calls waiting for the connection, sent in call order once it is held. */
  private queued = 0;

  constructor(private readonly db: SqlDatabase) {}

  /** Whether a connection was taken (a unit that never sent a statement took none). */
  get taken(): boolean {
    return this.acquiring !== undefined;
  }

  get connection(): ConnectionState {
    if (!this.held) throw new Error('the session has no connection yet: use it through `use`');
    return this.held.connection;
  }

  /**
   * Runs `send` on the connection now if one is held, or as soon as one is, in the order called:
   * statements sent by the calls made in one turn still leave together (the adapter pipelines them).
   */
  use<T>(send: (session: SqlSession) => Promise<T>): Promise<T> {
    // Once held, a call sends at once, unless calls made before still wait for their turn.
    if (this.held && this.queued === 0) return send(this.held);
    this.acquiring ??= new Promise<SqlSession>((resolve, reject) => {
      this.finished = this.db
        .session((session) => {
          this.held = session;
          resolve(session);
          return new Promise<void>((done) => {
            this.finish = done;
          });
        })
        .catch(reject);
    });
    this.queued++;
    return this.acquiring.then((session) => {
      this.queued--;
      return send(session);
    });
  }

  query<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
    return this.use((session) => session.query<R>(text, params));
  }

  exec(text: string): Promise<void> {
    return this.use((session) => session.exec(text));
  }

  /** Gives the connection back to the pool (after the unit committed or rolled back). */
  async release(): Promise<void> {
    if (!this.acquiring) return;
    await this.acquiring.catch(() => undefined);
    this.finish?.();
    await this.finished;
  }
}
