// D-44: an optional cap on the requests one address may make per minute (RATE_LIMIT_PER_MINUTE).
// Registered only when set, so the default costs nothing. Answers carry the draft-standard
// RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers; a refusal is 429 with
// Retry-After and the catalogue's RATE_LIMITED body (app.ts's error handler sends it).
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';

/** The code of the error thrown on a refusal; app.ts answers it with errorBody('RATE_LIMITED'). */
export const RATE_LIMITED = 'RATE_LIMITED';

export async function registerRateLimit(app: FastifyInstance, perMinute: number, perKey = false): Promise<void> {
  await app.register(rateLimit, {
    max: perMinute,
    timeWindow: 60_000,
    // Keyed by the connection's address: no proxy header is trusted. In keys mode (D-54) by the
    // request's key (authenticated before this runs), or its person's (D-62) for a person's
    // session; a request refused for its key counts against its address (authenticate.ts), never
    // against a valid key's allowance.
    ...(perKey ? { keyGenerator: (request) => request.caller?.keyId ?? request.caller?.userId ?? request.ip } : {}),
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) =>
      Object.assign(
        new Error(
          `More than ${context.max} requests from this ${perKey ? 'key (or person)' : 'address'} in a minute: retry in ${context.after}.`,
        ),
        { statusCode: 429, code: RATE_LIMITED },
      ),
  });
}
