// The deal service under DEAL_PREFIX. Executors only propose; the service's gate decides.
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { errorResponses, IdParams, IfMatchHeaders } from '../../schemas/common.ts';
import {
  CreateDealBody,
  DealListQuery,
  DealSchema,
  ProposalBody,
  SettlementSchema,
  SignalsBody,
} from '../../schemas/deal.ts';
import { DryRunQuery, DryRunSchema } from '../../schemas/dry-run.ts';
import { DealOrEscalationSchema, EmptyBody, EscalationSchema } from '../../schemas/marketplace.ts';
import type { PipelineService } from '../../service/pipeline-service.ts';
import { etagOf, type WriteAnswers } from '../../views/answers.ts';
import { refusalBody, statusOf } from '../../views/errors.ts';
import { dealJson, dealView, settlementView } from '../../views/records.ts';
import { sendPage } from '../paging.ts';
import { dryRunnableRoute, writeRoute } from '../writes.ts';

type IdParam = { Params: Static<typeof IdParams> };
type DryRunnable = { Querystring: Static<typeof DryRunQuery> };
type Create = FastifyRequest<{ Body: Static<typeof CreateDealBody> } & DryRunnable>;
type OnDeal<B = undefined> = FastifyRequest<{ Params: Static<typeof IdParams>; Body: B }>;
type DryRunnableOnDeal<B> = FastifyRequest<{ Params: Static<typeof IdParams>; Body: B } & DryRunnable>;
/** With `?dryRun=true` a write answers 200 with what it would do (D-48). */
const DRY_RUN_200 = { 200: Type.Ref(DryRunSchema) };

export const dealRoutes: FastifyPluginAsync<{ service: PipelineService; answers: WriteAnswers }> = async (
  app,
  { service, answers },
) => {
  app.post(
    '/deals',
    {
      schema: {
        summary: 'Create a deal at sourced with a resolved mandate',
        operationId: 'createDeal',
        tags: ['deals'],
        querystring: DryRunQuery,
        body: CreateDealBody,
        response: { 201: Type.Ref(DealSchema), ...DRY_RUN_200, ...errorResponses(400, 422) },
      },
    },
    dryRunnableRoute(service, answers.createDeal, (request: Create, options) =>
      service.createDeal(request.body, options),
    ),
  );

  app.post(
    '/sell',
    {
      schema: {
        summary: 'Create a deal and let the agent advance it until it closes or escalates',
        operationId: 'sell',
        tags: ['deals'],
        querystring: DryRunQuery,
        body: CreateDealBody,
        response: { 201: DealOrEscalationSchema, ...DRY_RUN_200, ...errorResponses(400, 422) },
      },
    },
    dryRunnableRoute(service, answers.sell, (request: Create, options) => service.sell(request.body, options)),
  );

  app.get(
    '/deals',
    {
      schema: {
        summary: 'Deals of the demo store in id order, filtered, a page at a time',
        operationId: 'listDeals',
        tags: ['deals'],
        querystring: DealListQuery,
        response: { 200: Type.Array(Type.Ref(DealSchema)), ...errorResponses(400) },
      },
    },
    (request: FastifyRequest<{ Querystring: Static<typeof DealListQuery> }>, reply) => {
      const { limit: _limit, cursor: _cursor, ...filter } = request.query;
      return sendPage(
        request,
        reply,
        'deal',
        (afterId, limit) => service.listDeals({ ...filter, afterId, limit }),
        dealView,
      );
    },
  );

  app.get<IdParam>(
    '/deals/:id',
    {
      schema: {
        summary: 'A deal with its full activity log',
        operationId: 'getDeal',
        tags: ['deals'],
        params: IdParams,
        response: { 200: Type.Ref(DealSchema), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const result = await service.getDeal(request.params.id);
      if (!result.ok) return reply.code(statusOf(result.refusal)).send(refusalBody(result.refusal));
      return reply
        .header('etag', etagOf(result.value))
        .type('application/json; charset=utf-8')
        .send(dealJson(result.value));
    },
  );

  app.post(
    '/deals/:id/advance',
    {
      schema: {
        summary: 'Propose the next move; the gate commits it, refuses it, or the deal escalates to a human',
        operationId: 'advanceDeal',
        tags: ['deals'],
        params: IdParams,
        headers: IfMatchHeaders,
        querystring: DryRunQuery,
        body: ProposalBody,
        response: {
          200: {
            ...Type.Union([Type.Ref(DealSchema), Type.Ref(EscalationSchema), Type.Ref(DryRunSchema)]),
            type: 'object' as const,
            description:
              'The Deal, or the escalation {escalated: true, role, gig, suggestedClosers, deal}; with `?dryRun=true`, the `DryRun` of the move',
          },
          ...errorResponses(400, 404, 409, 412, 422),
        },
      },
    },
    dryRunnableRoute(
      service,
      answers.advanceDeal,
      (request: DryRunnableOnDeal<Static<typeof ProposalBody> | undefined>, options) =>
        service.advanceDeal(request.params.id, request.body ?? {}, options),
    ),
  );

  app.post(
    '/deals/:id/signals',
    {
      schema: {
        summary: 'Report discovered signals; gone_dark stalls the deal into the nurturer role',
        operationId: 'reportSignals',
        tags: ['deals'],
        params: IdParams,
        headers: IfMatchHeaders,
        body: SignalsBody,
        response: { 200: Type.Ref(DealSchema), ...errorResponses(400, 404, 409, 412) },
      },
    },
    writeRoute(service, answers.reportSignals, (request: OnDeal<Static<typeof SignalsBody>>, options) =>
      service.reportSignals(request.params.id, request.body.signals, options),
    ),
  );

  app.get<IdParam>(
    '/deals/:id/settlement',
    {
      schema: {
        summary: 'Settlement of a closed_won deal',
        operationId: 'getSettlement',
        tags: ['deals'],
        params: IdParams,
        response: { 200: Type.Ref(SettlementSchema), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const result = await service.settlement(request.params.id);
      if (!result.ok) return reply.code(statusOf(result.refusal)).send(refusalBody(result.refusal));
      return settlementView(result.value);
    },
  );

  app.post(
    '/deals/:id/reengage',
    {
      schema: {
        summary: 'Open a new deal from a closed_lost one, with lineage',
        operationId: 'reengageDeal',
        tags: ['deals'],
        params: IdParams,
        headers: IfMatchHeaders,
        body: EmptyBody,
        response: { 201: Type.Ref(DealSchema), ...errorResponses(400, 404, 409, 412) },
      },
    },
    writeRoute(service, answers.reengageDeal, (request: OnDeal, options) =>
      service.reengage(request.params.id, options),
    ),
  );

  app.post(
    '/deals/:id/deescalate',
    {
      schema: {
        summary: "The Seller's way off the human track",
        operationId: 'deescalateDeal',
        tags: ['deals'],
        params: IdParams,
        headers: IfMatchHeaders,
        body: EmptyBody,
        response: { 200: Type.Ref(DealSchema), ...errorResponses(400, 404, 409, 412) },
      },
    },
    writeRoute(service, answers.deescalateDeal, (request: OnDeal, options) =>
      service.deescalate(request.params.id, options),
    ),
  );
};
