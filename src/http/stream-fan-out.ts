// One page of the feed written to the live event streams (event-pump.ts): each event serialized
// once whatever the number of clients, and each client's matching events joined into one write,
// shared by the clients of the same filter (a socket write costs about the same whatever its size).
import type { StoredEvent } from '../store/store.ts';
import { filterKey, frameOf, matches, type StreamClient } from './stream-client.ts';

/**
 * Writes `page` to each of `live` through `send` (false: the client was ended, and its cursor
 * stays), moving each client's cursor to the page's end. Events at or below a client's cursor
 * were written to it already and are skipped.
 */
export function fanOut(
  page: readonly StoredEvent[],
  live: readonly StreamClient[],
  dealIdOf: (stored: StoredEvent) => string | undefined,
  send: (client: StreamClient, batch: Buffer) => boolean,
): void {
  const frames = new Map<StoredEvent, string>();
  const frame = (stored: StoredEvent) => {
    let text = frames.get(stored);
    if (text === undefined) {
      text = frameOf(stored);
      frames.set(stored, text);
    }
    return text;
  };
  // Encoded once (a string written to a socket is encoded for each write).
  const batches = new Map<string, Buffer>();
  const first = page[0].seq;
  const last = page[page.length - 1].seq;
  for (const client of live) {
    const wanted = (stored: StoredEvent) => stored.seq > client.cursor && matches(client.filter, stored, dealIdOf);
    // A client whose cursor is below the page takes every matching event: the batch of its filter.
    const key = client.cursor < first ? filterKey(client.filter) : undefined;
    let batch = key === undefined ? undefined : batches.get(key);
    if (batch === undefined) {
      let text = '';
      for (const stored of page) if (wanted(stored)) text += frame(stored);
      batch = Buffer.from(text);
      if (key !== undefined) batches.set(key, batch);
    }
    if (batch.length === 0 || send(client, batch)) client.cursor = Math.max(client.cursor, last);
  }
}
