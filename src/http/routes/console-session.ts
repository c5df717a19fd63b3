// The console's sign-in in keys mode (D-59, D-232..D-234): `POST /console/session {key}` trades a
// key for a session cookie (the key travels in this body only, once), `GET /console/session`
// says whose session the cookie is, and `POST /console/session/end` ends it. Keys mode only: in
// the demo these are not routes. The cookie authenticates the API's routes (authenticate.ts);
// these routes serve no one whose `Origin` is another page's, listed in ALLOWED_ORIGINS or not.
import fastifyCookie from '@fastify/cookie';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type Caller, OPERATOR } from '../../domain/access.ts';
import { authorize, type Credential } from '../../domain/authorization.ts';
import { refuse } from '../../domain/refusal.ts';
import { errorResponses, NoQuery, Timestamp } from '../../schemas/common.ts';
import { EmptyBody } from '../../schemas/marketplace.ts';
import { PasswordSignInBody, RoleSchema } from '../../schemas/users.ts';
import type { PipelineService } from '../../service/pipeline-service.ts';
import { sendDenial } from '../authenticate.ts';
import {
  type ConsoleSessions,
  isOwnOrigin,
  SESSION_SECONDS,
  type SessionCheck,
  servedOverHttps,
  sessionCookieName,
} from '../console-session.ts';
import { sendRefusal, signInWithPassword } from './people-session.ts';

const KeySignInBody = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'an API key (`sp_op_`, `sp_sk_` or `sp_ck_` and 43 characters, or OPERATOR_KEY)',
    }),
  },
  { additionalProperties: false },
);

/** D-63: a person signs in with an email and a password; a key still signs in (D-59). */
const SignInBody = Type.Union([PasswordSignInBody, KeySignInBody], {
  examples: [{ email: 'dana@acme-robotics.example', password: 'correct horse battery staple' }],
});

const ConsoleSessionSchema = Type.Object(
  {
    principal: Type.String({ description: '`operator`, a Seller id or a closer id' }),
    kind: Type.Union([Type.Literal('operator'), Type.Literal('seller'), Type.Literal('closer')]),
    name: Type.String({ description: "the Seller's or the closer's name, or `Operator`" }),
    keyId: Type.Optional(Type.String({ description: 'the key the session was signed in with (absent for a person)' })),
    user: Type.Optional(
      Type.Object(
        {
          id: Type.String({ description: '`usr_<NNNN>`' }),
          name: Type.String(),
          email: Type.String(),
          role: RoleSchema,
        },
        { additionalProperties: false, description: 'the person signed in (D-62): absent for a key' },
      ),
    ),
    scopes: Type.Array(Type.String(), {
      description: "the key's or the person's role's scopes: what the session may do",
    }),
    expiresAt: { ...Timestamp, description: 'when the session ends by itself (12 hours after sign-in)' },
  },
  { additionalProperties: false, description: 'Who the console is signed in as' },
);
type ConsoleSession = Static<typeof ConsoleSessionSchema>;

export const consoleSessionRoutes: FastifyPluginAsync<{ service: PipelineService; sessions: ConsoleSessions }> = async (
  app,
  { service, sessions },
) => {
  // Registered here, inside this plugin: its hooks run on these three routes only, and no other
  // request pays for them (authenticate.ts reads the cookie only for a request without a key).
  await app.register(fastifyCookie, { hook: false });
  sessions.parseCookie = (header) => app.parseCookie(header);

  // D-78: Path=/ and no Domain, as a `__Host-` cookie must have (and the plain one has too).
  const cookieOptions = (request: FastifyRequest) =>
    ({ httpOnly: true, sameSite: 'strict', path: '/', secure: servedOverHttps(request) }) as const;
  const cookieName = (request: FastifyRequest) => sessionCookieName(servedOverHttps(request));
  const cookieValue = (request: FastifyRequest) => sessions.valueIn(request.headers.cookie, servedOverHttps(request));

  /** D-59: another page's request is refused here, whatever ALLOWED_ORIGINS lists. */
  const foreign = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const origin = request.headers.origin;
    if (origin === undefined || isOwnOrigin(origin, request.headers.host)) return false;
    const standing = { ok: false, reason: 'absent' } as const;
    const decided = authorize({ kind: 'session', standing, ownOrigin: false }, 'key');
    if (!decided.ok) sendDenial(reply, decided.denial);
    return true;
  };

  const body = async (caller: Caller, expiresAt: number): Promise<ConsoleSession> => {
    let name = 'Operator';
    if (caller.kind === 'seller') {
      const seller = await service.queries.getSeller(caller.principal, caller);
      name = seller.ok ? seller.value.name : caller.principal;
    } else if (caller.kind === 'closer') {
      const closer = await service.queries.getCloser(caller.principal, caller);
      name = closer.ok ? closer.value.closer.name : caller.principal;
    }
    const answer: ConsoleSession = {
      principal: caller.principal === OPERATOR ? OPERATOR : caller.principal,
      kind: caller.kind,
      name,
      scopes: [...caller.scopes],
      expiresAt: new Date(expiresAt).toISOString(),
    };
    if (caller.userId !== undefined) {
      const user = await service.people.getUser(caller.userId, caller);
      if (user.ok) {
        const { id, name: person, email, role } = user.value;
        answer.user = { id, name: person, email, role };
      }
    } else answer.keyId = caller.keyId;
    return answer;
  };

  const config = { access: 'open' as const };
  const tags = ['console'];

  app.post<{ Body: Static<typeof SignInBody> }>(
    '/console/session',
    {
      config,
      schema: {
        summary:
          "Sign the console in, a person with an email and a password or anyone with a key: the answer sets the session's cookie (keys mode)",
        description:
          'A person: `{email, password}`; a wrong password, an unknown email and a disabled person all answer 401 INVALID_CREDENTIALS, in the same time, and ten failures for one email within 15 minutes lock it for 15 minutes (429 TOO_MANY_ATTEMPTS with Retry-After) on every instance. A key: `{key}`. The key or password travels in this body only; the answer sets `sp_console` (over https `__Host-sp_console`, Secure), an HttpOnly, SameSite=Strict cookie with Path=/ good for 12 hours, which holds no key: a random token the service keeps only as its SHA-256. Signing out ends it on every instance within 5 s. A request that carries the cookie and no `Authorization` is authenticated as the key, with its scopes, as long as the key is live; one from another origin is refused whatever its method.',
        operationId: 'signInConsole',
        tags,
        querystring: NoQuery,
        body: SignInBody,
        response: { 200: ConsoleSessionSchema, ...errorResponses(400, 401, 403, 429, 503) },
      },
    },
    async (request, reply) => {
      if (foreign(request, reply)) return reply;
      reply.header('cache-control', 'no-store');
      if ('email' in request.body) {
        // D-63: a person; every refusal is INVALID_CREDENTIALS (or the lock's 429), nothing more.
        const signedIn = await signInWithPassword(service, request.body.email, request.body.password);
        if (!signedIn.ok) return sendRefusal(reply, signedIn.refusal);
        const { session } = signedIn.value;
        reply.setCookie(cookieName(request), session.value, { ...cookieOptions(request), maxAge: SESSION_SECONDS });
        const check = await sessions.check(session.value);
        if (!check.ok) return sendRefusal(reply, refuse.credentials());
        return reply.send(await body(check.caller, session.expiresAt));
      }
      const found = await service.keyRing?.authenticate(request.body.key);
      const decided = authorize({ kind: 'key', caller: found?.ok ? found.caller : undefined }, 'key');
      if (!decided.ok) return sendDenial(reply, decided.denial);
      const session = await sessions.issue(decided.caller);
      reply.setCookie(cookieName(request), session.value, { ...cookieOptions(request), maxAge: SESSION_SECONDS });
      return reply.send(await body(decided.caller, session.expiresAt));
    },
  );

  app.get(
    '/console/session',
    {
      config,
      schema: {
        summary: "Who the console's session is signed in as (keys mode)",
        operationId: 'getConsoleSession',
        tags,
        querystring: NoQuery,
        response: { 200: ConsoleSessionSchema, ...errorResponses(401, 403) },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      if (foreign(request, reply)) return reply;
      const value = cookieValue(request);
      const check = value === undefined ? undefined : await sessions.check(value);
      reply.header('cache-control', 'no-store');
      const credential: Credential = {
        kind: 'session',
        standing: check ?? { ok: false, reason: 'absent' },
        ownOrigin: true,
      };
      const decided = authorize(credential, 'key');
      if (!decided.ok) return sendDenial(reply, decided.denial);
      // A session that stands is what let it through.
      const { session } = check as Extract<SessionCheck, { ok: true }>;
      return reply.send(await body(decided.caller, session.expiresAt));
    },
  );

  app.post(
    '/console/session/end',
    {
      config,
      schema: {
        summary: 'Sign the console out: its session ends, and the answer clears the cookie (keys mode)',
        operationId: 'endConsoleSession',
        tags,
        querystring: NoQuery,
        body: EmptyBody,
        response: {
          204: Type.Null({ description: 'Signed out (also when no session was open)' }),
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      if (foreign(request, reply)) return reply;
      const value = cookieValue(request);
      const check = value === undefined ? undefined : await sessions.check(value);
      // D-63: ended in the store, so every instance refuses it within 5 s.
      if (check?.ok) await sessions.end(check.session);
      reply.clearCookie(cookieName(request), cookieOptions(request));
      return reply.code(204).send();
    },
  );
};
