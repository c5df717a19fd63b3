// The console's session in keys mode (D-59, D-232, D-233): a person signs in with a key once and
// the browser then carries a cookie, never the key. The cookie is a stateless signed value
//
//   <keyId>.<expiresAtMs>.<session id>.<HMAC-SHA256 of the three, base64url>
//
// whose secret is derived from OPERATOR_KEY (every instance of a deployment has the same one, so
// a session made on one instance is good on every other). A session is good while it is
// unexpired (12 hours, machine time), its key is live in the key ring (a revoked key ends every
// session of it within the ring's refresh) and this instance has not seen it ended. It holds no
// key, and nothing of it is stored: the ended session ids are remembered in memory until they
// would have expired anyway.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Caller } from '../domain/access.ts';
import type { KeyRing } from '../service/key-ring.ts';

/** The cookie's name. */
export const SESSION_COOKIE = 'sp_console';
/** D-59: a session lasts 12 hours from sign-in. */
export const SESSION_SECONDS = 12 * 60 * 60;
const SESSION_MS = SESSION_SECONDS * 1000;

/** What a session cookie stands for, or why it stands for nothing. */
export type SessionCheck =
  | { ok: true; caller: Caller; sessionId: string; expiresAt: number }
  | { ok: false; reason: 'malformed' | 'expired' | 'ended' | 'key' };

interface MachineClock {
  now(): number;
}

const KEY_ID = /^key_\d{4,}$/;
const DIGITS = /^\d{1,16}$/;
const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;

export class ConsoleSessions {
  private readonly secret: Buffer;
  /** Session ids ended here, with when they would have expired (then forgotten). */
  private readonly ended = new Map<string, number>();
  private nextSweep = 0;
  /** @fastify/cookie's parser, set when the session's routes register it (none before). */
  parseCookie: (header: string) => Record<string, string | undefined> = () => ({});

  constructor(
    operatorKey: string,
    private readonly ring: KeyRing,
    private readonly clock: MachineClock,
  ) {
    // D-232: a secret of its own, derived from OPERATOR_KEY: the same on every instance, changed
    // (ending every session) when OPERATOR_KEY is, and never the key itself.
    this.secret = Buffer.from(hkdfSync('sha256', operatorKey, 'sales-pipeline', 'console session cookie v1', 32));
  }

  /** The session cookie's value in a `Cookie` header, if it carries one. */
  valueIn(header: string | undefined): string | undefined {
    return header === undefined ? undefined : this.parseCookie(header)[SESSION_COOKIE];
  }

  /** A new session of a key: the cookie's value and when it expires (machine epoch ms). */
  issue(keyId: string): { value: string; expiresAt: number } {
    const expiresAt = this.clock.now() + SESSION_MS;
    const payload = `${keyId}.${expiresAt}.${randomBytes(16).toString('base64url')}`;
    return { value: `${payload}.${this.mac(payload)}`, expiresAt };
  }

  /**
   * Whether a cookie's value is a good session, from the ring alone when it holds the key;
   * `undefined` when it does not (just made on another instance): `check` reads the store.
   */
  held(value: string): SessionCheck | undefined {
    const parsed = this.parse(value);
    if (!parsed.ok) return parsed;
    const found = this.ring.heldById(parsed.keyId);
    if (found === undefined) return undefined;
    return found.ok ? { ...parsed, caller: { ...found.caller, sessionId: parsed.sessionId } } : { ok: false, reason: 'key' };
  }

  /** `held`, reading the store for a key the ring does not hold. */
  async check(value: string): Promise<SessionCheck> {
    const held = this.held(value);
    if (held !== undefined) return held;
    const parsed = this.parse(value);
    if (!parsed.ok) return parsed;
    const found = await this.ring.authenticateId(parsed.keyId);
    return found.ok ? { ...parsed, caller: { ...found.caller, sessionId: parsed.sessionId } } : { ok: false, reason: 'key' };
  }

  /**
   * D-76: whether the credential a request was admitted with still stands, from memory alone:
   * its key is live in the ring and, for a session's caller, the session has not ended.
   * A long-lived door (an event stream) asks it before every write and on a timer.
   */
  callerLive(caller: Caller): boolean {
    if (!this.ring.stands(caller.keyId)) return false;
    return caller.sessionId === undefined || !this.ended.has(caller.sessionId);
  }

  /** Ends a session here: its id is refused by this instance until it would have expired. */
  end(sessionId: string, expiresAt: number): void {
    const now = this.clock.now();
    if (now >= this.nextSweep) {
      for (const [id, until] of this.ended) if (until <= now) this.ended.delete(id);
      this.nextSweep = now + 60_000;
    }
    this.ended.set(sessionId, expiresAt);
  }

  /** The signed fields, if the value is well formed, signed by this deployment, unexpired and not ended. */
  private parse(
    value: string,
  ):
    | { ok: true; keyId: string; sessionId: string; expiresAt: number }
    | { ok: false; reason: 'malformed' | 'expired' | 'ended' } {
    const parts = value.split('.');
    if (parts.length !== 4) return MALFORMED;
    const [keyId, expiry, sessionId, mac] = parts;
    if (!KEY_ID.test(keyId) || !DIGITS.test(expiry) || !SESSION_ID.test(sessionId) || !MAC.test(mac)) return MALFORMED;
    // The text is compared, not the bytes it decodes to: base64url's last character carries two
    // bits no byte holds, so four spellings decode to the same MAC; only the one made is taken.
    const expected = Buffer.from(this.mac(`${keyId}.${expiry}.${sessionId}`), 'latin1');
    const given = Buffer.from(mac, 'latin1');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return MALFORMED;
    const expiresAt = Number(expiry);
    if (expiresAt <= this.clock.now()) return { ok: false, reason: 'expired' };
    if (this.ended.has(sessionId)) return { ok: false, reason: 'ended' };
    return { ok: true, keyId, sessionId, expiresAt };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }
}

const MALFORMED = { ok: false, reason: 'malformed' } as const;

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
