// The machine surfaces of the ROOT origin: contract, reference, pricing, offer, probes, and
// the cards agents read first. All read-only (405 on writes) and readable from any origin.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { DEMO_TOOLS } from '../../mcp/demo-server.ts';
import { ROOT_TOOLS } from '../../mcp/root-server.ts';
import { pricingDocument } from '../../public/pricing.ts';
import { probeSuiteJson, probeSuiteMarkdown } from '../../public/probes.ts';
import { agentsCard, type DoorTools, familyDocument, icpDocument, llmsTxt, offerStub } from '../../public/surfaces.ts';

const DOOR_TOOLS: DoorTools = { root: ROOT_TOOLS.map((tool) => tool.name), demo: DEMO_TOOLS.map((tool) => tool.name) };

import {
  AgentsCard,
  FamilyDocument,
  IcpDocument,
  OpenApiDocument,
  PricingDocumentSchema,
  ProbeSuite,
  text,
} from '../../schemas/machine.ts';
import { OfferEnvelope } from '../../schemas/root.ts';
import type { OpenApi } from '../contract.ts';
import { rootGet } from './root.ts';

/** Every operationId of the contract (D-32: one pricing row each). */
export function operationIds(openapi: OpenApi): string[] {
  const ids: string[] = [];
  for (const item of Object.values(openapi.paths ?? {})) {
    for (const op of Object.values(item)) if (op.operationId) ids.push(op.operationId);
  }
  return ids;
}

const VerifyQuery = Type.Object(
  { format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('markdown')])) },
  { additionalProperties: false },
);

export const machineRoutes: FastifyPluginAsync<{ dealPrefix: string; openapi: () => OpenApi }> = async (
  app,
  { dealPrefix, openapi },
) => {
  const route = (operationId: string, summary: string, description: string, response: Record<number, unknown>) => ({
    schema: { summary, description, operationId, tags: ['root'], response },
  });

  rootGet(
    app,
    '/openapi.json',
    route(
      'getOpenApi',
      'The OpenAPI 3.1 contract of both surfaces',
      'Generated from the same schemas that validate requests; every operation lists every status it answers.',
      { 200: OpenApiDocument },
    ),
    async () => openapi(),
  );
  rootGet(
    app,
    '/pricing',
    route(
      'getPricing',
      'The Pricing Document: free, not binding',
      'One rate row per operationId of the contract; a stated intent, not a binding price.',
      { 200: PricingDocumentSchema },
    ),
    async () => pricingDocument(operationIds(openapi())),
  );
  rootGet(
    app,
    '/offer',
    route(
      'getOffer',
      'A 402 OFFER stub: nothing is billable',
      'Always 402 Payment Required with an OFFER envelope showing the shape a real offer will take; nothing is for sale yet.',
      { 402: { ...Type.Ref(OfferEnvelope), description: 'Payment Required: the OFFER stub' } },
    ),
    async (_request, reply) => reply.code(402).send(offerStub()),
  );
  rootGet(
    app,
    '/family.json',
    route('getFamily', 'Sibling properties as typed edges', 'Every property of this origin with its relation.', {
      200: FamilyDocument,
    }),
    async () => familyDocument(),
  );
  rootGet(
    app,
    '/.well-known/agents.json',
    route(
      'getAgentsCard',
      'Capability card for agents',
      'What an agent can do here, where the contract and the MCP doors are, and how to authenticate (no keys yet).',
      { 200: AgentsCard },
    ),
    async () => agentsCard(dealPrefix, DOOR_TOOLS),
  );
  rootGet(
    app,
    '/icp.json',
    route('getIcp', 'Ideal customer profile', 'Who the service is for, by actor, with the reasons.', {
      200: IcpDocument,
    }),
    async () => icpDocument(),
  );
  rootGet(
    app,
    '/llms.txt',
    route('getLlmsTxt', 'llms.txt: what this service is, with links', 'Plain text for language models.', {
      200: text('text/plain', 'llms.txt'),
    }),
    async (_request, reply) => reply.type('text/plain; charset=utf-8').send(llmsTxt(dealPrefix, DOOR_TOOLS)),
  );
  rootGet(
    app,
    '/verify',
    {
      schema: {
        summary: 'The probe suite: markdown, or JSON for Accept: application/json or ?format=json',
        description:
          'Read-only probes every deployment must pass. Markdown by default; JSON for `Accept: application/json` ' +
          'or `?format=json` (the answer varies by Accept).',
        operationId: 'getVerify',
        tags: ['root'],
        querystring: VerifyQuery,
        response: {
          200: {
            description: 'The probe suite',
            content: { 'text/markdown': { schema: Type.String() }, 'application/json': { schema: ProbeSuite } },
          },
        },
      },
    },
    async (request, reply) => {
      const format = (request.query as { format?: string }).format;
      const wantsJson =
        format === 'json' || (format === undefined && (request.headers.accept ?? '').includes('application/json'));
      reply.header('vary', 'Accept');
      return wantsJson
        ? reply.type('application/json; charset=utf-8').send(probeSuiteJson())
        : reply.type('text/markdown; charset=utf-8').send(probeSuiteMarkdown());
    },
  );
};
