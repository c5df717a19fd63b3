// Approvals (D-69, D-70): the record, the lists' queries and the decisions' bodies, as the
// contract shows them.
import { Type } from '@sinclair/typebox';
import { APPROVAL_STATUSES } from '../domain/approvals.ts';
import { optionalBody, pageParams, Timestamp } from './common.ts';
import { ActorRefSchema, ApproverSchema } from './deal.ts';

export const ApprovalStatusSchema = Type.Union(
  APPROVAL_STATUSES.map((s) => Type.Literal(s)),
  {
    description:
      'pending until decided; approved (it committed), denied, expired, superseded (its deal moved first) or refused (the gate or another limit refused it at the last approval)',
  },
);

export const LimitSchema = Type.Object(
  {
    limit: Type.String({
      description:
        "the policy's field: maxDealValueUsd, minCloseValuePct, allowedMoves, closesPerDay or closedValuePerDayUsd",
    }),
    allowed: Type.Union([Type.Number(), Type.Array(Type.String())], { description: 'what the policy allows' }),
    value: Type.Union([Type.Number(), Type.String()], { description: 'what the move makes it' }),
    used: Type.Optional(Type.Number({ description: "the day's closes or closed value before this move (dry runs)" })),
  },
  {
    $id: 'PolicyLimit',
    additionalProperties: false,
    description: "a limit of a key's policy as a move meets it (D-69)",
  },
);

export const ApprovalSchema = Type.Object(
  {
    id: Type.String({ description: '`apr_<NNNN>`' }),
    dealId: Type.String(),
    gigId: Type.Optional(Type.String()),
    keyId: Type.String({ description: 'the key that proposed' }),
    keyName: Type.Optional(Type.String({ description: "that key's name when it proposed" })),
    principal: Type.String({ description: "the key's Seller" }),
    actor: ActorRefSchema,
    proposal: Type.Object(
      {
        advanceTo: Type.Optional(Type.String()),
        valueUsd: Type.Optional(Type.Number()),
        note: Type.Optional(Type.String()),
      },
      { description: 'what was proposed, as the proposer wrote it' },
    ),
    limits: Type.Array(Type.Ref(LimitSchema), { description: 'the limits the proposal went over' }),
    dealVersion: Type.Integer({ description: "the deal's version when held: only at it may the proposal commit" }),
    approvalsRequired: Type.Integer({ minimum: 1, maximum: 3 }),
    approvals: Type.Array(
      Type.Object({ by: Type.Ref(ApproverSchema), at: Timestamp, note: Type.Optional(Type.String()) }),
      { description: 'the approvals given so far' },
    ),
    status: ApprovalStatusSchema,
    requestedAt: Timestamp,
    expiresAt: { ...Timestamp, description: 'still pending then, it expires (platform clock)' },
    decidedAt: Type.Optional(Timestamp),
    reason: Type.Optional(Type.String({ description: "a denial's reason, or why it ended otherwise" })),
  },
  { $id: 'Approval', description: 'a proposal held by its key’s policy, waiting for people (D-69)' },
);

export const HeldSchema = Type.Object(
  { status: Type.Literal('held'), approval: Type.Ref(ApprovalSchema) },
  { $id: 'Held', description: "the proposal went over its key's policy: nothing moved; the approval waits for people" },
);

export const ApprovalListQuery = Type.Object(
  {
    status: Type.Optional(ApprovalStatusSchema),
    dealId: Type.Optional(Type.String({ maxLength: 64 })),
    keyId: Type.Optional(Type.String({ maxLength: 64 })),
    ...pageParams('apr'),
  },
  { additionalProperties: false },
);

export const ApproveBody = optionalBody(
  Type.Object(
    { note: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'why, for the record' })) },
    { additionalProperties: false },
  ),
);

export const DenyBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 500, description: 'why, in words the proposer reads' }) },
  { additionalProperties: false },
);
