// Where the service's log lines go: standard output, written asynchronously (lines that come while
// a write is under way are gathered into the next one, so the request log costs no write per
// request under load). Before the process exits, the destination is ended and its close awaited:
// pino's flush() returns at once for it (it has no minimum length), and process.exit's own
// synchronous flush then wrote the lines waiting behind a write still under way before that
// write's: "shut down" came out ahead of "SIGTERM: shutting down" (a reader slow to drain the
// pipe shows it; test/http/log-destination.test.ts).
import pino from 'pino';

export const logDestination = () => pino.destination({ dest: 1, sync: false });

interface Endable {
  end(): void;
  once(event: 'close', listener: () => void): unknown;
}

/** Writes every line the logger still holds, in order, and closes its destination (if it has one to close). */
export function endLog(logger: object): Promise<void> {
  const stream = (logger as Record<symbol, Partial<Endable> | undefined>)[pino.symbols.streamSym];
  if (typeof stream?.end !== 'function' || typeof stream.once !== 'function') return Promise.resolve();
  const endable = stream as Endable;
  return new Promise((resolve) => {
    endable.once('close', resolve);
    endable.end();
  });
}
