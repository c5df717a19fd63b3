// A reader of the event stream for tests (GET /events/stream): a real request on a real socket,
// the SSE format parsed as it comes (fields, a blank line ends a message, comments apart).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { TestServer } from './http.ts';

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
}

export interface Stream {
  response: IncomingMessage;
  messages: SseMessage[];
  comments: string[];
  ended: Promise<void>;
  isEnded(): boolean;
  /** Resolves once `predicate` holds over the messages, or rejects after withinMs. */
  waitFor(predicate: (messages: SseMessage[]) => boolean, withinMs?: number): Promise<void>;
  close(): void;
}

/** Opens a stream and parses what comes (the SSE format: fields, blank line ends a message). */
export function openStream(t: TestServer, path: string, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${t.url}${path}`, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      const messages: SseMessage[] = [];
      const comments: string[] = [];
      let buffer = '';
      let current: SseMessage = {};
      let ended = false;
      const waiters = new Set<() => void>();
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let newline = buffer.indexOf('\n');
        while (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (Object.keys(current).length > 0) messages.push(current);
            current = {};
          } else if (line.startsWith(':')) {
            comments.push(line.slice(1).trim());
          } else {
            const colon = line.indexOf(':');
            const field = line.slice(0, colon) as keyof SseMessage;
            current[field] = line.slice(colon + 1).replace(/^ /, '');
          }
          newline = buffer.indexOf('\n');
        }
        for (const waiter of [...waiters]) waiter();
      });
      const endedPromise = new Promise<void>((done) => {
        const finish = () => {
          ended = true;
          done();
          for (const waiter of [...waiters]) waiter();
        };
        response.once('end', finish);
        response.once('close', finish);
        response.once('error', finish);
      });
      resolve({
        response,
        messages,
        comments,
        ended: endedPromise,
        isEnded: () => ended,
        waitFor(predicate, withinMs = 10_000) {
          return new Promise((done, fail) => {
            const check = () => {
              if (predicate(messages)) {
                waiters.delete(check);
                clearTimeout(timer);
                done();
              } else if (ended) {
                waiters.delete(check);
                clearTimeout(timer);
                fail(new Error(`the stream ended first; got ${JSON.stringify(messages.map((m) => m.id))}`));
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`timed out; got ${JSON.stringify(messages.map((m) => m.id))}`));
            }, withinMs);
            waiters.add(check);
            check();
          });
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
