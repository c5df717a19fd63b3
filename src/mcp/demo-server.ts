// The demo's MCP server (D-33): tools sell, get_deal and advance_deal over a PipelineService,
// answering the JSON the HTTP endpoints answer. Served at POST /demo/mcp on the live service's
// store, and over stdio (`sales-pipeline-gate mcp`) on a fresh in-memory store.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ACTORS } from '../domain/records.ts';
import { STAGES } from '../domain/stages.ts';
import type { AdvanceOutcome, PipelineService, Result } from '../service/pipeline-service.ts';
import { refusalBody } from '../views/errors.ts';
import { dealView, escalationView } from '../views/records.ts';
import { DealRecord, MCP_VERSION } from './root-server.ts';

export const DEMO_MCP_NAME = 'sales-pipeline-demo';

const Usd = (what: string) => z.number().positive().max(1e12).describe(`${what} (USD, rounded half-up to the cent)`);

const Account = z.strictObject({
  name: z.string().min(1).max(200),
  industry: z.string().max(100).optional().describe('used for closer matching'),
  actor: z.enum(ACTORS),
});

// The mandate is checked by the domain, as on HTTP, so that a problem is MANDATE_OUT_OF_BOUNDS
// with every violation listed (D-20); the shape here only documents it.
const Mandate = z
  .looseObject({
    staffing: z
      .unknown()
      .optional()
      .describe('per role (setter, closer, nurturer): "agent", "human" or {humanIf: {minDealSizeUsd?, signals?}}'),
    commissionPct: z.unknown().optional().describe('number, 0 to maxCommissionPct; default 0.10'),
    maxCommissionPct: z.unknown().optional().describe('number, 0 to 0.12; default 0.12'),
    floorPct: z.unknown().optional().describe('number, 0 to 1; default 0.8'),
    fees: z.unknown().optional().describe('{setterUsd?, nurturerUsd?}, each 0 to 10000; defaults 250 and 150'),
    stallTimeoutDays: z.unknown().optional().describe('integer, 3 to 90; default 14, 7 for B2C'),
  })
  .describe('Any subset; platform defaults fill the rest. Out of bounds: MANDATE_OUT_OF_BOUNDS with violations.');

/** A Deal, or the escalation shape; an object schema, as MCP output schemas must be. */
const DealOrEscalation = DealRecord.partial()
  .extend({
    escalated: z.literal(true).optional().describe('escalation: a human role must take the deal'),
    role: z.string().optional().describe('escalation: the role the gig is for'),
    gig: z.looseObject({ id: z.string(), status: z.string() }).optional().describe('escalation: the posted gig'),
    suggestedClosers: z
      .array(z.looseObject({ closer: z.looseObject({ id: z.string() }), score: z.number(), winRate: z.number() }))
      .optional()
      .describe('escalation: the ranked pool'),
    deal: DealRecord.optional().describe('escalation: the deal'),
  })
  .describe('Either the Deal, or the escalation {escalated: true, role, gig, suggestedClosers, deal}.');

const outcomeView = (outcome: AdvanceOutcome) =>
  outcome.kind === 'deal' ? dealView(outcome.deal) : escalationView(outcome.escalation);

/** A service result as a tool result: the HTTP body, or an error result with the HTTP error body. */
function answer<T>(result: Result<T>, view: (value: T) => Record<string, unknown>): CallToolResult {
  if (!result.ok) {
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(refusalBody(result.refusal)) }] };
  }
  const body = view(result.value);
  return { structuredContent: body, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

export function createDemoMcpServer(service: PipelineService): McpServer {
  const server = new McpServer(
    { name: DEMO_MCP_NAME, version: MCP_VERSION },
    {
      instructions:
        'The demo sales pipeline: sell creates a deal and lets the agent advance it until it closes or escalates ' +
        'to a human; advance_deal proposes one move, which the gate commits or refuses. Demo data only: shared, ' +
        'in memory, resettable; never send real data. A refusal is an error result carrying {error, code, ...}.',
    },
  );

  server.registerTool(
    'sell',
    {
      title: 'Sell a deal',
      description:
        'Create a deal and let the agent advance it until it closes or escalates (same as POST {deal_prefix}/sell). ' +
        'Answers the terminal Deal (finalValueUsd, closedBy agent) or the escalation shape.',
      inputSchema: {
        account: Account.describe('the buying account'),
        listValueUsd: Usd('list value'),
        mandate: Mandate.optional(),
      },
      outputSchema: DealOrEscalation,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (input) => answer(await service.sell(input), outcomeView),
  );

  server.registerTool(
    'get_deal',
    {
      title: 'Get a deal',
      description:
        'A deal with its full activity log (same as GET {deal_prefix}/deals/{id}); DEAL_NOT_FOUND if unknown.',
      inputSchema: { id: z.string().min(1).max(64).describe('`deal_<NNNN>`') },
      outputSchema: DealRecord,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ id }) => answer(await service.getDeal(id), dealView),
  );

  server.registerTool(
    'advance_deal',
    {
      title: 'Advance a deal',
      description:
        'Propose the next move (same as POST {deal_prefix}/deals/{id}/advance): the gate commits it and the ' +
        'updated Deal is answered, or the deal escalates to a human (escalation shape), or the gate refuses ' +
        '(error result with the code).',
      inputSchema: {
        id: z.string().min(1).max(64).describe('`deal_<NNNN>`'),
        advanceTo: z
          .string()
          .max(64)
          .optional()
          .describe(`the proposed stage, one of ${STAGES.join(', ')}; default: the next stage`),
        valueUsd: Usd('close value for closed_won; default: the list value').optional(),
        note: z.string().max(2000).optional().describe('free text for the activity log'),
      },
      outputSchema: DealOrEscalation,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ id, ...proposal }) => answer(await service.advanceDeal(id, proposal), outcomeView),
  );

  return server;
}
