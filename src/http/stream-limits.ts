// D-238: event streams are bounded, so that no one client can hold every connection. A stream is
// a request that never ends, so the connection cap (connection-cap.ts) can never evict it: a
// client that opened as many streams as MAX_CONNECTIONS would lock every other client out. Two
// bounds, checked before a stream starts: streams per client (its key's principal in keys mode,
// its address in the demo), and streams in all, which leave room for ordinary requests.

/** STREAMS_PER_CLIENT's default: many browser tabs and a few integrations of one principal. */
export const DEFAULT_STREAMS_PER_CLIENT = 50;

/** What a refused stream is told: which bound it met. */
export type StreamRefusal = { bound: 'client'; limit: number } | { bound: 'total'; limit: number };

export interface StreamBounds {
  /** Open streams per client (principal, or address in the demo). */
  perClient: number;
  /** Open streams in all. */
  total: number;
}

/**
 * Streams in all beside MAX_CONNECTIONS: the rest is kept for ordinary requests, a tenth of the
 * connections and at least 16 (half of them, under 32 connections).
 */
export function streamsInAll(maxConnections: number): number {
  const room = Math.max(Math.ceil(maxConnections / 10), Math.min(16, Math.floor(maxConnections / 2)));
  return Math.max(1, maxConnections - room);
}

export class StreamLimits {
  private readonly open = new Map<string, number>();
  private count = 0;

  constructor(private readonly bounds: StreamBounds) {}

  /** Takes a place for a stream of `client`: its release (call once, when the stream ends), or the refusal. */
  take(client: string): { ok: true; release: () => void } | { ok: false; refusal: StreamRefusal } {
    const own = this.open.get(client) ?? 0;
    if (own >= this.bounds.perClient) return { ok: false, refusal: { bound: 'client', limit: this.bounds.perClient } };
    if (this.count >= this.bounds.total) return { ok: false, refusal: { bound: 'total', limit: this.bounds.total } };
    this.open.set(client, own + 1);
    this.count++;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.count--;
        const left = (this.open.get(client) ?? 1) - 1;
        if (left === 0) this.open.delete(client);
        else this.open.set(client, left);
      },
    };
  }

  /** Open streams of a client (tests, metrics). */
  of(client: string): number {
    return this.open.get(client) ?? 0;
  }
}
