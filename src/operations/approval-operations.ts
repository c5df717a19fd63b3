// Approvals (D-69, D-70): what keys' policies held, listed and read by the Seller's people and
// keys (the operator all), and decided by those with `approvals:decide`. Served in keys mode
// only: the demo has no keys, so no policy ever holds a proposal there. An approval's last vote
// answers what the proposal itself would have answered (the deal, or its escalation).
import { type Static, Type } from '@sinclair/typebox';
import type { Caller } from '../domain/access.ts';
import { ApprovalListQuery, ApprovalSchema, ApproveBody, DenyBody } from '../schemas/approvals.ts';
import { DealSchema } from '../schemas/deal.ts';
import { EscalationSchema } from '../schemas/marketplace.ts';
import type { Decision } from '../service/approvals.ts';
import { approvalView } from '../views/approvals.ts';
import { page, read, write } from './operation.ts';
import { KEYS_STORE, READ_HINTS } from './tool-notes.ts';

const READ = ['deals:read', 'approvals:decide', 'admin'] as const;
const DECIDE = ['approvals:decide', 'admin'] as const;
const common = { mount: 'root', keysOnly: true, tag: 'approvals' } as const;

type ListQuery = Static<typeof ApprovalListQuery>;

const APPROVAL_WORDS =
  'An approval is {id, dealId, gigId?, keyId, principal, actor, proposal: {advanceTo?, valueUsd?, note?}, limits: ' +
  '[{limit, allowed, value}] (what the proposal went over), dealVersion, approvalsRequired, approvals: [{by, at, ' +
  'note?}], status: pending|approved|denied|expired|superseded|refused, requestedAt, expiresAt, decidedAt?, reason?}.';

const listApprovals = page({
  ...common,
  id: 'listApprovals',
  method: 'GET',
  path: '/approvals',
  summary: "Held proposals and their decisions, newest first (a Seller's own; the operator's: all)",
  query: ApprovalListQuery,
  responses: { 200: Type.Array(Type.Ref(ApprovalSchema)) },
  errors: [400],
  scope: READ,
  idKind: 'apr',
  list: 'approvals',
  fetch: (service, filter, afterId, limit, caller) =>
    service.approvals.list({ ...(filter as Omit<ListQuery, 'limit' | 'cursor'>), afterId, limit }, caller),
  view: approvalView,
  // D-74: an approval's CSV columns (its limits and votes as JSON).
  csv: [
    'id',
    'dealId',
    'gigId',
    'keyId',
    'keyName',
    'principal',
    'proposal.advanceTo',
    'proposal.valueUsd',
    'proposal.note',
    'limits',
    'dealVersion',
    'approvalsRequired',
    'approvals',
    'status',
    'requestedAt',
    'expiresAt',
    'decidedAt',
    'reason',
  ],
  tool: {
    name: 'list_approvals',
    title: 'List approvals',
    description: () =>
      `${KEYS_STORE} the proposals keys' policies held for people to decide, newest first (GET /approvals), ` +
      `filtered by status, dealId or keyId. ${APPROVAL_WORDS} Answers {approvals, nextCursor?}.`,
    annotations: READ_HINTS,
  },
});

const getApproval = read({
  ...common,
  id: 'getApproval',
  method: 'GET',
  path: '/approvals/{id}',
  summary: 'One approval: a held proposal, its votes and its outcome',
  responses: { 200: Type.Ref(ApprovalSchema) },
  errors: [404],
  scope: READ,
  read: (service, { id, caller }) => service.approvals.get(id, caller),
  view: approvalView,
  tool: {
    name: 'get_approval',
    title: 'Get an approval',
    description: () =>
      `${KEYS_STORE} one approval (GET /approvals/{id}): how a proposal your key's policy held ended. ` +
      `${APPROVAL_WORDS} pending: people have not decided yet, do not propose the move again; approved: it ` +
      'committed, as the proposing key; denied: reason says why, in the approver’s words; expired or superseded: ' +
      'nobody decided in time, or the deal moved first (propose again against the deal as it is now if it still ' +
      'makes sense); refused: the gate or another limit refused it at the last approval. An unknown id is an error ' +
      'result carrying {error, code: APPROVAL_NOT_FOUND} (404).',
    annotations: READ_HINTS,
  },
});

const approveApproval = write<Decision>({
  ...common,
  id: 'approveApproval',
  method: 'POST',
  path: '/approvals/{id}/approve',
  summary: 'Approve a held proposal; the last approval required commits it',
  description:
    "By the deal's Seller's people or keys with approvals:decide (or the operator), never the proposing key nor the " +
    'person who made it (403 SELF_APPROVAL); each approver counts once (409 ALREADY_APPROVED). Short of the ' +
    'approvals required, the answer is the approval. The last one runs the proposal again, through the gate and ' +
    "the policy's other limits, against the deal as it is: it answers the deal (or its escalation) as the proposal " +
    "would have, or 409 APPROVAL_STALE when the deal moved since (the approval is then superseded), or the gate's " +
    'refusal. Of racing last approvals one commits; the others are 409 APPROVAL_DECIDED.',
  body: ApproveBody,
  responses: {
    200: Type.Union([Type.Ref(ApprovalSchema), Type.Ref(DealSchema), Type.Ref(EscalationSchema)], {
      description: 'the approval (short of the approvals required), or what the proposal committed',
    }),
  },
  errors: [400, 403, 404, 409, 422],
  scope: DECIDE,
  idempotent: true,
  command: (service, { id, body, caller }) =>
    service.approvals.approve(id, (body as Static<typeof ApproveBody> | undefined)?.note, caller as Caller),
  answer: (answers) => answers.decision,
});

const denyApproval = write<Decision>({
  ...common,
  id: 'denyApproval',
  method: 'POST',
  path: '/approvals/{id}/deny',
  summary: 'Deny a held proposal, with a reason the proposer reads',
  description:
    "By the same people and keys as an approval. The approval is denied for good, and the proposal is kept as a refused one (code APPROVAL_DENIED, the reason in the approver's words).",
  body: DenyBody,
  responses: { 200: Type.Ref(ApprovalSchema) },
  errors: [400, 403, 404, 409],
  scope: DECIDE,
  idempotent: true,
  command: (service, { id, body, caller }) =>
    service.approvals.deny(id, (body as Static<typeof DenyBody>).reason, caller as Caller),
  answer: (answers) => answers.decision,
});

export const APPROVAL_OPERATIONS = [listApprovals, getApproval, approveApproval, denyApproval];
