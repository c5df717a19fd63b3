// ROOT envelope schemas (spec "Envelopes (ROOT)"): for the contract; the routes send bytes the
// catalogue already serialized.
import { type TSchema, Type } from '@sinclair/typebox';
import { encodeCursor } from '../domain/cursor.ts';
import { formatId } from '../domain/ids.ts';
import { GigStatusSchema, RoleSchema, StageSchema } from './common.ts';
import { DealSchema, SettlementSchema } from './deal.ts';
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
// Keys mode (D-226): a Seller's own live records behind GET /deals?scope=tenant or settlement.
// Inline (no $id), so that the demo's contract is exactly as before keys.
const live = {
  sandbox: Type.Literal(false, { description: "live records of the key's tenant, not sandbox example data" }),
  label: Type.String({ description: 'says whose live data this is' }),
};
export const TenantDealsEnvelope = Type.Object(
  {
    type: Type.Literal('OK'),
    deals: Type.Array(Type.Ref(DealSchema), { description: "the key's Seller's deals, in id order" }),
    count: Type.Integer({ description: 'deals on this page' }),
    nextCursor: Type.Optional(Type.String({ description: 'present when a further page exists' })),
    ...live,
  },
  { title: 'TenantDealsEnvelope', description: "keys mode, scope=tenant: the Seller's own deals" },
);
export const SettlementsEnvelope = Type.Object(
  {
    type: Type.Literal('OK'),
    settlements: Type.Array(Type.Ref(SettlementSchema), {
      description: "the settlements of the key's Seller's deals closed won, in deal id order",
    }),
    count: Type.Integer({ description: 'settlements on this page' }),
    nextCursor: Type.Optional(Type.String({ description: 'present when a further page exists' })),
    ...live,
  },
  { title: 'SettlementsEnvelope', description: "keys mode, scope=settlement: the Seller's settlements" },
);
export const LiveEmptyEnvelope = Type.Object(
  { type: Type.Literal('EMPTY'), message: Type.String(), ...live },
  { title: 'LiveEmptyEnvelope', description: 'keys mode, scope tenant or settlement: nothing matches' },
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

/**
 * What every ROOT collection takes alike (D-30): scope, limit and cursor; `kind` is the kind of
 * id the collection's cursors name, for the example's cursor (D-267).
 */
const pageParams = (kind: 'deal' | 'gig') => ({
  scope: Type.Optional(
    Type.String({
      description: 'sandbox (default); tenant and settlement are reserved (403 BLOCKED); another scope is EMPTY',
      examples: ['sandbox'],
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100, examples: [10] })),
  cursor: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'nextCursor of the previous page',
      examples: [encodeCursor(formatId(kind, 1))],
    }),
  ),
});

export const DealsQuery = Type.Object(
  {
    stage: Type.Optional(
      Type.String({
        description: `one of ${StageSchema.anyOf.map((s) => s.const).join(', ')}; another value matches nothing`,
        examples: ['negotiation'],
      }),
    ),
    role: Type.Optional(
      Type.String({
        description: `one of ${RoleSchema.anyOf.map((s) => s.const).join(', ')}: the owning role, nurturer while the deal carries gone_dark, else setter before meeting and closer from meeting on; another value matches nothing`,
        examples: ['closer'],
      }),
    ),
    ...pageParams('deal'),
  },
  // An unknown parameter is 400 INVALID_QUERY; an unknown value of a filter matches nothing (D-30).
  { additionalProperties: false },
);

/** GET /deals's query in keys mode, where a Seller's key opens the reserved scopes (D-226, D-227). */
export const KeysDealsQuery = Type.Object(
  {
    ...DealsQuery.properties,
    scope: Type.Optional(
      Type.String({
        description:
          "sandbox (default); tenant and settlement are reserved: 403 BLOCKED, except with a Seller key carrying deals:read in Authorization: Bearer, which answers that Seller's own live deals (tenant) or the settlements of its deals closed won (settlement), marked sandbox: false; another scope is EMPTY",
        examples: ['sandbox'],
      }),
    ),
  },
  { additionalProperties: false },
);

export const GigsQuery = Type.Object(
  {
    role: Type.Optional(
      Type.String({
        description: `one of ${RoleSchema.anyOf.map((s) => s.const).join(', ')}; another value matches nothing`,
        examples: ['closer'],
      }),
    ),
    status: Type.Optional(
      Type.String({
        description: `one of ${GigStatusSchema.anyOf.map((s) => s.const).join(', ')}; another value matches nothing`,
        examples: ['open'],
      }),
    ),
    ...pageParams('gig'),
  },
  { additionalProperties: false },
);
