// The error catalogue: every error the API answers has a stable `code` and a status.
// Domain refusals carry their own codes (src/domain/refusal.ts); their kind picks the status
// (D-5). Transport errors are listed here. docs/errors.md lists them all.
import type { Refusal, RefusalKind } from '../domain/refusal.ts';

export const STATUS_OF_KIND: Record<RefusalKind, number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  gate: 422,
  mandate: 422,
};

export const TRANSPORT_ERRORS = {
  INVALID_JSON: { status: 400, message: 'The body is not valid JSON.' },
  INVALID_BODY: { status: 400, message: 'The request body is invalid.' },
  INVALID_QUERY: { status: 400, message: 'The query string is invalid.' },
  INVALID_PARAMS: { status: 400, message: 'The path parameters are invalid.' },
  BODY_TOO_LARGE: { status: 413, message: 'The body is larger than 64 KiB.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Send JSON with content-type: application/json.' },
  ROUTE_NOT_FOUND: { status: 404, message: 'No such route.' },
  INTERNAL: { status: 500, message: 'Internal error; nothing was changed by a refused request.' },
} as const;

export type TransportCode = keyof typeof TRANSPORT_ERRORS;

export interface ErrorBody {
  error: string;
  code: string;
  violations?: string[];
  gate?: { error: string; code: string };
}

export function transportError(code: TransportCode, error?: string, violations?: string[]): ErrorBody {
  return { error: error ?? TRANSPORT_ERRORS[code].message, code, ...(violations ? { violations } : {}) };
}

export function refusalBody(refusal: Refusal): ErrorBody {
  if (refusal.kind === 'gate') {
    return {
      error: `The gate refused the proposal: ${refusal.message}`,
      code: refusal.code,
      gate: { error: refusal.message, code: refusal.code },
    };
  }
  return {
    error: refusal.message,
    code: refusal.code,
    ...(refusal.violations ? { violations: [...refusal.violations] } : {}),
  };
}

/** The part of a Fastify reply the routes use, so one helper serves every route's typed reply. */
export interface ReplyLike {
  code(status: number): ReplyLike;
  send(body: unknown): unknown;
}

export function sendRefusal(reply: ReplyLike, refusal: Refusal) {
  return reply.code(STATUS_OF_KIND[refusal.kind]).send(refusalBody(refusal));
}
