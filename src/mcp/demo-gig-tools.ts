// The demo's marketplace tools (D-33): the gigs a deal posts when a role needs a human, and the
// moves of the closer who claims one. Each stands for one operation under /closers, takes its
// path id and body (or query) as arguments, and answers its JSON; a closer's moves only propose
// to the deal's gate, as the agent's do.
import { type TObject, type TProperties, Type } from '@sinclair/typebox';
import type { Gig } from '../domain/records.ts';
import { IdParams } from '../schemas/common.ts';
import {
  ClaimBody,
  GigAdvanceBody,
  GigListQuery,
  GigOutcomeSchema,
  GigSchema,
  ReleaseBody,
  ReviveBody,
} from '../schemas/marketplace.ts';
import { MARKETPLACE_PREFIX } from '../views/answers.ts';
import { readPage } from '../views/page.ts';
import { gigView } from '../views/records.ts';
import {
  DEMO_STORE,
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

const GigId = {
  ...IdParams.properties.id,
  description: 'the gig, `gig_<NNNN>`; an id of any other shape names nothing (404 GIG_NOT_FOUND)',
};

/** The arguments of an operation on one gig: its id, then the fields of the HTTP body. */
const onGig = <P extends TProperties>(body: TObject<P>) =>
  Type.Object({ id: GigId, ...body.properties }, { additionalProperties: false });

const gigPath = (id: string, operation: string) => `${MARKETPLACE_PREFIX}/gigs/${encodeURIComponent(id)}/${operation}`;

const GigPage = Type.Object({
  gigs: Type.Array(Type.Ref(GigSchema), { description: 'this page, in id order' }),
  nextCursor: Type.Optional(NextCursor),
});

const CLAIMANT =
  'closerId, when named, must be the claimant (409 NOT_CLAIMANT otherwise; an unknown closer is 404 CLOSER_NOT_FOUND).';
const UNKNOWN_GIG = 'An unknown gig is 404 GIG_NOT_FOUND.';

// Hints as for the deal tools (src/mcp/demo-deal-tools.ts): a second identical call of each of
// these is refused (the gig is no longer open, or no longer claimed, or the move was made).
const listGigs = defineTool({
  name: 'list_gigs',
  title: 'Demo store: list gigs',
  description:
    `${DEMO_STORE} gigs of the closer marketplace in id order, filtered by status (open, claimed, fulfilled, ` +
    `released, expired), role, deal or closer, a page at a time (GET ${MARKETPLACE_PREFIX}/gigs). Answers ` +
    '{gigs, nextCursor?}: pass nextCursor as cursor for the next page. No match is an empty list. A cursor this ' +
    'service did not give out is an error result (400 INVALID_CURSOR) carrying the HTTP error body {error, code}.',
  input: GigListQuery,
  output: GigPage,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  argumentsAre: 'query',
  run: async ({ service }, { limit, cursor, ...filter }) => {
    const page = await readPage<Gig>('gig', { limit, cursor }, (afterId, max) =>
      service.listGigs({ ...filter, afterId, limit: max }),
    );
    if (page.records === undefined) return errorResult(INVALID_CURSOR);
    const body = { gigs: page.records.map(gigView), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    return toolResult(200, body);
  },
});

const claimGig = writeTool({
  name: 'claim_gig',
  title: 'Demo store: claim a gig',
  description:
    `${DEMO_STORE} claim an open gig for a closer (POST ${MARKETPLACE_PREFIX}/gigs/{id}/claim); answers {gig, deal}. ` +
    'The claimant then works it: advance_gig, revive_gig (a nurturer gig) or release_gig. A claim with no move ' +
    'for the claim TTL (72 hours by default) expires and the gig reopens. Refused: a gig that is not open, i.e. ' +
    'claimed, fulfilled, released or expired (409 GIG_NOT_OPEN); a closed deal (409 DEAL_TERMINAL); an unknown ' +
    `closer (404 CLOSER_NOT_FOUND). ${UNKNOWN_GIG} ${REFUSAL_NOTE} ${IF_MATCH_NOTE} ${KEY_NOTE}`,
  input: onGig(ClaimBody),
  output: GigOutcomeSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  path: ({ id }) => gigPath(id, 'claim'),
  call: (service, { id, closerId }, options) => service.claimGig(id, closerId, options),
  answer: (answers) => answers.claimGig,
  conditional: true,
});

const advanceGig = writeTool({
  name: 'advance_gig',
  title: "Demo store: advance a gig's deal",
  description:
    `${DEMO_STORE} the claimant of a gig proposes a move of its deal to the gate (POST ${MARKETPLACE_PREFIX}/gigs/{id}/advance); ` +
    'answers {gig, deal, closer?}. A closer gig works the deal one stage at a time from where it escalated ' +
    '(meeting → proposal → negotiation) to closed_won, with valueUsd, or closed_lost; a setter gig up to meeting ' +
    'or closed_lost; a nurturer gig only confirms the deal dead (closed_lost) and otherwise revives it ' +
    '(revive_gig). A close fulfils the gig and pays: on closed_won the closer gig its commission (its pricing pct ' +
    'of the final value); a setter reaching meeting or a nurturer confirming the deal dead, their fee. closer, ' +
    'present once the gig is fulfilled, is the closer with its Register and its payouts ledger. The gate refuses: ' +
    'a skip or a move this gig may not propose (422 GATE_ILLEGAL_MOVE); a close won below the negotiation floor ' +
    '(422 GATE_BELOW_FLOOR; the message states the value, the floor and the floor percentage of the list value), ' +
    'without valueUsd (422 GATE_VALUE_REQUIRED) or whose commission would pass the cap (422 ' +
    'GATE_COMMISSION_CAP); any move of a closed_won or closed_lost deal (409 DEAL_TERMINAL). Also refused: a gig ' +
    `that is not claimed (409 GIG_NOT_CLAIMED). ${CLAIMANT} ${UNKNOWN_GIG} ${REFUSAL_NOTE} ${DRY_RUN_NOTE} ` +
    `${DRY_RUN_CLOSE_NOTE} ${IF_MATCH_NOTE} ${KEY_NOTE}`,
  input: onGig(GigAdvanceBody),
  output: GigOutcomeSchema,
  // Idempotent: advanceTo is required, and the same move again is refused (the deal is past it).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  path: ({ id }) => gigPath(id, 'advance'),
  call: (service, { id, ...move }, options) => service.advanceGig(id, move, options),
  answer: (answers) => answers.advanceGig,
  conditional: true,
  dryRunnable: (value) => value,
});

const reviveGig = writeTool({
  name: 'revive_gig',
  title: 'Demo store: revive a stalled deal (nurturer gig)',
  description:
    `${DEMO_STORE} the claimant of a nurturer gig revives its stalled deal (POST ${MARKETPLACE_PREFIX}/gigs/{id}/revive): ` +
    'gone_dark is cleared, the deal goes back to the role of its stage, the gig is fulfilled and the nurturer ' +
    'paid its fee; answers {gig, deal, closer}. Refused: a setter or closer gig (409 GIG_NOT_NURTURER); a gig ' +
    'that is not claimed (409 GIG_NOT_CLAIMED); a closed deal (409 DEAL_TERMINAL). ' +
    `${CLAIMANT} ${UNKNOWN_GIG} ${REFUSAL_NOTE} ${IF_MATCH_NOTE} ${KEY_NOTE}`,
  input: onGig(ReviveBody),
  output: GigOutcomeSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  path: ({ id }) => gigPath(id, 'revive'),
  call: (service, { id, ...revival }, options) => service.clearGoneDark(id, revival, options),
  answer: (answers) => answers.reviveGig,
  conditional: true,
});

const releaseGig = writeTool({
  name: 'release_gig',
  title: 'Demo store: release a gig',
  description:
    `${DEMO_STORE} withdraw an open or claimed gig for good (POST ${MARKETPLACE_PREFIX}/gigs/{id}/release): the ` +
    'deal returns to matching, and its next advance posts a fresh gig; answers the Gig. Refused: a gig that is ' +
    'neither open nor claimed (409 GIG_NOT_ACTIVE); on a claimed gig, a closerId other than the claimant (409 ' +
    'NOT_CLAIMANT); an unknown closer (404 CLOSER_NOT_FOUND). ' +
    `${UNKNOWN_GIG} ${REFUSAL_NOTE} ${IF_MATCH_NOTE} ${KEY_NOTE}`,
  input: onGig(ReleaseBody),
  output: Type.Ref(GigSchema),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  path: ({ id }) => gigPath(id, 'release'),
  call: (service, { id, closerId }, options) => service.releaseGig(id, closerId, options),
  answer: (answers) => answers.releaseGig,
  conditional: true,
});

export const GIG_TOOLS = [listGigs, claimGig, advanceGig, reviveGig, releaseGig];
