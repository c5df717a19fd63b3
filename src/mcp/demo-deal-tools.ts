// The demo's deal tools (D-33): each stands for one operation of the deal service under the
// deal prefix, takes its path id and body (or query) as arguments, and answers its JSON.
import { type TObject, type TProperties, Type } from '@sinclair/typebox';
import { STAGES } from '../domain/stages.ts';
import { IdParams } from '../schemas/common.ts';
import { CreateDealBody, DealListQuery, DealSchema, ProposalBody, SignalsBody } from '../schemas/deal.ts';
import { DealOrEscalationSchema } from '../schemas/marketplace.ts';
import { refusalBody, statusOf } from '../views/errors.ts';
import { readPage } from '../views/page.ts';
import { dealView } from '../views/records.ts';
import {
  DEMO_STORE,
  type DemoContext,
  DRY_RUN_CLOSE_NOTE,
  DRY_RUN_NOTE,
  IF_MATCH_NOTE,
  INVALID_CURSOR,
  KEY_NOTE,
  NextCursor,
  REFUSAL_NOTE,
  writeTool,
} from './demo-tool.ts';
import { defineTool, errorResult, toolResult } from './tool-server.ts';

/** The one-step order of D-7: every open stage's next stage, up to closed_won. */
const ORDER = STAGES.filter((stage) => stage !== 'closed_lost').join(' → ');

const DealId = {
  ...IdParams.properties.id,
  description: 'the deal, `deal_<NNNN>`; an id of any other shape names nothing (404 DEAL_NOT_FOUND)',
};

/** The arguments of an operation on one deal: its id, then the fields of the HTTP body. */
const onDeal = <P extends TProperties>(body: TObject<P>) =>
  Type.Object({ id: DealId, ...body.properties }, { additionalProperties: false });

const DealPage = Type.Object({
  deals: Type.Array(Type.Ref(DealSchema), { description: 'this page, in id order' }),
  nextCursor: Type.Optional(NextCursor),
});

// Hints (MCP tool annotations): idempotentHint when a second identical call changes nothing more
// (it is refused, or a no-op); destructiveHint when a call may end something for good: close a
// deal, or release a gig. openWorldHint is false throughout: the tools touch the demo store only.
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const sell = writeTool({
  name: 'sell',
  title: 'Demo store: sell a deal',
  description: ({ prefix }: DemoContext) =>
    `${DEMO_STORE} create a deal and let the built-in agent advance it one stage at a time until it closes won ` +
    `or reaches a stage whose role the mandate staffs with a human (POST ${prefix}/sell). Answers the Deal at ` +
    'closed_won (closedBy agent, finalValueUsd the list value), or the escalation {escalated: true, role, gig, ' +
    'suggestedClosers, deal}: the deal waits there, and the gig (status open) is for a human to claim with ' +
    'claim_gig, e.g. one of suggestedClosers. mandate is any subset of: staffing per role (setter, closer, ' +
    'nurturer: "agent", "human" or {humanIf: {minDealSizeUsd?, signals?}}; by default setter and closer are the ' +
    'agent; a stalled deal always goes to a human nurturer), commissionPct (default 0.10, at most maxCommissionPct, itself at most 0.12), ' +
    'floorPct (default 0.8: a close won below that share of the list value is refused), fees {setterUsd?, ' +
    'nurturerUsd?}, stallTimeoutDays. Refused: a mandate outside platform bounds (422 MANDATE_OUT_OF_BOUNDS, ' +
    `violations lists every breach). ${REFUSAL_NOTE} ${DRY_RUN_NOTE} A sell may close the deal won at its list ` +
    `value: dry-run it first to see where it would stop and the settlement it would make. ${KEY_NOTE}`,
  input: CreateDealBody,
  output: DealOrEscalationSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  path: (_args, prefix) => `${prefix}/sell`,
  call: (service, args, options) => service.sell(args, options),
  answer: (answers) => answers.sell,
  dryRunnable: (value) => value,
});

const getDeal = defineTool({
  name: 'get_deal',
  title: 'Demo store: get a deal',
  description: ({ prefix }: DemoContext) =>
    `${DEMO_STORE} one deal with its full activity log, oldest first (GET ${prefix}/deals/{id}). An unknown id ` +
    'is an error result carrying the HTTP error body {error, code: DEAL_NOT_FOUND} (404).',
  input: Type.Object({ id: DealId }, { additionalProperties: false }),
  output: Type.Ref(DealSchema),
  annotations: READ,
  argumentsAre: 'body',
  run: async ({ service }, { id }) => {
    const result = await service.getDeal(id);
    if (!result.ok) return toolResult(statusOf(result.refusal), refusalBody(result.refusal));
    return toolResult(200, dealView(result.value));
  },
});

const advanceDeal = writeTool({
  name: 'advance_deal',
  title: 'Demo store: advance a deal',
  description: ({ prefix }: DemoContext) =>
    `${DEMO_STORE} propose the next move of a deal to the gate (POST ${prefix}/deals/{id}/advance), which ` +
    `commits it (the updated Deal is answered) or refuses it. advanceTo defaults to the next stage (${ORDER}); ` +
    'valueUsd, for closed_won only, defaults ' +
    'to the list value. The gate refuses: a skip, a move back, or any stage but the next one and closed_lost ' +
    '(422 GATE_ILLEGAL_MOVE); a close won below the negotiation floor (422 GATE_BELOW_FLOOR; the message states ' +
    'the value, the floor and the floor percentage of the list value); any move of a closed_won or closed_lost ' +
    'deal (409 DEAL_TERMINAL). An unknown id is 404 DEAL_NOT_FOUND. A deal that needs a human (its owning role ' +
    'staffed with one by the mandate, or the deal stalled or already escalated: the human track is left only through deescalate_deal) does ' +
    'not move, whatever is proposed: the answer is the escalation shape with its gig, for a human to claim and ' +
    `work (claim_gig, advance_gig). ${REFUSAL_NOTE} ${DRY_RUN_NOTE} ${DRY_RUN_CLOSE_NOTE} ${IF_MATCH_NOTE} ` +
    KEY_NOTE,
  input: onDeal(ProposalBody),
  output: DealOrEscalationSchema,
  // Not idempotent: without advanceTo, each call proposes the stage after the one it reached.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  path: ({ id }, prefix) => `${prefix}/deals/${encodeURIComponent(id)}/advance`,
  call: (service, { id, ...proposal }, options) => service.advanceDeal(id, proposal, options),
  answer: (answers) => answers.advanceDeal,
  conditional: true,
  dryRunnable: (value) => value,
});

const listDeals = defineTool({
  name: 'list_deals',
  title: 'Demo store: list deals',
  description: ({ prefix }: DemoContext) =>
    `${DEMO_STORE} deals in id order, filtered by stage, owning role, human track or closer, a page at a time ` +
    `(GET ${prefix}/deals). Answers {deals, nextCursor?}: pass nextCursor as cursor for the next page. No match ` +
    'is an empty list. A cursor this service did not give out is an error result (400 INVALID_CURSOR) carrying ' +
    'the HTTP error body {error, code}.',
  input: DealListQuery,
  output: DealPage,
  annotations: READ,
  argumentsAre: 'query',
  run: async ({ service }, { limit, cursor, ...filter }) => {
    const page = await readPage('deal', { limit, cursor }, (afterId, max) =>
      service.listDeals({ ...filter, afterId, limit: max }),
    );
    if (page.records === undefined) return errorResult(INVALID_CURSOR);
    const body = { deals: page.records.map(dealView), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    return toolResult(200, body);
  },
});

const reportSignals = writeTool({
  name: 'report_signals',
  title: 'Demo store: report signals on a deal',
  description: ({ prefix }: DemoContext) =>
    `${DEMO_STORE} report signals discovered on a deal, e.g. procurement_involved (POST ${prefix}/deals/{id}/signals); ` +
    'answers the updated Deal. Signals it already carries change nothing. A signal the mandate names in a ' +
    "role's humanIf.signals hands that role to a human at the deal's next advance. gone_dark stalls the deal: " +
    'it passes to the nurturer role on the human track, and its open or claimed gigs of other roles are released ' +
    '(a nurturer gig then revives it: revive_gig). Refused: a closed_won or closed_lost deal (409 DEAL_TERMINAL); ' +
    'more than 256 distinct signals on one deal (422 SIGNAL_LIMIT); an unknown id (404 DEAL_NOT_FOUND). ' +
    `${REFUSAL_NOTE} ${IF_MATCH_NOTE} ${KEY_NOTE}`,
  input: onDeal(SignalsBody),
  output: Type.Ref(DealSchema),
  // Destructive: gone_dark releases the deal's other gigs, claims and all.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  path: ({ id }, prefix) => `${prefix}/deals/${encodeURIComponent(id)}/signals`,
  call: (service, { id, signals }, options) => service.reportSignals(id, signals, options),
  answer: (answers) => answers.reportSignals,
  conditional: true,
});

export const DEAL_TOOLS = [sell, getDeal, advanceDeal, listDeals, reportSignals];
