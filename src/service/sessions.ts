// The console's stored sessions (D-63, D-232): made at a sign-in, ended at a sign-out. The store
// keeps a session with its token's SHA-256 only; the key ring of every instance learns of a
// session made or ended here at once, and of those of other instances within its refresh.
import { randomBytes } from 'node:crypto';
import type { Caller } from '../domain/access.ts';
import { type ConsoleSession, SESSION_MS } from '../domain/sessions.ts';
import type { Store } from '../store/store.ts';
import { sha256 } from './accounts.ts';

/** Sessions expired this long ago are purged at a sign-in (they sign no one in already). */
const SESSION_KEPT_MS = 24 * 60 * 60 * 1000;

interface MachineClock {
  now(): number;
}

export class Sessions {
  constructor(
    private readonly store: Store,
    /** Machine time: sessions expire by it, as keys do. */
    private readonly clock: MachineClock,
    /** The key ring, told of a session made or ended here. */
    private readonly learned: (session: ConsoleSession) => void = () => undefined,
  ) {}

  /**
   * A console session of a key's caller, stored as its token's hash. The token is the cookie's
   * value, and exists only in the answer that sets it.
   */
  async startSession(caller: Caller, token: string): Promise<ConsoleSession> {
    const now = this.clock.now();
    const session: ConsoleSession = {
      id: `ses_${randomBytes(16).toString('base64url')}`,
      hash: sha256(token),
      principal: caller.principal,
      keyId: caller.keyId,
      createdAt: now,
      expiresAt: now + SESSION_MS,
    };
    await this.store.transaction(async (uow) => {
      await uow.accounts.purgeSessions(now - SESSION_KEPT_MS);
      await uow.accounts.putSession(session);
    });
    this.learned(session);
    return session;
  }

  /** Ends a session, for every instance (each learns of it within 5 s). */
  async endSession(session: ConsoleSession): Promise<void> {
    if (session.endedAt !== undefined) return;
    const ended = { ...session, endedAt: this.clock.now() };
    await this.store.transaction((uow) => uow.accounts.putSession(ended));
    this.learned(ended);
  }
}
