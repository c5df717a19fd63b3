// A Seller's key's policy (D-68) as callers send it and every door shows it: money in USD with
// two decimals (cents inside), the defaults stated in the answers. The same object is the
// policy in `POST /keys` and, as `{policy}`, in `PUT /keys/{id}/policy` (D-276), and the key's `usage`
// of the day.
import { Type } from '@sinclair/typebox';
import { PLATFORM } from '../domain/mandate.ts';
import { APPROVAL_TTL_HOURS_RANGE, APPROVALS_REQUIRED_RANGE } from '../domain/policy.ts';
import { StageSchema } from './common.ts';

const UsdLimit = (description: string) =>
  Type.Number({
    minimum: 0,
    maximum: PLATFORM.maxDealSizeUsd,
    description: `${description} (USD, rounded half-up to the cent)`,
  });

const fields = {
  maxDealValueUsd: Type.Optional(
    UsdLimit('no act on a deal whose list value is above it: refused whatever onLimit says'),
  ),
  minCloseValuePct: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'a close won below this share of the list value (0 to 1) is over the limit',
    }),
  ),
  allowedMoves: Type.Optional(
    Type.Array(StageSchema, {
      maxItems: 7,
      uniqueItems: true,
      description: 'the stages the key may propose (`advanceTo`); absent: any',
    }),
  ),
  closesPerDay: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      description: "closes won committed through the key within the platform clock's UTC day",
    }),
  ),
  closedValuePerDayUsd: Type.Optional(UsdLimit('the final values of those closes, added up, within the same day')),
};

const behaviour = {
  onLimit: Type.Union([Type.Literal('hold'), Type.Literal('refuse')], {
    description: 'over a limit: hold the proposal for approval (default) or refuse it (422 POLICY_LIMIT)',
  }),
  approvalsRequired: Type.Integer({
    minimum: APPROVALS_REQUIRED_RANGE[0],
    maximum: APPROVALS_REQUIRED_RANGE[1],
    description: 'how many people (or keys) with approvals:decide must approve a held proposal (default 1)',
  }),
  approvalTtlHours: Type.Integer({
    minimum: APPROVAL_TTL_HOURS_RANGE[0],
    maximum: APPROVAL_TTL_HOURS_RANGE[1],
    description: 'how long a held proposal waits before it expires (default 24)',
  }),
};

/** A policy as it is sent: every limit optional, the defaults applying where absent. */
export const PolicyInput = Type.Object(
  {
    ...fields,
    onLimit: Type.Optional(behaviour.onLimit),
    approvalsRequired: Type.Optional(behaviour.approvalsRequired),
    approvalTtlHours: Type.Optional(behaviour.approvalTtlHours),
  },
  {
    additionalProperties: false,
    description: "the bounds a Seller's key acts within (D-68); a key never sets one looser than its own",
  },
);

/** A policy as the key shows it: its defaults stated, since they bind the key. */
export const PolicySchema = Type.Object(
  { ...fields, ...behaviour },
  { additionalProperties: false, description: "the bounds a Seller's key acts within (D-68)" },
);

export const UsageSchema = Type.Object(
  {
    day: Type.String({ description: "the platform clock's UTC day, `YYYY-MM-DD`" }),
    closes: Type.Integer({ description: 'closes won committed through the key that day, approved ones included' }),
    closedValueUsd: Type.Number({ description: 'their final values, added up' }),
  },
  { additionalProperties: false, description: "what a Seller's key committed today (D-68)" },
);

export const SetPolicyBody = Type.Object(
  {
    policy: Type.Union([PolicyInput, Type.Null()], {
      description: 'the whole new policy (nothing of the old one is kept); `null` removes it',
    }),
  },
  {
    additionalProperties: false,
    examples: [{ policy: { closesPerDay: 5, minCloseValuePct: 0.9, onLimit: 'hold', approvalsRequired: 1 } }],
  },
);
