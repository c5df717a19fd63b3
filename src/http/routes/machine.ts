// The machine surfaces of the ROOT origin: contract, reference, pricing, offer, probes, and
// the cards agents read first. All read-only (405 on writes) and readable from any origin.
import type { FastifyPluginAsync } from 'fastify';
import { renderDocs } from '../../root/docs-html.ts';
import { pricingDocument } from '../../root/pricing.ts';
import { probeSuiteJson, probeSuiteMarkdown } from '../../root/probes.ts';
import { agentsCard, familyDocument, icpDocument, llmsTxt, offerStub } from '../../root/surfaces.ts';
import { OPTIONAL_BODY } from '../../schemas/common.ts';
import { rootGet } from './root.ts';

type Operation = {
  operationId?: string;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Record<string, unknown> }> };
};
type OpenApi = { paths?: Record<string, Record<string, Operation>> } & Record<string, unknown>;

/**
 * @fastify/swagger marks every request body `required: true`, but a body marked optional
 * (x-optional-body) may be left out altogether: the contract says so, or a client generated
 * from it would be made to send one.
 */
export function withOptionalBodies(openapi: OpenApi): OpenApi {
  const copy = structuredClone(openapi);
  for (const item of Object.values(copy.paths ?? {})) {
    for (const op of Object.values(item)) {
      const body = op.requestBody;
      const optional = Object.values(body?.content ?? {}).some((media) => media.schema?.[OPTIONAL_BODY] === true);
      if (body && optional) body.required = false;
    }
  }
  return copy;
}

/** Every operationId of the contract (D-32: one pricing row each). */
export function operationIds(openapi: OpenApi): string[] {
  const ids: string[] = [];
  for (const item of Object.values(openapi.paths ?? {})) {
    for (const op of Object.values(item)) if (op.operationId) ids.push(op.operationId);
  }
  return ids;
}

export const machineRoutes: FastifyPluginAsync<{ dealPrefix: string; openapi: () => OpenApi }> = async (
  app,
  { dealPrefix, openapi: generated },
) => {
  let contract: OpenApi | undefined;
  const openapi = () => {
    contract ??= withOptionalBodies(generated());
    return contract;
  };
  const json = (summary: string, operationId: string) => ({ schema: { summary, operationId, tags: ['root'] } });

  rootGet(app, '/openapi.json', json('The OpenAPI 3.1 contract of both surfaces', 'getOpenApi'), async () => openapi());
  rootGet(app, '/docs', json('HTML API reference rendered from the contract', 'getDocs'), async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(renderDocs(openapi())),
  );
  rootGet(app, '/pricing', json('The Pricing Document: free, not binding', 'getPricing'), async () =>
    pricingDocument(operationIds(openapi())),
  );
  rootGet(app, '/offer', json('A 402 OFFER stub: nothing is billable', 'getOffer'), async (_request, reply) =>
    reply.code(402).send(offerStub()),
  );
  rootGet(app, '/family.json', json('Sibling properties as typed edges', 'getFamily'), async () => familyDocument());
  rootGet(app, '/.well-known/agents.json', json('Capability card for agents', 'getAgentsCard'), async () =>
    agentsCard(dealPrefix),
  );
  rootGet(app, '/icp.json', json('Ideal customer profile', 'getIcp'), async () => icpDocument());
  rootGet(app, '/llms.txt', json('llms.txt: what this service is, with links', 'getLlmsTxt'), async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send(llmsTxt(dealPrefix)),
  );
  rootGet(
    app,
    '/verify',
    json('The probe suite: markdown, or JSON for Accept: application/json or ?format=json', 'getVerify'),
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
