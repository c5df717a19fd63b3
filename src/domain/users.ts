// People (D-62, D-63): a user is a person of a principal (the operator, a Seller or a closer) with
// a role, and the role says its scopes, exactly the scopes a key could carry. Keys stay for agents
// and integrations. Pure rules: what a user is, which roles a principal's people may have, a
// password's rule, an email's comparison. Hashing, tokens and mail are the service's.
import { type KeyScope, type PrincipalKind, SELLER_SCOPES, scopesOf } from './access.ts';
import { SELLER_ROLES, type UserRole } from './roles.ts';

export { SELLER_ROLES, USER_ROLES, type UserRole } from './roles.ts';

/** D-62: each role's scopes. A Seller's admin holds every scope of a Seller. */
const ROLE_SCOPES: Record<UserRole, readonly KeyScope[]> = {
  admin: SELLER_SCOPES,
  manager: ['deals:read', 'deals:write', 'deals:propose', 'events:read', 'approvals:decide'],
  rep: ['deals:read', 'deals:write', 'deals:propose', 'events:read'],
  viewer: ['deals:read', 'events:read'],
  closer: scopesOf('closer'),
  operator: scopesOf('operator'),
};

export const roleScopes = (role: UserRole): readonly KeyScope[] => ROLE_SCOPES[role];

/** The roles a person of this kind of principal may have. */
export function rolesOf(kind: PrincipalKind): readonly UserRole[] {
  return kind === 'seller' ? SELLER_ROLES : kind === 'closer' ? ['closer'] : ['operator'];
}

export interface User {
  /** usr_NNNN */
  readonly id: string;
  /** As given at the invitation, its case kept; compared by `emailKey`. */
  readonly email: string;
  readonly name: string;
  /** `operator`, a Seller id or a closer id: whom the person acts as. */
  readonly principal: string;
  readonly role: UserRole;
  /** Machine epoch ms, as every other time of the accounts. */
  readonly createdAt: number;
  readonly lastSignInAt?: number;
  readonly disabledAt?: number;
  /** The Argon2id hash (PHC string) once the invitation was accepted; never answered, never logged. */
  readonly passwordHash?: string;
  /** When the password was last set: sessions made before it end (D-63). */
  readonly passwordSetAt?: number;
}

/** D-62: one email, one person across the deployment, whatever its case. */
export const emailKey = (email: string): string => email.trim().toLowerCase();

/** A plausible address: something@something.something, no spaces (nor U+0000), at most 254 characters. */
export const EMAIL_PATTERN = '^[^\\s@\\u0000]+@[^\\s@\\u0000]+\\.[^\\s@\\u0000]+$';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/**
 * D-63, OWASP: 12 to 256 characters, no composition rules, and not the email's local part (a
 * password of someone's own name is the first one guessed). The problem in words, or undefined.
 */
export function passwordProblem(password: string, email: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `password: must be at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `password: must be at most ${PASSWORD_MAX} characters`;
  const local = emailKey(email).split('@')[0];
  if (local.length >= 3 && password.toLowerCase().includes(local)) {
    return 'password: must not contain the part of the email before the @';
  }
  return undefined;
}

/** Whether the user is a Seller's enabled admin (D-62: a Seller keeps at least one). */
export const isEnabledAdmin = (user: User): boolean => user.role === 'admin' && user.disabledAt === undefined;

// ── one-time tokens (D-63) ────────────────────────────────────────────────────────────────────

/** An invitation lasts 72 hours; a password reset 1 hour. */
export const INVITATION_MS = 72 * 60 * 60 * 1000;
export const RESET_MS = 60 * 60 * 1000;

/** What the store keeps of a one-time token: its SHA-256 only, never the token. */
export interface OneTimeToken {
  /** SHA-256 of the token, hex. */
  readonly hash: string;
  readonly purpose: 'invitation' | 'reset';
  readonly userId: string;
  /** The user's principal (the row's owner, D-77). */
  readonly principal: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly usedAt?: number;
}

/** Whether a token may still be used at `now`: unused, unexpired. */
export const tokenUsable = (token: OneTimeToken, now: number): boolean =>
  token.usedAt === undefined && token.expiresAt > now;

// ── lockout (D-63) ─────────────────────────────────────────────────────────────────────────────

/** Ten failed sign-ins for one email within 15 minutes lock it for 15 minutes. */
export const LOCK_FAILURES = 10;
export const LOCK_WINDOW_MS = 15 * 60 * 1000;
export const LOCK_MS = 15 * 60 * 1000;

/** The failed sign-ins of one email, as every instance reads and writes them. */
export interface SignInThrottle {
  /** SHA-256 of the email's key (`emailKey`): an address typed in is not kept as such. */
  readonly id: string;
  /** The failures within the window, oldest first (machine ms). */
  readonly failures: readonly number[];
  readonly lockedUntil?: number;
}

/** The throttle after one more failure at `now`: the window's failures, and a lock at the tenth. */
export function afterFailure(throttle: SignInThrottle, now: number): SignInThrottle {
  const failures = [...throttle.failures.filter((at) => at > now - LOCK_WINDOW_MS), now];
  if (failures.length >= LOCK_FAILURES) return { id: throttle.id, failures: [], lockedUntil: now + LOCK_MS };
  return { id: throttle.id, failures };
}

/** Milliseconds the email stays locked from `now`, 0 when it is not. */
export const lockedFor = (throttle: SignInThrottle | undefined, now: number): number =>
  Math.max(0, (throttle?.lockedUntil ?? 0) - now);
