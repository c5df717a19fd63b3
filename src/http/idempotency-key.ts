// D-37: the Idempotency-Key header. A demo POST checks it before its body is read; the demo MCP
// door refuses it, since there a key is an argument of each writing tool call.
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { IDEMPOTENCY_KEY_PATTERN } from '../service/idempotency.ts';
import { errorBody } from '../views/errors.ts';

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  return Array.isArray(key) ? key.join(', ') : key;
}

/** onRequest of every demo POST: a malformed key is 400 before the body is read. */
export const checkIdempotencyKey: onRequestHookHandler = (request, reply, done) => {
  const key = idempotencyKeyOf(request);
  if (key === undefined || IDEMPOTENCY_KEY_PATTERN.test(key)) return done();
  reply
    .code(400)
    .send(errorBody('IDEMPOTENCY_KEY_INVALID', 'Idempotency-Key must be 1 to 255 visible ASCII characters.'));
};

/** onRequest of /demo/mcp: a request there may carry several tool calls, each with its own key. */
export const refuseIdempotencyKey: onRequestHookHandler = (request, reply, done) => {
  if (idempotencyKeyOf(request) === undefined) return done();
  reply
    .code(400)
    .send(
      errorBody(
        'IDEMPOTENCY_KEY_INVALID',
        'An MCP request may carry several tool calls: pass idempotencyKey as an argument of each writing tool call, not as a header.',
      ),
    );
};
