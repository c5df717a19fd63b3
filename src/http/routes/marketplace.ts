// The closer marketplace under /closers. A contractor's moves only propose to the deal's gate.
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { errorResponses, IdParams, IfMatchHeaders } from '../../schemas/common.ts';
import { DryRunQuery, DryRunSchema } from '../../schemas/dry-run.ts';
import {
  ClaimBody,
  CloserListQuery,
  CloserSchema,
  EmptyBody,
  EnrolBody,
  GigAdvanceBody,
  GigListQuery,
  GigOutcomeSchema,
  GigSchema,
  MatchBody,
  MatchSchema,
  ReleaseBody,
  ReviveBody,
} from '../../schemas/marketplace.ts';
import type { PipelineService } from '../../service/pipeline-service.ts';
import type { WriteAnswers } from '../../views/answers.ts';
import { refusalBody, statusOf } from '../../views/errors.ts';
import { closerView, gigView } from '../../views/records.ts';
import { sendPage } from '../paging.ts';
import { dryRunnableRoute, writeRoute } from '../writes.ts';

type IdParam = { Params: Static<typeof IdParams> };
type OnGig<B> = FastifyRequest<{ Params: Static<typeof IdParams>; Body: B }>;
type DryRunnableOnGig<B> = FastifyRequest<{
  Params: Static<typeof IdParams>;
  Body: B;
  Querystring: Static<typeof DryRunQuery>;
}>;

export const marketplaceRoutes: FastifyPluginAsync<{ service: PipelineService; answers: WriteAnswers }> = async (
  app,
  { service, answers },
) => {
  app.post(
    '/closers',
    {
      schema: {
        summary: 'Enrol a closer with a fresh Register and an empty ledger',
        operationId: 'enrolCloser',
        tags: ['marketplace'],
        body: EnrolBody,
        response: { 201: Type.Ref(CloserSchema), ...errorResponses(400) },
      },
    },
    writeRoute(service, answers.enrolCloser, (request: FastifyRequest<{ Body: Static<typeof EnrolBody> }>, options) =>
      service.enrolCloser({ name: request.body.name, industries: request.body.industries ?? [] }, options),
    ),
  );

  app.get(
    '/closers',
    {
      schema: {
        summary: 'Enrolled closers in id order, a page at a time',
        operationId: 'listClosers',
        tags: ['marketplace'],
        querystring: CloserListQuery,
        response: { 200: Type.Array(Type.Ref(CloserSchema)), ...errorResponses(400) },
      },
    },
    (request: FastifyRequest<{ Querystring: Static<typeof CloserListQuery> }>, reply) =>
      sendPage(
        request,
        reply,
        'closer',
        (afterId, limit) => service.listClosers({ afterId, limit }),
        closerView,
        (c) => c.closer.id,
      ),
  );

  app.get<IdParam>(
    '/closers/:id',
    {
      schema: {
        summary: 'One closer with Register and payouts ledger',
        operationId: 'getCloser',
        tags: ['marketplace'],
        params: IdParams,
        response: { 200: Type.Ref(CloserSchema), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const result = await service.getCloser(request.params.id);
      if (!result.ok) return reply.code(statusOf(result.refusal)).send(refusalBody(result.refusal));
      return closerView(result.value);
    },
  );

  app.post(
    '/match',
    {
      schema: {
        summary: 'Rank every closer by industry fit, win rate, closed volume',
        operationId: 'matchClosers',
        tags: ['marketplace'],
        body: MatchBody,
        response: { 200: Type.Array(MatchSchema), ...errorResponses(400) },
      },
    },
    writeRoute(service, answers.matchClosers, (request: FastifyRequest<{ Body: Static<typeof MatchBody> }>, options) =>
      service.match(request.body.industry, request.body.limit, options),
    ),
  );

  app.get(
    '/gigs',
    {
      schema: {
        summary: 'Gigs in id order, filtered by status, role, deal or closer, a page at a time',
        operationId: 'listGigs',
        tags: ['marketplace'],
        querystring: GigListQuery,
        response: { 200: Type.Array(Type.Ref(GigSchema)), ...errorResponses(400) },
      },
    },
    (request: FastifyRequest<{ Querystring: Static<typeof GigListQuery> }>, reply) => {
      const { limit: _limit, cursor: _cursor, ...filter } = request.query;
      return sendPage(
        request,
        reply,
        'gig',
        (afterId, limit) => service.listGigs({ ...filter, afterId, limit }),
        gigView,
      );
    },
  );

  app.get<IdParam>(
    '/gigs/:id',
    {
      schema: {
        summary: 'One gig',
        operationId: 'getGig',
        tags: ['marketplace'],
        params: IdParams,
        response: { 200: Type.Ref(GigSchema), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const result = await service.getGig(request.params.id);
      if (!result.ok) return reply.code(statusOf(result.refusal)).send(refusalBody(result.refusal));
      return gigView(result.value);
    },
  );

  app.post(
    '/gigs/:id/claim',
    {
      schema: {
        summary: 'Claim an open gig for a closer; 409 unless open',
        operationId: 'claimGig',
        tags: ['marketplace'],
        params: IdParams,
        headers: IfMatchHeaders,
        body: ClaimBody,
        response: { 200: GigOutcomeSchema, ...errorResponses(400, 404, 409, 412) },
      },
    },
    writeRoute(service, answers.claimGig, (request: OnGig<Static<typeof ClaimBody>>, options) =>
      service.claimGig(request.params.id, request.body.closerId, options),
    ),
  );

  app.post(
    '/gigs/:id/advance',
    {
      schema: {
        summary: "Propose a move of the gig's deal to the gate",
        operationId: 'advanceGig',
        tags: ['marketplace'],
        params: IdParams,
        headers: IfMatchHeaders,
        querystring: DryRunQuery,
        body: GigAdvanceBody,
        response: {
          200: Type.Union([GigOutcomeSchema, Type.Ref(DryRunSchema)], {
            description: 'The gig and its deal after the move; with `?dryRun=true`, the `DryRun` of it',
          }),
          ...errorResponses(400, 404, 409, 412, 422),
        },
      },
    },
    dryRunnableRoute(service, answers.advanceGig, (request: DryRunnableOnGig<Static<typeof GigAdvanceBody>>, options) =>
      service.advanceGig(request.params.id, request.body, options),
    ),
  );

  app.post(
    '/gigs/:id/revive',
    {
      schema: {
        summary: 'A nurturer revives a stalled deal: gone_dark cleared, fee paid',
        operationId: 'reviveGig',
        tags: ['marketplace'],
        params: IdParams,
        headers: IfMatchHeaders,
        body: ReviveBody,
        response: { 200: GigOutcomeSchema, ...errorResponses(400, 404, 409, 412) },
      },
    },
    writeRoute(service, answers.reviveGig, (request: OnGig<Static<typeof ReviveBody> | undefined>, options) =>
      service.clearGoneDark(request.params.id, request.body ?? {}, options),
    ),
  );

  app.post(
    '/gigs/:id/release',
    {
      schema: {
        summary: 'Withdraw an open or claimed gig; the deal returns to matching',
        operationId: 'releaseGig',
        tags: ['marketplace'],
        params: IdParams,
        headers: IfMatchHeaders,
        body: ReleaseBody,
        response: { 200: Type.Ref(GigSchema), ...errorResponses(400, 404, 409, 412) },
      },
    },
    writeRoute(service, answers.releaseGig, (request: OnGig<Static<typeof ReleaseBody> | undefined>, options) =>
      service.releaseGig(request.params.id, request.body?.closerId, options),
    ),
  );

  app.post(
    '/gigs/:id/expire',
    {
      schema: {
        summary: 'Platform-owned expiry: the claimed gig reopens to the pool',
        operationId: 'expireGig',
        tags: ['marketplace'],
        params: IdParams,
        headers: IfMatchHeaders,
        body: EmptyBody,
        response: { 200: Type.Ref(GigSchema), ...errorResponses(400, 404, 409, 412) },
      },
    },
    writeRoute(service, answers.expireGig, (request: OnGig<undefined>, options) =>
      service.reopenGig(request.params.id, options),
    ),
  );
};
