// D-63: a person's own account: an invitation accepted, a password reset asked for and
// confirmed, a sign-in with an email and a password. A token is redeemed once (its lock makes
// two uses meet), a new password ends every session of the person, and failed sign-ins lock an
// email on every instance (the throttle is a row of the store).
import { randomBytes } from 'node:crypto';
import { refuse } from '../domain/refusal.ts';
import type { ConsoleSession } from '../domain/sessions.ts';
import { afterFailure, emailKey, lockedFor, type OneTimeToken, passwordProblem, type User } from '../domain/users.ts';
import type { Store } from '../store/store.ts';
import { sha256 } from './accounts.ts';
import type { PasswordHasher } from './passwords.ts';
import { endSessions, mailToken, type PeopleListeners, type SignedIn } from './person-steps.ts';
import { fail, ok, type Result } from './result.ts';
import type { Sessions } from './sessions.ts';
import { TOKEN_PATTERN, type TokenSeal } from './token-seal.ts';

interface MachineClock {
  now(): number;
}

const PLATFORM = { principal: 'platform' };

export class OwnAccount {
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
      await mailToken(uow, this.seal, user, 'reset', this.publicUrl ?? origin, this.clock.now());
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
      ended.push(...(await endSessions(uow, user.id, at)));
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
}
