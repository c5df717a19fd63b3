// A TCP relay between a service and its PostgreSQL server that counts the statements the service
// sends: each simple query ('Q') and each execution of a prepared or unnamed statement ('E') of
// the frontend protocol. What an idle instance sends is counted where it leaves the process,
// whatever code sent it (idle means idle, D-249).
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface StatementCounter {
  /** The database URL to give the service: the server's, through the relay. */
  url: string;
  /** Statements sent through the relay so far. */
  count(): number;
  /** The texts of the last 200 statements counted, oldest first (for a failing test's message). */
  texts(): string[];
  close(): Promise<void>;
}

/** The 8-byte requests a client may send before its startup message (SSL, GSS encryption). */
const PRE_STARTUP_CODES = new Set([80877103, 80877104]);

export async function countStatements(databaseUrl: string): Promise<StatementCounter> {
  const target = new URL(databaseUrl);
  const host = target.hostname;
  const port = Number(target.port || 5432);
  let statements = 0;
  const seen: string[] = [];
  const sockets = new Set<Socket>();

  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    sockets.add(client);
    sockets.add(upstream);
    upstream.on('data', (chunk) => client.write(chunk));
    upstream.on('close', () => client.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.on('error', () => upstream.destroy());

    // The frontend protocol: untyped messages until the startup message, then type + length.
    let buffered = Buffer.alloc(0);
    let started = false;
    /** This connection's statements by name ('' the unnamed one), and the one last bound. */
    const texts = new Map<string, string>();
    let bound = '?';
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!started) {
          if (buffered.length < 8) return;
          const length = buffered.readInt32BE(0);
          if (buffered.length < length) return;
          const code = buffered.readInt32BE(4);
          if (!PRE_STARTUP_CODES.has(code)) started = true;
          buffered = buffered.subarray(length);
          continue;
        }
        if (buffered.length < 5) return;
        const type = String.fromCharCode(buffered[0]);
        const length = buffered.readInt32BE(1);
        if (buffered.length < length + 1) return;
        const body = buffered.subarray(5, length + 1);
        const text = (from: number) => body.toString('utf8', from, body.indexOf(0, from));
        if (type === 'P') {
          // Parse: the statement's name, then its text.
          const name = text(0);
          texts.set(name, text(name.length + 1));
        } else if (type === 'B') {
          // Bind: the portal's name, then the statement's.
          bound = texts.get(text(text(0).length + 1)) ?? '?';
        } else if (type === 'E' || type === 'Q') {
          statements++;
          seen.push(type === 'Q' ? text(0) : bound);
          if (seen.length > 200) seen.splice(0, seen.length - 200);
        }
        buffered = buffered.subarray(length + 1);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const relay = new URL(databaseUrl);
  relay.hostname = '127.0.0.1';
  relay.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: relay.toString(),
    count: () => statements,
    texts: () => [...seen],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
