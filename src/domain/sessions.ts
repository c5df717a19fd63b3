// The console's stored sessions (D-59, D-63, D-252.. see docs): what the service keeps of a
// session made by signing in. Its cookie holds a random token; the store keeps only the token's
// SHA-256, so a copy of the database signs no one in. A session ends by itself 12 hours after
// sign-in, or earlier when signed out (`endedAt`); every instance learns of an end within seconds
// (the key ring reads the sessions changed since it last looked).

export interface ConsoleSession {
  /** The session's own id (not its token): what a caller and an end name. */
  readonly id: string;
  /** SHA-256 of the cookie's token, hex. */
  readonly hash: string;
  /** `operator`, a Seller id or a closer id: whom the session acts as. */
  readonly principal: string;
  /** The key it was signed in with: revoking that key ends the session too. Absent for a person's. */
  readonly keyId?: string;
  /** D-63: the person who signed in with a password; disabling them ends the session too. */
  readonly userId?: string;
  readonly createdAt: number;
  /** Machine epoch ms. */
  readonly expiresAt: number;
  readonly endedAt?: number;
}

/** D-59: a session lasts 12 hours from sign-in. */
export const SESSION_MS = 12 * 60 * 60 * 1000;

/** Whether a session still signs its cookie in at `now` (machine time). */
export const isSessionLive = (session: ConsoleSession, now: number): boolean =>
  session.endedAt === undefined && session.expiresAt > now;
