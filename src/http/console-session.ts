// The console's session in keys mode (D-59, D-63, D-232, D-233): a person signs in with a key
// once and the browser then carries a cookie, never the key. The cookie's value is a random
// token (32 bytes, base64url); the store keeps the session with only the token's SHA-256
// (src/domain/sessions.ts), so a copy of the database signs no one in. A session is good while it
// is unexpired (12 hours, machine time), not ended, and its key is live. The key ring holds the
// sessions as it holds the keys and reads the changed ones every 2 s, so a sign-out through any
// instance ends the session on every instance within 5 s (D-63), and an open event stream of it
// closes (D-76).
//
// D-78: served over https the cookie is `__Host-sp_console` (Secure, Path=/, no Domain), which no
// other host or port can set or shadow; over plain http (local use) it is `sp_console`.
import { randomBytes } from 'node:crypto';
import type { Caller } from '../domain/access.ts';
import { type ConsoleSession, isSessionLive } from '../domain/sessions.ts';
import type { User } from '../domain/users.ts';
import { sha256 } from '../service/accounts.ts';
import type { KeyRing } from '../service/key-ring.ts';

/** The cookie's name over plain http. */
export const SESSION_COOKIE = 'sp_console';
/** D-78: the cookie's name over https. */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
/** D-59: a session lasts 12 hours from sign-in. */
export const SESSION_SECONDS = 12 * 60 * 60;

/** What a session cookie stands for, or why it stands for nothing. */
export type SessionCheck =
  | { ok: true; caller: Caller; session: ConsoleSession }
  | { ok: false; reason: 'malformed' | 'expired' | 'ended' | 'key' };

interface MachineClock {
  now(): number;
}

/** What the sessions need of the accounts: to store a session made, and its end. */
export interface SessionAccounts {
  startSession(caller: Caller, token: string): Promise<ConsoleSession>;
  endSession(session: ConsoleSession): Promise<void>;
}

/** The headers and protocol of a request, as far as https goes. */
interface RequestLike {
  protocol: string;
  headers: { origin?: string; host?: string; 'x-forwarded-proto'?: string | string[] };
}

/**
 * D-233, D-78: whether the console is served over https: the connection's own TLS, the page's
 * own `Origin` being https, or the proxy in front saying so (`X-Forwarded-Proto`). Another
 * page's `Origin` says nothing of how the console is served (and such a request is refused).
 */
export function servedOverHttps(request: RequestLike): boolean {
  const origin = request.headers.origin;
  const forwarded = request.headers['x-forwarded-proto'];
  return (
    request.protocol === 'https' ||
    (origin !== undefined &&
      origin.slice(0, 8).toLowerCase() === 'https://' &&
      isOwnOrigin(origin, request.headers.host)) ||
    (typeof forwarded === 'string' && forwarded.split(',')[0].trim().toLowerCase() === 'https')
  );
}

/** The name the session's cookie has on this request's scheme. */
export const sessionCookieName = (https: boolean) => (https ? SECURE_SESSION_COOKIE : SESSION_COOKIE);

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const MALFORMED = { ok: false, reason: 'malformed' } as const;

export class ConsoleSessions {
  /** @fastify/cookie's parser, set when the session's routes register it (none before). */
  parseCookie: (header: string) => Record<string, string | undefined> = () => ({});

  constructor(
    private readonly accounts: SessionAccounts,
    private readonly ring: KeyRing,
    private readonly clock: MachineClock,
  ) {}

  /**
   * The session cookie's value in a `Cookie` header, if it carries one. `__Host-sp_console` is
   * read first whatever the scheme (only a secure origin can set it); `sp_console` only when the
   * request is not known to come over https, so that over https a cookie planted by a sibling
   * host under the plain name is never taken (D-78).
   */
  valueIn(header: string | undefined, https: boolean): string | undefined {
    if (header === undefined) return undefined;
    const cookies = this.parseCookie(header);
    return cookies[SECURE_SESSION_COOKIE] ?? (https ? undefined : cookies[SESSION_COOKIE]);
  }

  /** A new session of a key's caller: the cookie's value and when it expires (machine epoch ms). */
  async issue(caller: Caller): Promise<{ value: string; expiresAt: number }> {
    const value = randomBytes(32).toString('base64url');
    const session = await this.accounts.startSession(caller, value);
    return { value, expiresAt: session.expiresAt };
  }

  /**
   * Whether a cookie's value is a good session, from the ring alone when it holds the session
   * and its key; `undefined` when it does not (just made on another instance): `check` reads.
   */
  held(value: string): SessionCheck | undefined {
    if (!TOKEN.test(value)) return MALFORMED;
    const session = this.ring.heldSession(sha256(value));
    if (session === undefined) return undefined;
    const ended = this.ended(session);
    if (ended !== undefined) return ended;
    if (session.userId !== undefined) {
      const user = this.ring.heldUser(session.userId);
      return user === undefined ? undefined : this.personal(session, user);
    }
    const found = this.ring.heldById(session.keyId as string);
    if (found === undefined) return undefined;
    return found.ok ? { ok: true, caller: { ...found.caller, sessionId: session.id }, session } : KEY_ENDED;
  }

  /** `held`, reading the store for a session, key or person the ring does not hold. */
  async check(value: string): Promise<SessionCheck> {
    const held = this.held(value);
    if (held !== undefined) return held;
    const session = await this.ring.findSession(sha256(value));
    if (session === undefined) return MALFORMED;
    const ended = this.ended(session);
    if (ended !== undefined) return ended;
    if (session.userId !== undefined) {
      const user = await this.ring.findUser(session.userId);
      return user === undefined ? ENDED : this.personal(session, user);
    }
    const found = await this.ring.authenticateId(session.keyId as string);
    return found.ok ? { ok: true, caller: { ...found.caller, sessionId: session.id }, session } : KEY_ENDED;
  }

  /** D-62, D-63: a person's session stands while the person is enabled; it acts with their role. */
  private personal(session: ConsoleSession, user: User): SessionCheck {
    if (user.disabledAt !== undefined) return ENDED;
    return { ok: true, caller: { ...this.ring.callerOfUser(user), sessionId: session.id }, session };
  }

  /**
   * D-76: whether the credential a request was admitted with still stands, from memory alone:
   * its key is live in the ring and, for a session's caller, the session is held and live.
   * A long-lived door (an event stream) asks it before every write and on a timer.
   */
  callerLive(caller: Caller): boolean {
    if (caller.userId !== undefined) {
      if (!this.ring.userStands(caller.userId)) return false;
    } else if (!this.ring.stands(caller.keyId as string)) return false;
    return caller.sessionId === undefined || this.ring.sessionLive(caller.sessionId);
  }

  /** Ends a session on every instance (each learns of it within 5 s; this one at once). */
  end(session: ConsoleSession): Promise<void> {
    return this.accounts.endSession(session);
  }

  private ended(session: ConsoleSession): SessionCheck | undefined {
    if (isSessionLive(session, this.clock.now())) return undefined;
    return { ok: false, reason: session.endedAt === undefined ? 'expired' : 'ended' };
  }
}

const KEY_ENDED = { ok: false, reason: 'key' } as const;
const ENDED = { ok: false, reason: 'ended' } as const;

/**
 * Whether an `Origin` is the service's own (D-49, D-194): `http://` or `https://` followed by the
 * request's own `Host`, compared without regard to case.
 */
export function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  const lower = origin.toLowerCase();
  const own = host.toLowerCase();
  return lower === `http://${own}` || lower === `https://${own}`;
}
