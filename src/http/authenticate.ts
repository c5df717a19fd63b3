// Keys mode's door (D-50, D-55): every route declares what it asks of its caller (`access` in
// its config; an operation's scope from the table of operations), and this hook holds each
// request to it before anything else of the request is read. The hook only reads the credential
// the request presents; whether it may go on is decided by src/domain/authorization.ts, and a
// denial is answered in the words of src/views/authorization-refusals.ts, changing nothing. A
// route that declares nothing is refused at start (deny by default), unless it is a ROOT, docs
// or console route, which keys mode leaves open.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Access, Caller } from '../domain/access.ts';
import { type Authorization, authorize, type Credential, type Denial } from '../domain/authorization.ts';
import type { KeyRing } from '../service/key-ring.ts';
import { denialAnswer } from '../views/authorization-refusals.ts';
import { type ConsoleSessions, isOwnOrigin, servedOverHttps } from './console-session.ts';

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
      // A key the ring holds is decided at once: no promise, no turn of the event loop.
      const held = token === undefined ? undefined : ring.held(token);
      // The denial, once decided (after the address's rate limit, for a 401), or the caller.
      const settle = async (decided: Authorization) => {
        if (decided.ok) request.caller = decided.caller;
        else await deny(request, reply, decided.denial);
        if (!reply.sent) done();
      };
      if (held !== undefined) {
        const decided = authorize({ kind: 'key', caller: held.ok ? held.caller : undefined }, access);
        if (decided.ok) {
          request.caller = decided.caller;
          done();
        } else settle(decided).catch(done);
        return;
      }
      credentialOf(request, token)
        .then((credential) => settle(authorize(credential, access)))
        .catch(done);
    };
  }

  /**
   * What the request presents: a bearer key (read from the store when the ring does not hold
   * it), or, with no `Authorization` at all, the console's session cookie (D-59, D-234), or nothing.
   */
  async function credentialOf(request: FastifyRequest, token: string | undefined): Promise<Credential> {
    if (token !== undefined) {
      const found = await ring.authenticate(token);
      return { kind: 'key', caller: found.ok ? found.caller : undefined };
    }
    const header = request.headers.authorization;
    const value =
      sessions === undefined || header !== undefined
        ? undefined
        : sessions.valueIn(request.headers.cookie, servedOverHttps(request));
    if (value === undefined) return { kind: 'none', header: header === undefined ? 'absent' : 'not-bearer' };
    // Another page's request is refused whatever its session: it is not looked up.
    const origin = request.headers.origin;
    const ownOrigin = origin === undefined || isOwnOrigin(origin, request.headers.host);
    if (!ownOrigin) return { kind: 'session', standing: { ok: false, reason: 'absent' }, ownOrigin };
    const known = (sessions as ConsoleSessions).held(value);
    const check = known ?? (await (sessions as ConsoleSessions).check(value));
    return { kind: 'session', standing: check, ownOrigin };
  }

  /**
   * Sends a denial. One of the credential (401) counts against the address's rate limit first,
   * so that a flood of wrong keys is limited without using up a valid key's allowance.
   */
  async function deny(request: FastifyRequest, reply: FastifyReply, denial: Denial): Promise<void> {
    if (denial.status === 401) {
      const limit = limiter();
      if (limit !== undefined) {
        await limit.call(app, request, reply);
        if (reply.sent) return;
      }
    }
    sendDenial(reply, denial, request.routeOptions.config.challenge?.(request));
  }
}

/** A denial as the HTTP answer: its status, challenge and body (src/views/authorization-refusals.ts). */
export function sendDenial(reply: FastifyReply, denial: Denial, extra?: string): FastifyReply {
  const answer = denialAnswer(denial, extra);
  if (answer.challenge !== undefined) reply.header('www-authenticate', answer.challenge);
  return reply.code(answer.status).send(answer.body);
}
