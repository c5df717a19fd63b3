// The fan-out of GET /events/stream (D-41): ONE pump per app reads the feed's new events and
// writes each to every live client whose filter matches, so that the cost of a committed change
// is one read of the store and one serialization, whatever the number of clients (the writing of
// a page: stream-fan-out.ts).
//
// Each client has a cursor: the seq after which it still has to receive events (every matching
// event up to it was written to it, or never will exist). A client starts behind the pump and
// catches up by reading pages of the feed itself; it joins the live set once its cursor has
// reached the pump's (see catchUp). From then on the pump writes it every matching event above
// its cursor. The pump's own cursor, `seq`, only moves after the events up to it were written to
// every live client, and a client joins only in the same synchronous step that checks
// `cursor >= seq`: nothing can happen between the check and the join, so the events above the
// client's cursor are exactly the events the pump will read next (no gap), and the pump writes
// only events above a client's cursor (no duplicate).
//
// Memory: a live client whose socket holds more than `maxBufferedBytes` unwritten is ended (a
// slow reader is never allowed to grow the server's memory); a catching-up client's next page,
// and its joining the live set, wait for its socket to hold at most the bound (`paced`).
//
// Credentials (D-76, D-254, keys mode): every write first asks whether the client's key or console
// session still stands (from memory: the key ring); one that does not is ended and sent nothing
// more. An idle stream is checked every CREDENTIAL_CHECK_MS too (an expiry comes with no write).

import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../domain/access.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import type { StoredEvent } from '../store/store.ts';
import {
  type CredentialCheck,
  frameOf,
  HEARTBEAT,
  paced,
  type StreamClient,
  type StreamFilter,
  type StreamSink,
  stands,
} from './stream-client.ts';
import { fanOut } from './stream-fan-out.ts';

export interface StreamOptions {
  /** A comment line (`: heartbeat`) is written to every stream this often. */
  heartbeatMs: number;
  /** The pump also polls the feed this often (other instances' writes); 0: only after local commits. */
  pollMs: number;
  /** A stream with more than this unwritten on its socket is ended. */
  maxBufferedBytes: number;
}

export const DEFAULT_STREAM_OPTIONS: StreamOptions = {
  heartbeatMs: 15_000,
  pollMs: 500,
  maxBufferedBytes: 1024 * 1024,
};

/** The pump's page: events read per store call. */
const PUMP_PAGE = 1000;
/** How long a wake waits, so that the commits of that moment go out together. */
const BATCH_MS = 5;
/**
 * Runs start at least this far apart: each client gets one write per PACE_MS, not one per commit
 * (a write costs ~26 µs whatever its size: at 5 ms apart, more than the sells; docs/performance.md).
 */
const PACE_MS = 50;
/** How long a stream being ended (the app closing, its credential ended) may take to finish. */
const CLOSE_GRACE_MS = 1000;
/** A catching-up client's page (at most this is waiting on its socket while it catches up). */
const CATCH_UP_PAGE = 100;
/** D-76: how often every stream's credential is checked, besides before each write. */
export const CREDENTIAL_CHECK_MS = 1000;

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

export class EventPump {
  /** Every event up to this seq has been written to every live client it matches. */
  private seq = 0;
  private started = false;
  private readonly clients = new Set<StreamClient>();
  private readonly live = new Set<StreamClient>();
  private running: Promise<void> | undefined;
  private scheduled: NodeJS.Timeout | undefined;
  /** When the last run started (performance.now()), for PACE_MS. */
  private lastRunAt = Number.NEGATIVE_INFINITY;
  private again = false;
  private closed = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private credentialTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly service: PipelineService,
    private readonly options: StreamOptions,
    private readonly log: Logger,
    private readonly dealIdOf: (stored: StoredEvent) => string | undefined,
    /** D-76: whether a client's credential still stands (keys mode; none: every stream stands). */
    private readonly credentialLive?: CredentialCheck,
  ) {
    // A local commit wakes the pump (coalesced: one run at a time, at most one more queued).
    this.unsubscribe = service.runner.onCommit(() => this.wake());
  }

  /** Open streams (live or catching up). */
  get size(): number {
    return this.clients.size;
  }

  /**
   * Adds a client whose cursor is `after`: it catches up from the feed, then joins the live
   * fan-out. Resolves once it is live (or ended).
   */
  async add(sink: StreamSink, filter: StreamFilter, after: number, id: string, caller?: Caller): Promise<void> {
    const client: StreamClient = { sink, filter, cursor: after, live: false, closed: false, mustDrain: false, id };
    if (caller !== undefined) client.caller = caller;
    this.clients.add(client);
    sink.once('close', () => this.remove(client));
    sink.on('drain', () => {
      client.mustDrain = false;
    });
    this.startTimers();
    try {
      if (!this.started) {
        // The pump starts at the feed's end: older events are read by the clients that need them.
        const last = await this.service.queries.lastSeq();
        if (!this.started) {
          this.seq = Math.max(this.seq, last);
          this.started = true;
        }
      }
      await this.catchUp(client);
    } catch (error) {
      if (!client.closed && !this.closed) this.log.error({ err: error, reqId: id }, 'event stream failed');
      this.end(client);
    }
  }

  /** Reads pages of the feed for one client until its cursor reaches the pump's, then joins it. */
  private async catchUp(client: StreamClient): Promise<void> {
    for (;;) {
      if (client.closed || !this.standing(client)) return;
      // Every event up to `horizon` is already in the feed (the pump read it there), so a page
      // read from now on that comes back short has every matching event up to it.
      const horizon = this.seq;
      const { type, dealId } = client.filter;
      // Read as the client's principal (D-57's wall too); the pump reads as the platform.
      const page = await this.service.queries.events(
        { after: client.cursor, limit: CATCH_UP_PAGE, type, dealId },
        client.caller,
      );
      if (client.closed) return;
      // Not held to the bound: paced instead (below), a page at a time.
      for (const stored of page) {
        if (!this.send(client, frameOf(stored), false)) return;
        client.cursor = stored.seq;
      }
      if (page.length < CATCH_UP_PAGE) client.cursor = Math.max(client.cursor, horizon);
      // The next page, and the hand-over to the live fan-out (held to the bound), wait for this one.
      const pacing = paced(client, this.options.maxBufferedBytes);
      if (pacing) {
        await pacing;
        continue;
      }
      // The hand-over: checked and joined in one synchronous step (see the top of this file).
      if (client.cursor >= this.seq) {
        client.live = true;
        this.live.add(client);
        return;
      }
    }
  }

  /**
   * Writes a frame; ends the client (false) when its credential no longer stands (D-76), or when
   * `bounded` and its socket holds more than the bound.
   */
  private send(client: StreamClient, frame: string | Buffer, bounded = true): boolean {
    if (client.closed || client.sink.destroyed || !this.standing(client)) return false;
    client.mustDrain = !client.sink.write(frame);
    if (bounded && client.sink.writableLength > this.options.maxBufferedBytes) {
      this.log.warn(
        { reqId: client.id, bufferedBytes: client.sink.writableLength, limit: this.options.maxBufferedBytes },
        'event stream ended: the client reads too slowly',
      );
      // Destroyed, not ended: ending would keep the unread bytes until the client reads them.
      client.sink.destroy();
      this.remove(client);
      return false;
    }
    return true;
  }

  /** D-76: whether the client's credential still stands; if not, the client is ended. */
  private standing(client: StreamClient): boolean {
    if (stands(client, this.credentialLive)) return true;
    if (!client.closed) {
      this.log.info({ reqId: client.id, keyId: client.caller?.keyId }, 'event stream ended: its credential ended');
      this.endGracefully([client]);
    }
    return false;
  }

  /**
   * Ends streams, what was written before staying readable; a stream whose client does not read
   * cannot finish gracefully, so it is destroyed after CLOSE_GRACE_MS.
   */
  private endGracefully(clients: StreamClient[]): void {
    for (const client of clients) this.end(client);
    const stragglers = setTimeout(() => {
      for (const client of clients) if (!client.sink.destroyed) client.sink.destroy();
    }, CLOSE_GRACE_MS);
    stragglers.unref();
  }

  private remove(client: StreamClient): void {
    client.closed = true;
    this.clients.delete(client);
    this.live.delete(client);
    if (this.clients.size === 0) this.stopTimers();
  }

  private end(client: StreamClient): void {
    if (!client.sink.destroyed) client.sink.end();
    this.remove(client);
  }

  /**
   * Runs the pump soon: after BATCH_MS, so that the commits of that moment are read and written
   * together (one write per client for all of them), and no sooner than PACE_MS after the last
   * run began; one run at a time, and a wake during a run makes one more after it.
   */
  wake(): void {
    if (this.closed || this.clients.size === 0) return;
    if (this.running || this.scheduled) {
      this.again = true;
      return;
    }
    const delay = Math.max(BATCH_MS, this.lastRunAt + PACE_MS - performance.now());
    this.scheduled = setTimeout(() => {
      this.scheduled = undefined;
      this.lastRunAt = performance.now();
      this.running = this.run().finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
    }, delay);
    this.scheduled.unref();
  }

  private async run(): Promise<void> {
    try {
      if (!this.started) return; // the first client's add() starts it
      if (this.live.size === 0) {
        // Nobody to write to: move to the feed's end instead of reading what no one needs, if still
        // nobody is live after the read (so that no client that joined meanwhile misses anything).
        const last = await this.service.queries.lastSeq();
        if (this.live.size === 0) this.seq = Math.max(this.seq, last);
        return;
      }
      for (;;) {
        const page = await this.service.queries.events({ after: this.seq, limit: PUMP_PAGE });
        if (this.closed || page.length === 0) return;
        fanOut(page, [...this.live], this.dealIdOf, (client, batch) => this.send(client, batch));
        this.seq = page[page.length - 1].seq;
        if (page.length < PUMP_PAGE) return;
      }
    } catch (error) {
      if (!this.closed) this.log.error({ err: error }, 'event stream pump failed: retried on the next wake');
    }
  }

  private startTimers(): void {
    if (this.closed) return;
    if (!this.heartbeatTimer && this.options.heartbeatMs > 0) {
      this.heartbeatTimer = setInterval(() => {
        for (const client of [...this.clients]) {
          // A client catching up gets one while its page is not waiting on its socket.
          if (client.live) this.send(client, HEARTBEAT);
          else if (!client.mustDrain) this.send(client, HEARTBEAT, false);
        }
      }, this.options.heartbeatMs);
      this.heartbeatTimer.unref();
    }
    if (!this.pollTimer && this.options.pollMs > 0) {
      this.pollTimer = setInterval(() => this.wake(), this.options.pollMs);
      this.pollTimer.unref();
    }
    if (!this.credentialTimer && this.credentialLive !== undefined) {
      this.credentialTimer = setInterval(() => {
        for (const client of [...this.clients]) this.standing(client);
      }, CREDENTIAL_CHECK_MS);
      this.credentialTimer.unref();
    }
  }

  private stopTimers(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.credentialTimer) clearInterval(this.credentialTimer);
    this.heartbeatTimer = undefined;
    this.pollTimer = undefined;
    this.credentialTimer = undefined;
  }

  /** Ends every stream and stops (the app is closing). */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    this.stopTimers();
    if (this.scheduled) clearTimeout(this.scheduled);
    this.endGracefully([...this.clients]);
    await this.running;
  }
}
