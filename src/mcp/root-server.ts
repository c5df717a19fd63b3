// The ROOT MCP door (D-33): read tools over the sandbox collections, answering the very envelopes
// GET /deals, GET /deals/{id} and GET /gigs answer (the same RootCatalog builds both).
// An EMPTY or BLOCKED envelope is a normal answer; only a bad argument is an error result.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { GIG_STATUSES } from '../domain/records.ts';
import { ROLES, STAGES } from '../domain/stages.ts';
import { type Envelope, MAX_PAGE, type RootCatalog } from '../root/catalog.ts';

export const ROOT_MCP_NAME = 'sales-pipeline-root';
export const MCP_VERSION = '0.1.0';

const ENVELOPE_NOTE =
  'Answers a typed envelope (sandbox example data): OK with the records, EMPTY with a message when nothing ' +
  'matches (never a bare empty list)';

// Records are described by their main fields and left open, so that a field added to the HTTP
// views never makes a valid answer fail the schema.
/** A Deal as the HTTP views answer it (D-34); the demo door answers the same records. */
export const DealRecord = z.looseObject({
  id: z.string().describe('`deal_<NNNN>`'),
  account: z.looseObject({ name: z.string(), industry: z.string().optional(), actor: z.string() }),
  listValueUsd: z.number(),
  stage: z.string().describe('one of the seven stages'),
  signals: z.array(z.string()),
  mandate: z.looseObject({}).describe('the fully resolved mandate'),
  activity: z
    .array(z.looseObject({ at: z.string(), by: z.string(), stage: z.string(), note: z.string() }))
    .describe('full log, oldest first'),
  humanTrack: z.boolean().optional(),
  finalValueUsd: z.number().optional(),
  closedBy: z.string().optional(),
  lineage: z.looseObject({ revivedFrom: z.string() }).optional(),
});

const SandboxDeal = DealRecord.extend({ sandbox: z.literal(true) });

const SandboxGig = z.looseObject({
  id: z.string().describe('`gig_<NNNN>`'),
  status: z.string().describe(`one of ${GIG_STATUSES.join(', ')}`),
  dealId: z.string(),
  role: z.string().describe(`one of ${ROLES.join(', ')}`),
  brief: z.looseObject({}),
  pricing: z.looseObject({ kind: z.string() }),
  closerId: z.string().optional(),
  postedAt: z.string(),
  claimedAt: z.string().optional(),
  outcome: z.string().optional(),
  finalValueUsd: z.number().optional(),
  sandbox: z.literal(true),
});

/** Fields every envelope carries, and the words of EMPTY and BLOCKED. */
const envelopeFields = {
  sandbox: z.literal(true),
  label: z.string().describe('says the data is sandbox example data'),
  message: z.string().optional().describe('EMPTY: why nothing matched'),
};

const DealsEnvelope = z.looseObject({
  type: z.enum(['OK', 'EMPTY', 'BLOCKED']),
  deals: z.array(SandboxDeal).optional().describe('OK: the deals of this page'),
  count: z.number().int().optional().describe('OK: deals on this page'),
  total: z.number().int().optional().describe('OK: deals matching the filters'),
  nextCursor: z.string().optional().describe('OK: present when a further page exists; pass it as cursor'),
  reason: z.string().optional().describe('BLOCKED: why the scope is refused'),
  ...envelopeFields,
});

const DealEnvelope = z.looseObject({
  type: z.enum(['OK', 'EMPTY']),
  deal: SandboxDeal.optional().describe('OK: the deal'),
  ...envelopeFields,
});

const GigsEnvelope = z.looseObject({
  type: z.enum(['OK', 'EMPTY', 'BLOCKED']),
  gigs: z.array(SandboxGig).optional().describe('OK: the gigs of this page'),
  count: z.number().int().optional().describe('OK: gigs on this page'),
  total: z.number().int().optional().describe('OK: gigs matching the filters'),
  nextCursor: z.string().optional().describe('OK: present when a further page exists; pass it as cursor'),
  reason: z.string().optional().describe('BLOCKED: why the scope is refused'),
  ...envelopeFields,
});

/** The catalogue's answer as a tool result: an envelope is a result, anything else an error. */
function answer(envelope: Envelope): CallToolResult {
  const text = JSON.stringify(envelope.body);
  if (typeof envelope.body.type === 'string') {
    return { structuredContent: envelope.body, content: [{ type: 'text', text }] };
  }
  // An argument the schema let through but the catalogue refused (a cursor it never gave out).
  return { isError: true, content: [{ type: 'text', text }] };
}

export function createRootMcpServer(catalog: RootCatalog): McpServer {
  const server = new McpServer(
    { name: ROOT_MCP_NAME, version: MCP_VERSION },
    {
      instructions:
        'Read-only sandbox collections of the sales pipeline service: fictional deals and gigs made by driving ' +
        'the real deal service with a fixed clock. Every answer is a typed envelope: OK, EMPTY or BLOCKED.',
    },
  );

  server.registerTool(
    'listDeals',
    {
      title: 'List sandbox deals',
      description:
        'Sandbox deals, filtered by stage, owning role or scope, a page at a time (same as GET /deals). ' +
        `${ENVELOPE_NOTE}, or BLOCKED with a worded reason for the reserved scopes tenant and settlement.`,
      inputSchema: {
        stage: z
          .string()
          .max(64)
          .optional()
          .describe(`one of ${STAGES.join(', ')}; another value matches nothing (EMPTY)`),
        role: z
          .string()
          .max(64)
          .optional()
          .describe(`the role owning the deal now: one of ${ROLES.join(', ')}`),
        scope: z
          .string()
          .max(64)
          .optional()
          .describe('sandbox (default); tenant and settlement are reserved (BLOCKED); any other scope is EMPTY'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_PAGE)
          .optional()
          .describe(`page size, 1 to ${MAX_PAGE} (default ${MAX_PAGE})`),
        cursor: z.string().max(200).optional().describe('nextCursor of the previous page'),
      },
      outputSchema: DealsEnvelope,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => answer(catalog.listDeals(args)),
  );

  server.registerTool(
    'getDeal',
    {
      title: 'Get one sandbox deal',
      description: `One sandbox deal with its full activity log (same as GET /deals/{id}). ${ENVELOPE_NOTE}.`,
      inputSchema: { id: z.string().min(1).max(64).describe('`deal_<NNNN>`, as listDeals gives it') },
      outputSchema: DealEnvelope,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ id }) => answer(catalog.getDeal(id)),
  );

  server.registerTool(
    'listGigs',
    {
      title: 'List sandbox gigs',
      description:
        'Sandbox gigs of the closer marketplace, filtered by role, status or scope, a page at a time (same as GET /gigs). ' +
        `${ENVELOPE_NOTE}, or BLOCKED with a worded reason for the reserved scopes tenant and settlement.`,
      inputSchema: {
        role: z
          .string()
          .max(64)
          .optional()
          .describe(`one of ${ROLES.join(', ')}`),
        status: z
          .string()
          .max(64)
          .optional()
          .describe(`one of ${GIG_STATUSES.join(', ')}`),
        scope: z
          .string()
          .max(64)
          .optional()
          .describe('sandbox (default); tenant and settlement are reserved (BLOCKED); any other scope is EMPTY'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_PAGE)
          .optional()
          .describe(`page size, 1 to ${MAX_PAGE} (default ${MAX_PAGE})`),
        cursor: z.string().max(200).optional().describe('nextCursor of the previous page'),
      },
      outputSchema: GigsEnvelope,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => answer(catalog.listGigs(args)),
  );

  return server;
}
