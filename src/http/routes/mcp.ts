// Both MCP doors as stateless Streamable HTTP endpoints (D-33): POST /mcp (ROOT, read tools over
// the sandbox) and POST /demo/mcp (the demo's tools over the live store). Every request gets its
// own server and transport, closed with the response: no session, no SSE stream to resume, so
// GET and DELETE answer 405 (src/http/methods.ts). A body that is not JSON is answered as the
// JSON-RPC parse error an MCP client understands, not with the app's catalogue body, and JSON that
// is no JSON-RPC message as the Invalid Request it is.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { Type } from '@sinclair/typebox';
import type { FastifyBodyParser, FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { createDemoMcpServer, DEMO_TOOLS } from '../../mcp/demo-server.ts';
import { createRootMcpServer } from '../../mcp/root-server.ts';
import type { RootCatalog } from '../../public/catalog.ts';
import { DOMAIN_VALIDATED, ErrorSchema, errorResponses, NoQuery } from '../../schemas/common.ts';
import { JsonRpcBody } from '../../schemas/json-rpc.ts';
import type { PipelineService } from '../../service/pipeline-service.ts';
import { errorBody } from '../../views/errors.ts';
import { refuseIdempotencyKey } from '../idempotency-key.ts';
import { parseBody } from '../json-body.ts';
import { resourceMetadataChallenge } from './protected-resource.ts';

const JsonRpcId = Type.Union([Type.String(), Type.Integer()]);

const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(JsonRpcId),
    method: Type.Optional(Type.String({ description: 'e.g. initialize, tools/list, tools/call' })),
    params: Type.Optional(Type.Object({}, { additionalProperties: true })),
    result: Type.Optional(Type.Object({}, { additionalProperties: true })),
    error: Type.Optional(Type.Object({ code: Type.Integer(), message: Type.String() }, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

/** A JSON-RPC error answered by the transport itself: `id` is null, no request could be read. */
const JsonRpcError = (description: string) =>
  Type.Object(
    {
      jsonrpc: Type.Literal('2.0'),
      id: Type.Union([JsonRpcId, Type.Null()]),
      error: Type.Object(
        { code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) },
        { additionalProperties: true },
      ),
    },
    { description },
  );

// The doors check the message themselves (isJsonRpcBody) and answer a JSON-RPC error, so the node
// is left out of the app's request validation (as domain-validated nodes are) and only documents it.
const McpBody = { ...JsonRpcBody, [DOMAIN_VALIDATED]: true };

const ACCEPT = 'application/json, text/event-stream';
/** What the transport asks of Accept (a substring check, as the SDK's own). */
const ACCEPTS_BOTH = '^(?=.*application/json)(?=.*text/event-stream)';
const acceptsBoth = new RegExp(ACCEPTS_BOTH);

// Documented as a parameter of the contract; the transport checks it and answers 406 itself.
const McpHeaders = {
  ...Type.Object({
    accept: Type.String({
      pattern: ACCEPTS_BOTH,
      description: `must list both application/json and text/event-stream, e.g. \`${ACCEPT}\` (406 otherwise)`,
      examples: [ACCEPT],
    }),
  }),
  [DOMAIN_VALIDATED]: true,
};

const McpResponses = {
  200: {
    ...Type.Union([JsonRpcMessage, Type.Array(JsonRpcMessage)]),
    description: 'The JSON-RPC response(s) (content-type application/json)',
  },
  202: Type.Null({ description: 'Accepted: the body held only notifications or responses' }),
  400: {
    ...Type.Union([
      JsonRpcError('A JSON-RPC error: the body is not JSON (-32700) or JSON that is no JSON-RPC message (-32600)'),
      Type.Ref(ErrorSchema),
    ]),
    description:
      'A JSON-RPC error: the body is not JSON (-32700 Parse error) or JSON that is no JSON-RPC message (-32600 Invalid Request); or, in the catalogue shape, a malformed query string or an Idempotency-Key header on /demo/mcp',
  },
  406: JsonRpcError(`A JSON-RPC error: Accept must list application/json and text/event-stream (${ACCEPT})`),
  ...errorResponses(413, 415),
  500: JsonRpcError('A JSON-RPC error (-32603): the request failed inside the server'),
};

const STATELESS =
  `Stateless Streamable HTTP MCP: POST JSON-RPC messages with content-type application/json and accept: ${ACCEPT}; ` +
  'no session, no SSE stream (GET and DELETE answer 405).';

/** Raised by the doors' own JSON parser; answered as JSON-RPC, not by the app's catalogue. */
class ParseError extends Error {
  readonly code = 'MCP_PARSE_ERROR';
}

/**
 * The doors' own body parser: JSON, an empty body is none. Unlike the app's, it hands a JSON
 * `null` on, for the transport to refuse as the JSON-RPC error it is.
 */
const parseJson: FastifyBodyParser<string> = (_request, text, done) => {
  if (text.trim() === '') return done(null, undefined);
  try {
    done(null, parseBody(text)); // D-200: what the app's parser refuses, as the parse error
  } catch (error) {
    done(new ParseError(error instanceof Error ? error.message : String(error)), undefined);
  }
};

/** A body that is not JSON is JSON-RPC's parse error; every other error is the app's to answer. */
const answerParseError = (error: FastifyError | ParseError, _request: FastifyRequest, reply: FastifyReply) => {
  if (!(error instanceof ParseError)) throw error;
  return reply.code(400).send({
    jsonrpc: '2.0',
    error: { code: ErrorCode.ParseError, message: `Parse error: the body is not valid JSON: ${error.message}` },
    id: null,
  });
};

/** One JSON-RPC message as the transport reads it, or a batch of 1 to MAX_BATCH_SIZE of them. */
const isJsonRpcBody = (body: unknown): boolean =>
  Array.isArray(body)
    ? body.length > 0 && body.length <= MAX_BATCH_SIZE && body.every((m) => JSONRPCMessageSchema.safeParse(m).success)
    : JSONRPCMessageSchema.safeParse(body).success;

/**
 * D-265: JSON that is no JSON-RPC message is an Invalid Request (JSON-RPC 2.0: -32600), which the
 * transport would answer as a parse error; only what is not JSON is that. Checked where the
 * transport's own check of Accept would pass, so that a wrong Accept is still its 406.
 */
function invalidRequest(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  if (request.body === undefined || !acceptsBoth.test(request.headers.accept ?? '')) return undefined;
  if (isJsonRpcBody(request.body)) return undefined;
  return reply.code(400).send({
    jsonrpc: '2.0',
    error: {
      code: ErrorCode.InvalidRequest,
      message: `Invalid Request: the body is JSON, but not a JSON-RPC 2.0 message nor a batch of 1 to ${MAX_BATCH_SIZE} of them`,
    },
    id: null,
  });
}

/** Hands one request to a fresh MCP server over a fresh stateless transport. */
async function serve(request: FastifyRequest, reply: FastifyReply, server: Server, surface: 'root' | 'demo') {
  // A body the app's parser never saw (no content-type at all) is refused as any other request
  // without JSON is: 415 in the catalogue's shape, before the transport answers its own.
  if (request.headers['content-type'] === undefined) {
    return reply.code(415).send(errorBody('UNSUPPORTED_MEDIA_TYPE'));
  }
  const refused = invalidRequest(request, reply);
  if (refused) return refused;
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.hijack(); // the transport writes the raw response; Fastify must not answer too
  // ROOT's door answers every origin (D-29, D-49); app.ts's onSend hook never sees a hijacked answer.
  if (surface === 'root') reply.raw.setHeader('access-control-allow-origin', '*');
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    // The body is already parsed; an empty one is handed on as null, which the transport refuses
    // as a JSON-RPC error (it cannot read the request stream again).
    await transport.handleRequest(request.raw, reply.raw, request.body ?? null);
  } catch (error) {
    request.log.error({ err: error }, 'MCP request failed');
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { 'content-type': 'application/json' });
      reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
    }
  }
}

export const mcpRoutes: FastifyPluginAsync<{
  service: PipelineService;
  catalog: RootCatalog;
  dealPrefix: string;
}> = async (app, { service, catalog, dealPrefix }) => {
  // This plugin's own context: the parser and the error handler below serve these two routes only.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  app.setErrorHandler(answerParseError);

  const doors = [
    {
      url: '/mcp',
      surface: 'root' as const,
      operationId: 'mcpRoot',
      tags: ['root'],
      summary: 'MCP door of the ROOT origin: tools listDeals, getDeal, listGigs over the sandbox collections',
      create: (_request: FastifyRequest) => createRootMcpServer(catalog),
    },
    {
      url: '/demo/mcp',
      surface: 'demo' as const,
      operationId: 'mcpDemo',
      tags: ['demo'],
      summary: `The demo's MCP server: tools ${DEMO_TOOLS.map((tool) => tool.name).join(', ')} over the demo store`,
      // Keys mode (D-58): any valid key; each tool is held to its operation's scope and acts as
      // the key's principal (operation-tools.ts). A 401 names the door's metadata (D-224).
      access: 'key' as const,
      challenge: resourceMetadataChallenge,
      create: (request: FastifyRequest) => createDemoMcpServer(service, dealPrefix, request.caller),
    },
  ];

  for (const door of doors) {
    app.post(
      door.url,
      {
        config: {
          surface: door.surface,
          ...('access' in door ? { access: door.access, challenge: door.challenge } : {}),
        },
        // D-37: on the demo door a key is an argument of each writing tool call, never the header.
        ...(door.surface === 'demo' ? { onRequest: refuseIdempotencyKey } : {}),
        schema: {
          summary: door.summary,
          description: STATELESS,
          operationId: door.operationId,
          tags: door.tags,
          headers: McpHeaders,
          // D-38: the demo door takes no query parameter (400 INVALID_QUERY for one).
          ...(door.surface === 'demo' ? { querystring: NoQuery } : {}),
          body: McpBody,
          response: McpResponses,
        },
      },
      (request, reply) => serve(request, reply, door.create(request), door.surface),
    );
  }
};
