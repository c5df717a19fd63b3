// ROOT envelope schemas (spec "Envelopes (ROOT)"): for the contract; the routes send bytes the
// catalogue already serialized.
import { type TSchema, Type } from '@sinclair/typebox';
import { GigStatusSchema, RoleSchema, StageSchema } from './common.ts';
import { DealSchema } from './deal.ts';
import { GigSchema } from './marketplace.ts';

const sandboxed = {
  sandbox: Type.Literal(true),
  label: Type.String({ description: 'says the data is sandbox example data' }),
};
const SandboxRecord = (schema: TSchema) =>
  Type.Intersect([Type.Ref(schema), Type.Object({ sandbox: Type.Literal(true) })]);

export const EmptyEnvelope = Type.Object(
  { type: Type.Literal('EMPTY'), message: Type.String(), ...sandboxed },
  { $id: 'EmptyEnvelope' },
);
export const BlockedEnvelope = Type.Object(
  { type: Type.Literal('BLOCKED'), reason: Type.String(), ...sandboxed },
  { $id: 'BlockedEnvelope' },
);
export const DealsEnvelope = Type.Object(
  {
    type: Type.Literal('OK'),
    deals: Type.Array(SandboxRecord(DealSchema)),
    count: Type.Integer({ description: 'deals on this page' }),
    total: Type.Integer({ description: 'deals matching the filters' }),
    nextCursor: Type.Optional(Type.String({ description: 'present when a further page exists' })),
    ...sandboxed,
  },
  { $id: 'DealsEnvelope' },
);
export const DealEnvelope = Type.Object(
  { type: Type.Literal('OK'), deal: SandboxRecord(DealSchema), ...sandboxed },
  { $id: 'DealEnvelope' },
);
export const GigsEnvelope = Type.Object(
  {
    type: Type.Literal('OK'),
    gigs: Type.Array(SandboxRecord(GigSchema)),
    count: Type.Integer({ description: 'gigs on this page' }),
    total: Type.Integer({ description: 'gigs matching the filters' }),
    nextCursor: Type.Optional(Type.String({ description: 'present when a further page exists' })),
    ...sandboxed,
  },
  { $id: 'GigsEnvelope' },
);
export const OfferEnvelope = Type.Object(
  {
    type: Type.Literal('OFFER'),
    status: Type.Literal('stub'),
    id: Type.Optional(Type.String()),
    title: Type.Optional(Type.String()),
    price: Type.Optional(Type.Unknown()),
    checkoutUrl: Type.Optional(Type.String()),
    alternatives: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  },
  { $id: 'OfferEnvelope', additionalProperties: true },
);

/** What every ROOT collection takes alike (D-30): scope, limit and cursor. */
const PageParams = {
  scope: Type.Optional(
    Type.String({
      description: 'sandbox (default); tenant and settlement are reserved (403 BLOCKED); another scope is EMPTY',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'nextCursor of the previous page' })),
};

export const DealsQuery = Type.Object(
  {
    stage: Type.Optional(
      Type.String({
        description: `one of ${StageSchema.anyOf.map((s) => s.const).join(', ')}; another value matches nothing`,
      }),
    ),
    role: Type.Optional(
      Type.String({
        description: `one of ${RoleSchema.anyOf.map((s) => s.const).join(', ')}: the owning role, nurturer while the deal carries gone_dark, else setter before meeting and closer from meeting on; another value matches nothing`,
      }),
    ),
    ...PageParams,
  },
  // An unknown parameter is 400 INVALID_QUERY; an unknown value of a filter matches nothing (D-30).
  { additionalProperties: false },
);

export const GigsQuery = Type.Object(
  {
    role: Type.Optional(
      Type.String({
        description: `one of ${RoleSchema.anyOf.map((s) => s.const).join(', ')}; another value matches nothing`,
      }),
    ),
    status: Type.Optional(
      Type.String({
        description: `one of ${GigStatusSchema.anyOf.map((s) => s.const).join(', ')}; another value matches nothing`,
      }),
    ),
    ...PageParams,
  },
  { additionalProperties: false },
);
