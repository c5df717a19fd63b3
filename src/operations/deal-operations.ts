// The deal service under DEAL_PREFIX (D-1). Executors only propose; the service's gate decides.
import { type Static, Type } from '@sinclair/typebox';
import type { ProposalInput } from '../domain/commands.ts';
import { STAGES } from '../domain/stages.ts';
import { HeldSchema } from '../schemas/approvals.ts';
import {
  CreateDealBody,
  DealListQuery,
  DealSchema,
  EditDealBody,
  ProposalBody,
  SettlementSchema,
  SignalsBody,
} from '../schemas/deal.ts';
import { DealOrEscalationSchema, EmptyBody, EscalationSchema } from '../schemas/marketplace.ts';
import { etagOf } from '../views/answers.ts';
import { dealJson, dealView, settlementView } from '../views/records.ts';
import { page, read, write } from './operation.ts';
import {
  DEMO_STORE,
  DRY_RUN_CLOSE_NOTE,
  DRY_RUN_NOTE,
  hints,
  IF_MATCH_NOTE,
  KEY_NOTE,
  READ_HINTS,
  REFUSAL_NOTE,
} from './tool-notes.ts';

/** The one-step order of D-7: every open stage's next stage, up to closed_won. */
const ORDER = STAGES.filter((stage) => stage !== 'closed_lost').join(' → ');

type Create = Static<typeof CreateDealBody>;

/** What every write on one deal declares: under If-Match, keyed. */
const onDeal = {
  method: 'POST',
  mount: 'deals',
  tag: 'deals',
  idempotent: true,
  ifMatch: true,
} as const;

// D-53, D-54: who may call each (keys mode). Reads are open to a closer's key too: it sees the
// deals of its gigs, and nothing else (the service answers the rest as unknown).
const READ_DEALS = ['deals:read', 'gigs:read', 'admin'] as const;
const WRITE_DEALS = ['deals:write'] as const;
const PROPOSE = ['deals:propose'] as const;

const createDeal = write({
  id: 'createDeal',
  method: 'POST',
  mount: 'deals',
  path: '/deals',
  summary: 'Create a deal at sourced with a resolved mandate',
  tag: 'deals',
  body: CreateDealBody,
  responses: { 201: Type.Ref(DealSchema) },
  errors: [400, 422],
  scope: WRITE_DEALS,
  idempotent: true,
  dryRunnable: true,
  command: (service, { body, caller }) => service.deals.createDeal(body as Create, caller),
  answer: (answers) => answers.createDeal,
});

const sell = write({
  id: 'sell',
  method: 'POST',
  mount: 'deals',
  path: '/sell',
  summary: 'Create a deal and let the agent advance it until it closes or escalates',
  tag: 'deals',
  body: CreateDealBody,
  responses: { 201: DealOrEscalationSchema, 202: Type.Ref(HeldSchema) },
  errors: [400, 422],
  scope: WRITE_DEALS,
  idempotent: true,
  dryRunnable: true,
  command: (service, { body, caller }) => service.deals.sell(body as Create, caller),
  answer: (answers) => answers.sell,
  tool: {
    name: 'sell',
    title: 'Demo store: sell a deal',
    description: (prefix) =>
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
    annotations: hints(false, false),
  },
});

const listDeals = page({
  id: 'listDeals',
  method: 'GET',
  mount: 'deals',
  path: '/deals',
  summary: 'Deals of the demo store in id order, filtered, a page at a time',
  tag: 'deals',
  query: DealListQuery,
  responses: { 200: Type.Array(Type.Ref(DealSchema)) },
  errors: [400],
  scope: READ_DEALS,
  idKind: 'deal',
  list: 'deals',
  fetch: (service, filter, afterId, limit, caller) => service.queries.listDeals({ ...filter, afterId, limit }, caller),
  view: dealView,
  csv: [
    'id',
    'sellerId',
    'version',
    'account.name',
    'account.industry',
    'account.actor',
    'listValueUsd',
    'stage',
    'signals',
    'humanTrack',
    'finalValueUsd',
    'closedBy',
    'lineage.revivedFrom',
  ],
  tool: {
    name: 'list_deals',
    title: 'Demo store: list deals',
    description: (prefix) =>
      `${DEMO_STORE} deals in id order, filtered by stage, owning role, human track, closer or a text in the account's name (q), a page at a time ` +
      `(GET ${prefix}/deals). Answers {deals, nextCursor?}: pass nextCursor as cursor for the next page. No match ` +
      'is an empty list. A cursor this service did not give out is an error result (400 INVALID_CURSOR) carrying ' +
      'the HTTP error body {error, code}.',
    annotations: READ_HINTS,
  },
});

const getDeal = read({
  id: 'getDeal',
  method: 'GET',
  mount: 'deals',
  path: '/deals/{id}',
  summary: 'A deal with its full activity log',
  tag: 'deals',
  responses: { 200: Type.Ref(DealSchema) },
  errors: [404],
  scope: READ_DEALS,
  read: (service, { id, caller }) => service.queries.getDeal(id, caller),
  view: dealView,
  json: dealJson,
  etag: etagOf,
  tool: {
    name: 'get_deal',
    title: 'Demo store: get a deal',
    description: (prefix) =>
      `${DEMO_STORE} one deal with its full activity log, oldest first (GET ${prefix}/deals/{id}). An unknown id ` +
      'is an error result carrying the HTTP error body {error, code: DEAL_NOT_FOUND} (404).',
    annotations: READ_HINTS,
  },
});

const editDeal = write({
  ...onDeal,
  method: 'PATCH',
  id: 'editDeal',
  path: '/deals/{id}',
  summary: "Correct a deal's account name, industry or list value",
  description:
    'A JSON merge (`application/json` or `application/merge-patch+json`) of `{account?: {name?, industry?}, ' +
    'listValueUsd?}`. Each field that differs is a change: one activity entry names them all and `deal.updated` ' +
    'publishes them. The floor follows the new list value from then on; a posted gig’s brief stays as it was. ' +
    'A body that changes nothing answers the deal as it is. A closed deal cannot be edited (409 DEAL_TERMINAL).',
  body: EditDealBody,
  responses: { 200: Type.Ref(DealSchema) },
  errors: [400, 404, 409, 412],
  scope: WRITE_DEALS,
  command: (service, { id, body, ifMatch, caller }) =>
    service.deals.editDeal(id, body as Static<typeof EditDealBody>, ifMatch, caller),
  answer: (answers) => answers.editDeal,
  tool: {
    name: 'edit_deal',
    title: 'Demo store: correct a deal',
    description: (prefix) =>
      `${DEMO_STORE} correct a deal's account name, industry or list value (PATCH ${prefix}/deals/{id}); answers ` +
      'the updated Deal. Give only what changes: {account?: {name?, industry?}, listValueUsd?} (industry null ' +
      'removes it). The negotiation floor follows the new list value; a gig already posted keeps the brief it ' +
      'was posted with. Refused: a closed_won or closed_lost deal (409 DEAL_TERMINAL); an unknown id (404 ' +
      `DEAL_NOT_FOUND). A refusal is an error result (isError) whose text is the HTTP error body {error, code, ...} ` +
      `and changes nothing. ${IF_MATCH_NOTE} ${KEY_NOTE}`,
    // Not destructive: an edit is corrected by another; the same edit twice changes nothing more.
    annotations: hints(false, true),
  },
});

const advanceDeal = write({
  ...onDeal,
  id: 'advanceDeal',
  path: '/deals/{id}/advance',
  summary: 'Propose the next move; the gate commits it, refuses it, or the deal escalates to a human',
  body: ProposalBody,
  responses: {
    200: {
      ...Type.Union([Type.Ref(DealSchema), Type.Ref(EscalationSchema)]),
      type: 'object' as const,
      description: 'The Deal, or the escalation {escalated: true, role, gig, suggestedClosers, deal}',
    },
    202: Type.Ref(HeldSchema),
  },
  errors: [400, 404, 409, 412, 422],
  scope: PROPOSE,
  dryRunnable: true,
  command: (service, { id, body, ifMatch, caller }) =>
    service.deals.advanceDeal(id, (body ?? {}) as ProposalInput, ifMatch, caller),
  answer: (answers) => answers.advanceDeal,
  tool: {
    name: 'advance_deal',
    title: 'Demo store: advance a deal',
    description: (prefix) =>
      `${DEMO_STORE} propose the next move of a deal to the gate (POST ${prefix}/deals/{id}/advance), which ` +
      `commits it (the updated Deal is answered) or refuses it. advanceTo defaults to the next stage (${ORDER}); ` +
      'valueUsd, for closed_won only, defaults ' +
      'to the list value. The gate refuses: a skip, a move back, or any stage but the next one and closed_lost ' +
      '(422 GATE_ILLEGAL_MOVE); a close won below the negotiation floor (422 GATE_BELOW_FLOOR; the message states ' +
      'the value, the floor and the floor percentage of the list value); any move of a closed_won or closed_lost ' +
      'deal (409 DEAL_TERMINAL). An unknown id is 404 DEAL_NOT_FOUND. A deal that needs a human (its owning role ' +
      'staffed with one by the mandate, or the deal stalled or already escalated: the human track is left only ' +
      'through a deescalate) does not move, whatever is proposed: the answer is the escalation shape with its gig, ' +
      'for a human to claim and ' +
      `work (claim_gig, advance_gig). ${REFUSAL_NOTE} ${DRY_RUN_NOTE} ${DRY_RUN_CLOSE_NOTE} ${IF_MATCH_NOTE} ` +
      KEY_NOTE,
    // Not idempotent: without advanceTo, each call proposes the stage after the one it reached.
    annotations: hints(true, false),
  },
});

const reportSignals = write({
  ...onDeal,
  id: 'reportSignals',
  path: '/deals/{id}/signals',
  summary: 'Report discovered signals; gone_dark stalls the deal into the nurturer role',
  body: SignalsBody,
  responses: { 200: Type.Ref(DealSchema) },
  errors: [400, 404, 409, 412],
  scope: PROPOSE,
  command: (service, { id, body, ifMatch, caller }) =>
    service.deals.reportSignals(id, (body as Static<typeof SignalsBody>).signals, ifMatch, caller),
  answer: (answers) => answers.reportSignals,
  tool: {
    name: 'report_signals',
    title: 'Demo store: report signals on a deal',
    description: (prefix) =>
      `${DEMO_STORE} report signals discovered on a deal, e.g. procurement_involved (POST ${prefix}/deals/{id}/signals); ` +
      'answers the updated Deal. Signals it already carries change nothing. A signal the mandate names in a ' +
      "role's humanIf.signals hands that role to a human at the deal's next advance. gone_dark stalls the deal: " +
      'it passes to the nurturer role on the human track, and its open or claimed gigs of other roles are released ' +
      '(a nurturer gig then revives it: revive_gig). Refused: a closed_won or closed_lost deal (409 DEAL_TERMINAL); ' +
      'more than 256 distinct signals on one deal (422 SIGNAL_LIMIT); an unknown id (404 DEAL_NOT_FOUND). ' +
      `${REFUSAL_NOTE} ${IF_MATCH_NOTE} ${KEY_NOTE}`,
    // Destructive: gone_dark releases the deal's other gigs, claims and all.
    annotations: hints(true, true),
  },
});

const getSettlement = read({
  id: 'getSettlement',
  method: 'GET',
  mount: 'deals',
  path: '/deals/{id}/settlement',
  summary: 'Settlement of a closed_won deal',
  tag: 'deals',
  responses: { 200: Type.Ref(SettlementSchema) },
  errors: [404, 409],
  scope: READ_DEALS,
  read: (service, { id, caller }) => service.queries.settlement(id, caller),
  view: settlementView,
});

const reengageDeal = write({
  ...onDeal,
  id: 'reengageDeal',
  path: '/deals/{id}/reengage',
  summary: 'Open a new deal from a closed_lost one, with lineage',
  body: EmptyBody,
  responses: { 201: Type.Ref(DealSchema) },
  errors: [400, 404, 409, 412],
  scope: WRITE_DEALS,
  command: (service, { id, ifMatch, caller }) => service.deals.reengage(id, ifMatch, caller),
  answer: (answers) => answers.reengageDeal,
});

const deescalateDeal = write({
  ...onDeal,
  id: 'deescalateDeal',
  path: '/deals/{id}/deescalate',
  summary: "The Seller's way off the human track",
  body: EmptyBody,
  responses: { 200: Type.Ref(DealSchema) },
  errors: [400, 404, 409, 412],
  scope: WRITE_DEALS,
  command: (service, { id, ifMatch, caller }) => service.deals.deescalate(id, ifMatch, caller),
  answer: (answers) => answers.deescalateDeal,
});

export const DEAL_OPERATIONS = [
  createDeal,
  sell,
  listDeals,
  getDeal,
  editDeal,
  advanceDeal,
  reportSignals,
  getSettlement,
  reengageDeal,
  deescalateDeal,
];
