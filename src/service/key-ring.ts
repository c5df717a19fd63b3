// Who a bearer key is (D-52, D-55), at next to no cost per request: every key of the store is
// held here by its hash and kept fresh by reading only the keys changed since the last read,
// every REFRESH_MS (so a key revoked through another instance is refused here within 5 s). A
// key not held is looked for by one such read, shared by every request that waits for it and
// made at most once per MISS_READ_MS: a flood of wrong keys costs the database a few reads a
// second in all, not one each, and never locks out a valid key. Last use is written in batches.
// The console's stored sessions (D-63) are held the same way, read with the keys: a sign-out
// through another instance is known here at the next read, within 5 s (D-76).
import { type Caller, type KeyScope, kindOf } from '../domain/access.ts';
import { type ApiKey, couldBeKey, isLive } from '../domain/keys.ts';
import type { KeyPolicy } from '../domain/policy.ts';
import { type ConsoleSession, isSessionLive } from '../domain/sessions.ts';
import { roleScopes, type User } from '../domain/users.ts';
import type { Store } from '../store/store.ts';
import { sha256 } from './accounts.ts';

/** How often the ring reads the keys changed through other instances (revocation within 5 s). */
export const REFRESH_MS = 2_000;
/** A key not held triggers a read at most this often. */
const MISS_READ_MS = 250;
/** How often last use is written (D-52: lastUsedAt at most 60 s behind). */
export const TOUCH_MS = 30_000;

interface MachineClock {
  now(): number;
}

export type Authentication = { ok: true; caller: Caller } | { ok: false };

const INVALID: Authentication = { ok: false };

export class KeyRing {
  private byHash = new Map<string, ApiKey>();
  /** The same keys by id: a console session names its key by id (D-232). */
  private byId = new Map<string, ApiKey>();
  private readonly callers = new Map<string, Authentication>();
  private mark = 0;
  /** The sessions held, by their token's hash and by id, and the mark of their last read. */
  private sessionsByHash = new Map<string, ConsoleSession>();
  private sessionsById = new Map<string, ConsoleSession>();
  private sessionMark = 0;
  /** D-62: the people, by id, and the mark of their last read: a disabling is known as a revocation is. */
  private usersById = new Map<string, User>();
  private readonly userCallers = new Map<string, Caller>();
  private userMark = 0;
  private lastRead = 0;
  private reading: Promise<void> | undefined;
  private used = new Map<string, number>();
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly store: Store,
    /** Machine time: keys expire by it, and so do the console's sessions (D-232). */
    readonly clock: MachineClock,
  ) {}

  /** Reads every key, then keeps them fresh and writes last use on a timer. */
  async start(): Promise<void> {
    await this.read();
    const refresh = setInterval(() => void this.read().catch(() => undefined), REFRESH_MS);
    const touch = setInterval(() => void this.flush().catch(() => undefined), TOUCH_MS);
    refresh.unref();
    touch.unref();
    this.timers = [refresh, touch];
  }

  /** Stops the timers and writes the last uses not yet written. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.flush().catch(() => undefined);
  }

  /** The caller a bearer token stands for, or not a key (unknown, revoked or expired alike). */
  async authenticate(token: string): Promise<Authentication> {
    const held = this.held(token);
    if (held !== undefined) return held;
    await this.readSoon();
    return this.held(token) ?? INVALID;
  }

  /**
   * What the ring knows of a token without reading the store: its caller, or not a key (not
   * of a key's form, or a key held but revoked or expired); undefined when the ring does not
   * hold it (authenticate reads the store for it).
   */
  held(token: string): Authentication | undefined {
    if (!couldBeKey(token)) return INVALID;
    const key = this.byHash.get(sha256(token));
    if (key === undefined) return undefined;
    const now = this.clock.now();
    if (!isLive(key, now)) return INVALID;
    this.used.set(key.id, now);
    return this.callerOf(key);
  }

  /**
   * The caller a console session's key stands for (D-232), by the key's id: like `held`, but
   * for a key named by id; undefined when the ring does not hold it (`authenticateId` reads).
   */
  heldById(keyId: string): Authentication | undefined {
    const key = this.byId.get(keyId);
    if (key === undefined) return undefined;
    const now = this.clock.now();
    if (!isLive(key, now)) return INVALID;
    this.used.set(key.id, now);
    return this.callerOf(key);
  }

  /**
   * D-76: whether a key is live now, from memory alone and noting no use: what an open event
   * stream asks before each write. A key the ring does not hold is not: a stream's key was held
   * when the stream opened, so only a reset that deleted it (a closer's) lets it go.
   */
  stands(keyId: string | undefined): boolean {
    if (keyId === undefined) return false;
    const key = this.byId.get(keyId);
    return key !== undefined && isLive(key, this.clock.now());
  }

  /** `heldById`, reading the store once (shared, as for a token) for a key not held. */
  async authenticateId(keyId: string): Promise<Authentication> {
    const held = this.heldById(keyId);
    if (held !== undefined) return held;
    await this.readSoon();
    return this.heldById(keyId) ?? INVALID;
  }

  /** A key changed by this instance: known at once, without waiting for the next read. */
  learn(key: ApiKey): void {
    const held = this.byHash.get(key.hash);
    // A revocation is for good: a read that began before this instance revoked the key (and ends
    // after) must not bring it back to life until the next read.
    if (held?.revokedAt !== undefined && key.revokedAt === undefined) return;
    this.byHash.set(key.hash, key);
    this.byId.set(key.id, key);
    if (held !== undefined) this.callers.delete(held.id);
  }

  /**
   * A console session by its token's hash: the session (live or not), or undefined when the ring
   * does not hold it (`findSession` reads the store for it).
   */
  heldSession(hash: string): ConsoleSession | undefined {
    return this.sessionsByHash.get(hash);
  }

  /** `heldSession`, reading the store once (shared, as for a key) for a session not held. */
  async findSession(hash: string): Promise<ConsoleSession | undefined> {
    const held = this.sessionsByHash.get(hash);
    if (held !== undefined) return held;
    await this.readSoon();
    return this.sessionsByHash.get(hash);
  }

  /** Whether the session of this id is held and live (D-76: a stream's session still stands). */
  sessionLive(sessionId: string): boolean {
    const session = this.sessionsById.get(sessionId);
    return session !== undefined && isSessionLive(session, this.clock.now());
  }

  /** A session made or ended by this instance: known at once, without waiting for the next read. */
  learnSession(session: ConsoleSession): void {
    const held = this.sessionsById.get(session.id);
    // An end is for good, as a revocation is (learn).
    if (held?.endedAt !== undefined && session.endedAt === undefined) return;
    this.sessionsByHash.set(session.hash, session);
    this.sessionsById.set(session.id, session);
  }

  /** A person by id, or undefined when the ring does not hold them (`findUser` reads the store). */
  heldUser(userId: string): User | undefined {
    return this.usersById.get(userId);
  }

  /** `heldUser`, reading the store once (shared, as for a key) for a person not held. */
  async findUser(userId: string): Promise<User | undefined> {
    const held = this.usersById.get(userId);
    if (held !== undefined) return held;
    await this.readSoon();
    return this.usersById.get(userId);
  }

  /** Whether a person is held and enabled (D-76: a stream of theirs still stands). */
  userStands(userId: string): boolean {
    const user = this.usersById.get(userId);
    return user !== undefined && user.disabledAt === undefined;
  }

  /** A person changed by this instance: known at once, without waiting for the next read. */
  learnUser(user: User): void {
    this.usersById.set(user.id, user);
    this.userCallers.delete(user.id);
  }

  /**
   * D-62: a person's caller: its principal, its role's scopes, and who it is (id, name, role),
   * made once per person until they change.
   */
  callerOfUser(user: User): Caller {
    let caller = this.userCallers.get(user.id);
    if (caller === undefined) {
      caller = {
        principal: user.principal,
        kind: kindOf(user.principal) ?? 'seller',
        scopes: new Set<KeyScope>(roleScopes(user.role)),
        userId: user.id,
        name: user.name,
        role: user.role,
      };
      this.userCallers.set(user.id, caller);
    }
    return caller;
  }

  /**
   * Reads every key again and holds only those: after a demo reset (of this instance or, told
   * by the store, of another), which deletes closers' keys, a change no read of changes shows.
   * The keys held are replaced at once when the read is done: a request never finds the ring
   * empty meanwhile.
   */
  reload(): Promise<void> {
    return (this.reading ?? Promise.resolve()).then(() => this.read(true));
  }

  /** Last use of a key not yet written (for an answer that shows lastUsedAt). */
  lastUsed(keyId: string): number | undefined {
    return this.used.get(keyId);
  }

  /** A key's caller, made once per key (until the key changes). */
  private callerOf(key: ApiKey): Authentication {
    let found = this.callers.get(key.id);
    if (found === undefined) {
      const caller: Caller = {
        principal: key.principal,
        kind: kindOf(key.principal) ?? 'seller',
        keyId: key.id,
        scopes: new Set<KeyScope>(key.scopes),
        keyName: key.name,
      };
      // D-68: the policy binds from the moment this instance learns of it (the ring's refresh).
      if (key.policy !== undefined) (caller as { policy?: KeyPolicy }).policy = key.policy;
      if (key.createdBy !== undefined) (caller as { keyCreatedBy?: string }).keyCreatedBy = key.createdBy;
      found = { ok: true, caller };
      this.callers.set(key.id, found);
    }
    return found;
  }

  /** One read for every request waiting on a key not held, at most every MISS_READ_MS. */
  private readSoon(): Promise<void> {
    if (this.reading) return this.reading;
    const wait = this.lastRead + MISS_READ_MS - this.clock.now();
    if (wait <= 0) return this.read();
    this.reading = new Promise<void>((resolve) => setTimeout(resolve, wait)).then(() => {
      this.reading = undefined;
      return this.read();
    });
    return this.reading;
  }

  private read(full = false): Promise<void> {
    if (this.reading && !full) return this.reading;
    const reading = (async () => {
      try {
        const since = full ? 0 : this.mark;
        const sessionsSince = full ? 0 : this.sessionMark;
        const usersSince = full ? 0 : this.userMark;
        const [{ keys, mark }, changed, people] = await this.store.read((reader) =>
          Promise.all([
            reader.accounts.keysChangedSince(since),
            reader.accounts.sessionsChangedSince(sessionsSince),
            reader.people.usersChangedSince(usersSince),
          ]),
        );
        if (full) {
          this.byHash = new Map(keys.map((key) => [key.hash, key]));
          this.byId = new Map(keys.map((key) => [key.id, key]));
          this.callers.clear();
          this.sessionsByHash = new Map();
          this.sessionsById = new Map();
        } else for (const key of keys) this.learn(key);
        for (const session of changed.sessions) this.learnSession(session);
        if (full) {
          this.usersById = new Map();
          this.userCallers.clear();
        }
        for (const user of people.users) this.learnUser(user);
        this.forgetExpiredSessions();
        this.mark = mark;
        this.sessionMark = changed.mark;
        this.userMark = people.mark;
      } finally {
        this.lastRead = this.clock.now();
        this.reading = undefined;
      }
    })();
    this.reading = reading;
    return reading;
  }

  /** Sessions past their expiry sign no one in: the ring lets them go (the store purges them). */
  private forgetExpiredSessions(): void {
    const now = this.clock.now();
    for (const [id, session] of this.sessionsById) {
      if (session.expiresAt > now) continue;
      this.sessionsById.delete(id);
      this.sessionsByHash.delete(session.hash);
    }
  }

  private async flush(): Promise<void> {
    if (this.used.size === 0) return;
    const used = this.used;
    this.used = new Map();
    await this.store.transaction((uow) => uow.accounts.touchKeys(used));
  }
}
