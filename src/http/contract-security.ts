// What the contract says of keys mode's credentials (D-55): the bearer scheme, the scopes each
// operation asks (from the `access` its route declares, as the door holds it to), and what an
// operation answers a request without a valid key (401) or without the scope (403), with the
// challenge header and examples in the words the door itself answers (made by the same rules).
import type { FastifyInstance } from 'fastify';
import type { Access, Caller, KeyScope } from '../domain/access.ts';
import { authorize, authorizeCaller } from '../domain/authorization.ts';
import { errorResponses } from '../schemas/common.ts';
import { denialAnswer } from '../views/authorization-refusals.ts';

/** The contract's name of the bearer key scheme (components.securitySchemes). */
export const BEARER_SCHEME = 'bearerKey';

/** The scheme as the contract declares it in keys mode. */
export const BEARER_SECURITY_SCHEME = {
  type: 'http' as const,
  scheme: 'bearer',
  description:
    'Keys mode: `Authorization: Bearer <key>` (`sp_op_`, `sp_sk_` or `sp_ck_` and 43 characters). Each operation lists the scopes any one of which its key must carry (none listed: any valid key). 401 without a valid key, 403 INSUFFICIENT_SCOPE without the scope.',
};

/**
 * Keys mode: each route that asks for a key says so in its schema, as it is added: the bearer
 * scheme with its scopes, and the 401 (and, with scopes, 403) it may answer for them.
 */
export function declareSecurity(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const access = (route.config as { access?: Access } | undefined)?.access;
    if (access === undefined || access === 'open' || !route.schema) return;
    const scopes = access === 'key' ? [] : [...access];
    const schema = route.schema as { security?: unknown; response?: Record<string, unknown> };
    schema.security = [{ [BEARER_SCHEME]: scopes }];
    if (schema.response) {
      schema.response = { ...schema.response, ...errorResponses(401, ...(access === 'key' ? [] : [403])) };
    }
  });
}

type Json = Record<string, unknown>;
interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, Json>;
}

const UNAUTHORIZED =
  'Unauthenticated: no key (`UNAUTHENTICATED`), an `Authorization` that is not `Bearer <key>` (`UNAUTHENTICATED`), a key unknown, revoked or expired (`INVALID_KEY`), or, from the console, a session that has ended; `WWW-Authenticate` names the scheme and why. Nothing changed';
const FORBIDDEN_SCOPE =
  'Forbidden: the key lacks the scope this operation needs (`INSUFFICIENT_SCOPE`, `requiredScope` names it, and so does `WWW-Authenticate`); or the `Host` is not one this service answers to (`HOST_NOT_ALLOWED`); or, on a write, a web page on another origin sent it (`ORIGIN_NOT_ALLOWED`). Nothing changed';
const CHALLENGE = {
  description:
    'RFC 6750\'s challenge: `Bearer realm="sales-pipeline"`, with `error="invalid_token"` for a key not valid, or `error="insufficient_scope", scope="<scope>"` for a missing scope',
  schema: { type: 'string' },
};

/** A key with no scope, of the kind that may carry `scope` (a Seller's for admin's): the example's caller. */
const scopeless = (scope: KeyScope): Caller =>
  scope.startsWith('gigs')
    ? { principal: 'closer_0001', kind: 'closer', keyId: 'key_0002', scopes: new Set() }
    : { principal: 'seller_0001', kind: 'seller', keyId: 'key_0002', scopes: new Set() };

/**
 * Completes an operation's 401 and 403 (the route added them, `declareSecurity`): what each
 * means, the challenge header, and the door's own answer as the example.
 */
export function completeSecurity(operation: Operation): void {
  const unauthorized = operation.responses['401'];
  if (unauthorized !== undefined) {
    unauthorized.description = UNAUTHORIZED;
    unauthorized.headers = { ...((unauthorized.headers as Json) ?? {}), 'WWW-Authenticate': CHALLENGE };
    const denied = authorize({ kind: 'none', header: 'absent' }, 'key');
    if (!denied.ok) setExample(unauthorized, denialAnswer(denied.denial).body);
  }
  const scopes = operation.security?.flatMap((entry) => Object.values(entry).flat()) ?? [];
  const forbidden = operation.responses['403'];
  if (forbidden === undefined || scopes.length === 0) return;
  forbidden.description = FORBIDDEN_SCOPE;
  forbidden.headers = { ...((forbidden.headers as Json) ?? {}), 'WWW-Authenticate': CHALLENGE };
  const first = scopes[0] as KeyScope;
  const denied = authorizeCaller(scopeless(first), [first]);
  if (!denied.ok) setExample(forbidden, denialAnswer(denied.denial).body);
}

function setExample(response: Json, example: unknown) {
  const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
  if (media !== undefined) media.example = example;
}
