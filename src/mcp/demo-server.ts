// The demo's MCP server (D-33): the tools of the deal service and of the closer marketplace over
// a PipelineService, each answering the JSON of the HTTP operation it stands for. Served at POST
// /demo/mcp on the live service's store, and over stdio (`sales-pipeline-gate mcp`) on a fresh
// in-memory one. In keys mode the same door is a deployment's, and says so (D-269).

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Caller } from '../domain/access.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import { MARKETPLACE_PREFIX } from '../views/answers.ts';
import { insightTool } from './insight-tool.ts';
import { demoContext, KEYS_TOOLS as KEYS_OPERATION_TOOLS, DEMO_TOOLS as OPERATION_TOOLS } from './operation-tools.ts';
import { createToolServer, MCP_VERSION } from './tool-server.ts';

export const DEMO_MCP_NAME = 'sales-pipeline-demo';

/** The demo door's tools: one per operation of the table, and the insights' (D-73). */
export const DEMO_TOOLS = [...OPERATION_TOOLS, insightTool(false)];
/** The same in keys mode. */
const KEYS_TOOLS = [...KEYS_OPERATION_TOOLS, insightTool(true)];

/** What both modes' doors are: the deal service and the marketplace, and how their tools answer. */
const workings = (prefix: string) =>
  'Deals move through seven stages (sourced, qualified, meeting, proposal, negotiation, ' +
  'closed_won, closed_lost); agents and closers only propose, and one gate commits or refuses every move. sell ' +
  'creates a deal and lets the built-in agent work it; a role the mandate staffs with a human escalates to a ' +
  'gig, which a closer claims (claim_gig) and works (advance_gig, revive_gig, release_gig): an escalation is no ' +
  'error, but its first text block says the deal did not move; list_events reads every committed change since ' +
  `a seq. Each tool answers the JSON of the HTTP operation it names (the deal service under ${prefix}, the ` +
  `marketplace under ${MARKETPLACE_PREFIX}); a refusal is an error result carrying the HTTP error body {error, ` +
  'code, ...}. Every writing tool takes an optional idempotencyKey: retry with the same key and arguments, never ' +
  'without one.';

const SANDBOX =
  'It is not the ROOT sandbox (POST /mcp: tools listDeals, getDeal, listGigs over fixed, read-only example data).';

const demoInstructions = (prefix: string) =>
  'The DEMO of the sales pipeline service: a live store of fictional records that these tools create and ' +
  'change, shared by every client of this server and wiped by a demo reset where one is served. ' +
  `${SANDBOX} Every tool title here begins "Demo store:". ${workings(prefix)}`;

// D-269: keys mode is a production deployment (D-3): no demo, no reset, real records, each call
// made as the key it comes with.
const keysInstructions = (prefix: string) =>
  'The sales pipeline service of this deployment: these tools read and change its live records, each call as ' +
  'the principal of the key it is made with, seeing what that key may see (a Seller its own deals, their gigs ' +
  'and refused proposals; a closer every open gig, its own gigs and their deals; the operator everything), and ' +
  `tools/list shows the tools the key's scopes allow. ${SANDBOX} ${workings(prefix)}`;

export function createDemoMcpServer(service: PipelineService, dealPrefix: string, caller?: Caller): Server {
  const context = demoContext(service, dealPrefix, caller);
  // Keys mode (a caller): the tools take the arguments of keys mode's routes, and tools/list
  // shows the key those its scopes allow (D-225).
  const tools = caller === undefined ? DEMO_TOOLS : KEYS_TOOLS;
  const instructions = caller === undefined ? demoInstructions(dealPrefix) : keysInstructions(dealPrefix);
  return createToolServer({ name: DEMO_MCP_NAME, version: MCP_VERSION }, instructions, tools, context);
}
