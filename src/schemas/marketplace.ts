import { Type } from '@sinclair/typebox';
import { PLATFORM } from '../domain/mandate.ts';
import { STAGES } from '../domain/stages.ts';
import { MATCH_LIMIT, MAX_MATCH_LIMIT } from '../service/closers.ts';
import {
  CloserId,
  GigStatusSchema,
  Note,
  optionalBody,
  pageParams,
  RoleSchema,
  StageSchema,
  Timestamp,
  Usd,
  UsdInput,
} from './common.ts';
import { AccountView, ActivitySchema, DealSchema } from './deal.ts';
import { CLOSER_EXAMPLE, GIG_EXAMPLE } from './examples.ts';
import {
  CLAIM_EXAMPLE,
  ENROL_EXAMPLE,
  GIG_ADVANCE_EXAMPLE,
  MATCH_EXAMPLE,
  RELEASE_EXAMPLE,
  REVIVE_EXAMPLE,
} from './request-examples.ts';

export const EnrolBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    industries: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20, default: [] })),
  },
  { additionalProperties: false, examples: [ENROL_EXAMPLE] },
);

export const MatchBody = Type.Object(
  {
    industry: Type.String({ maxLength: 100 }),
    valueUsd: Type.Number({ minimum: 0, maximum: PLATFORM.maxDealSizeUsd, description: 'the deal value to match for' }),
    role: RoleSchema,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_MATCH_LIMIT,
        default: MATCH_LIMIT,
        description: `how many of the ranking to answer (default ${MATCH_LIMIT})`,
      }),
    ),
  },
  { additionalProperties: false, examples: [MATCH_EXAMPLE] },
);

export const GigListQuery = Type.Object(
  {
    status: Type.Optional(GigStatusSchema),
    role: Type.Optional(RoleSchema),
    dealId: Type.Optional(Type.String({ description: "the deal's gigs", examples: ['deal_0001'] })),
    closerId: Type.Optional(
      Type.String({ description: 'gigs claimed by (or fulfilled by) this closer', examples: ['closer_0001'] }),
    ),
    ...pageParams('gig'),
  },
  { additionalProperties: false },
);

export const CloserListQuery = Type.Object({ ...pageParams('closer') }, { additionalProperties: false });

export const ClaimBody = Type.Object(
  { closerId: CloserId },
  { additionalProperties: false, examples: [CLAIM_EXAMPLE] },
);

/** Keys mode (D-55): a closer's key claims as its own closer; `closerId`, if given, must be it. */
export const KeysClaimBody = Type.Object(
  { closerId: Type.Optional(CloserId) },
  { additionalProperties: false, examples: [CLAIM_EXAMPLE] },
);

export const GigAdvanceBody = Type.Object(
  {
    advanceTo: Type.Union(
      STAGES.map((stage) => Type.Literal(stage)),
      {
        description:
          'the proposed stage: what the gate accepts depends on the gig role, e.g. the next stage, closed_won or closed_lost',
      },
    ),
    valueUsd: Type.Optional(UsdInput('close value, needed for closed_won')),
    note: Type.Optional(Note),
    closerId: Type.Optional(CloserId),
  },
  { additionalProperties: false, examples: [GIG_ADVANCE_EXAMPLE] },
);

export const ReviveBody = optionalBody(
  Type.Object(
    { note: Type.Optional(Note), closerId: Type.Optional(CloserId) },
    { additionalProperties: false, examples: [REVIVE_EXAMPLE] },
  ),
);

export const ReleaseBody = optionalBody(
  Type.Object({ closerId: Type.Optional(CloserId) }, { additionalProperties: false, examples: [RELEASE_EXAMPLE] }),
);

export const EmptyBody = optionalBody(Type.Object({}, { additionalProperties: false }));

export const PayoutSchema = Type.Object({
  at: Timestamp,
  gigId: Type.String(),
  dealId: Type.String(),
  kind: Type.Union([Type.Literal('commission'), Type.Literal('fee')]),
  amountUsd: Usd('amount paid'),
});

export const CloserSchema = Type.Object(
  {
    id: Type.String({ description: '`closer_<NNNN>`' }),
    name: Type.String(),
    industries: Type.Array(Type.String()),
    record: Type.Object(
      { gigs: Type.Integer(), wins: Type.Integer(), grossClosedUsd: Type.Number() },
      { description: 'the Register, built only from settled outcomes' },
    ),
    payouts: Type.Optional(
      Type.Array(PayoutSchema, {
        description:
          'append-only ledger; in keys mode shown only to the closer itself and the operator (absent for other keys)',
      }),
    ),
  },
  { $id: 'Closer', examples: [CLOSER_EXAMPLE] },
);

export const MatchSchema = Type.Object({
  closer: Type.Ref(CloserSchema),
  score: Type.Number({ minimum: 0, maximum: 1 }),
  winRate: Type.Number({ minimum: 0, maximum: 1 }),
});

export const GigSchema = Type.Object(
  {
    id: Type.String({ description: '`gig_<NNNN>`' }),
    status: GigStatusSchema,
    dealId: Type.String(),
    role: RoleSchema,
    brief: Type.Object(
      {
        account: AccountView,
        listValueUsd: Type.Number(),
        stage: StageSchema,
        signals: Type.Array(Type.String()),
        floorUsd: Type.Number(),
        activity: Type.Array(ActivitySchema),
      },
      { description: 'snapshot taken when the gig was posted' },
    ),
    pricing: Type.Union([
      Type.Object({ kind: Type.Literal('commission'), pct: Type.Number() }),
      Type.Object({ kind: Type.Literal('fee'), amountUsd: Type.Number() }),
    ]),
    closerId: Type.Optional(Type.String()),
    postedAt: Timestamp,
    claimedAt: Type.Optional(Timestamp),
    outcome: Type.Optional(Type.String()),
    finalValueUsd: Type.Optional(Type.Number()),
  },
  { $id: 'Gig', examples: [GIG_EXAMPLE] },
);

export const EscalationSchema = Type.Object(
  {
    escalated: Type.Literal(true),
    role: RoleSchema,
    gig: Type.Ref(GigSchema),
    suggestedClosers: Type.Array(MatchSchema, { description: 'ranked pool' }),
    deal: Type.Ref(DealSchema),
  },
  { $id: 'Escalation' },
);

/** What a move of a deal answers: the Deal, or the escalation when a human must take it (D-11). */
export const DealOrEscalationSchema = {
  ...Type.Union([Type.Ref(DealSchema), Type.Ref(EscalationSchema)]),
  type: 'object' as const,
  description: 'The Deal, or the escalation {escalated: true, role, gig, suggestedClosers, deal}',
};

export const GigOutcomeSchema = Type.Object({
  gig: Type.Ref(GigSchema),
  deal: Type.Ref(DealSchema),
  closer: Type.Optional(Type.Ref(CloserSchema)),
});
