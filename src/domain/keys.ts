// API keys (D-52): what a key is and what the service keeps of it. The key text itself is never
// kept: only its SHA-256 and a display prefix. Randomness and hashing come in from the service.
import { type KeyScope, kindOf, type PrincipalKind } from './access.ts';
import type { KeyPolicy } from './policy.ts';

/** The kinds' prefixes: a secret scanner (or a person) tells an operator's key from a closer's. */
export const KEY_PREFIXES: Record<PrincipalKind, string> = { operator: 'sp_op_', seller: 'sp_sk_', closer: 'sp_ck_' };

/** Characters of randomness after the prefix: 43 base62 characters, 256 bits. */
export const KEY_RANDOM_CHARS = 43;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** How many characters of a key are kept and shown to tell it apart (D-52). */
export const DISPLAY_PREFIX_CHARS = 12;

/** A key of the service's own making, or the operator's first key (OPERATOR_KEY: visible ASCII, no spaces). */
const KEY_TEXT = /^[\x21-\x7e]{32,256}$/;
const MADE_KEY = /^sp_(op|sk|ck)_[0-9A-Za-z]{32,}$/;

/** Whether a bearer token could be a key at all (a cheap check before any hashing). */
export const couldBeKey = (token: string): boolean => KEY_TEXT.test(token);

/** Whether a key of the service's making has the prefix of its principal's kind. */
export function hasPrefixOf(token: string, kind: PrincipalKind): boolean {
  return MADE_KEY.test(token) && token.startsWith(KEY_PREFIXES[kind]);
}

/** OPERATOR_KEY's rule (D-52): 32 to 256 visible ASCII characters, no spaces. */
export const isValidOperatorKey = (key: string): boolean => KEY_TEXT.test(key);

/** A new key's text from random bytes (at least 2 × KEY_RANDOM_CHARS of them), unbiased. */
export function keyText(kind: PrincipalKind, random: (n: number) => Uint8Array): string {
  let out = KEY_PREFIXES[kind];
  while (out.length < KEY_PREFIXES[kind].length + KEY_RANDOM_CHARS) {
    for (const byte of random(64)) {
      // 248 = 4 × 62: bytes at or above it would favour the first characters; they are skipped.
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === KEY_PREFIXES[kind].length + KEY_RANDOM_CHARS) break;
    }
  }
  return out;
}

/** What the service keeps of a key. */
export interface ApiKey {
  readonly id: string;
  /** SHA-256 of the key text, hex. */
  readonly hash: string;
  /** The key's first DISPLAY_PREFIX_CHARS characters, to tell it apart in a list. */
  readonly prefix: string;
  readonly name: string;
  /** `operator`, a Seller id or a closer id. */
  readonly principal: string;
  readonly scopes: readonly KeyScope[];
  readonly createdAt: number;
  /** Refused from this time on (machine time); set by its creator or by a roll's grace period. */
  readonly expiresAt?: number;
  readonly revokedAt?: number;
  /** D-66: the person who made it (a key made with a key names none). */
  readonly createdBy?: string;
  /** At most a minute behind (the service writes it in batches). */
  readonly lastUsedAt?: number;
  /** The key OPERATOR_KEY made at start: revoked when OPERATOR_KEY changes. */
  readonly fromEnvironment?: boolean;
  /** A rolled key: the key its roll made to replace it (D-260), so the two are linked. */
  readonly replacedBy?: string;
  /** D-68: the bounds of a Seller's key; a roll keeps it. */
  readonly policy?: KeyPolicy;
}

/** Whether a key may be used at `now` (machine time). */
export const isLive = (key: ApiKey, now: number): boolean =>
  key.revokedAt === undefined && (key.expiresAt === undefined || key.expiresAt > now);

export const principalKindOf = (key: ApiKey): PrincipalKind => kindOf(key.principal) as PrincipalKind;

/** D-52: a roll's grace period, in seconds: from 0 to a week, a day unless asked. */
export const MAX_GRACE_SECONDS = 604_800;
export const DEFAULT_GRACE_SECONDS = 86_400;
