// The one writer of authorization's denials (src/domain/authorization.ts): the status, the
// catalogue's body and RFC 6750's `WWW-Authenticate` challenge. The HTTP door sends all three; an
// MCP tool call answers the same status and body as its error result (a challenge is HTTP's), so
// both doors refuse in the same words (D-55).
import type { Challenge, Denial } from '../domain/authorization.ts';
import { type ErrorBody, errorBody } from './errors.ts';

export const REALM = 'Bearer realm="sales-pipeline"';

export interface DenialAnswer {
  readonly status: 401 | 403;
  /** `WWW-Authenticate`, for a refusal of the credential or its scope; none for an origin's. */
  readonly challenge?: string;
  readonly body: ErrorBody;
}

/** `Bearer realm=…` with the challenge's attributes, and any a route adds (RFC 9728's resource_metadata). */
export function challengeHeader(challenge: Challenge, extra?: string): string {
  let header = REALM;
  if (challenge.error !== undefined) header += `, error="${challenge.error}"`;
  if (challenge.scope !== undefined) header += `, scope="${challenge.scope}"`;
  return extra === undefined ? header : `${header}, ${extra}`;
}

/** A denial as every door answers it; `extra`: the route's own challenge attributes (HTTP). */
export function denialAnswer(denial: Denial, extra?: string): DenialAnswer {
  if (denial.code === 'ORIGIN_NOT_ALLOWED') {
    return { status: denial.status, body: errorBody(denial.code, denial.message) };
  }
  if (denial.code === 'INSUFFICIENT_SCOPE') {
    return {
      status: denial.status,
      challenge: challengeHeader(denial.challenge),
      body: { error: denial.message, code: denial.code, requiredScope: denial.requiredScope },
    };
  }
  return {
    status: denial.status,
    challenge: challengeHeader(denial.challenge, extra),
    body: errorBody(denial.code, denial.message),
  };
}
