// D-38: one log line per request, under its id (the answer's x-request-id): method, route,
// status and duration. Written when the answer is sent; answers made outside the routes (a
// malformed URL, a request the parser refused) write the same line themselves.
import type { FastifyReply, FastifyRequest } from 'fastify';

export function logRequest(request: FastifyRequest, reply: FastifyReply): void {
  request.log.info(
    {
      method: request.method,
      route: request.routeOptions.url ?? null,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
    },
    'request',
  );
}
