// The closer marketplace under /closers. A closer's moves only propose to the deal's gate, as
// the agent's do.
import { type Static, Type } from '@sinclair/typebox';
import {
  ClaimBody,
  CloserListQuery,
  CloserSchema,
  EmptyBody,
  EnrolBody,
  GigAdvanceBody,
  GigListQuery,
  GigOutcomeSchema,
  GigSchema,
  KeysClaimBody,
  MatchBody,
  MatchSchema,
  ReleaseBody,
  ReviveBody,
} from '../schemas/marketplace.ts';
import type { CloserWithLedger } from '../service/outcomes.ts';
import { MARKETPLACE_PREFIX } from '../views/answers.ts';
import { closerView, gigView } from '../views/records.ts';
import { actingCloser, claimant } from './closer-of.ts';
import { page, read, write } from './operation.ts';
import {
  CLAIMANT,
  DEMO_STORE,
  DRY_RUN_CLOSE_NOTE,
  DRY_RUN_NOTE,
  hints,
  IF_MATCH_NOTE,
  KEY_NOTE,
  READ_HINTS,
  REFUSAL_NOTE,
  UNKNOWN_GIG,
} from './tool-notes.ts';

/** D-54: a closer's key reads open gigs and its own; a Seller's the gigs of its deals. */
const READ_GIGS = ['gigs:read', 'deals:read', 'admin'] as const;

const enrolCloser = write({
  id: 'enrolCloser',
  method: 'POST',
  mount: 'marketplace',
  path: '/closers',
  summary: 'Enrol a closer with a fresh Register and an empty ledger',
  tag: 'marketplace',
  body: EnrolBody,
  responses: { 201: Type.Ref(CloserSchema) },
  errors: [400],
  // D-51: in keys mode the operator enrols closers.
  scope: ['admin'],
  idempotent: true,
  command: (service, { body, caller }) => {
    const { name, industries } = body as Static<typeof EnrolBody>;
    return service.gigs.enrolCloser({ name, industries: industries ?? [] }, caller);
  },
  answer: (answers) => answers.enrolCloser,
});

const listClosers = page({
  id: 'listClosers',
  method: 'GET',
  mount: 'marketplace',
  path: '/closers',
  summary: 'Enrolled closers in id order, a page at a time',
  tag: 'marketplace',
  query: CloserListQuery,
  responses: { 200: Type.Array(Type.Ref(CloserSchema)) },
  errors: [400],
  // D-54: any key lists closers and their Registers (payouts: the closer's own and the operator's).
  scope: 'key',
  idKind: 'closer',
  list: 'closers',
  fetch: (service, _filter, afterId, limit, caller) => service.queries.listClosers({ afterId, limit }, caller),
  view: closerView,
  idOf: (c: CloserWithLedger) => c.closer.id,
});

const getCloser = read({
  id: 'getCloser',
  method: 'GET',
  mount: 'marketplace',
  path: '/closers/{id}',
  summary: 'One closer with Register and payouts ledger',
  tag: 'marketplace',
  responses: { 200: Type.Ref(CloserSchema) },
  errors: [404],
  scope: 'key',
  read: (service, { id, caller }) => service.queries.getCloser(id, caller),
  view: closerView,
  // D-74: its payouts ledger as CSV (none where the caller may not read it).
  csv: {
    columns: ['at', 'gigId', 'dealId', 'kind', 'amountUsd'],
    rows: (view) => (view as { payouts?: unknown[] }).payouts ?? [],
  },
});

const matchClosers = write({
  id: 'matchClosers',
  method: 'POST',
  mount: 'marketplace',
  path: '/match',
  summary: 'Rank every closer by industry fit, win rate, closed volume',
  tag: 'marketplace',
  body: MatchBody,
  responses: { 200: Type.Array(MatchSchema) },
  errors: [400],
  scope: 'key',
  idempotent: true,
  command: (service, { body, caller }) => {
    const { industry, limit } = body as Static<typeof MatchBody>;
    return service.gigs.match(industry, limit, caller);
  },
  answer: (answers) => answers.matchClosers,
});

const listGigs = page({
  id: 'listGigs',
  method: 'GET',
  mount: 'marketplace',
  path: '/gigs',
  summary: 'Gigs in id order, filtered by status, role, deal or closer, a page at a time',
  tag: 'marketplace',
  query: GigListQuery,
  responses: { 200: Type.Array(Type.Ref(GigSchema)) },
  errors: [400],
  scope: READ_GIGS,
  idKind: 'gig',
  list: 'gigs',
  fetch: (service, filter, afterId, limit, caller) => service.queries.listGigs({ ...filter, afterId, limit }, caller),
  view: gigView,
  tool: {
    name: 'list_gigs',
    title: 'Demo store: list gigs',
    description: () =>
      `${DEMO_STORE} gigs of the closer marketplace in id order, filtered by status (open, claimed, fulfilled, ` +
      `released, expired), role, deal or closer, a page at a time (GET ${MARKETPLACE_PREFIX}/gigs). Answers ` +
      '{gigs, nextCursor?}: pass nextCursor as cursor for the next page. No match is an empty list. A cursor this ' +
      'service did not give out is an error result (400 INVALID_CURSOR) carrying the HTTP error body {error, code}.',
    annotations: READ_HINTS,
  },
});

const getGig = read({
  id: 'getGig',
  method: 'GET',
  mount: 'marketplace',
  path: '/gigs/{id}',
  summary: 'One gig',
  tag: 'marketplace',
  responses: { 200: Type.Ref(GigSchema) },
  errors: [404],
  scope: READ_GIGS,
  read: (service, { id, caller }) => service.queries.getGig(id, caller),
  view: gigView,
});

/** What every move on a gig declares: a write on its deal, under If-Match, keyed. */
const onGig = {
  method: 'POST',
  mount: 'marketplace',
  tag: 'marketplace',
  scope: ['gigs:work'],
  idempotent: true,
  ifMatch: true,
} as const;

// Hints as for the deal tools: a second identical call of each of these is refused (the gig is
// no longer open, or no longer claimed, or the move was made).
const claimGig = write({
  ...onGig,
  id: 'claimGig',
  path: '/gigs/{id}/claim',
  summary: 'Claim an open gig for a closer; 409 unless open',
  body: ClaimBody,
  keysBody: KeysClaimBody,
  responses: { 200: GigOutcomeSchema },
  errors: [400, 403, 404, 409, 412],
  command: (service, { id, body, ifMatch, caller }) =>
    service.gigs.claimGig(
      id,
      actingCloser(caller, (body as Static<typeof KeysClaimBody> | undefined)?.closerId),
      ifMatch,
      caller,
    ),
  answer: (answers) => answers.claimGig,
  tool: {
    name: 'claim_gig',
    title: 'Demo store: claim a gig',
    description: () =>
      `${DEMO_STORE} claim an open gig for a closer (POST ${MARKETPLACE_PREFIX}/gigs/{id}/claim); answers {gig, deal}. ` +
      'The claimant then works it: advance_gig, revive_gig (a nurturer gig) or release_gig. A claim with no move ' +
      'for the claim TTL (72 hours by default) expires and the gig reopens. Refused: a gig that is not open, i.e. ' +
      'claimed, fulfilled, released or expired (409 GIG_NOT_OPEN); a closed deal (409 DEAL_TERMINAL); an unknown ' +
      `closer (404 CLOSER_NOT_FOUND). ${UNKNOWN_GIG} ${REFUSAL_NOTE} ${IF_MATCH_NOTE} ${KEY_NOTE}`,
    annotations: hints(false, true),
  },
});

const advanceGig = write({
  ...onGig,
  id: 'advanceGig',
  path: '/gigs/{id}/advance',
  summary: "Propose a move of the gig's deal to the gate",
  body: GigAdvanceBody,
  responses: { 200: { ...GigOutcomeSchema, description: 'The gig and its deal after the move' } },
  errors: [400, 403, 404, 409, 412, 422],
  dryRunnable: true,
  command: (service, { id, body, ifMatch, caller }) => {
    const input = body as Static<typeof GigAdvanceBody>;
    return service.gigs.advanceGig(id, { ...input, ...claimant(caller, input.closerId) }, ifMatch, caller);
  },
  answer: (answers) => answers.advanceGig,
  tool: {
    name: 'advance_gig',
    title: "Demo store: advance a gig's deal",
    description: () =>
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
    // Idempotent: advanceTo is required, and the same move again is refused (the deal is past it).
    annotations: hints(true, true),
  },
});

const reviveGig = write({
  ...onGig,
  id: 'reviveGig',
  path: '/gigs/{id}/revive',
  summary: 'A nurturer revives a stalled deal: gone_dark cleared, fee paid',
  body: ReviveBody,
  responses: { 200: GigOutcomeSchema },
  errors: [400, 403, 404, 409, 412],
  command: (service, { id, body, ifMatch, caller }) => {
    const input = (body ?? {}) as Static<typeof ReviveBody>;
    return service.gigs.clearGoneDark(id, { ...input, ...claimant(caller, input.closerId) }, ifMatch, caller);
  },
  answer: (answers) => answers.reviveGig,
  tool: {
    name: 'revive_gig',
    title: 'Demo store: revive a stalled deal (nurturer gig)',
    description: () =>
      `${DEMO_STORE} the claimant of a nurturer gig revives its stalled deal (POST ${MARKETPLACE_PREFIX}/gigs/{id}/revive): ` +
      'gone_dark is cleared, the deal goes back to the role of its stage, the gig is fulfilled and the nurturer ' +
      'paid its fee; answers {gig, deal, closer}. Refused: a setter or closer gig (409 GIG_NOT_NURTURER); a gig ' +
      'that is not claimed (409 GIG_NOT_CLAIMED); a closed deal (409 DEAL_TERMINAL). ' +
      `${CLAIMANT} ${UNKNOWN_GIG} ${REFUSAL_NOTE} ${IF_MATCH_NOTE} ${KEY_NOTE}`,
    annotations: hints(false, true),
  },
});

const releaseGig = write({
  ...onGig,
  id: 'releaseGig',
  path: '/gigs/{id}/release',
  summary: 'Withdraw an open or claimed gig; the deal returns to matching',
  body: ReleaseBody,
  responses: { 200: Type.Ref(GigSchema) },
  errors: [400, 403, 404, 409, 412],
  // A closer releases a gig it claimed; a Seller a gig of its own deal (D-53).
  scope: ['gigs:work', 'deals:write'],
  command: (service, { id, body, ifMatch, caller }) => {
    const closerId = (body as Static<typeof ReleaseBody> | undefined)?.closerId;
    return service.gigs.releaseGig(id, claimant(caller, closerId).closerId, ifMatch, caller);
  },
  answer: (answers) => answers.releaseGig,
  tool: {
    name: 'release_gig',
    title: 'Demo store: release a gig',
    description: () =>
      `${DEMO_STORE} withdraw an open or claimed gig for good (POST ${MARKETPLACE_PREFIX}/gigs/{id}/release): the ` +
      'deal returns to matching, and its next advance posts a fresh gig; answers the Gig. Refused: a gig that is ' +
      'neither open nor claimed (409 GIG_NOT_ACTIVE); on a claimed gig, a closerId other than the claimant (409 ' +
      'NOT_CLAIMANT); an unknown closer (404 CLOSER_NOT_FOUND). ' +
      `${UNKNOWN_GIG} ${REFUSAL_NOTE} ${IF_MATCH_NOTE} ${KEY_NOTE}`,
    annotations: hints(true, true),
  },
});

const expireGig = write({
  ...onGig,
  id: 'expireGig',
  path: '/gigs/{id}/expire',
  summary: 'Platform-owned expiry: the claimed gig reopens to the pool',
  body: EmptyBody,
  responses: { 200: Type.Ref(GigSchema) },
  errors: [400, 404, 409, 412],
  // Platform-owned: the operator's in keys mode.
  scope: ['admin'],
  command: (service, { id, ifMatch, caller }) => service.gigs.reopenGig(id, ifMatch, caller),
  answer: (answers) => answers.expireGig,
});

export const MARKETPLACE_OPERATIONS = [
  enrolCloser,
  listClosers,
  getCloser,
  matchClosers,
  listGigs,
  getGig,
  claimGig,
  advanceGig,
  reviveGig,
  releaseGig,
  expireGig,
];
