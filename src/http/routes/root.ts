// The public ROOT origin: keyless, read-only collections over the sandbox data (D-29, D-30).
// Writes answer 405 (src/http/methods.ts); reads may come from any origin (CORS *).

import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyPluginAsync, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';
import type { DealQuery, Envelope, GigQuery, RootCatalog } from '../../public/catalog.ts';
import { ErrorSchema, IdParams, NoQuery } from '../../schemas/common.ts';
import {
  BlockedEnvelope,
  DealEnvelope,
  DealsEnvelope,
  DealsQuery,
  EmptyEnvelope,
  GigsEnvelope,
  GigsQuery,
} from '../../schemas/root.ts';
import { stringify } from '../../views/exact-json.ts';

/** Registers GET for a ROOT path; app.ts answers its other methods (405) and OPTIONS (D-38). */
export function rootGet(
  app: FastifyInstance,
  url: string,
  options: RouteShorthandOptions,
  handler: RouteHandlerMethod,
) {
  app.get(url, { ...options, config: { ...options.config, surface: 'root' } }, handler);
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
    bytes = stringify(envelope.body);
    if (cache.size < 10_000) cache.set(key, bytes);
  }
  return reply.code(envelope.status).type('application/json; charset=utf-8').send(bytes);
}

export const rootRoutes: FastifyPluginAsync<{ catalog: RootCatalog }> = async (app, { catalog }) => {
  const cache = new Map<string, string>();
  const envelopeResponses = {
    403: Type.Ref(BlockedEnvelope),
    // An unknown id is an EMPTY envelope; a path the router cannot decode (a malformed
    // percent-encoding) is refused before the route runs, in the catalogue's shape.
    404: {
      ...Type.Union([Type.Ref(EmptyEnvelope), Type.Ref(ErrorSchema)]),
      description: 'EMPTY: no sandbox deal has this id (or the catalogue error of a malformed path)',
    },
  };

  rootGet(
    app,
    '/deals',
    {
      schema: {
        summary: 'Sandbox deals, filtered by stage, owning role or scope, a page at a time',
        operationId: 'listSandboxDeals',
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
        operationId: 'getSandboxDeal',
        tags: ['root'],
        params: IdParams,
        querystring: NoQuery,
        response: { 200: Type.Ref(DealEnvelope), 400: Type.Ref(ErrorSchema), 404: envelopeResponses[404] },
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
        summary: 'Sandbox gigs, filtered by role, status or scope, a page at a time',
        operationId: 'listSandboxGigs',
        tags: ['root'],
        querystring: GigsQuery,
        response: {
          200: Type.Union([Type.Ref(GigsEnvelope), Type.Ref(EmptyEnvelope)]),
          400: Type.Ref(ErrorSchema),
          403: envelopeResponses[403],
        },
      },
    },
    async (request, reply) => {
      const query = request.query as GigQuery;
      return sendEnvelope(reply, catalog.listGigs(query), cache, `gigs?${JSON.stringify(query)}`);
    },
  );
};
