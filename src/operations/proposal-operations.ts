// What the gate refused (D-61): every refused proposal, a deal's own, and the summary of what the
// executors proposed. Reads only: the records are written by the refusals themselves
// (src/service/refusals.ts).
import { type Static, Type } from '@sinclair/typebox';
import {
  DealProposalsQuery,
  ProposalListQuery,
  ProposalSummaryQuery,
  ProposalSummarySchema,
  RefusedProposalSchema,
} from '../schemas/proposals.ts';
import { ok, RefusedError } from '../service/result.ts';
import { proposalView } from '../views/proposals.ts';
import { page, read } from './operation.ts';
import { DEMO_STORE, READ_HINTS } from './tool-notes.ts';

// D-54: whoever reads deals reads what was proposed on them (a closer only its own proposals).
const READ_PROPOSALS = ['deals:read', 'gigs:read', 'admin'] as const;

type ListQuery = Static<typeof ProposalListQuery>;

/** D-74: a refused proposal's CSV columns. */
const PROPOSAL_CSV = [
  'id',
  'dealId',
  'gigId',
  'by',
  'actor.principal',
  'actor.keyId',
  'actor.userId',
  'proposal.advanceTo',
  'proposal.valueUsd',
  'proposal.note',
  'stage',
  'code',
  'reason',
  'at',
];

const listProposals = page({
  id: 'listProposals',
  method: 'GET',
  mount: 'deals',
  path: '/proposals',
  summary: 'Refused proposals, newest first, filtered, a page at a time',
  description:
    'Every proposal the gate refused (an agent deal advance, a closer gig advance or revive) that the caller may see: ' +
    'a deal keeps its newest 1,000.',
  tag: 'proposals',
  query: ProposalListQuery,
  responses: { 200: Type.Array(Type.Ref(RefusedProposalSchema)) },
  errors: [400],
  scope: READ_PROPOSALS,
  idKind: 'prop',
  list: 'proposals',
  fetch: (service, filter, afterId, limit, caller) =>
    service.queries.listProposals({ ...(filter as Omit<ListQuery, 'limit' | 'cursor'>), afterId, limit }, caller),
  view: proposalView,
  csv: PROPOSAL_CSV,
  tool: {
    name: 'list_proposals',
    title: 'Demo store: list refused proposals',
    description: (prefix) =>
      `${DEMO_STORE} the proposals the gate refused, newest first (GET ${prefix}/proposals): each {id, dealId, ` +
      "gigId?, by: agent|human, actor?, proposal: {advanceTo?, valueUsd?, note?}, stage, code, reason, at}, reason the gate's " +
      'own words (e.g. the negotiation floor a close won fell below). Filter by dealId, by, code, keyId. Read your ' +
      'refusals before proposing again: what the gate refused once it refuses again. Answers {proposals, nextCursor?}.',
    annotations: READ_HINTS,
  },
});

const dealProposals = page({
  id: 'listDealProposals',
  method: 'GET',
  mount: 'deals',
  path: '/deals/{id}/proposals',
  summary: "A deal's refused proposals, newest first, a page at a time",
  tag: 'proposals',
  query: DealProposalsQuery,
  responses: { 200: Type.Array(Type.Ref(RefusedProposalSchema)) },
  errors: [400, 404],
  scope: READ_PROPOSALS,
  idKind: 'prop',
  list: 'proposals',
  fetch: async (service, filter, afterId, limit, caller, id) => {
    const result = await service.queries.dealProposals(
      id,
      { ...(filter as Omit<ListQuery, 'limit' | 'cursor' | 'dealId'>), afterId, limit },
      caller,
    );
    if (!result.ok) throw new RefusedError(result.refusal);
    return result.value;
  },
  view: proposalView,
  csv: PROPOSAL_CSV,
});

const proposalSummary = read({
  id: 'getProposalSummary',
  method: 'GET',
  mount: 'deals',
  path: '/proposals/summary',
  summary: 'What the executors proposed: moves accepted and refused, refusals by code',
  description:
    'Over every deal the caller may see. The counts are exact: records dropped past 1,000 on a deal still count.',
  tag: 'proposals',
  query: ProposalSummaryQuery,
  responses: { 200: Type.Ref(ProposalSummarySchema) },
  errors: [400],
  scope: READ_PROPOSALS,
  read: async (service, { query, caller }) =>
    ok(await service.queries.proposalSummary(query as Static<typeof ProposalSummaryQuery>, caller)),
  view: (summary) => summary,
});

export const PROPOSAL_OPERATIONS = [listProposals, proposalSummary, dealProposals];
