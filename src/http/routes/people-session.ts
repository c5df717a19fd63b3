// A person's own account in keys mode (D-63): accepting an invitation (which signs the person in),
// asking for a password reset (202 whether or not the email is a person's) and confirming it.
// Open routes: the token or the email is the credential. The sign-in by password itself is
// `POST /console/session` (console-session.ts), which uses `signInWithPassword` below.
import fastifyCookie from '@fastify/cookie';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Refusal } from '../../domain/refusal.ts';
import { errorResponses, NoQuery } from '../../schemas/common.ts';
import { AcceptBody, ResetRequestBody, UserSchema } from '../../schemas/users.ts';
import { HasherBusyError } from '../../service/passwords.ts';
import type { PipelineService } from '../../service/pipeline-service.ts';
import type { Result } from '../../service/result.ts';
import { refusalBody, statusOf } from '../../views/errors.ts';
import { userView } from '../../views/users.ts';
import { SESSION_SECONDS, servedOverHttps, sessionCookieName } from '../console-session.ts';

/** A refusal as the answer, with Retry-After when it says when to try again (a locked email). */
export function sendRefusal(reply: FastifyReply, refusal: Refusal): FastifyReply {
  if (refusal.retryAfterSeconds !== undefined) reply.header('retry-after', String(refusal.retryAfterSeconds));
  return reply.code(statusOf(refusal)).send(refusalBody(refusal));
}

/** Thrown by a password check that found the line of waiting hashes full (answered 503 STORE_BUSY). */
class Busy extends Error {}

/** The service's password work, its line full answered as busy rather than waited for without bound. */
async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HasherBusyError) throw new Busy();
    throw error;
  }
}

export function signInWithPassword(service: PipelineService, email: string, password: string) {
  return guarded(() => service.people.signIn(email, password)).catch(busyAnswer);
}

/** 503 with Retry-After, as a store that is busy answers (the error handler sends it). */
function busyAnswer(error: unknown): Result<never> {
  if (!(error instanceof Busy)) throw error;
  throw Object.assign(new Error('Too many password checks are waiting: try again in a second.'), {
    statusCode: 503,
    code: 'STORE_BUSY',
  });
}

const Accepted = Type.Object(
  { user: UserSchema },
  { additionalProperties: false, description: 'The person, now with a password' },
);

export const peopleSessionRoutes: FastifyPluginAsync<{ service: PipelineService }> = async (app, { service }) => {
  await app.register(fastifyCookie, { hook: false });
  const config = { access: 'open' as const };
  const tags = ['accounts'];
  // The link's origin (PUBLIC_URL, when set, is the service's to choose over it).
  const origin = (request: FastifyRequest) => `${servedOverHttps(request) ? 'https' : 'http'}://${request.host}`;

  app.post<{ Body: Static<typeof AcceptBody> }>(
    '/users/accept',
    {
      config,
      schema: {
        summary: "Accept an invitation: set the person's password; the answer signs the console in (keys mode)",
        description:
          "The token is the invitation link's (`/console/#/accept/<token>`), good once, for 72 hours (else 400 TOKEN_INVALID). The password is 12 to 256 characters and must not contain the part of the email before the @ (400 WEAK_PASSWORD). The answer sets the console's session cookie, as `POST /console/session` does.",
        operationId: 'acceptInvitation',
        tags,
        querystring: NoQuery,
        body: AcceptBody,
        response: { 200: Accepted, ...errorResponses(400, 503) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const result = await guarded(() => service.people.accept(request.body.token, request.body.password)).catch(
        busyAnswer,
      );
      if (!result.ok) return sendRefusal(reply, result.refusal);
      const https = servedOverHttps(request);
      reply.setCookie(sessionCookieName(https), result.value.session.value, {
        httpOnly: true,
        sameSite: 'strict',
        path: '/',
        secure: https,
        maxAge: SESSION_SECONDS,
      });
      return reply.send({ user: userView(result.value.user) });
    },
  );

  app.post<{ Body: Static<typeof ResetRequestBody> }>(
    '/users/password-reset',
    {
      config,
      schema: {
        summary: 'Ask for a password reset link by mail (keys mode)',
        description:
          'Answers 202 whether or not the email is a person’s, so the answer tells no one; when it is an enabled person’s, a link good once, for 1 hour, is mailed (`/console/#/reset/<token>`).',
        operationId: 'requestPasswordReset',
        tags,
        querystring: NoQuery,
        body: ResetRequestBody,
        response: {
          202: Type.Object({ accepted: Type.Literal(true) }, { additionalProperties: false }),
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      await service.people.requestReset(request.body.email, origin(request));
      return reply.code(202).send({ accepted: true });
    },
  );

  app.post<{ Body: Static<typeof AcceptBody> }>(
    '/users/password-reset/confirm',
    {
      config,
      schema: {
        summary: 'Set a new password with a reset link’s token; every session of the person ends (keys mode)',
        description:
          'The token is good once, for 1 hour (else 400 TOKEN_INVALID); the password follows the invitation’s rule (400 WEAK_PASSWORD). The person then signs in with it.',
        operationId: 'confirmPasswordReset',
        tags,
        querystring: NoQuery,
        body: AcceptBody,
        response: { 200: Accepted, ...errorResponses(400, 503) },
      },
    },
    async (request, reply) => {
      const result = await guarded(() => service.people.confirmReset(request.body.token, request.body.password)).catch(
        busyAnswer,
      );
      if (!result.ok) return sendRefusal(reply, result.refusal);
      return reply.send({ user: userView(result.value.user) });
    },
  );
};
