// Keys mode's door (D-50, D-55): every route declares what it asks of its caller (`access` in
// its config; an operation's scope from the table of operations), and this hook holds each
// request to it before anything else of the request is read: no key, not a bearer key, a key
// the service does not know (or revoked, or expired), or a key without the scope, is answered
// here, with the catalogue's body and RFC 6750's WWW-Authenticate, and changes nothing. A route
// that declares nothing is refused at start (deny by default), unless it is a ROOT, docs or
// console route, which keys mode leaves open.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Access, allows, type Caller } from '../domain/access.ts';
import { refuse } from '../domain/refusal.ts';
import { errorResponses } from '../schemas/common.ts';
import type { Authentication, KeyRing } from '../service/key-ring.ts';
import { errorBody, refusalBody } from '../views/errors.ts';
import { type ConsoleSessions, isOwnOrigin, type SessionCheck, servedOverHttps } from './console-session.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** D-53: what the route asks of its caller in keys mode. */
    access?: Access;
    /** Auth-params a route adds to its 401's challenge, e.g. RFC 9728's resource_metadata (D-224). */
    challenge?: (request: FastifyRequest) => string | undefined;
  }
  interface FastifyRequest {
    /** Keys mode: who the request's key belongs to, once authenticated. */
    caller?: Caller;
  }
}

export const REALM = 'Bearer realm="sales-pipeline"';

/** The contract's name of the bearer key scheme (components.securitySchemes). */
export const BEARER_SCHEME = 'bearerKey';

/** The scheme as the contract declares it in keys mode. */
export const BEARER_SECURITY_SCHEME = {
  type: 'http' as const,
  scheme: 'bearer',
  description:
    'Keys mode: `Authorization: Bearer <key>` (`sp_op_`, `sp_sk_` or `sp_ck_` and 43 characters). Each operation lists the scopes any one of which its key must carry (none listed: any valid key). 401 without a valid key, 403 INSUFFICIENT_SCOPE without the scope.',
};

const TOKEN = /^[\x21-\x7e]+$/;

/** `Authorization: Bearer <token>`: the token, or undefined for anything else (RFC 6750 §2.1). */
export function bearerToken(header: string | undefined): string | undefined {
  // The scheme is case-insensitive; one token of visible characters follows it.
  if (header === undefined || header.length < 8 || header.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = header.slice(7).trim();
  return TOKEN.test(token) ? token : undefined;
}

/** Paths keys mode leaves open without declaring it (D-50): ROOT, the index, health, docs, console. */
const OPEN_PATHS = /^(\/$|\/(docs|console)(\/|$)|\/openapi\.json$|\/metrics$|\/llms\.txt$|\/\.well-known\/)/;

/** The rate limit's own check, when RATE_LIMIT_PER_MINUTE is set (app.ts). */
export type Limiter = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * Keys mode: checks that every route declares its access, and holds every request to it. A
 * request refused for its key counts against its address's rate limit (`limiter`), a valid key
 * against the key's own: a flood of wrong keys is limited, and never uses up a valid key's
 * allowance, even one sent from the same address.
 */
export function requireKeys(
  app: FastifyInstance,
  ring: KeyRing,
  limiter: () => Limiter | undefined,
  /** D-59: the console's sessions, whose cookie stands for a key on a request without one. */
  sessions?: ConsoleSessions,
): void {
  // The request's caller is part of every request's shape from the start (no property added
  // to each request later, which would cost every request a change of shape).
  app.decorateRequest('caller', undefined);
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { access?: Access; surface?: string; methodAnswer?: boolean };
    const { access } = config;
    if (access !== undefined) {
      if (access === 'open') return;
      // The route's own first hook, which knows what it asks: nothing is looked up per request.
      const hooks = route.onRequest === undefined ? [] : [route.onRequest].flat();
      route.onRequest = [keyCheck(access), ...hooks] as typeof route.onRequest;
      // D-55: the contract says what each operation asks (the bearer scheme and its scopes).
      if (route.schema) {
        const scopes = access === 'key' ? [] : [...access];
        const schema = route.schema as { security?: unknown; response?: Record<string, unknown> };
        schema.security = [{ [BEARER_SCHEME]: scopes }];
        // And what it may answer for them: 401 without a valid key, 403 without the scope.
        if (schema.response) {
          schema.response = { ...schema.response, ...errorResponses(401, ...(access === 'key' ? [] : [403])) };
        }
      }
      return;
    }
    if (config.surface === 'root' || config.methodAnswer) return;
    if (OPEN_PATHS.test(route.url)) return;
    throw new Error(`route ${route.method} ${route.url} declares no access: keys mode cannot serve it`);
  });

  /** The hook of a route that asks `access` of its caller. */
  function keyCheck(access: Access) {
    return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
      const token = bearerToken(request.headers.authorization);
      // A key the ring holds is answered at once: no promise, no turn of the event loop.
      const held = token === undefined ? undefined : ring.held(token);
      if (held?.ok) {
        if (admit(request, reply, access, held.caller)) done();
        return;
      }
      // D-59, D-234: no Authorization at all, and a cookie: the console's session, if it is one.
      if (sessions !== undefined && request.headers.authorization === undefined) {
        const value = sessions.valueIn(request.headers.cookie, servedOverHttps(request));
        if (value !== undefined) {
          bySession(request, reply, access, value, done);
          return;
        }
      }
      refuse401(request, reply, access, token, held).then(() => {
        if (!reply.sent) done();
      }, done);
    };
  }

  /**
   * D-59, D-234: a request authenticated by the console's cookie. Another page's request (an
   * `Origin` not the service's own, whatever ALLOWED_ORIGINS lists) is refused whatever its
   * method; a session ended, expired or of a key no longer live is 401, saying to sign in again.
   */
  function bySession(
    request: FastifyRequest,
    reply: FastifyReply,
    access: Access,
    value: string,
    done: (error?: Error) => void,
  ): void {
    const origin = request.headers.origin;
    if (origin !== undefined && !isOwnOrigin(origin, request.headers.host)) {
      reply
        .code(403)
        .send(
          errorBody(
            'ORIGIN_NOT_ALLOWED',
            "The console's session serves only the console's own page: another origin's request is refused.",
          ),
        );
      return;
    }
    const held = (sessions as ConsoleSessions).held(value);
    if (held?.ok) {
      if (admit(request, reply, access, held.caller)) done();
      return;
    }
    (held === undefined ? (sessions as ConsoleSessions).check(value) : Promise.resolve(held))
      .then(async (check: SessionCheck) => {
        if (check.ok) {
          if (admit(request, reply, access, check.caller)) done();
          return;
        }
        const limit = limiter();
        if (limit !== undefined) {
          await limit.call(app, request, reply);
          if (reply.sent) return;
        }
        if (check.reason === 'key') {
          reply.header('www-authenticate', `${REALM}, error="invalid_token"`);
          reply
            .code(401)
            .send(
              errorBody(
                'INVALID_KEY',
                "The key this console's session was signed in with is no longer valid (revoked or expired): sign in again.",
              ),
            );
          return;
        }
        reply.header('www-authenticate', REALM);
        reply
          .code(401)
          .send(
            errorBody(
              'UNAUTHENTICATED',
              check.reason === 'malformed'
                ? "The console's session cookie is not valid: sign in again."
                : "The console's session has ended: sign in again.",
            ),
          );
      })
      .catch(done);
  }

  /** The caller, if its scopes allow the operation; otherwise the 403 is sent. */
  function admit(request: FastifyRequest, reply: FastifyReply, access: Access, caller: Caller): boolean {
    const allowed = allows(access, caller);
    if (allowed.ok) {
      request.caller = caller;
      return true;
    }
    const scope = allowed.requiredScope;
    reply.header('www-authenticate', `${REALM}, error="insufficient_scope", scope="${scope}"`);
    reply
      .code(403)
      .send(
        refusalBody(
          refuse.denied(
            'INSUFFICIENT_SCOPE',
            allowed.ofOwnKind
              ? `This key may not do this: it needs ${scope}.`
              : `This key may not do this: it needs ${scope}, which no ${caller.kind}'s key carries.`,
            scope,
          ),
        ),
      );
    return false;
  }

  /**
   * A key the ring does not hold (a read of the store finds it, or not), or no key at all: the
   * 401 is sent, after the address's rate limit, or the caller is admitted.
   */
  async function refuse401(
    request: FastifyRequest,
    reply: FastifyReply,
    access: Access,
    token: string | undefined,
    held: Authentication | undefined,
  ): Promise<void> {
    const found = token === undefined ? undefined : held === undefined ? await ring.authenticate(token) : held;
    if (found?.ok) {
      admit(request, reply, access, found.caller);
      return;
    }
    const limit = limiter();
    if (limit !== undefined) {
      await limit.call(app, request, reply);
      if (reply.sent) return;
    }
    const extra = request.routeOptions.config.challenge?.(request);
    const params = extra === undefined ? '' : `, ${extra}`;
    if (token === undefined) {
      reply.header('www-authenticate', REALM + params);
      reply
        .code(401)
        .send(
          errorBody(
            'UNAUTHENTICATED',
            request.headers.authorization === undefined
              ? 'This request needs a key: send Authorization: Bearer <key>.'
              : 'The Authorization header is not a bearer key: send Authorization: Bearer <key>.',
          ),
        );
      return;
    }
    reply.header('www-authenticate', `${REALM}, error="invalid_token"${params}`);
    reply.code(401).send(errorBody('INVALID_KEY', 'The key is not valid: unknown, revoked or expired.'));
  }
}
