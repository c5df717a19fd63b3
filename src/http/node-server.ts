// The Node HTTP server under Fastify, built here (Fastify's serverFactory) so that D-44's limits
// are set where Node enforces them: no client can hold a connection or a request open forever.
import { createServer, type RequestListener } from 'node:http';
import { ConnectionCap } from './connection-cap.ts';

export interface ConnectionLimits {
  /** A request's headers must arrive within this (capped at requestTimeoutMs, as Node requires). */
  headersTimeoutMs: number;
  /** The whole request, headers and body. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Open connections (src/http/connection-cap.ts). */
  maxConnections: number;
}

/**
 * Node enforces the header and request timeouts only when it sweeps its connections, every
 * connectionsCheckingInterval (30 s by default, which would let a 10 s header timeout run to
 * 40 s): sweep ten times per shortest timeout, at most once a second, at least every 50 ms.
 */
export function checkingIntervalMs(limits: Pick<ConnectionLimits, 'headersTimeoutMs' | 'requestTimeoutMs'>): number {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return Math.min(1000, Math.max(50, Math.floor(shortest / 10)));
}

export function limitedServerFactory(limits: ConnectionLimits) {
  return (handler: RequestListener) => {
    const server = createServer(
      {
        headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
        requestTimeout: limits.requestTimeoutMs,
        connectionsCheckingInterval: checkingIntervalMs(limits),
      },
      handler,
    );
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    new ConnectionCap(server, limits.maxConnections);
    return server;
  };
}
