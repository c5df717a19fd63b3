// The console's stored sessions (D-63, D-232): made at a sign-in, ended at a sign-out. The store
// keeps a session with its token's SHA-256 only; the key ring of every instance learns of a
// session made or ended here at once, and of those of other instances within its refresh.
import { randomBytes } from 'node:crypto';
import type { Caller } from '../domain/access.ts';
import { type ConsoleSession, SESSION_MS } from '../domain/sessions.ts';
import type { Store, UnitOfWork } from '../store/store.ts';
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
   * A console session of a key's caller or of a person (D-63), stored as its token's hash. The
   * token is the cookie's value, and exists only in the answer that sets it.
   */
  async startSession(caller: Pick<Caller, 'principal' | 'keyId' | 'userId'>, token: string): Promise<ConsoleSession> {
    const session = this.sessionOf(caller, token);
    await this.store.transaction(async (uow) => this.put(uow, session));
    this.learned(session);
    return session;
  }

  /** A session not yet stored: for a unit of work that stores it with its own changes (`put`). */
  sessionOf(caller: Pick<Caller, 'principal' | 'keyId' | 'userId'>, token: string): ConsoleSession {
    const now = this.clock.now();
    const session: { -readonly [K in keyof ConsoleSession]: ConsoleSession[K] } = {
      id: `ses_${randomBytes(16).toString('base64url')}`,
      hash: sha256(token),
      principal: caller.principal,
      createdAt: now,
      expiresAt: now + SESSION_MS,
    };
    if (caller.userId !== undefined) session.userId = caller.userId;
    else session.keyId = caller.keyId;
    return session;
  }

  /** Stores a session in a unit of work (purging long-expired ones); the ring must then `learned` it. */
  async put(uow: UnitOfWork, session: ConsoleSession): Promise<void> {
    await uow.accounts.purgeSessions(session.createdAt - SESSION_KEPT_MS);
    await uow.accounts.putSession(session);
  }

  /** The ring's listener, for sessions a unit of work stored or ended. */
  learn(session: ConsoleSession): void {
    this.learned(session);
  }

  /** Ends a session, for every instance (each learns of it within 5 s). */
  async endSession(session: ConsoleSession): Promise<void> {
    if (session.endedAt !== undefined) return;
    const ended = { ...session, endedAt: this.clock.now() };
    await this.store.transaction((uow) => uow.accounts.putSession(ended));
    this.learned(ended);
  }
}
