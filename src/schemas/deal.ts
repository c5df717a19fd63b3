import { Type } from '@sinclair/typebox';
import { MAX_SIGNALS_PER_CALL, PLATFORM, SIGNAL_PATTERN } from '../domain/mandate.ts';
import { STAGES } from '../domain/stages.ts';
import {
  ActorSchema,
  DOMAIN_VALIDATED,
  Note,
  optionalBody,
  pageParams,
  RoleSchema,
  StageSchema,
  Timestamp,
  Usd,
  UsdInput,
} from './common.ts';
import { DEAL_EXAMPLE, MANDATE_EXAMPLE, SETTLEMENT_EXAMPLE } from './examples.ts';
import { CREATE_DEAL_EXAMPLE, EDIT_DEAL_EXAMPLE, PROPOSAL_EXAMPLE, SIGNALS_EXAMPLE } from './request-examples.ts';

export const AccountSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    industry: Type.Optional(Type.String({ maxLength: 100, description: 'used for closer matching' })),
    actor: ActorSchema,
  },
  { additionalProperties: false },
);

const StaffingRuleSchema = Type.Union([
  Type.Literal('agent'),
  Type.Literal('human'),
  Type.Object(
    {
      // D-100: at least one condition; signals as D-105 names them (the pattern, at most 32; an
      // empty list is taken). The domain checks it all, its problems 422 MANDATE_OUT_OF_BOUNDS
      // (D-20): the schema states the same bounds, it does not check them first.
      humanIf: Type.Object(
        {
          minDealSizeUsd: Type.Optional(Type.Number({ minimum: 0, maximum: PLATFORM.maxDealSizeUsd })),
          signals: Type.Optional(
            Type.Array(Type.String({ pattern: SIGNAL_PATTERN.source }), { maxItems: MAX_SIGNALS_PER_CALL }),
          ),
        },
        {
          additionalProperties: false,
          minProperties: 1,
          description:
            'a human when the list value is at least minDealSizeUsd or the deal carries one of signals; at least one condition',
        },
      ),
    },
    { additionalProperties: false },
  ),
]);

/** As the Seller may send it: any subset; checked by the domain so that problems are 422 (D-20). */
export const MandateInputSchema = Type.Object(
  {
    staffing: Type.Optional(
      Type.Object(
        {
          setter: Type.Optional(StaffingRuleSchema),
          closer: Type.Optional(StaffingRuleSchema),
          nurturer: Type.Optional(StaffingRuleSchema),
        },
        { additionalProperties: false },
      ),
    ),
    commissionPct: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: PLATFORM.maxCommissionPct,
        description: `at most maxCommissionPct; default ${PLATFORM.defaultCommissionPct}`,
      }),
    ),
    maxCommissionPct: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: PLATFORM.maxCommissionPct,
        description: `a Seller may lower the cap, never raise it; default ${PLATFORM.maxCommissionPct}`,
      }),
    ),
    floorPct: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: `share of list value; default ${PLATFORM.defaultFloorPct}` }),
    ),
    fees: Type.Optional(
      Type.Object(
        {
          setterUsd: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: PLATFORM.maxFeeUsd,
              description: `default ${PLATFORM.defaultFees.setterUsd}`,
            }),
          ),
          nurturerUsd: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: PLATFORM.maxFeeUsd,
              description: `default ${PLATFORM.defaultFees.nurturerUsd}`,
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    stallTimeoutDays: Type.Optional(
      Type.Integer({
        minimum: PLATFORM.stallTimeoutDays.min,
        maximum: PLATFORM.stallTimeoutDays.max,
        description: `default ${PLATFORM.stallTimeoutDays.default}, ${PLATFORM.stallTimeoutDays.b2c} for B2C`,
      }),
    ),
  },
  {
    additionalProperties: false,
    [DOMAIN_VALIDATED]: true,
    description: 'Any subset; platform defaults fill the rest. Problems answer 422 with violations.',
  },
);

export const CreateDealBody = Type.Object(
  {
    account: AccountSchema,
    listValueUsd: UsdInput('list value'),
    mandate: Type.Optional(MandateInputSchema),
  },
  { additionalProperties: false, examples: [CREATE_DEAL_EXAMPLE] },
);

/** D-67: a JSON merge (RFC 7396) of what a Seller may correct; `industry: null` removes it. */
export const EditDealBody = Type.Object(
  {
    account: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(AccountSchema.properties.name),
          industry: Type.Optional(
            Type.Union([AccountSchema.properties.industry, Type.Null()], {
              description: 'used for closer matching; null removes it',
            }),
          ),
        },
        { additionalProperties: false, minProperties: 1 },
      ),
    ),
    listValueUsd: Type.Optional(UsdInput('list value')),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'The fields to change, as a JSON merge: the account’s name or industry, the list value.',
    examples: [EDIT_DEAL_EXAMPLE],
  },
);

export const ProposalBody = optionalBody(
  Type.Object(
    {
      advanceTo: Type.Optional(
        Type.Union(
          STAGES.map((stage) => Type.Literal(stage)),
          {
            description:
              'the proposed stage; default: the next stage. Only the next stage or closed_lost pass the gate',
          },
        ),
      ),
      valueUsd: Type.Optional(UsdInput('close value for closed_won; default: the list value')),
      note: Type.Optional(Note),
    },
    { additionalProperties: false, examples: [PROPOSAL_EXAMPLE] },
  ),
);

export const DealListQuery = Type.Object(
  {
    stage: Type.Optional(StageSchema),
    role: Type.Optional({
      ...RoleSchema,
      description:
        'the owning role: nurturer while the deal carries gone_dark, else setter at sourced and qualified, closer from meeting on',
    }),
    humanTrack: Type.Optional(Type.Boolean({ description: 'true: on the human track; false: not on it' })),
    closerId: Type.Optional(Type.String({ description: 'deals with a gig of this closer', examples: ['closer_0001'] })),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "deals whose account's name contains this text, without regard to case",
        examples: ['acme'],
      }),
    ),
    ...pageParams('deal'),
  },
  { additionalProperties: false },
);

export const SignalsBody = Type.Object(
  {
    signals: Type.Array(Type.String({ pattern: SIGNAL_PATTERN.source }), {
      minItems: 1,
      maxItems: MAX_SIGNALS_PER_CALL,
      description: 'signals to add, e.g. gone_dark, procurement_involved',
    }),
  },
  { additionalProperties: false, examples: [SIGNALS_EXAMPLE] },
);

const StaffingView = Type.Union([
  Type.Literal('agent'),
  Type.Literal('human'),
  Type.Object({
    humanIf: Type.Object({
      minDealSizeUsd: Type.Optional(Type.Number()),
      signals: Type.Optional(Type.Array(Type.String())),
    }),
  }),
]);

export const MandateSchema = Type.Object(
  {
    staffing: Type.Object({ setter: StaffingView, closer: StaffingView, nurturer: StaffingView }),
    commissionPct: Type.Number(),
    maxCommissionPct: Type.Number(),
    floorPct: Type.Number(),
    fees: Type.Object({ setterUsd: Type.Number(), nurturerUsd: Type.Number() }),
    stallTimeoutDays: Type.Integer(),
  },
  { $id: 'Mandate', examples: [MANDATE_EXAMPLE] },
);

/** D-56: who made the request that wrote an entry or an event (keys mode only). */
export const ApproverSchema = Type.Object(
  {
    userId: Type.Optional(Type.String({ description: 'the person who approved, `usr_<NNNN>`' })),
    keyId: Type.Optional(Type.String({ description: 'the key that approved, `key_<NNNN>`' })),
    name: Type.String({ description: "the person's or the key's name when it approved" }),
  },
  { $id: 'Approver', additionalProperties: false, description: 'who approved a held proposal: a person or a key' },
);

export const ActorRefSchema = Type.Union(
  [
    Type.Object(
      {
        principal: Type.String({ description: '`operator`, a Seller id or a closer id' }),
        keyId: Type.String({ description: 'the key the request carried, `key_<NNNN>`' }),
        approvedBy: Type.Optional(
          Type.Array(Type.Ref(ApproverSchema), {
            description: "a proposal the key's policy held, committed at its last approval: who approved it (D-70)",
          }),
        ),
      },
      { additionalProperties: false, description: 'a key' },
    ),
    Type.Object(
      {
        principal: Type.String({ description: '`operator`, a Seller id or a closer id' }),
        userId: Type.String({ description: 'the person, `usr_<NNNN>`' }),
        name: Type.String({ description: "the person's name when it acted" }),
      },
      { additionalProperties: false, description: 'a person signed in to the console (D-65)' },
    ),
  ],
  {
    description:
      'keys mode: who wrote it, the principal and the key of the request or the person by name (absent for the platform timers)',
  },
);

export const ActivitySchema = Type.Object({
  at: Timestamp,
  by: Type.Union([Type.Literal('service'), Type.Literal('agent'), Type.Literal('human')]),
  stage: StageSchema,
  note: Type.String({ description: 'in words: it names no id; the gig and closer it is about are the fields below' }),
  gigId: Type.Optional(
    Type.String({
      description: 'the gig the entry is about (posted, claimed, moved, released, expired), `gig_<NNNN>`',
    }),
  ),
  closerId: Type.Optional(
    Type.String({
      description: 'the closer the entry is about (a claim, a move by the gig, a revival, a claim that expired)',
    }),
  ),
  actor: Type.Optional(ActorRefSchema),
});

export const AccountView = Type.Object({
  name: Type.String(),
  industry: Type.Optional(Type.String()),
  actor: ActorSchema,
});

export const DealSchema = Type.Object(
  {
    id: Type.String({ description: '`deal_<NNNN>`' }),
    sellerId: Type.Optional(Type.String({ description: 'keys mode: the Seller that owns the deal, `seller_<NNNN>`' })),
    version: Type.Integer({
      minimum: 1,
      description:
        '1 when created, one more with every accepted change of the deal or of one of its gigs (each step of a sell counts); sent as `ETag: "<version>"`, and named by `If-Match` to move only the deal one read',
    }),
    account: AccountView,
    listValueUsd: Usd('list value'),
    stage: StageSchema,
    signals: Type.Array(Type.String()),
    mandate: Type.Ref(MandateSchema),
    activity: Type.Array(ActivitySchema, { description: 'full log, oldest first' }),
    humanTrack: Type.Optional(Type.Boolean()),
    finalValueUsd: Type.Optional(Usd('closed value, at closed_won')),
    closedBy: Type.Optional(Type.Union([Type.Literal('agent'), Type.Literal('human')])),
    lineage: Type.Optional(Type.Object({ revivedFrom: Type.String() })),
  },
  { $id: 'Deal', examples: [DEAL_EXAMPLE] },
);

export const SettlementSchema = Type.Object(
  {
    dealId: Type.String(),
    finalValueUsd: Usd('closed value'),
    closedBy: Type.Union([Type.Literal('agent'), Type.Literal('human')]),
    closerCommissionUsd: Usd(
      "commission paid to the marketplace closer who held the deal's closer gig; 0 when the agent or the Seller's own person closed",
    ),
    platformFeeUsd: Usd('5% of the closed value'),
    feesSettledUsd: Usd('setter and nurturer fees settled at gig fulfilment'),
    netToSellerUsd: Usd('final − commission − platform fee − fees settled'),
    fees: Type.Array(
      Type.Object({ gigId: Type.String(), role: RoleSchema, closerId: Type.String(), amountUsd: Type.Number() }),
    ),
    refundedUsd: Type.Optional(Usd("the deal's refunds in all (D-81); absent until it has one")),
  },
  { $id: 'Settlement', examples: [SETTLEMENT_EXAMPLE] },
);
