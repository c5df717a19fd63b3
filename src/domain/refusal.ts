// Refusals are values. Every code the core can refuse with is listed here once with its kind;
// the kind picks the HTTP status (D-5) in the error catalogue (src/views/errors.ts).
import type { LimitCheck } from './policy.ts';

export type RefusalKind =
  | 'invalid'
  | 'not_found'
  | 'conflict'
  | 'precondition'
  | 'gate'
  | 'mandate'
  | 'limit'
  | 'forbidden'
  | 'rule'
  | 'denied'
  /** D-63: a sign-in that names no one it may sign in (401). */
  | 'credentials'
  /** D-63: an email locked by failed sign-ins (429, with Retry-After). */
  | 'throttled'
  /** D-69: a move the gate accepted that the proposing key's policy refuses (422, with its limits). */
  | 'policy';

export const REFUSAL_KINDS = {
  INVALID_BODY: 'invalid',
  DEAL_NOT_FOUND: 'not_found',
  GIG_NOT_FOUND: 'not_found',
  CLOSER_NOT_FOUND: 'not_found',
  WEBHOOK_NOT_FOUND: 'not_found',
  SELLER_NOT_FOUND: 'not_found',
  KEY_NOT_FOUND: 'not_found',
  PRINCIPAL_NOT_FOUND: 'not_found',
  USER_NOT_FOUND: 'not_found',
  EMAIL_TAKEN: 'conflict',
  LAST_ADMIN: 'conflict',
  WEAK_PASSWORD: 'invalid',
  TOKEN_INVALID: 'invalid',
  INVALID_CREDENTIALS: 'credentials',
  TOO_MANY_ATTEMPTS: 'throttled',
  KEY_REVOKED: 'conflict',
  TOO_MANY_KEYS: 'conflict',
  INSUFFICIENT_SCOPE: 'denied',
  CLOSER_MISMATCH: 'denied',
  DEAL_TERMINAL: 'conflict',
  DEAL_NOT_CLOSED_WON: 'conflict',
  DEAL_NOT_CLOSED_LOST: 'conflict',
  NOT_HUMAN_TRACK: 'conflict',
  DEAL_STALLED: 'conflict',
  GIG_CLAIMED: 'conflict',
  GIG_NOT_OPEN: 'conflict',
  GIG_NOT_CLAIMED: 'conflict',
  GIG_NOT_NURTURER: 'conflict',
  GIG_NOT_ACTIVE: 'conflict',
  NOT_CLAIMANT: 'conflict',
  NOT_DUE: 'conflict',
  PRECONDITION_FAILED: 'precondition',
  GATE_ILLEGAL_MOVE: 'gate',
  GATE_BELOW_FLOOR: 'gate',
  GATE_VALUE_REQUIRED: 'gate',
  GATE_COMMISSION_CAP: 'gate',
  SIGNAL_LIMIT: 'limit',
  MANDATE_OUT_OF_BOUNDS: 'mandate',
  WEBHOOK_URL_FORBIDDEN: 'forbidden',
  KEY_SCOPE_NOT_OF_PRINCIPAL: 'rule',
  KEY_EXPIRY_PAST: 'rule',
  // D-68 to D-70: a key's policy and the approvals of what it holds.
  POLICY_LIMIT: 'policy',
  APPROVAL_DENIED: 'policy',
  APPROVAL_EXPIRED: 'policy',
  POLICY_WIDENING: 'denied',
  POLICY_NOT_OF_SELLER: 'rule',
  SELF_APPROVAL: 'denied',
  APPROVAL_NOT_FOUND: 'not_found',
  ALREADY_APPROVED: 'conflict',
  APPROVAL_DECIDED: 'conflict',
  APPROVAL_STALE: 'conflict',
  APPROVAL_PENDING: 'conflict',
  // D-72: a person's notifications.
  NOTIFICATION_NOT_FOUND: 'not_found',
  // D-79 to D-82: the ledger.
  REFUND_EXCEEDS_VALUE: 'rule',
  ACCOUNT_NOT_FOUND: 'not_found',
} as const satisfies Record<string, RefusalKind>;

export type RefusalCode = keyof typeof REFUSAL_KINDS;
type CodeOf<K extends RefusalKind> = {
  [C in RefusalCode]: (typeof REFUSAL_KINDS)[C] extends K ? C : never;
}[RefusalCode];

export interface Refusal {
  readonly kind: RefusalKind;
  readonly code: RefusalCode;
  readonly message: string;
  readonly violations?: readonly string[];
  /** PRECONDITION_FAILED: the deal as it is (D-47), so the client can read it again. */
  readonly current?: { readonly version: number; readonly stage: string };
  /** INSUFFICIENT_SCOPE: the scope that would allow it (D-55). */
  readonly requiredScope?: string;
  /** TOO_MANY_ATTEMPTS: seconds until it may be tried again (the answer's Retry-After). */
  readonly retryAfterSeconds?: number;
  /** POLICY_LIMIT (D-69): the limits of the key's policy the move went over. */
  readonly limits?: readonly LimitCheck[];
  /** APPROVAL_PENDING (D-69): the approval the deal waits on. */
  readonly approvalId?: string;
}

export const refuse = {
  invalid: (code: CodeOf<'invalid'>, message: string, violations: readonly string[]): Refusal => ({
    kind: 'invalid',
    code,
    message,
    violations,
  }),
  notFound: (code: CodeOf<'not_found'>, message: string): Refusal => ({ kind: 'not_found', code, message }),
  conflict: (code: CodeOf<'conflict'>, message: string): Refusal => ({ kind: 'conflict', code, message }),
  gate: (code: CodeOf<'gate'>, message: string): Refusal => ({ kind: 'gate', code, message }),
  limit: (code: CodeOf<'limit'>, message: string): Refusal => ({ kind: 'limit', code, message }),
  forbidden: (code: CodeOf<'forbidden'>, message: string): Refusal => ({ kind: 'forbidden', code, message }),
  /** D-258: a well-formed request that a rule of the service refuses (422), each breach in `violations`. */
  rule: (code: CodeOf<'rule'>, message: string, violations: readonly string[]): Refusal => ({
    kind: 'rule',
    code,
    message,
    violations,
  }),
  /** D-55: a key that may not do this (403). */
  denied: (code: CodeOf<'denied'>, message: string, requiredScope?: string): Refusal => ({
    kind: 'denied',
    code,
    message,
    ...(requiredScope !== undefined ? { requiredScope } : {}),
  }),
  precondition: (
    code: CodeOf<'precondition'>,
    message: string,
    current: { version: number; stage: string },
  ): Refusal => ({
    kind: 'precondition',
    code,
    message,
    current,
  }),
  /** An id that names no record (D-5): the one way each kind says so. */
  noDeal: (id: string): Refusal => refuse.notFound('DEAL_NOT_FOUND', `No deal ${id}.`),
  noGig: (id: string): Refusal => refuse.notFound('GIG_NOT_FOUND', `No gig ${id}.`),
  noCloser: (id: string): Refusal => refuse.notFound('CLOSER_NOT_FOUND', `No closer ${id}.`),
  noSeller: (id: string): Refusal => refuse.notFound('SELLER_NOT_FOUND', `No seller ${id}.`),
  noKey: (id: string): Refusal => refuse.notFound('KEY_NOT_FOUND', `No key ${id}.`),
  noUser: (id: string): Refusal => refuse.notFound('USER_NOT_FOUND', `No user ${id}.`),
  noApproval: (id: string): Refusal => refuse.notFound('APPROVAL_NOT_FOUND', `No approval ${id}.`),
  noNotification: (id: string): Refusal => refuse.notFound('NOTIFICATION_NOT_FOUND', `No notification ${id}.`),
  noAccount: (name: string): Refusal => refuse.notFound('ACCOUNT_NOT_FOUND', `No account ${name}.`),
  /** D-69: over the key's policy, refused (`onLimit: refuse`, or a deal above maxDealValueUsd). */
  policy: (message: string, limits: readonly LimitCheck[]): Refusal => ({
    kind: 'policy',
    code: 'POLICY_LIMIT',
    message,
    limits,
  }),
  /** D-63: the one answer to a wrong password, an unknown email and a disabled person alike. */
  credentials: (): Refusal => ({
    kind: 'credentials',
    code: 'INVALID_CREDENTIALS',
    message: 'The email or the password is not right.',
  }),
  throttled: (retryAfterSeconds: number): Refusal => ({
    kind: 'throttled',
    code: 'TOO_MANY_ATTEMPTS',
    message: `Too many failed sign-ins for this email: try again in ${Math.ceil(retryAfterSeconds / 60)} minutes.`,
    retryAfterSeconds,
  }),
  /** D-7: any move, signal or advance on a closed deal. */
  terminal: (deal: { id: string; stage: string }): Refusal =>
    refuse.conflict('DEAL_TERMINAL', `Deal ${deal.id} is ${deal.stage}; terminal is forever.`),
  mandate: (violations: readonly string[]): Refusal => ({
    kind: 'mandate',
    code: 'MANDATE_OUT_OF_BOUNDS',
    message: `The mandate is outside platform bounds: ${violations.join('; ')}`,
    violations,
  }),
};

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && 'kind' in value && 'code' in value && 'message' in value;
}
