// Schemas shared by several surfaces. Each is declared once and used both to validate
// requests and (later) to generate the OpenAPI contract.
import { type TSchema, Type } from '@sinclair/typebox';
import { encodeCursor } from '../domain/cursor.ts';
import { formatId, type ListKind } from '../domain/ids.ts';
import { PLATFORM } from '../domain/mandate.ts';
import { ACTORS, GIG_STATUSES } from '../domain/records.ts';
import { ROLES, STAGES } from '../domain/stages.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../service/idempotency.ts';

/** Marks a node that the domain validates itself (its problems are 422 violations, D-20). */
export const DOMAIN_VALIDATED = 'x-domain-validated';
/**
 * What a value that does not match a node's `pattern` is told, in words rather than as the
 * pattern (src/schemas/validate.ts): `if-match: must be one quoted version, …`.
 */
export const PATTERN_WORDS = 'x-pattern-words';
/** Marks a body that may be absent altogether (an empty POST). */
export const OPTIONAL_BODY = 'x-optional-body';

export const optionalBody = <T extends TSchema>(schema: T): T => ({ ...schema, [OPTIONAL_BODY]: true });

export const Usd = (description: string) => Type.Number({ description });
/**
 * A USD amount a caller sends: at most 1e12, rounded half-up to the cent (D-22). 0.005 is the
 * least amount that rounds to a cent, so the least that is an amount at all.
 */
export const MIN_USD_INPUT = 0.005;
export const UsdInput = (description: string) =>
  Type.Number({
    minimum: MIN_USD_INPUT,
    maximum: PLATFORM.maxDealSizeUsd,
    description: `${description} (USD, rounded half-up to the cent; at least ${MIN_USD_INPUT}, which rounds to 0.01)`,
  });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });

export const StageSchema = Type.Union(
  STAGES.map((s) => Type.Literal(s)),
  { description: 'one of the seven stages' },
);
export const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)));
export const GigStatusSchema = Type.Union(GIG_STATUSES.map((s) => Type.Literal(s)));
export const ActorSchema = Type.Union(ACTORS.map((a) => Type.Literal(a)));
export const Note = Type.String({ maxLength: 2000, description: 'free text for the activity log' });
export const CloserId = Type.String({ minLength: 1, maxLength: 64, description: 'the acting closer, `closer_<NNNN>`' });

/** D-37: a key that makes a write safe to retry (the Idempotency-Key header of HTTP, a tool argument of MCP). */
export const IdempotencyKeySchema = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: IDEMPOTENCY_KEY_PATTERN.source,
  description: '1 to 255 visible ASCII characters',
});

/** A path id: any string. One no record could have (any length, any characters) is unknown: 404 (D-5). */
export const IdParams = Type.Object({
  id: Type.String({ description: 'the id, e.g. `deal_0001`; an id of any other shape names nothing (404)' }),
});

/**
 * D-47: `If-Match: "<version>"` on every write on a deal or its gigs. One strong tag or `*`
 * (any version: the deal must exist); a list or a weak tag (`W/"3"`) is 400 INVALID_HEADER.
 */
export const IF_MATCH_PATTERN = '^(\\*|"[1-9][0-9]{0,14}")$';
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      pattern: IF_MATCH_PATTERN,
      [PATTERN_WORDS]: 'must be one quoted version (1 or more), like "3", or *: not a list, not a weak W/"3"',
      description:
        'the version of the deal this move was decided on (its `ETag`, quoted): if the deal is at another version now, 412 PRECONDITION_FAILED and nothing changes; `*` accepts any version',
      examples: ['"3"'],
    }),
  ),
});

/** The query string of a route that takes no parameters: any one is unknown, 400 INVALID_QUERY (D-38). */
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const ErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'what went wrong, in words' }),
    code: Type.String({ description: 'stable machine-readable code (docs/errors.md)' }),
    violations: Type.Optional(Type.Array(Type.String())),
    gate: Type.Optional(Type.Object({ error: Type.String(), code: Type.String() })),
    current: Type.Optional(
      Type.Object(
        { version: Type.Integer({ minimum: 1 }), stage: Type.String() },
        { description: 'PRECONDITION_FAILED: the deal as it is now' },
      ),
    ),
    requiredScope: Type.Optional(
      Type.String({ description: 'INSUFFICIENT_SCOPE: the scope a key needs for this (keys mode)' }),
    ),
  },
  { $id: 'Error' },
);

export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, Type.Ref(ErrorSchema)]));

// Every demo list pages the same way (D-39).
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

/**
 * The paging parameters of every demo list, to spread into its query schema; `kind` is the kind
 * of id the list's cursors name, for the example's cursor (D-267).
 */
export const pageParams = (kind: ListKind) => ({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE,
      default: DEFAULT_PAGE,
      description: 'records per page',
      examples: [20],
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      description:
        'opaque: the cursor in the `Link: <…>; rel="next"` of the previous page; only this service issues cursors (400 INVALID_CURSOR otherwise)',
      examples: [encodeCursor(formatId(kind, 1))],
    }),
  ),
});
