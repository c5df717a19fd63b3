// A bare TCP client for the tests of D-44's limits: it sends exactly the bytes a test says, when
// it says, and records what came back and when the server closed the connection.
import { connect, type Socket } from 'node:net';

export interface RawSocket {
  socket: Socket;
  /** When the connection was made (performance.now()). */
  openedAt: number;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves once the server closed the connection, with when (performance.now()). */
  closed: Promise<number>;
  isClosed(): boolean;
  write(text: string): void;
  /** Resolves once `text` has arrived, or rejects after withinMs. */
  waitFor(text: string, withinMs: number): Promise<void>;
}

export async function openRawSocket(url: string): Promise<RawSocket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  let data = '';
  let closedAt: number | undefined;
  const closed = new Promise<number>((resolve) => {
    socket.once('close', () => {
      closedAt = performance.now();
      resolve(closedAt);
    });
  });
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    data += chunk;
  });
  // A connection the server resets is an outcome the tests look at, never a crash.
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    // A server that refuses the connection may reset it before 'connect' is seen here: that is
    // a connection made and closed, which the test then sees as closed.
    socket.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve() : reject(error)));
  });
  return {
    socket,
    openedAt: performance.now(),
    received: () => data,
    closed,
    isClosed: () => closedAt !== undefined,
    write: (text) => {
      if (!socket.destroyed) socket.write(text);
    },
    async waitFor(text, withinMs) {
      const deadline = performance.now() + withinMs;
      while (!data.includes(text)) {
        if (performance.now() > deadline || closedAt !== undefined) {
          throw new Error(`expected ${JSON.stringify(text)} within ${withinMs} ms, got ${JSON.stringify(data)}`);
        }
        await sleep(10);
      }
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** When the socket closed, or undefined if it is still open after withinMs. */
export async function closedWithin(raw: RawSocket, withinMs: number): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), withinMs);
  });
  try {
    return await Promise.race([raw.closed, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface RawAnswer {
  status: number;
  /** Header names in lower case; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** The body parsed as JSON, or its text when it is not JSON. */
  body: any;
}

/**
 * Sends one request exactly as written (a path Node's and fetch's clients would normalise, a
 * header twice) over a fresh connection and reads the answer once the server closes it. The
 * request should carry `Connection: close`; the answer must not be chunked.
 */
export async function rawRequest(url: string, request: string, withinMs = 5_000): Promise<RawAnswer> {
  const raw = await openRawSocket(url);
  raw.write(request);
  if ((await closedWithin(raw, withinMs)) === undefined) {
    raw.socket.destroy();
    throw new Error(`no closed answer within ${withinMs} ms, got ${JSON.stringify(raw.received())}`);
  }
  const text = raw.received();
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`not an HTTP answer: ${JSON.stringify(text)}`);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  const bodyText = text.slice(end + 4);
  let body: unknown = bodyText;
  try {
    body = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}
