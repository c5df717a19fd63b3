// The public ROOT origin: keyless, read-only collections over the sandbox data (D-29, D-30).
// Writes answer 405; reads may come from any origin (CORS *).
import { Type } from '@sinclair/typebox';
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RouteHandlerMethod,
  RouteShorthandOptions,
} from 'fastify';
import type { DealQuery, Envelope, GigQuery, RootCatalog } from '../../root/catalog.ts';
import { ErrorSchema } from '../schemas/common.ts';
import {
  BlockedEnvelope,
  DealEnvelope,
  DealsEnvelope,
  DealsQuery,
  EmptyEnvelope,
  GigsEnvelope,
  GigsQuery,
} from '../schemas/root.ts';

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Registers GET for a ROOT path plus 405 for writes and a CORS preflight. */
export function rootGet(
  app: FastifyInstance,
  url: string,
  options: RouteShorthandOptions,
  handler: RouteHandlerMethod,
) {
  app.get(url, { ...options, config: { ...options.config, surface: 'root' } }, handler);
  // Writes are refused in onRequest, before the body is read: a write on ROOT is 405 whatever
  // it carries (malformed JSON, another media type, an oversized body), never 400, 413 or 415.
  const refuseWrite = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method === 'OPTIONS') {
      return reply
        .code(204)
        .header('access-control-allow-methods', 'GET, HEAD, OPTIONS')
        .header('access-control-allow-headers', 'content-type, accept')
        .header('access-control-max-age', '86400')
        .send();
    }
    return reply
      .code(405)
      .header('allow', 'GET, HEAD, OPTIONS')
      .send({
        error: `The ROOT origin is read-only: ${request.method} ${request.url.split('?')[0]} is not allowed.`,
        code: 'METHOD_NOT_ALLOWED',
      });
  };
  app.route({
    method: [...WRITE_METHODS, 'OPTIONS'],
    url,
    schema: { hide: true } as never,
    config: { surface: 'root' },
    onRequest: refuseWrite,
    handler: refuseWrite,
  });
}

/** Sends an envelope as bytes serialized once (the same request always gets the same bytes). */
function sendEnvelope(
  reply: { code(n: number): { type(t: string): { send(b: string): unknown } } },
  envelope: Envelope,
  cache: Map<string, string>,
  key: string,
) {
  let bytes = cache.get(key);
  if (bytes === undefined) {
    bytes = JSON.stringify(envelope.body);
    if (cache.size < 10_000) cache.set(key, bytes);
  }
  return reply.code(envelope.status).type('application/json; charset=utf-8').send(bytes);
}

export const rootRoutes: FastifyPluginAsync<{ catalog: RootCatalog }> = async (app, { catalog }) => {
  const cache = new Map<string, string>();
  const envelopeResponses = { 403: Type.Ref(BlockedEnvelope), 404: Type.Ref(EmptyEnvelope) };

  rootGet(
    app,
    '/deals',
    {
      schema: {
        summary: 'Sandbox deals, filtered by stage, owning role or scope, a page at a time',
        operationId: 'listDeals',
        tags: ['root'],
        querystring: DealsQuery,
        response: {
          200: Type.Union([Type.Ref(DealsEnvelope), Type.Ref(EmptyEnvelope)]),
          400: Type.Ref(ErrorSchema),
          403: envelopeResponses[403],
        },
      },
    },
    async (request, reply) => {
      const query = request.query as DealQuery;
      return sendEnvelope(reply, catalog.listDeals(query), cache, `deals?${JSON.stringify(query)}`);
    },
  );

  rootGet(
    app,
    '/deals/:id',
    {
      schema: {
        summary: 'One sandbox deal',
        operationId: 'getRootDeal',
        tags: ['root'],
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 200: Type.Ref(DealEnvelope), 404: envelopeResponses[404] },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      return sendEnvelope(reply, catalog.getDeal(id), cache, `deal:${id}`);
    },
  );

  rootGet(
    app,
    '/gigs',
    {
      schema: {
        summary: 'Sandbox gigs, filtered by role and status',
        operationId: 'listRootGigs',
        tags: ['root'],
        querystring: GigsQuery,
        response: { 200: Type.Union([Type.Ref(GigsEnvelope), Type.Ref(EmptyEnvelope)]) },
      },
    },
    async (request, reply) => {
      const query = request.query as GigQuery;
      return sendEnvelope(reply, catalog.listGigs(query), cache, `gigs?${JSON.stringify(query)}`);
    },
  );
};
