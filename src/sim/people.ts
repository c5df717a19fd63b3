// People in the simulation (D-62, D-63): each Seller's admin, rep and viewer and a closer's person,
// invited and accepted through the service at the start (the token drawn from the mail outbox
// as the mail worker would draw it), then acting through the door as often as keys do, each
// with its role's scopes, on its own and on other tenants' records. Their steps: sign-ins right
// and wrong (ten wrong lock the email for 15 minutes of the machine clock), sign-outs, roles
// changed, people disabled and enabled. The model says what the door must make of a person's
// session at every step: a caller with exactly the role's scopes, or nothing once the session
// ended or the person was disabled.
import { createHash } from 'node:crypto';
import { type Caller, OPERATOR } from '../domain/access.ts';
import type { Credential, SessionLapse } from '../domain/authorization.ts';
import { isSessionLive } from '../domain/sessions.ts';
import { LOCK_FAILURES, LOCK_MS, LOCK_WINDOW_MS, roleScopes, type UserRole } from '../domain/users.ts';
import type { PipelineService } from '../service/pipeline-service.ts';
import type { TokenSeal } from '../service/token-seal.ts';
import type { Store } from '../store/store.ts';
import type { Command } from './commands.ts';
import { act } from './door.ts';
import type { Cast } from './principals.ts';
import { same, type World } from './world.ts';

export interface SimPerson {
  userId: string;
  email: string;
  principal: string;
  role: UserRole;
  password: string;
  /** The console cookie's value of the person's current session, if signed in, and its end (machine ms). */
  session?: string;
  sessionEnds?: number;
  disabled?: boolean;
  /** The model of the lockout: failed sign-ins within the window, and the lock's end. */
  failures: number[];
  lockedUntil?: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ORIGIN = 'http://sim.invalid';

/** Invites the people of every Seller and of one closer, and accepts each invitation. */
export async function enrolPeople(
  service: PipelineService,
  store: Store,
  cast: Cast,
  seal: TokenSeal,
  now: () => number,
  operator: Caller,
): Promise<void> {
  const plan: [string, UserRole][] = [];
  for (const seller of cast.sellers) plan.push([seller, 'admin'], [seller, 'rep'], [seller, 'viewer']);
  if (cast.closers[0] !== undefined) plan.push([cast.closers[0], 'closer']);
  plan.push([OPERATOR, 'operator']);
  for (const [principal, role] of plan) {
    const email = `${role}.${principal}@sim.example`;
    const invited = await service.run(
      service.people.invite({ email, name: `${role} of ${principal}`, role, principal }, operator, ORIGIN),
    );
    if (!invited.ok) throw new Error(`no person ${email}: ${invited.refusal.message}`);
    cast.people.push({
      userId: invited.value.id,
      email,
      principal,
      role,
      password: `sim passphrase ${role} 1234`,
      failures: [],
    });
  }
  // The invitations' tokens, as the mail worker would draw them from the outbox.
  const at = now();
  const mail = await store.transaction((uow) => uow.mail.claimMail(at, at + 60_000, 1_000), {
    principal: 'platform',
  });
  for (const person of cast.people) {
    const message = mail.find((m) => m.to === person.email);
    if (message === undefined) throw new Error(`no invitation mailed to ${person.email}`);
    const accepted = await service.people.accept(seal.textOf(message.nonce), person.password);
    if (!accepted.ok) throw new Error(`${person.email} could not accept: ${accepted.refusal.message}`);
    person.session = accepted.value.session.value;
    person.sessionEnds = accepted.value.session.expiresAt;
  }
}

/**
 * What the door makes of a person's session (the console's check, src/http/console-session.ts,
 * over the key ring), held to the model: a signed-in, enabled person is their role's caller;
 * anyone else is refused.
 */
export async function personCredential(world: World, person: SimPerson): Promise<Credential> {
  const ring = world.service.keyRing;
  if (!ring) throw new Error('people need keys mode');
  let standing: { ok: true; caller: Caller } | { ok: false; reason: SessionLapse } = { ok: false, reason: 'absent' };
  if (person.session !== undefined) {
    const session = await ring.findSession(sha256(person.session));
    const user = session?.userId === undefined ? undefined : await ring.findUser(session.userId);
    if (session === undefined || !isSessionLive(session, world.machine)) standing = { ok: false, reason: 'ended' };
    else if (user === undefined || user.disabledAt !== undefined) standing = { ok: false, reason: 'ended' };
    else standing = { ok: true, caller: { ...ring.callerOfUser(user), sessionId: session.id } };
  }
  // A session lasts 12 hours of the machine clock (D-59), which the simulation moves on.
  const expected = person.session !== undefined && !person.disabled && (person.sessionEnds ?? 0) > world.machine;
  if (standing.ok !== expected) {
    world.found.push({
      invariant: 'people',
      message: `${person.email} (${person.disabled ? 'disabled' : person.session ? 'signed in' : 'signed out'}) was ${standing.ok ? 'admitted' : 'refused'}`,
      ids: [person.userId],
    });
  }
  if (standing.ok) {
    const { caller } = standing;
    if (caller.principal !== person.principal || !same([...caller.scopes], roleScopes(person.role))) {
      world.found.push({
        invariant: 'people',
        message: `${person.email} (${person.role} of ${person.principal}) acted as ${caller.principal} with ${[...caller.scopes]}`,
        ids: [person.userId],
      });
    }
  }
  return { kind: 'session', standing, ownOrigin: true };
}

/** The people's own steps. */
export function peopleCommands(world: World): Command[] {
  const { chance, pick } = world.dice;
  const svc = () => world.service;
  const people = () => (world.cast as Cast).people;
  return [
    [
      'sign-in',
      3,
      async () => {
        const person = pick(people()) as SimPerson;
        const right = chance(0.6);
        const result = await svc().people.signIn(person.email, right ? person.password : 'not the password 12345');
        const now = world.machine;
        const locked = person.lockedUntil !== undefined && person.lockedUntil > now;
        const expected = locked ? 'TOO_MANY_ATTEMPTS' : right && !person.disabled ? 'ok' : 'INVALID_CREDENTIALS';
        const got = result.ok ? 'ok' : result.refusal.code;
        if (got !== expected) {
          world.found.push({
            invariant: 'people',
            message: `sign-in of ${person.email} (${right ? 'right' : 'wrong'} password) answered ${got}, expected ${expected}`,
            ids: [person.userId],
          });
        }
        if (result.ok) {
          person.session = result.value.session.value;
          person.sessionEnds = result.value.session.expiresAt;
          person.failures = [];
        } else if (!locked && got === 'INVALID_CREDENTIALS') {
          person.failures = [...person.failures.filter((at) => at > now - LOCK_WINDOW_MS), now];
          if (person.failures.length >= LOCK_FAILURES) {
            person.failures = [];
            person.lockedUntil = now + LOCK_MS;
          }
        }
        return result;
      },
    ],
    [
      'sign-out',
      1,
      async () => {
        const person = pick(people().filter((p) => p.session !== undefined));
        if (!person?.session) return undefined;
        const session = await svc().keyRing?.findSession(sha256(person.session));
        if (session) await svc().sessions.endSession(session);
        person.session = undefined;
        return undefined;
      },
    ],
    [
      'person-role',
      1,
      () => {
        const person = pick(people().filter((p) => p.principal.startsWith('seller_'))) as SimPerson;
        const role = pick(['admin', 'manager', 'rep', 'viewer'] as const) as UserRole;
        return act(
          world,
          'setUserRole',
          [person.principal, OPERATOR],
          { kind: 'user', id: person.userId },
          async (c, id) => {
            const changed = await svc().run(svc().people.setRole(id, role, c as Caller));
            if (changed.ok && id === person.userId) person.role = role;
            return changed;
          },
        );
      },
    ],
    [
      'person-disable',
      1,
      () => {
        const person = pick(people().filter((p) => p.role !== 'operator')) as SimPerson;
        const enable = person.disabled === true && chance(0.7);
        const op = enable ? 'enableUser' : 'disableUser';
        return act(world, op, [person.principal, OPERATOR], { kind: 'user', id: person.userId }, async (c, id) => {
          const people = svc().people;
          const done = await svc().run(enable ? people.enable(id, c as Caller) : people.disable(id, c as Caller));
          if (done.ok && id === person.userId) {
            person.disabled = !enable;
            // Disabling ends every session of the person (D-63).
            if (!enable) person.session = undefined;
          }
          return done;
        });
      },
    ],
  ];
}
