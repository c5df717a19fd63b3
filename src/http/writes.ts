// How a write route answers: its result rendered once (src/views/answers.ts) and sent with its
// Location; under an Idempotency-Key (D-37) the service stores that answer with the effects and
// the route replays stored bytes with `idempotent-replayed: true`.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { IfMatch } from '../domain/version.ts';
import { fingerprint, IDEMPOTENCY_KEY_PATTERN } from '../service/idempotency.ts';
import type { PipelineService, Result, WriteOptions } from '../service/pipeline-service.ts';
import { type Answer, dryRunAnswer, rendered } from '../views/answers.ts';
import type { DryRunnable } from '../views/dry-run.ts';
import { errorBody } from '../views/errors.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

function keyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  return Array.isArray(key) ? key.join(', ') : key;
}

/** onRequest of every demo POST: a malformed key is 400 before the body is read. */
export const checkIdempotencyKey: onRequestHookHandler = (request, reply, done) => {
  const key = keyOf(request);
  if (key === undefined || IDEMPOTENCY_KEY_PATTERN.test(key)) return done();
  reply
    .code(400)
    .send(errorBody('IDEMPOTENCY_KEY_INVALID', 'Idempotency-Key must be 1 to 255 visible ASCII characters.'));
};

/** onRequest of /demo/mcp: there a key is an argument of each writing tool call, never the header. */
export const refuseIdempotencyKey: onRequestHookHandler = (request, reply, done) => {
  if (keyOf(request) === undefined) return done();
  reply
    .code(400)
    .send(
      errorBody(
        'IDEMPOTENCY_KEY_INVALID',
        'An MCP request may carry several tool calls: pass idempotencyKey as an argument of each writing tool call, not as a header.',
      ),
    );
};

export function sendAnswer(reply: FastifyReply, answer: Answer) {
  if (answer.location !== undefined) reply.header('location', answer.location);
  if (answer.etag !== undefined) reply.header('etag', answer.etag);
  return reply.code(answer.status).send(answer.body);
}

/**
 * D-47: the If-Match of a write on a deal or its gigs (its routes validate the header's form:
 * one quoted version or `*`); other writes have no version to hold and never read it.
 */
function ifMatchOf(request: FastifyRequest): IfMatch | undefined {
  const value = request.headers['if-match'];
  if (typeof value !== 'string') return undefined;
  return value === '*' ? '*' : Number(value.slice(1, -1));
}

/** The If-Match of a request as the options of its write, if it has one. */
function conditionOf(request: FastifyRequest): WriteOptions | undefined {
  const ifMatch = ifMatchOf(request);
  return ifMatch === undefined ? undefined : { ifMatch };
}

/**
 * A route handler for a write: `call` runs it (with the options that key it, if any), `render`
 * is its answer. Without a key nothing is stored and nothing is paid for it.
 */
export function writeRoute<R extends FastifyRequest, T>(
  service: PipelineService,
  render: (result: Result<T>) => Answer,
  call: (request: R, options?: WriteOptions) => Promise<Result<T>>,
) {
  return async (request: R, reply: FastifyReply) => {
    const key = keyOf(request);
    const plain = conditionOf(request);
    if (key === undefined) return sendAnswer(reply, render(await call(request, plain)));
    const outcome = await service.keyed(
      { key, fingerprint: fingerprint(request.method, request.url, request.body) },
      (options) => call(request, { ...plain, ...options }),
      (result) => rendered(render(result)),
    );
    if (outcome.kind === 'reused') {
      return reply
        .code(422)
        .send(
          errorBody(
            'IDEMPOTENCY_KEY_REUSED',
            `Idempotency-Key ${key} was used with another method, path or body; use a new key for a new request.`,
          ),
        );
    }
    const { answer, replayed } = outcome;
    if (answer.location !== undefined) reply.header('location', answer.location);
    if (answer.etag !== undefined) reply.header('etag', answer.etag);
    if (replayed) reply.header('idempotent-replayed', 'true');
    return reply.code(answer.status).type(JSON_TYPE).send(answer.body);
  };
}

/**
 * writeRoute for the writes that take `?dryRun=true` (D-48): a dry run runs the same call (its
 * If-Match included) as a dry run and answers what it would do; an Idempotency-Key is ignored,
 * since a dry run stores nothing and is safe to repeat. `?dryRun=false` is the real call.
 */
export function dryRunnableRoute<
  R extends FastifyRequest<{ Querystring: { dryRun?: boolean } }>,
  T extends DryRunnable,
>(
  service: PipelineService,
  render: (result: Result<T>) => Answer,
  call: (request: R, options?: WriteOptions) => Promise<Result<T>>,
) {
  const real = writeRoute(service, render, call);
  return async (request: R, reply: FastifyReply) => {
    if (request.query.dryRun !== true) return real(request, reply);
    const result = await service.dryRun((options) => call(request, { ...conditionOf(request), ...options }));
    return sendAnswer(reply, dryRunAnswer(result, render));
  };
}
