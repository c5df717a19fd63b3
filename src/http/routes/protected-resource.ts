// Keys mode: the demo MCP door's OAuth 2.0 Protected Resource Metadata (RFC 9728), so that an MCP
// client refused 401 at POST /demo/mcp learns from the challenge's resource_metadata where the
// door's description is, and from the description that it takes a bearer key in a header and
// which scopes a key may carry (D-224). Registered only in keys mode: in the demo these paths
// name nothing (404). Open to everyone (OPEN_PATHS of authenticate.ts) and readable from any
// origin, as the other machine surfaces are.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ALL_SCOPES } from '../../domain/access.ts';
import { rootGet } from './root.ts';

/** Where the metadata is: RFC 9728 §3's well-known path; §3.1's path-suffixed form is served too. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** The protected resource: the demo's MCP door. */
export const MCP_RESOURCE_PATH = '/demo/mcp';

/** A Host the challenge and the document may repeat as they are (no quote, no space, no comma). */
const HOST = /^[A-Za-z0-9.\-:[\]]{1,255}$/;

/** The request's origin: its scheme and its Host (D-224); undefined for a Host that is not a host. */
export function originOf(request: FastifyRequest): string | undefined {
  return HOST.test(request.host ?? '') ? `${request.protocol}://${request.host}` : undefined;
}

/** D-224: the 401 challenge of the demo MCP door names the metadata's URL (RFC 9728 §5.1). */
export function resourceMetadataChallenge(request: FastifyRequest): string | undefined {
  const origin = originOf(request);
  return origin === undefined ? undefined : `resource_metadata="${origin}${PROTECTED_RESOURCE_PATH}"`;
}

const ProtectedResourceMetadata = Type.Object(
  {
    resource: Type.String({ description: 'the demo MCP door: this origin and /demo/mcp' }),
    bearer_methods_supported: Type.Array(Type.Literal('header'), {
      description: 'a key travels only as Authorization: Bearer <key> (D-52)',
    }),
    scopes_supported: Type.Array(Type.String(), { description: 'every scope a key may carry (D-53)' }),
    resource_name: Type.String(),
  },
  { description: 'OAuth 2.0 Protected Resource Metadata (RFC 9728) of the demo MCP door' },
);

export const protectedResourceRoutes: FastifyPluginAsync = async (app) => {
  const paths = [
    [PROTECTED_RESOURCE_PATH, 'getProtectedResourceMetadata'],
    [`${PROTECTED_RESOURCE_PATH}${MCP_RESOURCE_PATH}`, 'getMcpProtectedResourceMetadata'],
  ] as const;
  for (const [url, operationId] of paths) {
    rootGet(
      app,
      url,
      {
        schema: {
          summary: 'Keys mode: the Protected Resource Metadata (RFC 9728) of the demo MCP door',
          description:
            'Where an MCP client refused 401 at POST /demo/mcp learns how to present a key: the resource, ' +
            'bearer keys in the Authorization header only, and the scopes a key may carry. Keys are issued ' +
            'by the operator (POST /keys); there is no authorization server.',
          operationId,
          tags: ['root'],
          response: { 200: ProtectedResourceMetadata },
        },
      },
      async (request, reply) => {
        // An unusable Host has no origin to name: the path alone, which still says where it is.
        const origin = originOf(request) ?? '';
        return reply.type('application/json').send({
          resource: `${origin}${MCP_RESOURCE_PATH}`,
          bearer_methods_supported: ['header'],
          scopes_supported: [...ALL_SCOPES],
          resource_name: 'Sales pipeline demo MCP',
        });
      },
    );
  }
};
