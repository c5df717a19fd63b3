// The ROOT MCP door (D-33): read tools over the sandbox collections, answering the very envelopes
// GET /deals, GET /deals/{id} and GET /gigs answer (the same RootCatalog builds both), with the
// same schemas (src/schemas/root.ts). An EMPTY or BLOCKED envelope is a normal answer; only a
// bad argument is an error result.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type TSchema, Type } from '@sinclair/typebox';
import type { Envelope, RootCatalog } from '../public/catalog.ts';
import { IdParams } from '../schemas/common.ts';
import {
  BlockedEnvelope,
  DealEnvelope,
  DealsEnvelope,
  DealsQuery,
  EmptyEnvelope,
  GigsEnvelope,
  GigsQuery,
} from '../schemas/root.ts';
import { createToolServer, defineTool, MCP_VERSION, type McpTool, toolResult } from './tool-server.ts';

export const ROOT_MCP_NAME = 'sales-pipeline-root';

/** How every sandbox description begins: nothing here changes, and nothing here is the demo's. */
const SANDBOX = 'Sandbox (read-only, fixed fictional example data, the same on every start; not the live demo store):';
const ENVELOPE_NOTE =
  'Answers a typed envelope: OK with the records, EMPTY with a message when nothing matches (never a bare empty list)';
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** One of the envelopes a tool may answer; MCP wants an object schema at the root. */
const envelopes = (...schemas: TSchema[]) => ({
  ...Type.Union(schemas.map((schema) => Type.Ref(schema))),
  type: 'object' as const,
});

/** The catalogue's answer as a tool result: an envelope is a result, anything else an error. */
function answer(envelope: Envelope): CallToolResult {
  if (typeof envelope.body.type === 'string') return toolResult(200, envelope.body);
  // An argument the schema let through but the catalogue refused (a cursor it never gave out).
  return toolResult(envelope.status, envelope.body);
}

export const ROOT_TOOLS: readonly McpTool<RootCatalog>[] = [
  defineTool({
    name: 'listDeals',
    title: 'Sandbox: list deals',
    description:
      `${SANDBOX} deals filtered by stage, owning role or scope, a page at a time (same as GET /deals). ` +
      `${ENVELOPE_NOTE}, or BLOCKED with a worded reason for the reserved scopes tenant and settlement.`,
    input: DealsQuery,
    output: envelopes(DealsEnvelope, EmptyEnvelope, BlockedEnvelope),
    annotations: READ,
    argumentsAre: 'query',
    run: async (catalog, args) => answer(catalog.listDeals(args)),
  }),
  defineTool({
    name: 'getDeal',
    title: 'Sandbox: get one deal',
    description: `${SANDBOX} one deal with its full activity log (same as GET /deals/{id}). ${ENVELOPE_NOTE}.`,
    input: Type.Object({ id: { ...IdParams.properties.id, description: '`deal_<NNNN>`, as listDeals gives it' } }),
    output: envelopes(DealEnvelope, EmptyEnvelope),
    annotations: READ,
    argumentsAre: 'body',
    run: async (catalog, { id }) => answer(catalog.getDeal(id)),
  }),
  defineTool({
    name: 'listGigs',
    title: 'Sandbox: list gigs',
    description:
      `${SANDBOX} gigs of the closer marketplace, filtered by role, status or scope, a page at a time (same as GET /gigs). ` +
      `${ENVELOPE_NOTE}, or BLOCKED with a worded reason for the reserved scopes tenant and settlement.`,
    input: GigsQuery,
    output: envelopes(GigsEnvelope, EmptyEnvelope, BlockedEnvelope),
    annotations: READ,
    argumentsAre: 'query',
    run: async (catalog, args) => answer(catalog.listGigs(args)),
  }),
];

const INSTRUCTIONS =
  'The ROOT sandbox of the sales pipeline service: read-only collections of fictional deals and gigs, made by ' +
  'driving the real deal service with a fixed clock, the same on every start. Nothing here can be changed, and ' +
  'none of it is the live demo store (POST /demo/mcp, whose tool titles begin "Demo store:"); every tool title ' +
  'here begins "Sandbox:". Every answer is a typed envelope: OK, EMPTY or BLOCKED.';

export function createRootMcpServer(catalog: RootCatalog): Server {
  return createToolServer({ name: ROOT_MCP_NAME, version: MCP_VERSION }, INSTRUCTIONS, ROOT_TOOLS, catalog);
}
