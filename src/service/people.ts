import { type Caller, kindOf, OPERATOR, type PrincipalKind, seesAll } from '../domain/access.ts';
import { mayGrant } from '../domain/authorization.ts';
import { couldBeId, formatId } from '../domain/ids.ts';
import { refuse } from '../domain/refusal.ts';
import type { ConsoleSession } from '../domain/sessions.ts';
import { roleScopes, rolesOf, type User, type UserRole } from '../domain/users.ts';
import type { UserFilter } from '../store/people.ts';
import type { Store, UnitOfWork } from '../store/store.ts';
import { OwnAccount } from './own-account.ts';
import type { PasswordHasher } from './passwords.ts';
import { endSessions, mailToken, type PeopleListeners } from './person-steps.ts';

export type { PeopleListeners, SignedIn } from './person-steps.ts';

import { fail, ok, RefusedError, type Result } from './result.ts';
import type { Sessions } from './sessions.ts';
import type { TokenSeal } from './token-seal.ts';
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
    hasher: PasswordHasher,
    private readonly seal: TokenSeal,
    sessions: Sessions,
    private readonly listeners: PeopleListeners,
    /** D-64: PUBLIC_URL, the origin of links in mail; unset, the request's own. */
    private readonly publicUrl?: string,
  ) {
    this.own = new OwnAccount(store, clock, hasher, seal, sessions, listeners, publicUrl);
  }

  private readonly own: OwnAccount;

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
        await mailToken(uow, this.seal, user, 'invitation', this.publicUrl ?? origin, now);
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
      await endSessions(uow, user.id, this.clock.now());
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

  /** The person's own account (accept, reset, sign in): own-account.ts. */
  accept(token: string, password: string) {
    return this.own.accept(token, password);
  }

  confirmReset(token: string, password: string) {
    return this.own.confirmReset(token, password);
  }

  requestReset(email: string, origin: string) {
    return this.own.requestReset(email, origin);
  }

  signIn(email: string, password: string) {
    return this.own.signIn(email, password);
  }

  // ── shared steps ───────────────────────────────────────────────────────────────────────────

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

  private async exists(uow: UnitOfWork, principal: string): Promise<boolean> {
    if (principal === OPERATOR) return true;
    if (kindOf(principal) === 'seller') return (await uow.accounts.getSeller(principal)) !== undefined;
    return (await uow.readCloser(principal)) !== undefined;
  }
}
