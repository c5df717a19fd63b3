// The deal service under DEAL_PREFIX. Executors only propose; the service's gate decides.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { ProposalInput } from '../../domain/commands.ts';
import type { Account } from '../../domain/records.ts';
import type { AdvanceOutcome, PipelineService } from '../../service/pipeline-service.ts';
import { sendRefusal } from '../errors.ts';
import { errorResponses, IdParams } from '../schemas/common.ts';
import { CreateDealBody, DealSchema, ProposalBody, SettlementSchema, SignalsBody } from '../schemas/deal.ts';
import { EmptyBody, EscalationSchema } from '../schemas/marketplace.ts';
import { dealJson, dealView, escalationView, settlementView } from '../views.ts';

type CreateDealInput = { account: Account; listValueUsd: number; mandate?: unknown };
type IdParam = { Params: { id: string } };

const DealOrEscalation = Type.Union([Type.Ref(DealSchema), Type.Ref(EscalationSchema)]);

const outcomeView = (outcome: AdvanceOutcome) =>
  outcome.kind === 'deal' ? dealView(outcome.deal) : escalationView(outcome.escalation);

export const dealRoutes: FastifyPluginAsync<{ service: PipelineService }> = async (app, { service }) => {
  app.post<{ Body: CreateDealInput }>(
    '/deals',
    {
      schema: {
        summary: 'Create a deal at sourced with a resolved mandate',
        operationId: 'createDeal',
        tags: ['deals'],
        body: CreateDealBody,
        response: { 201: Type.Ref(DealSchema), ...errorResponses(400, 422) },
      },
    },
    async (request, reply) => {
      const result = await service.createDeal(request.body);
      if (!result.ok) return sendRefusal(reply, result.refusal);
      return reply.code(201).send(dealView(result.value));
    },
  );

  app.post<{ Body: CreateDealInput }>(
    '/sell',
    {
      schema: {
        summary: 'Create a deal and let the agent advance it until it closes or escalates',
        operationId: 'sell',
        tags: ['deals'],
        body: CreateDealBody,
        response: { 201: DealOrEscalation, ...errorResponses(400, 422) },
      },
    },
    async (request, reply) => {
      const result = await service.sell(request.body);
      if (!result.ok) return sendRefusal(reply, result.refusal);
      return reply.code(201).send(outcomeView(result.value));
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
      if (!result.ok) return sendRefusal(reply, result.refusal);
      return reply.type('application/json; charset=utf-8').send(dealJson(result.value));
    },
  );

  app.post<IdParam & { Body: ProposalInput | undefined }>(
    '/deals/:id/advance',
    {
      schema: {
        summary: 'Propose the next move; the gate commits it, refuses it, or the deal escalates to a human',
        operationId: 'advanceDeal',
        tags: ['deals'],
        params: IdParams,
        body: ProposalBody,
        response: { 200: DealOrEscalation, ...errorResponses(400, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const result = await service.advanceDeal(request.params.id, request.body ?? {});
      if (!result.ok) return sendRefusal(reply, result.refusal);
      return outcomeView(result.value);
    },
  );

  app.post<IdParam & { Body: { signals: string[] } }>(
    '/deals/:id/signals',
    {
      schema: {
        summary: 'Report discovered signals; gone_dark stalls the deal into the nurturer role',
        operationId: 'reportSignals',
        tags: ['deals'],
        params: IdParams,
        body: SignalsBody,
        response: { 200: Type.Ref(DealSchema), ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) => {
      const result = await service.reportSignals(request.params.id, request.body.signals);
      if (!result.ok) return sendRefusal(reply, result.refusal);
      return dealView(result.value);
    },
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
      if (!result.ok) return sendRefusal(reply, result.refusal);
      return settlementView(result.value);
    },
  );

  app.post<IdParam>(
    '/deals/:id/reengage',
    {
      schema: {
        summary: 'Open a new deal from a closed_lost one, with lineage',
        operationId: 'reengageDeal',
        tags: ['deals'],
        params: IdParams,
        body: EmptyBody,
        response: { 201: Type.Ref(DealSchema), ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) => {
      const result = await service.reengage(request.params.id);
      if (!result.ok) return sendRefusal(reply, result.refusal);
      return reply.code(201).send(dealView(result.value));
    },
  );

  app.post<IdParam>(
    '/deals/:id/deescalate',
    {
      schema: {
        summary: "The Seller's way off the human track (D-12)",
        operationId: 'deescalateDeal',
        tags: ['deals'],
        params: IdParams,
        body: EmptyBody,
        response: { 200: Type.Ref(DealSchema), ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) => {
      const result = await service.deescalate(request.params.id);
      if (!result.ok) return sendRefusal(reply, result.refusal);
      return dealView(result.value);
    },
  );
};
