// D-38: one log line per request, under its id (the answer's x-request-id): method, route,
// status and duration. Written when the answer is sent; answers made outside the routes (a
// malformed URL, a request the parser refused) write the same line themselves.
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

export function logRequest(request: FastifyRequest, reply: FastifyReply, route: string | undefined): void {
  request.log.info(
    {
      method: request.method,
      route: route ?? null,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
    },
    'request',
  );
}

/**
 * The framework's own request lines are off (ours is one line, not two); what it calls when an
 * answer has been sent calls `answered` instead. Fastify calls it for every routed answer once a
 * logger is set, at the moment an onResponse hook would run: the line and the count cost no hook,
 * whose runner every request would pay for (measured in docs/performance.md).
 */
export class AnswerLogController extends LogController {
  constructor(private readonly answered: (request: FastifyRequest, reply: FastifyReply) => void) {
    super({ disableRequestLogging: true, requestIdLogLabel: 'requestId' });
  }

  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.answered(request, reply);
  }
}
