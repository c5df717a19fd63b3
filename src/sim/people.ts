// People in the simulation (D-62, D-63): each Seller's admin, rep and viewer and a closer's person,
// invited and accepted through the service at the start (principals.ts), then acting through the
// door (person-door.ts) a quarter of the time, each
// with its role's scopes, on its own and on other tenants' records. Their steps: sign-ins right
// and wrong (ten wrong lock the email for 15 minutes of the machine clock), sign-outs, roles
// changed, people disabled and enabled. The model says what the door must make of a person's
// session at every step: a caller with exactly the role's scopes, or nothing once the session
// ended or the person was disabled.
import { type Caller, OPERATOR } from '../domain/access.ts';
import { LOCK_FAILURES, LOCK_MS, LOCK_WINDOW_MS, type UserRole } from '../domain/users.ts';
import type { Command } from './commands.ts';
import { act } from './door.ts';
import { sha256 } from './person-door.ts';
import type { Cast, SimPerson } from './principals.ts';
import type { World } from './world.ts';

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
