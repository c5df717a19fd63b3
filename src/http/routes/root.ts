// The public ROOT origin: keyless, read-only collections over the sandbox data (D-29, D-30).
// Writes answer 405 (src/http/methods.ts); reads may come from any origin (CORS *). In keys mode
// a Seller's key opens GET /deals's reserved scopes over its own live records (D-226, D-227): the
// route authenticates it itself, since keys mode's door leaves ROOT open.

import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyPluginAsync, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';
import { tenantScopeCaller } from '../../domain/authorization.ts';
import {
  type DealQuery,
  type Envelope,
  type GigQuery,
  isReservedScope,
  type RootCatalog,
} from '../../public/catalog.ts';
import { tenantScope } from '../../public/tenant-scopes.ts';
import { ErrorSchema, IdParams, NoQuery } from '../../schemas/common.ts';
import {
  BlockedEnvelope,
  DealEnvelope,
  DealsEnvelope,
  DealsQuery,
  EmptyEnvelope,
  GigsEnvelope,
  GigsQuery,
  KeysDealsQuery,
  LiveEmptyEnvelope,
  SettlementsEnvelope,
  TenantDealsEnvelope,
} from '../../schemas/root.ts';
import type { PipelineService } from '../../service/pipeline-service.ts';
import { stringify } from '../../views/exact-json.ts';
import { bearerToken } from '../authenticate.ts';

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

/**
 * D-227: the caller of a request to a reserved scope, when its key opens it (a Seller's key with
 * deals:read); undefined for anything else, which the catalogue answers BLOCKED.
 */
async function tenantCaller(service: PipelineService, authorization: string | undefined) {
  const token = bearerToken(authorization);
  if (token === undefined) return undefined;
  const found = await service.keyRing?.authenticate(token);
  return tenantScopeCaller({ kind: 'key', caller: found?.ok ? found.caller : undefined });
}

export const rootRoutes: FastifyPluginAsync<{
  catalog: RootCatalog;
  /** Keys mode: the live service, whose Sellers' keys open GET /deals's reserved scopes (D-226). */
  service?: PipelineService;
}> = async (app, { catalog, service }) => {
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
        ...(service
          ? {
              description:
                "Keys mode: a Seller key carrying deals:read, sent as Authorization: Bearer, opens the reserved scopes: scope=tenant answers the Seller's own live deals, scope=settlement the settlements of its deals closed won, in the envelopes OK (no total) or EMPTY marked sandbox: false. Without such a key both are 403 BLOCKED.",
            }
          : {}),
        querystring: service ? KeysDealsQuery : DealsQuery,
        response: {
          200: Type.Union([
            Type.Ref(DealsEnvelope),
            Type.Ref(EmptyEnvelope),
            // Keys mode: a Seller's own live records behind scope tenant or settlement (D-226).
            ...(service ? [TenantDealsEnvelope, SettlementsEnvelope, LiveEmptyEnvelope] : []),
          ]),
          400: Type.Ref(ErrorSchema),
          403: envelopeResponses[403],
        },
      },
    },
    async (request, reply) => {
      const query = request.query as DealQuery;
      if (service !== undefined && isReservedScope(query.scope)) {
        // D-227: the answer depends on the key, so no cache keeps it or gives it to another.
        reply.header('vary', 'Authorization').header('cache-control', 'no-store');
        const caller = await tenantCaller(service, request.headers.authorization);
        if (caller !== undefined) {
          const envelope = await tenantScope(service, caller, query.scope, query);
          return reply.code(envelope.status).type('application/json; charset=utf-8').send(stringify(envelope.body));
        }
      }
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
