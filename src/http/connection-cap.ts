// D-44: a cap on open connections that never locks new clients out. Node's own
// server.maxConnections drops every NEW socket once the cap is reached, so a flood of stalled
// sockets would shut out everyone else until they time out. Here a new connection instead makes
// room by closing the connection that has waited longest without a request in flight (an idle
// keep-alive one, or one that never completed its headers); only when every open connection is
// in the middle of a request is the new one refused. Those are bounded by the request timeout.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export class ConnectionCap {
  /** Every open connection, with the number of its requests in flight. */
  private readonly open = new Map<Socket, number>();
  /** Connections with no request in flight, longest-waiting first (a Set keeps insertion order). */
  private readonly waiting = new Set<Socket>();

  constructor(
    server: Server,
    readonly max: number,
  ) {
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (request: IncomingMessage, response: ServerResponse) => this.started(request, response));
  }

  private admit(socket: Socket): void {
    if (this.open.size >= this.max) {
      const oldest = this.waiting.values().next();
      if (oldest.done) {
        // Every connection is mid-request: the newcomer is the one that goes.
        socket.destroy();
        return;
      }
      this.forget(oldest.value);
      oldest.value.destroy();
    }
    this.open.set(socket, 0);
    this.waiting.add(socket);
    socket.once('close', () => this.forget(socket));
  }

  /** 'request' is emitted once the headers are in: from here until the answer, the connection is busy. */
  private started(request: IncomingMessage, response: ServerResponse): void {
    const socket = request.socket;
    const inFlight = this.open.get(socket);
    if (inFlight === undefined) return;
    this.open.set(socket, inFlight + 1);
    this.waiting.delete(socket);
    // 'close' comes once the answer is sent, or when the connection is lost before it is.
    response.once('close', () => this.finished(socket));
  }

  private finished(socket: Socket): void {
    const inFlight = this.open.get(socket);
    if (inFlight === undefined) return;
    this.open.set(socket, inFlight - 1);
    // Idle again: it goes to the back of the line, as the most recently active.
    if (inFlight === 1 && !socket.destroyed) this.waiting.add(socket);
  }

  private forget(socket: Socket): void {
    this.open.delete(socket);
    this.waiting.delete(socket);
  }
}
