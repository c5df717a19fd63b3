// The error catalogue: every error code the service answers, once, with its status and when it
// is answered. Domain refusals (src/domain/refusal.ts) must all be here (the type says so);
// their kind picks the status (D-5) and a test holds the two together. docs/errors.md is
// generated from this table (`npm run docs:errors`) and a test keeps it equal. The `when` texts
// are read by clients (docs, default messages), so they state rules, never decision numbers.
import { REFUSAL_KINDS, type Refusal, type RefusalCode, type RefusalKind } from '../domain/refusal.ts';
import { StoreBusyError, StoreUnavailableError } from '../store/store.ts';
import { type LimitView, limitView } from './limits.ts';

export const STATUS_OF_KIND: Record<RefusalKind, number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  precondition: 412,
  gate: 422,
  mandate: 422,
  limit: 422,
  forbidden: 422,
  rule: 422,
  denied: 403,
  credentials: 401,
  throttled: 429,
  policy: 422,
};

interface Entry {
  readonly status: number;
  /** When it is answered, in words; also the default message of transport errors. */
  readonly when: string;
}

export const ERRORS = {
  INVALID_JSON: { status: 400, when: 'the body is not valid JSON' },
  INVALID_BODY: {
    status: 400,
    when: 'the body is not an object, a field is missing, of the wrong type, out of range, or unknown; `violations` lists each problem',
  },
  BODY_TOO_DEEP: {
    status: 400,
    when: 'the body nests objects and arrays more than 32 levels deep (the body itself is the first level)',
  },
  NUL_CHARACTER: {
    status: 400,
    when: 'a string in the body, a value or a member name, holds the character U+0000 (`\\u0000`), which no text may hold; the message names the first such field',
  },
  INVALID_QUERY: {
    status: 400,
    when: 'a query parameter is unknown, repeated, or not of its documented form; `violations` lists each problem',
  },
  INVALID_HEADER: {
    status: 400,
    when: 'a request header that is not of its documented form, e.g. a `Last-Event-ID` that is not a non-negative integer; `violations` lists each problem',
  },
  WEAK_PASSWORD: {
    status: 400,
    when: 'a password that is shorter than 12 or longer than 256 characters, or that contains the part of the email before the @; `violations` names the rule. Nothing was changed',
  },
  TOKEN_INVALID: {
    status: 400,
    when: 'an invitation or password-reset token that is unknown, already used or expired (an invitation lasts 72 hours, a reset link 1 hour): ask for a new one',
  },
  INVALID_CURSOR: { status: 400, when: 'a `cursor` that this service did not issue (cursors are opaque)' },
  MALFORMED_REQUEST: {
    status: 400,
    when: 'the HTTP request itself is malformed and was refused before routing: a control character or a space in the path or in a header, or not HTTP at all',
  },
  DUPLICATE_HOST: {
    status: 400,
    when: 'the request carries the `Host` header more than once (HTTP/1.1 allows exactly one), whatever names it gives. Nothing was changed and the body was not read',
  },
  IDEMPOTENCY_KEY_INVALID: {
    status: 400,
    when: 'an `Idempotency-Key` (or the `idempotencyKey` argument of a demo MCP tool) that is not 1 to 255 visible ASCII characters, or any `Idempotency-Key` header on `/demo/mcp` (one MCP request may carry several tool calls: keys are tool arguments there)',
  },
  UNAUTHENTICATED: {
    status: 401,
    when: "keys mode: the request carries no key, or its `Authorization` is not `Bearer <key>` (a key is never taken from the query string), or the console's session cookie it carries instead has ended (signed out, or 12 hours passed) or was not made by this service: sign in again; `WWW-Authenticate` names the scheme. Nothing was changed",
  },
  INVALID_CREDENTIALS: {
    status: 401,
    when: 'a sign-in whose email and password do not sign anyone in: a wrong password, an unknown email and a disabled person get this same answer, in the same time',
  },
  INVALID_KEY: {
    status: 401,
    when: "keys mode: the bearer key is not one the service issued, or it was revoked, or it expired (a rolled key expires when its grace period ends); or the key a console's session was signed in with is no longer valid (sign in again). Nothing was changed",
  },
  INSUFFICIENT_SCOPE: {
    status: 403,
    when: "keys mode: the key's scopes do not allow this operation, or a key would be given scopes beyond its creator's own; `requiredScope` names the scope that would, and `WWW-Authenticate` says it too. Nothing was changed",
  },
  CLOSER_MISMATCH: {
    status: 403,
    when: "keys mode: a closer's key names another closer as `closerId` (a closer acts only as itself; leave `closerId` out). Nothing was changed",
  },
  HOST_NOT_ALLOWED: {
    status: 403,
    when: 'the `Host` of the request is not a name this service answers to (`ALLOWED_HOSTS`; unset, a service listening on a loopback address answers only `localhost`, `127.0.0.1` and `[::1]`, on any port): a web page whose name was pointed at the service (DNS rebinding) cannot reach it. Nothing was changed and the body was not read',
  },
  ORIGIN_NOT_ALLOWED: {
    status: 403,
    when: "a POST, PUT, PATCH or DELETE, or a CORS preflight, on a demo path, sent by a web page whose `Origin` is neither the service's own nor listed in `ALLOWED_ORIGINS` (`Origin: null` included): no other web page can drive the service through its visitor's browser. Nothing was changed and the body was not read. A request without `Origin` is unaffected, and ROOT paths, `/mcp` included, answer every origin. In keys mode, also any request that carries the console's session cookie, whatever its method, from an origin other than the service's own, a listed one included",
  },
  ROUTE_NOT_FOUND: {
    status: 404,
    when: 'no such path (`GET /` lists them), or a path whose percent-encoding is malformed',
  },
  DEAL_NOT_FOUND: {
    status: 404,
    when: 'unknown deal id, of any shape or length (also after a reset or restart of the demo)',
  },
  GIG_NOT_FOUND: { status: 404, when: 'unknown gig id, of any shape or length' },
  CLOSER_NOT_FOUND: { status: 404, when: 'unknown closer id, in the path or named by `closerId` in a body' },
  WEBHOOK_NOT_FOUND: {
    status: 404,
    when: 'unknown webhook id, of any shape or length (also after a reset, which deletes every webhook)',
  },
  SELLER_NOT_FOUND: { status: 404, when: 'unknown seller id, of any shape or length, or a Seller the key may not see' },
  KEY_NOT_FOUND: { status: 404, when: 'unknown key id, of any shape or length, or a key of another principal' },
  PRINCIPAL_NOT_FOUND: {
    status: 404,
    when: "a key's `principal` that names no Seller or closer (or one the caller may not name)",
  },
  USER_NOT_FOUND: {
    status: 404,
    when: 'unknown user id, of any shape or length, or a person of another principal; `GET /users/me` with a key (a key is no person)',
  },
  METHOD_NOT_ALLOWED: { status: 405, when: 'a known path with a method it does not serve; `Allow` lists the methods' },
  DEAL_TERMINAL: {
    status: 409,
    when: 'any move, signal or advance on a `closed_won` / `closed_lost` deal: a closed deal never moves again',
  },
  DEAL_NOT_CLOSED_WON: { status: 409, when: 'settlement of a deal that did not close won' },
  DEAL_NOT_CLOSED_LOST: {
    status: 409,
    when: 're-engage of a deal that is not `closed_lost`: only a lost deal is re-engaged',
  },
  NOT_HUMAN_TRACK: { status: 409, when: 'de-escalate of a deal that is not on the human track' },
  DEAL_STALLED: { status: 409, when: 'de-escalate of a stalled (`gone_dark`) deal' },
  GIG_CLAIMED: { status: 409, when: "de-escalate while the deal's gig is claimed" },
  GIG_NOT_OPEN: { status: 409, when: 'claim of a gig that is not `open`' },
  GIG_NOT_CLAIMED: { status: 409, when: 'advance, revive or expire of a gig that is not `claimed`' },
  GIG_NOT_NURTURER: { status: 409, when: 'revive of a setter or closer gig' },
  GIG_NOT_ACTIVE: { status: 409, when: 'release of a gig that is neither `open` nor `claimed`' },
  NOT_CLAIMANT: { status: 409, when: 'a gig move naming a `closerId` other than the claimant' },
  KEY_NOT_RECOVERABLE: {
    status: 409,
    when: 'a retry under an Idempotency-Key of a request that made a key, after OPERATOR_KEY changed: the key it made can no longer be drawn again from what was stored (no key text is ever stored); revoke that key and issue another',
  },
  TOO_MANY_KEYS: {
    status: 409,
    when: 'a key was asked for (made or rolled) while its principal already holds `KEYS_PER_PRINCIPAL` keys that are neither revoked nor expired; revoke one first (a roll with `graceSeconds: 0` replaces its key at once)',
  },
  KEY_REVOKED: { status: 409, when: 'a roll of a key that was revoked or has expired: issue a new key instead' },
  EMAIL_TAKEN: {
    status: 409,
    when: 'a person invited with an email another person of the deployment already has (emails are compared without regard to case)',
  },
  LAST_ADMIN: {
    status: 409,
    when: "disabling a Seller's last enabled admin, or giving it another role: a Seller always keeps one person who can manage its people",
  },
  NOT_DUE: {
    status: 409,
    when: 'internal: a platform timer that is no longer due is skipped, never answered',
  },
  PRECONDITION_FAILED: {
    status: 412,
    when: 'an `If-Match` (or the `ifMatch` argument of a demo MCP tool) naming a version of the deal other than its current one: the deal changed since it was read; `current` holds its version and stage, and nothing was changed',
  },
  FILE_PRECONDITION_FAILED: {
    status: 412,
    when: 'an `If-Match` or `If-Unmodified-Since` on a file of the API reference (`/docs/static/…`) that the file does not meet',
  },
  RANGE_NOT_SATISFIABLE: {
    status: 416,
    when: 'a `Range` on a file of the API reference (`/docs/static/…`) that no part of the file satisfies; ask for the whole file without `Range`',
  },
  REQUEST_TIMEOUT: { status: 408, when: 'the request did not arrive in full in time' },
  BODY_TOO_LARGE: { status: 413, when: 'a body over 64 KiB' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, when: 'a body that is not `application/json`' },
  GATE_ILLEGAL_MOVE: {
    status: 422,
    when: 'the gate refuses the move: not the next stage nor `closed_lost`, or a move this kind of gig may not propose (a setter gig never closes won, a nurturer gig only closes lost), or a gig whose role no longer owns the deal',
  },
  GATE_BELOW_FLOOR: {
    status: 422,
    when: "a close won below the negotiation floor (the mandate's `floorPct` of list value); the message states the value, the floor and the floor percentage",
  },
  GATE_VALUE_REQUIRED: { status: 422, when: 'a close won without a `valueUsd` of at least 0.01' },
  GATE_COMMISSION_CAP: {
    status: 422,
    when: 'a close won whose commission would exceed the cap (defence in depth: mandates are bounded at creation)',
  },
  MANDATE_OUT_OF_BOUNDS: {
    status: 422,
    when: 'the mandate breaks a platform bound or is malformed; `violations` lists every breach',
  },
  WEBHOOK_URL_FORBIDDEN: {
    status: 422,
    when: 'a webhook `url` whose host is, or resolves to, a loopback, private, link-local or unique-local address (refused unless `WEBHOOK_ALLOW_PRIVATE=true`, for local development)',
  },
  KEY_SCOPE_NOT_OF_PRINCIPAL: {
    status: 422,
    when: "a key asked for with a scope that no key of its principal's kind may carry (a Seller's key with `admin` or `gigs:work`, a closer's with `deals:read`); `violations` names each",
  },
  KEY_EXPIRY_PAST: { status: 422, when: 'a key asked for with an `expiresAt` that is not in the future' },
  POLICY_LIMIT: {
    status: 422,
    when: "a move the gate accepts goes over the proposing key's policy and the policy says refuse, or the deal's list value is above the key's `maxDealValueUsd` (a create or sell too); `limits` lists each limit passed: `{limit, allowed, value}`. Kept as a refused proposal",
  },
  APPROVAL_DENIED: {
    status: 422,
    when: "never answered: the code of the refused proposal a denied approval leaves, with the approver's reason",
  },
  APPROVAL_EXPIRED: {
    status: 422,
    when: 'never answered: the code of the refused proposal an approval leaves when nobody decided it in time',
  },
  POLICY_WIDENING: {
    status: 403,
    when: 'a key with a policy making a key, or setting a policy, looser than its own: a limit higher or absent where its own has one, moves outside its own, `hold` where its own says `refuse`, fewer approvals',
  },
  POLICY_NOT_OF_SELLER: {
    status: 422,
    when: "a policy for a key that is not a Seller's: only a Seller's keys propose moves",
  },
  SELF_APPROVAL: {
    status: 403,
    when: 'an approval decided by the key that proposed it, or by the person who made that key',
  },
  NOTIFICATION_NOT_FOUND: {
    status: 404,
    when: "unknown notification id, another person's, or a request made with a key (a key is no person)",
  },
  ACCOUNT_NOT_FOUND: {
    status: 404,
    when: "a ledger account the caller may not see (another Seller's, another closer's, the platform's to anyone but the operator)",
  },
  REFUND_EXCEEDS_VALUE: {
    status: 422,
    when: "a refund that would take the deal's refunds together past its final value; `violations` says what is left to refund",
  },
  APPROVAL_NOT_FOUND: {
    status: 404,
    when: 'unknown approval id, of any shape or length, or an approval of another Seller',
  },
  ALREADY_APPROVED: { status: 409, when: 'an approver approving the same approval a second time: each counts once' },
  APPROVAL_DECIDED: {
    status: 409,
    when: 'deciding an approval that is decided already (approved, denied, expired or refused), or past its `expiresAt`; a decided approval never changes again',
  },
  APPROVAL_STALE: {
    status: 409,
    when: 'approving or denying a proposal whose deal moved since it was held: the approval is `superseded`; propose again',
  },
  APPROVAL_PENDING: {
    status: 409,
    when: "a proposal the key's policy would hold, on a deal that already waits on an approval; `approvalId` names it",
  },
  SIGNAL_LIMIT: { status: 422, when: 'the signals would take a deal past 256 distinct signals' },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    when: 'an `Idempotency-Key` (or `idempotencyKey` argument) already used within the last 24 hours with another method, path or body; a tool call is the HTTP request it stands for',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    when: 'the request line and headers are over the size limit (16 KiB), a very long path included',
  },
  RATE_LIMITED: {
    status: 429,
    when: 'more requests from one address in a minute than `RATE_LIMIT_PER_MINUTE`; `Retry-After` says when to try again',
  },
  TOO_MANY_ATTEMPTS: {
    status: 429,
    when: 'ten failed sign-ins for one email within 15 minutes lock that email for 15 minutes, on every instance; `Retry-After` says when to try again',
  },
  TOO_MANY_STREAMS: {
    status: 429,
    when: "an event stream was asked for while its client (the key's principal, or the address when keys are off) already holds `STREAMS_PER_CLIENT` open streams, or while the service holds as many streams as it keeps room for beside ordinary requests; `limit` is the bound met. Close a stream first (or, for the second, retry after `Retry-After`); no stream was started",
  },
  STORE_BUSY: {
    status: 503,
    when: 'the write kept colliding with others in the database (deadlocks or serialization failures) however often it was run again; nothing was changed; `Retry-After` says when to try again',
  },
  STORE_UNAVAILABLE: {
    status: 503,
    when: 'the database cannot be reached or went away during the request; `Retry-After` says when to try again. A write whose connection was lost as it committed may have been made: retry it with the same `Idempotency-Key`',
  },
  INTERNAL: { status: 500, when: 'a bug; never the answer to bad input, and nothing was changed by a refused request' },
} as const satisfies Record<string, Entry> & Record<RefusalCode, Entry>;

export type ErrorCode = keyof typeof ERRORS;
/** Codes answered by the transport rather than decided by the core. */
export type TransportCode = Exclude<ErrorCode, RefusalCode> | 'INVALID_BODY';

export const DOMAIN_CODES = Object.keys(REFUSAL_KINDS) as RefusalCode[];

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  violations?: string[];
  gate?: { error: string; code: string };
  current?: { version: number; stage: string };
  requiredScope?: string;
  limits?: LimitView[];
  approvalId?: string;
}

/** A transport error's body; the message defaults to the catalogue's words, capitalised. */
export function errorBody(code: TransportCode, error?: string, violations?: string[]): ErrorBody {
  const when = ERRORS[code].when;
  return {
    error: error ?? `${when[0].toUpperCase()}${when.slice(1)}.`,
    code,
    ...(violations ? { violations } : {}),
  };
}

export function refusalBody(refusal: Refusal): ErrorBody {
  if (refusal.kind === 'gate') {
    return {
      error: `The gate refused the proposal: ${refusal.message}`,
      code: refusal.code,
      gate: { error: refusal.message, code: refusal.code },
    };
  }
  return {
    error: refusal.message,
    code: refusal.code,
    ...(refusal.violations ? { violations: [...refusal.violations] } : {}),
    ...(refusal.current ? { current: { version: refusal.current.version, stage: refusal.current.stage } } : {}),
    ...(refusal.requiredScope !== undefined ? { requiredScope: refusal.requiredScope } : {}),
    ...(refusal.limits ? { limits: refusal.limits.map((check) => limitView(check, false)) } : {}),
    ...(refusal.approvalId !== undefined ? { approvalId: refusal.approvalId } : {}),
  };
}

export const statusOf = (refusal: Refusal): number => STATUS_OF_KIND[refusal.kind];

/** D-46: a store failure as the answer every door gives it (503 with Retry-After), or undefined. */
export function storeFailure(error: unknown): { status: 503; retryAfterSeconds: number; body: ErrorBody } | undefined {
  if (error instanceof StoreBusyError) return { status: 503, retryAfterSeconds: 1, body: errorBody('STORE_BUSY') };
  if (error instanceof StoreUnavailableError) {
    return { status: 503, retryAfterSeconds: 5, body: errorBody('STORE_UNAVAILABLE') };
  }
  return undefined;
}
