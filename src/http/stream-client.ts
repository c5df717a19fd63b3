// A client of the event stream (D-41) as the pump sees it: where its bytes go, which events it
// wants, how far it has been written, and the SSE frame of an event.
import { type Caller, seesEvent, type Visibility } from '../domain/access.ts';
import type { PublicEventType } from '../domain/public-events.ts';
import type { StoredEvent } from '../store/store.ts';
import { eventView } from '../views/events.ts';
import { stringify } from '../views/exact-json.ts';

/** Written to every stream now and then, so that proxies and clients see it alive. */
export const HEARTBEAT = Buffer.from(': heartbeat\n\n');

/** Where a client's bytes go: a response stream (node's ServerResponse fits). */
export interface StreamSink {
  write(chunk: string | Buffer): boolean;
  readonly writableLength: number;
  readonly destroyed: boolean;
  on(event: 'drain', listener: () => void): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
  end(): unknown;
  destroy(): unknown;
}

export interface StreamFilter {
  type?: PublicEventType;
  dealId?: string;
  /** D-58: what the stream's principal sees (none: everything, the demo's and the operator's). */
  visibility: Visibility;
}

/** Clients whose filters have the same key get the same events: one batch serves them all. */
export const filterKey = ({ type, dealId, visibility }: StreamFilter): string =>
  `${type ?? ''}\n${dealId ?? ''}\n${visibility.sellerId ?? ''}\n${visibility.closerId ?? ''}`;

export interface StreamClient {
  readonly sink: StreamSink;
  readonly filter: StreamFilter;
  /** Every matching event up to this seq has been written (or is gone from the feed). */
  cursor: number;
  live: boolean;
  closed: boolean;
  /** The last write was over the socket's high-water mark: 'drain' will come. */
  mustDrain: boolean;
  /** The request's id, for the log. */
  readonly id: string;
  /** Keys mode: the stream's principal, whose reads catch it up (its visibility is the filter's). */
  caller?: Caller;
}

/**
 * D-76: whether a stream's credential (its key, its console session) still stands, from memory
 * alone (a Map lookup: asked before every write). Keys mode only; none in the demo.
 */
export type CredentialCheck = (caller: Caller) => boolean;

/**
 * D-76: whether a stream may still be written to: it has no caller (the demo) or its caller's
 * credential stands. The pump asks it before every write and on a timer; a stream it fails is
 * ended and sent nothing more. The simulation's streams are held to the same rule.
 */
export function stands(client: { readonly caller?: Caller }, live: CredentialCheck | undefined): boolean {
  return client.caller === undefined || live === undefined || live(client.caller);
}

/** The SSE frame of an event: `id:` the seq, `event:` the type, `data:` the event's JSON (one line). */
export function frameOf(stored: StoredEvent): string {
  return `id: ${stored.seq}\nevent: ${stored.event.type}\ndata: ${stringify(eventView(stored))}\n\n`;
}

/** Whether a client of this filter wants the event (`dealIdOf`: the deal an event is about). */
export function matches(
  filter: StreamFilter,
  stored: StoredEvent,
  dealIdOf: (stored: StoredEvent) => string | undefined,
) {
  if (filter.type !== undefined && stored.event.type !== filter.type) return false;
  if (filter.dealId !== undefined && dealIdOf(stored) !== filter.dealId) return false;
  return seesEvent(filter.visibility, stored.event);
}

/**
 * What a catching-up client waits for before its next page or the hand-over, if anything: a
 * refused write's 'drain', then its socket holding at most `bound` unwritten (polled: below the
 * socket's high-water mark, 64 KiB, no write is refused and no 'drain' comes). Undefined when it
 * need not wait, so that the hand-over stays in the same synchronous step as its check.
 */
export function paced(client: StreamClient, bound: number): Promise<void> | undefined {
  if (!client.mustDrain && client.sink.writableLength <= bound) return undefined;
  return (async () => {
    if (client.mustDrain) await drained(client);
    while (!client.closed && !client.sink.destroyed && client.sink.writableLength > bound) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
}

/** Resolves when the client's socket has written what it holds, or the client is gone. */
export function drained(client: StreamClient): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      client.sink.off('drain', done);
      client.sink.off('close', done);
      resolve();
    };
    client.sink.once('drain', done);
    client.sink.once('close', done);
  });
}
