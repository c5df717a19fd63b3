// Every error a route, the framework or a plugin raises, answered in the error catalogue's shape
// (D-5, D-38): validation as 400 with each violation, the framework's statuses by their catalogue
// codes, a store that failed as its 503, anything else as 500 INTERNAL (logged, never shown).
// The reference's files (@fastify/static under @fastify/swagger-ui) refuse in statuses of their
// own, each answered here too (D-202).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeViolations } from '../schemas/validate.ts';
import { errorBody, storeFailure, type TransportCode } from '../views/errors.ts';
import { NULL_BODY } from './json-body.ts';
import { RATE_LIMITED } from './rate-limit.ts';

/** The catalogue's code for each status the framework or its plugins answer with. */
const FRAMEWORK_CODES: Partial<Record<number, TransportCode>> = {
  400: 'INVALID_BODY',
  404: 'ROUTE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'BODY_TOO_LARGE',
  414: 'ROUTE_NOT_FOUND',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  // Only a static file answers these (D-202): a conditional or a Range request it cannot meet.
  412: 'FILE_PRECONDITION_FAILED',
  416: 'RANGE_NOT_SATISFIABLE',
};

export function answerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.validation) {
    const part = error.validationContext ?? 'body';
    // A header's pattern is said in the words its schema gives (x-pattern-words), not as a regex.
    const violations = describeViolations(error.validation as never, part);
    // Path parameters are plain strings: an id of any shape is an unknown id (D-5), so only
    // the body, the query string and a documented header (Last-Event-ID, If-Match) can fail.
    const [code, what] =
      part === 'querystring'
        ? (['INVALID_QUERY', 'query string'] as const)
        : part === 'headers'
          ? (['INVALID_HEADER', 'request header'] as const)
          : (['INVALID_BODY', 'request body'] as const);
    return reply.code(400).send(errorBody(code, `The ${what} is invalid: ${violations.join('; ')}`, violations));
  }
  switch (error.code) {
    case 'INVALID_JSON':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return reply.code(400).send(errorBody('INVALID_JSON', error.message, [error.message]));
    case 'INVALID_BODY':
      return reply.code(400).send(errorBody('INVALID_BODY', `The request body is invalid: ${NULL_BODY}`, [NULL_BODY]));
    case 'NUL_CHARACTER':
      return reply.code(400).send(errorBody('NUL_CHARACTER', `The request body is invalid: ${error.message}.`));
    case 'BODY_TOO_DEEP':
      return reply.code(400).send(errorBody('BODY_TOO_DEEP', `The request body is invalid: ${error.message}.`));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return reply.code(400).send(errorBody('INVALID_BODY', 'The body is empty.', ['body: is required']));
    case RATE_LIMITED:
      return reply.code(429).send(errorBody('RATE_LIMITED', error.message));
    case 'FST_STATIC_FORBIDDEN_PATH': {
      // D-202: a path the static plugin will not serve names no file, as any path that names nothing.
      const path = request.url.split('?')[0];
      return reply
        .code(404)
        .send(
          errorBody(
            'ROUTE_NOT_FOUND',
            `No route ${request.method} ${path}: a file is named by its own path only, without \`.\` or \`..\` segments, empty segments or backslashes.`,
          ),
        );
    }
  }
  // Every other error the framework or a plugin raises is answered in the catalogue's shape
  // (D-38): by its status, never with the framework's own code or body.
  const status = error.statusCode ?? 500;
  const code = FRAMEWORK_CODES[status];
  if (code !== undefined) {
    const message = status === 400 ? `The request is malformed: ${error.message}` : undefined;
    return reply.code(status).send(errorBody(code, message));
  }
  const failure = storeFailure(error);
  if (failure) {
    request.log.warn({ err: error }, failure.body.code);
    return reply.code(failure.status).header('retry-after', String(failure.retryAfterSeconds)).send(failure.body);
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(errorBody('INTERNAL'));
}
