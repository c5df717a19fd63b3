// People (D-62, D-63, D-64): invitations, roles, disabling, and the person's own account (accept an
// invitation, sign in, reset a password). What the service keeps of a secret: a password's
// Argon2id hash (passwords.ts), a token's SHA-256 and, in the mail outbox, the nonce it is drawn
// from (token-seal.ts). A mail is written in the unit of work that causes it and sent after the
// commit (src/delivery/mail-worker.ts). Every instance learns of a person changed here at once
// (the key ring's listener) and of one changed through another instance within its refresh.
import { randomBytes } from 'node:crypto';
import { type Caller, kindOf, OPERATOR, type PrincipalKind, seesAll } from '../domain/access.ts';
import { mayGrant } from '../domain/authorization.ts';
import { couldBeId, formatId } from '../domain/ids.ts';
import { refuse } from '../domain/refusal.ts';
import type { ConsoleSession } from '../domain/sessions.ts';
import {
  afterFailure,
  emailKey,
  INVITATION_MS,
  lockedFor,
  type OneTimeToken,
  passwordProblem,
  RESET_MS,
  roleScopes,
  rolesOf,
  type User,
  type UserRole,
} from '../domain/users.ts';
import type { UserFilter } from '../store/people.ts';
import type { Store, UnitOfWork } from '../store/store.ts';
import { sha256 } from './accounts.ts';
import type { PasswordHasher } from './passwords.ts';
import { fail, ok, RefusedError, type Result } from './result.ts';
import type { Sessions } from './sessions.ts';
import { TOKEN_PATTERN, type TokenSeal } from './token-seal.ts';
import type { UnitCommand } from './unit-command.ts';

interface MachineClock {
  now(): number;
}

export interface InviteInput {
  email: string;
  name: string;
  role: UserRole;
  principal?: string;
}

/** A person signed in: the user, and the session's cookie value and end (machine ms). */
export interface SignedIn {
  user: User;
  session: { value: string; expiresAt: number };
}

/** What the people service tells the instance's key ring and mail worker. */
export interface PeopleListeners {
  user(user: User): void;
  session(session: ConsoleSession): void;
  mail(): void;
}

const PLATFORM = { principal: 'platform' };
const as = (caller: Caller) => ({ principal: caller.principal });

/** Whether `caller` may act on people of `principal`: its own, or anyone's for the operator. */
const mayManage = (caller: Caller, principal: string) => seesAll(caller) || caller.principal === principal;

const badRole = (role: string, kind: PrincipalKind) =>
  refuse.invalid('INVALID_BODY', 'The request body is invalid.', [
    `role: ${role} is not a role of a ${kind}'s people; one of ${rolesOf(kind).join(', ')}`,
  ]);

export class People {
  constructor(
    private readonly store: Store,
    private readonly clock: MachineClock,
    private readonly hasher: PasswordHasher,
    private readonly seal: TokenSeal,
    private readonly sessions: Sessions,
    private readonly listeners: PeopleListeners,
    /** D-64: PUBLIC_URL, the origin of links in mail; unset, the request's own. */
    private readonly publicUrl?: string,
  ) {}

  /**
   * D-62: a person of the caller's principal (the operator names any), invited by mail. The role
   * must be of the principal's kind, and give no scope the caller lacks (as a key's may not).
   */
  invite(input: InviteInput, caller: Caller, origin: string): UnitCommand<User> {
    return {
      work: async (uow) => {
        const principal = input.principal ?? caller.principal;
        const kind = kindOf(principal);
        if (kind === undefined || !mayManage(caller, principal) || !(await this.exists(uow, principal))) {
          throw new RefusedError(
            refuse.notFound('PRINCIPAL_NOT_FOUND', `No principal ${principal} for a person to belong to.`),
          );
        }
        if (!rolesOf(kind).includes(input.role)) throw new RefusedError(badRole(input.role, kind));
        const beyond = mayGrant(caller, roleScopes(input.role));
        if (beyond !== undefined) throw new RefusedError(beyond);
        // One email, one person: invitations of one email race under this lock.
        await uow.lock('users');
        if (await uow.people.emailTaken(input.email)) {
          throw new RefusedError(
            refuse.conflict('EMAIL_TAKEN', `${input.email} is already the email of a person of this deployment.`),
          );
        }
        const now = this.clock.now();
        const user: User = {
          id: formatId('usr', await uow.people.takeUserNumber()),
          email: input.email.trim(),
          name: input.name,
          principal,
          role: input.role,
          createdAt: now,
        };
        await uow.people.putUser(user);
        await this.mailToken(uow, user, 'invitation', this.publicUrl ?? origin, now);
        return user;
      },
      committed: (user) => {
        this.listeners.user(user);
        this.listeners.mail();
      },
    };
  }

  async getUser(id: string, caller: Caller): Promise<Result<User>> {
    return this.store.read(async (reader) => {
      const user = couldBeId('usr', id) ? await reader.people.getUser(id) : undefined;
      return user && mayManage(caller, user.principal) ? ok(user) : fail(refuse.noUser(id));
    }, as(caller));
  }

  /** The signed-in person (a key is no person: 404). */
  async me(caller: Caller): Promise<Result<User>> {
    if (caller.userId === undefined) {
      return fail(refuse.notFound('USER_NOT_FOUND', 'This request was made with a key, not by a person signed in.'));
    }
    return this.getUser(caller.userId, caller);
  }

  /** The caller's principal's people; the operator's: everyone, or those of `principal`. */
  listUsers(filter: UserFilter, caller: Caller): Promise<User[]> {
    if (!seesAll(caller)) {
      if (filter.principal !== undefined && filter.principal !== caller.principal) return Promise.resolve([]);
      filter = { ...filter, principal: caller.principal };
    }
    return this.store.read((reader) => reader.people.listUsers(filter), as(caller));
  }

  /** D-62: a new role of the principal's kind, within the caller's scopes; a Seller keeps an admin. */
  setRole(id: string, role: UserRole, caller: Caller): UnitCommand<User> {
    return this.change(id, caller, async (uow, user) => {
      const kind = kindOf(user.principal) as PrincipalKind;
      if (!rolesOf(kind).includes(role)) throw new RefusedError(badRole(role, kind));
      const beyond = mayGrant(caller, roleScopes(role));
      if (beyond !== undefined) throw new RefusedError(beyond);
      if (user.role === role) return user;
      if (user.role === 'admin') await this.keepAnAdmin(uow, user, 'give it another role');
      return { ...user, role };
    });
  }

  /** D-62, D-63: disabled at once, its sessions ended on every instance; a Seller keeps an admin. */
  disable(id: string, caller: Caller): UnitCommand<User> {
    return this.change(id, caller, async (uow, user) => {
      if (user.disabledAt !== undefined) return user;
      if (user.role === 'admin') await this.keepAnAdmin(uow, user, 'disable it');
      const disabled = { ...user, disabledAt: this.clock.now() };
      await this.endSessions(uow, user.id);
      return disabled;
    });
  }

  enable(id: string, caller: Caller): UnitCommand<User> {
    return this.change(id, caller, async (_uow, user) => {
      if (user.disabledAt === undefined) return user;
      const { disabledAt: _was, ...enabled } = user;
      return enabled;
    });
  }

  /**
   * D-63: an invitation's token and a password: the password is set, the token used, and the
   * person signed in. The hash is made before the unit of work (it is slow), checked in it.
   */
  async accept(token: string, password: string): Promise<Result<SignedIn>> {
    return this.redeem(token, 'invitation', password, true) as Promise<Result<SignedIn>>;
  }

  /** D-63: a reset link's token and a new password; every session of the person ends. */
  async confirmReset(token: string, password: string): Promise<Result<{ user: User }>> {
    return this.redeem(token, 'reset', password, false);
  }

  /**
   * D-63: a reset link is mailed when the email is an enabled person's; the answer is the same
   * either way (the caller answers 202), so it tells no one whether the email exists.
   */
  async requestReset(email: string, origin: string): Promise<void> {
    let mailed = false;
    await this.store.transaction(async (uow) => {
      const user = await uow.people.userByEmail(email);
      if (user === undefined || user.disabledAt !== undefined) return;
      await this.mailToken(uow, user, 'reset', this.publicUrl ?? origin, this.clock.now());
      mailed = true;
    }, PLATFORM);
    if (mailed) this.listeners.mail();
  }

  /**
   * D-63: a person signs in with an email and a password. A wrong password, an unknown email and a
   * disabled person are the same answer, after the same work (one Argon2id verification each).
   * Ten failures for one email within 15 minutes lock it for 15 minutes on every instance.
   */
  async signIn(email: string, password: string): Promise<Result<SignedIn>> {
    const throttleId = sha256(emailKey(email));
    const { user, throttle } = await this.store.read(
      async (reader) => ({
        user: await reader.people.userByEmail(email),
        throttle: await reader.people.getThrottle(throttleId),
      }),
      PLATFORM,
    );
    const locked = lockedFor(throttle, this.clock.now());
    if (locked > 0) return fail(refuse.throttled(Math.ceil(locked / 1000)));
    const usable = user !== undefined && user.disabledAt === undefined ? user.passwordHash : undefined;
    const right = await this.hasher.verify(usable, password);
    if (!right || user === undefined) {
      await this.store.transaction(async (uow) => {
        await uow.lock(`sign-in:${throttleId}`);
        const now = this.clock.now();
        const current = (await uow.people.getThrottle(throttleId)) ?? { id: throttleId, failures: [] };
        if (lockedFor(current, now) === 0) await uow.people.putThrottle(afterFailure(current, now));
      }, PLATFORM);
      return fail(refuse.credentials());
    }
    const value = randomBytes(32).toString('base64url');
    const session = this.sessions.sessionOf({ principal: user.principal, userId: user.id }, value);
    const signedIn = await this.store.transaction(async (uow) => {
      const current = await uow.people.getUser(user.id);
      // Disabled, or given a new password, between the check and now: not signed in.
      if (current === undefined || current.disabledAt !== undefined || current.passwordHash !== user.passwordHash) {
        return undefined;
      }
      if (throttle !== undefined) await uow.people.putThrottle({ id: throttleId, failures: [] });
      const updated = { ...current, lastSignInAt: session.createdAt };
      await uow.people.putUser(updated);
      await this.sessions.put(uow, session);
      return updated;
    }, PLATFORM);
    if (signedIn === undefined) return fail(refuse.credentials());
    this.listeners.user(signedIn);
    this.listeners.session(session);
    return ok({ user: signedIn, session: { value, expiresAt: session.expiresAt } });
  }

  // ── shared steps ───────────────────────────────────────────────────────────────────────────

  /** A one-time token for the user, its hash stored, and the mail with its link in the outbox. */
  private async mailToken(
    uow: UnitOfWork,
    user: User,
    purpose: OneTimeToken['purpose'],
    origin: string,
    now: number,
  ): Promise<void> {
    const drawn = this.seal.draw();
    await uow.people.putToken({
      hash: sha256(drawn.text),
      purpose,
      userId: user.id,
      principal: user.principal,
      createdAt: now,
      expiresAt: now + (purpose === 'invitation' ? INVITATION_MS : RESET_MS),
    });
    const words =
      purpose === 'invitation'
        ? {
            subject: 'You are invited to the sales pipeline',
            text:
              `Hello ${user.name},\n\nYou are invited to the sales pipeline as ${user.role}. Choose your password ` +
              'here within 72 hours:\n\n{{link}}\n\nIf you did not expect this, ignore this mail.\n',
            path: '/console/#/accept/',
          }
        : {
            subject: 'Reset your sales pipeline password',
            text:
              `Hello ${user.name},\n\nSomeone asked to reset the password of this email. Choose a new one here ` +
              'within 1 hour:\n\n{{link}}\n\nIf it was not you, ignore this mail: your password stays as it is.\n',
            path: '/console/#/reset/',
          };
    await uow.mail.putMail({
      id: `mail_${randomBytes(12).toString('base64url')}`,
      principal: user.principal,
      to: user.email,
      subject: words.subject,
      text: words.text,
      linkBase: `${origin}${words.path}`,
      nonce: drawn.nonce,
      createdAt: now,
      attempts: 0,
      nextAttemptAt: now,
    });
  }

  /** Sets a password from a one-time token; with `signIn`, a session too. */
  private async redeem(
    token: string,
    purpose: OneTimeToken['purpose'],
    password: string,
    signIn: boolean,
  ): Promise<Result<{ user: User; session?: { value: string; expiresAt: number } }>> {
    const invalid: Result<never> = fail(
      refuse.invalid('TOKEN_INVALID', 'This link is not valid: it was used, it expired, or it never was.', [
        'token: unknown, used or expired',
      ]),
    );
    if (!TOKEN_PATTERN.test(token)) return invalid;
    const hash = sha256(token);
    const found = await this.store.read(async (reader) => {
      const stored = await reader.people.tokenByHash(hash);
      return stored && { token: stored, user: await reader.people.getUser(stored.userId) };
    }, PLATFORM);
    const now = this.clock.now();
    const usable = (t: OneTimeToken | undefined, u: User | undefined): u is User =>
      t !== undefined &&
      t.purpose === purpose &&
      t.usedAt === undefined &&
      t.expiresAt > now &&
      u !== undefined &&
      u.disabledAt === undefined;
    if (!usable(found?.token, found?.user)) return invalid;
    const problem = passwordProblem(password, found.user.email);
    if (problem !== undefined) {
      return fail<never>(refuse.invalid('WEAK_PASSWORD', `The password is too weak: ${problem.slice(10)}.`, [problem]));
    }
    const passwordHash = await this.hasher.hash(password);
    const value = randomBytes(32).toString('base64url');
    const ended: ConsoleSession[] = [];
    const done = await this.store.transaction(async (uow) => {
      // Two uses of one token race here: one sets the password, the other finds it used.
      ended.length = 0; // the store may run a unit again from the start
      await uow.lock(`token:${hash}`);
      const stored = await uow.people.tokenByHash(hash);
      const user = stored && (await uow.people.getUser(stored.userId));
      if (!usable(stored, user)) return undefined;
      const at = this.clock.now();
      await uow.people.putToken({ ...(stored as OneTimeToken), usedAt: at });
      const updated: User = { ...user, passwordHash, passwordSetAt: at };
      // A new password ends every session the person had (D-63).
      ended.push(...(await this.endSessions(uow, user.id)));
      if (!signIn) {
        await uow.people.putUser(updated);
        return { user: updated };
      }
      const session = this.sessions.sessionOf({ principal: user.principal, userId: user.id }, value);
      const signedIn = { ...updated, lastSignInAt: session.createdAt };
      await uow.people.putUser(signedIn);
      await this.sessions.put(uow, session);
      ended.push(session);
      return { user: signedIn, session: { value, expiresAt: session.expiresAt } };
    }, PLATFORM);
    if (done === undefined) return invalid;
    this.listeners.user(done.user);
    for (const session of ended) this.listeners.session(session);
    return ok(done);
  }

  /** A change of one person by a caller who may manage them; another principal's is unknown. */
  private change(id: string, caller: Caller, next: (uow: UnitOfWork, user: User) => Promise<User>): UnitCommand<User> {
    const ended: ConsoleSession[] = [];
    return {
      work: async (uow) => {
        ended.length = 0; // the store may run a unit again from the start
        await uow.lock('users');
        const user = couldBeId('usr', id) ? await uow.people.getUser(id) : undefined;
        if (user === undefined || !mayManage(caller, user.principal)) throw new RefusedError(refuse.noUser(id));
        const changed = await next(uow, user);
        if (changed !== user) await uow.people.putUser(changed);
        ended.push(...(await uow.people.sessionsOfUser(id)).filter((s) => s.endedAt !== undefined));
        return changed;
      },
      committed: (user) => {
        this.listeners.user(user);
        for (const session of ended) this.listeners.session(session);
      },
    };
  }

  /** D-62: a Seller's last enabled admin keeps its role and stays enabled. */
  private async keepAnAdmin(uow: UnitOfWork, user: User, what: string): Promise<void> {
    if (kindOf(user.principal) !== 'seller' || user.disabledAt !== undefined) return;
    const admins = await uow.people.enabledAdmins(user.principal);
    if (admins.some((admin) => admin.id !== user.id)) return;
    throw new RefusedError(
      refuse.conflict('LAST_ADMIN', `${user.name} is the last enabled admin of ${user.principal}: cannot ${what}.`),
    );
  }

  /** Ends every live session of a person in this unit; answers them ended. */
  private async endSessions(uow: UnitOfWork, userId: string): Promise<ConsoleSession[]> {
    const now = this.clock.now();
    const ended: ConsoleSession[] = [];
    for (const session of await uow.people.sessionsOfUser(userId)) {
      if (session.endedAt !== undefined || session.expiresAt <= now) continue;
      const end = { ...session, endedAt: now };
      await uow.accounts.putSession(end);
      ended.push(end);
    }
    return ended;
  }

  private async exists(uow: UnitOfWork, principal: string): Promise<boolean> {
    if (principal === OPERATOR) return true;
    if (kindOf(principal) === 'seller') return (await uow.accounts.getSeller(principal)) !== undefined;
    return (await uow.readCloser(principal)) !== undefined;
  }
}
