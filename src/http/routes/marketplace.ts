// The closer marketplace under /closers. A contractor's moves only propose to the deal's gate.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { GigStatus } from '../../domain/records.ts';
import type { GigOutcome, PipelineService, Result } from '../../service/pipeline-service.ts';
import { type ReplyLike, sendRefusal } from '../errors.ts';
import { errorResponses, IdParams } from '../schemas/common.ts';
import {
  ClaimBody,
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
} from '../schemas/marketplace.ts';
import { closerView, gigOutcomeView, gigView, matchView } from '../views.ts';

type IdParam = { Params: { id: string } };

export const marketplaceRoutes: FastifyPluginAsync<{ service: PipelineService }> = async (app, { service }) => {
  app.post<{ Body: { name: string; industries?: string[] } }>(
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
    async (request, reply) => {
      const { name, industries = [] } = request.body;
      const result = await service.enrolCloser({ name, industries });
      if (!result.ok) return sendRefusal(reply, result.refusal);
      return reply.code(201).send(closerView(result.value));
    },
  );

  app.get(
    '/closers',
    {
      schema: {
        summary: 'Every enrolled closer',
        operationId: 'listClosers',
        tags: ['marketplace'],
        response: { 200: Type.Array(Type.Ref(CloserSchema)) },
      },
    },
    async () => (await service.listClosers()).map(closerView),
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
      if (!result.ok) return sendRefusal(reply, result.refusal);
      return closerView(result.value);
    },
  );

  app.post<{ Body: { industry: string; valueUsd: number; role: string } }>(
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
    async (request) => (await service.match(request.body.industry)).map(matchView),
  );

  app.get<{ Querystring: { status?: GigStatus } }>(
    '/gigs',
    {
      schema: {
        summary: 'Gigs, optionally of one status',
        operationId: 'listGigs',
        tags: ['marketplace'],
        querystring: GigListQuery,
        response: { 200: Type.Array(Type.Ref(GigSchema)), ...errorResponses(400) },
      },
    },
    async (request) => (await service.listGigs(request.query.status)).map(gigView),
  );

  const answer = (reply: ReplyLike, result: Result<GigOutcome>, view: (o: GigOutcome) => unknown = gigOutcomeView) => {
    if (!result.ok) return sendRefusal(reply, result.refusal);
    return reply.send(view(result.value));
  };

  app.post<IdParam & { Body: { closerId: string } }>(
    '/gigs/:id/claim',
    {
      schema: {
        summary: 'Claim an open gig for a closer; 409 unless open',
        operationId: 'claimGig',
        tags: ['marketplace'],
        params: IdParams,
        body: ClaimBody,
        response: { 200: GigOutcomeSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) => answer(reply, await service.claimGig(request.params.id, request.body.closerId)),
  );

  app.post<IdParam & { Body: { advanceTo: string; valueUsd?: number; note?: string; closerId?: string } }>(
    '/gigs/:id/advance',
    {
      schema: {
        summary: "Propose a move of the gig's deal to the gate",
        operationId: 'advanceGig',
        tags: ['marketplace'],
        params: IdParams,
        body: GigAdvanceBody,
        response: { 200: GigOutcomeSchema, ...errorResponses(400, 404, 409, 422) },
      },
    },
    async (request, reply) => answer(reply, await service.advanceGig(request.params.id, request.body)),
  );

  app.post<IdParam & { Body: { note?: string; closerId?: string } | undefined }>(
    '/gigs/:id/revive',
    {
      schema: {
        summary: 'A nurturer revives a stalled deal: gone_dark cleared, fee paid',
        operationId: 'reviveGig',
        tags: ['marketplace'],
        params: IdParams,
        body: ReviveBody,
        response: { 200: GigOutcomeSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) => answer(reply, await service.reviveGig(request.params.id, request.body ?? {})),
  );

  app.post<IdParam & { Body: { closerId?: string } | undefined }>(
    '/gigs/:id/release',
    {
      schema: {
        summary: 'Withdraw an open or claimed gig; the deal returns to matching',
        operationId: 'releaseGig',
        tags: ['marketplace'],
        params: IdParams,
        body: ReleaseBody,
        response: { 200: Type.Ref(GigSchema), ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) =>
      answer(reply, await service.releaseGig(request.params.id, request.body?.closerId), (o) => gigView(o.gig)),
  );

  app.post<IdParam>(
    '/gigs/:id/expire',
    {
      schema: {
        summary: 'Platform-owned expiry: the claimed gig reopens to the pool',
        operationId: 'expireGig',
        tags: ['marketplace'],
        params: IdParams,
        body: EmptyBody,
        response: { 200: Type.Ref(GigSchema), ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) => answer(reply, await service.expireGig(request.params.id), (o) => gigView(o.gig)),
  );
};
