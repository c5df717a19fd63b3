// Who may do what, decided in one place (D-50, D-53, D-55, D-59, D-75, D-227). A door reads the
// credential a request presents (a bearer key the key ring knows or not, the console's session
// cookie, or nothing) and asks `authorize` whether it may do what the operation's access rule
// asks: the answer is the caller, or a denial in words every door answers alike
// (src/views/authorization-refusals.ts writes it for HTTP and MCP). The rules that concern a key
// made or rolled by a caller (D-75) and ROOT's reserved scopes (D-227) are here too, so that a new
// credential (a person's session, a key's policy) is added in this one file. Pure: no I/O.
import { type Access, allows, type Caller, type KeyScope } from './access.ts';
import { type Refusal, refuse } from './refusal.ts';

/** Why a console session stands for no one. `absent`: the request carries no session cookie. */
export type SessionLapse = 'absent' | 'malformed' | 'expired' | 'ended' | 'key';

/** What a request presented, as its door found it. */
export type Credential =
  /** No credential: no `Authorization` (and no session cookie), or one that is not `Bearer <token>`. */
  | { readonly kind: 'none'; readonly header: 'absent' | 'not-bearer' }
  /** A bearer key: its caller when the key is live, undefined when unknown, revoked or expired. */
  | { readonly kind: 'key'; readonly caller: Caller | undefined }
  /** The console's session cookie (D-59): whose it is, or why it stands for no one. */
  | {
      readonly kind: 'session';
      readonly standing:
        | { readonly ok: true; readonly caller: Caller }
        | { readonly ok: false; readonly reason: SessionLapse };
      /** Whether the request's `Origin`, if any, is the service's own page. */
      readonly ownOrigin: boolean;
    };

/** RFC 6750's challenge: its `error` and `scope` attributes, when the refusal has them. */
export interface Challenge {
  readonly error?: 'invalid_token' | 'insufficient_scope';
  readonly scope?: KeyScope;
}

/** Why a request may not go on: the answer's status, code and words, and its challenge. */
export type Denial =
  | {
      readonly status: 401;
      readonly code: 'UNAUTHENTICATED' | 'INVALID_KEY';
      readonly message: string;
      readonly challenge: Challenge;
    }
  | {
      readonly status: 403;
      readonly code: 'INSUFFICIENT_SCOPE';
      readonly message: string;
      readonly requiredScope: KeyScope;
      readonly challenge: Challenge;
    }
  /** D-59: the console's session serves only the console's own page. */
  | { readonly status: 403; readonly code: 'ORIGIN_NOT_ALLOWED'; readonly message: string };

export type Authorization =
  | { readonly ok: true; readonly caller: Caller }
  | { readonly ok: false; readonly denial: Denial };

const NO_KEY = 'This request needs a key: send Authorization: Bearer <key>.';
const NOT_BEARER = 'The Authorization header is not a bearer key: send Authorization: Bearer <key>.';
const INVALID_KEY = 'The key is not valid: unknown, revoked or expired.';
const SESSION_WORDS: Record<Exclude<SessionLapse, 'key'>, string> = {
  absent: 'The console is not signed in: sign in with a key.',
  malformed: "The console's session cookie is not valid: sign in again.",
  expired: "The console's session has ended: sign in again.",
  ended: "The console's session has ended: sign in again.",
};
const SESSION_KEY_ENDED =
  "The key this console's session was signed in with is no longer valid (revoked or expired): sign in again.";
const FOREIGN_ORIGIN = "The console's session serves only the console's own page: another origin's request is refused.";

const unauthenticated = (message: string, challenge: Challenge = {}): Authorization => ({
  ok: false,
  denial: { status: 401, code: 'UNAUTHENTICATED', message, challenge },
});
const invalidKey = (message: string): Authorization => ({
  ok: false,
  denial: { status: 401, code: 'INVALID_KEY', message, challenge: { error: 'invalid_token' } },
});

/** The one decision: may this credential do what `access` asks? */
export function authorize(credential: Credential, access: Access): Authorization {
  switch (credential.kind) {
    case 'none':
      return unauthenticated(credential.header === 'absent' ? NO_KEY : NOT_BEARER);
    case 'key':
      return credential.caller === undefined ? invalidKey(INVALID_KEY) : authorizeCaller(credential.caller, access);
    case 'session': {
      if (!credential.ownOrigin) {
        return { ok: false, denial: { status: 403, code: 'ORIGIN_NOT_ALLOWED', message: FOREIGN_ORIGIN } };
      }
      const { standing } = credential;
      if (standing.ok) return authorizeCaller(standing.caller, access);
      return standing.reason === 'key'
        ? invalidKey(SESSION_KEY_ENDED)
        : unauthenticated(SESSION_WORDS[standing.reason]);
    }
  }
}

/**
 * A caller already admitted (an MCP tool call on a door the key opened, a stream's caller) asked
 * for an operation's access: itself, or the scope it lacks (D-55). The scope named is the first
 * one a key of the caller's kind could carry, and the words say when no key of its kind can.
 */
export function authorizeCaller(caller: Caller, access: Access): Authorization {
  const allowed = allows(access, caller);
  if (allowed.ok) return { ok: true, caller };
  const scope = allowed.requiredScope;
  return {
    ok: false,
    denial: {
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
      message: allowed.ofOwnKind
        ? `This key may not do this: it needs ${scope}.`
        : `This key may not do this: it needs ${scope}, which no ${caller.kind}'s key carries.`,
      requiredScope: scope,
      challenge: { error: 'insufficient_scope', scope },
    },
  };
}

/** A denial as the core's refusal, for a service that refuses by throwing one (403 INSUFFICIENT_SCOPE). */
const scopeRefusal = (message: string, scope: KeyScope): Refusal => refuse.denied('INSUFFICIENT_SCOPE', message, scope);

/**
 * D-75: a key may be rolled only by a caller holding every scope of the key (the operator's
 * `admin` holds them all): a key with `keys:manage` alone would otherwise get a full key from a
 * roll of its principal's. Undefined when it may.
 */
export function mayRoll(
  caller: Caller,
  key: { readonly id: string; readonly scopes: readonly KeyScope[] },
): Refusal | undefined {
  if (caller.scopes.has('admin')) return undefined;
  const beyond = key.scopes.find((scope) => !caller.scopes.has(scope));
  if (beyond === undefined) return undefined;
  return scopeRefusal(
    `Key ${key.id} carries ${beyond}, which the caller's key lacks: only a key holding every scope of a key may roll it.`,
    beyond,
  );
}

/** D-52: a key may be given only scopes its maker's own key carries (the operator's `admin` gives any). */
export function mayGrant(caller: Caller, scopes: readonly KeyScope[]): Refusal | undefined {
  if (caller.scopes.has('admin')) return undefined;
  const beyond = scopes.find((scope) => !caller.scopes.has(scope));
  if (beyond === undefined) return undefined;
  return scopeRefusal(`A key may not be given ${beyond}: the caller's key lacks it.`, beyond);
}

/**
 * D-227: ROOT's reserved scopes (`GET /deals?scope=tenant|settlement`) open to a Seller's live
 * key carrying deals:read, and to nothing else (which ROOT answers with its own BLOCKED).
 */
export function tenantScopeCaller(credential: Credential): Caller | undefined {
  const decided = authorize(credential, ['deals:read']);
  return decided.ok && decided.caller.kind === 'seller' ? decided.caller : undefined;
}
