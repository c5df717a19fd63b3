// Keys mode's accounts (D-51, D-52): Sellers and API keys, as bodies and answers.
import { Type } from '@sinclair/typebox';
import { ALL_SCOPES } from '../domain/access.ts';
import { MAX_GRACE_SECONDS } from '../domain/keys.ts';
import { optionalBody, pageParams, Timestamp } from './common.ts';
import { PolicyInput, PolicySchema, UsageSchema } from './policies.ts';
import { KEY_EXAMPLE, ROLL_EXAMPLE, SELLER_EXAMPLE } from './request-examples.ts';

const Name = (what: string) => Type.String({ minLength: 1, maxLength: 200, description: what });

export const ScopeSchema = Type.Union(
  ALL_SCOPES.map((scope) => Type.Literal(scope)),
  { description: "a key's permission (D-53): a Seller's, a closer's, or the operator's `admin`" },
);

export const SellerSchema = Type.Object(
  { id: Type.String({ description: '`seller_<NNNN>`' }), name: Type.String(), createdAt: Timestamp },
  { additionalProperties: false, description: 'A Seller: a tenant, which owns deals' },
);

export const CreateSellerBody = Type.Object(
  { name: Name("the Seller's name") },
  { additionalProperties: false, examples: [SELLER_EXAMPLE] },
);

export const SellerListQuery = Type.Object({ ...pageParams('seller') }, { additionalProperties: false });

export const KeySchema = Type.Object(
  {
    id: Type.String({ description: '`key_<NNNN>`' }),
    key: Type.Optional(
      Type.String({ description: 'the key itself: only in the answer that creates it (the service keeps its hash)' }),
    ),
    prefix: Type.String({ description: "the key's first 12 characters, to tell it apart" }),
    name: Type.String(),
    principal: Type.String({ description: '`operator`, a Seller id or a closer id' }),
    scopes: Type.Array(ScopeSchema),
    createdAt: Timestamp,
    expiresAt: Type.Union([Timestamp, Type.Null()], {
      description: 'refused from then on (a rolled key: when its grace period ends); null: never',
    }),
    lastUsedAt: Type.Union([Timestamp, Type.Null()], { description: 'at most a minute behind; null: never used' }),
    revokedAt: Type.Optional(Timestamp),
    replacedBy: Type.Optional(
      Type.String({ description: 'a rolled key: the key its roll made to replace it, `key_<NNNN>` (D-260)' }),
    ),
    createdBy: Type.Optional(
      Type.String({ description: 'the person who made it, `usr_<NNNN>` (D-66); absent for a key made with a key' }),
    ),
    // A Seller's key's bounds (D-68), absent when it has none; its usage of the day in `GET /keys/{id}`.
    // Inline, not shared schemas: only keys mode's contract has keys.
    policy: Type.Optional(PolicySchema),
    usage: Type.Optional(UsageSchema),
  },
  {
    additionalProperties: false,
    description: 'An API key as the service keeps it: never the key itself but when created',
  },
);

export const CreateKeyBody = Type.Object(
  {
    name: Name('what the key is for, e.g. "pricing agent"'),
    principal: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "whose key: `operator`, a Seller id or a closer id (the caller's own unless the operator names another)",
      }),
    ),
    scopes: Type.Optional(
      Type.Array(ScopeSchema, {
        minItems: 1,
        maxItems: 16,
        description: "default: every scope of the principal's kind; never more than the caller's own key has",
      }),
    ),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'in the future; absent: never expires' })),
    policy: Type.Optional(PolicyInput),
  },
  { additionalProperties: false, examples: [KEY_EXAMPLE] },
);

export const RollKeyBody = optionalBody(
  Type.Object(
    {
      graceSeconds: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: MAX_GRACE_SECONDS,
          description: 'how long the old key keeps working (default 86400, a day; at most a week)',
        }),
      ),
    },
    { additionalProperties: false, examples: [ROLL_EXAMPLE] },
  ),
);

export const KeyListQuery = Type.Object(
  {
    principal: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "the operator's filter", examples: ['seller_0001'] }),
    ),
    ...pageParams('key'),
  },
  { additionalProperties: false },
);
