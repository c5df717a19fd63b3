// What the door makes of a person's console session in the simulation (D-62, D-63): the
// console's check (src/http/console-session.ts) over the key ring, held to the model of the
// person (people.ts keeps it): a caller with exactly the role's scopes, or nothing once the
// session ended or the person was disabled.
import { createHash } from 'node:crypto';
import type { Caller } from '../domain/access.ts';
import type { Credential, SessionLapse } from '../domain/authorization.ts';
import { isSessionLive } from '../domain/sessions.ts';
import { roleScopes } from '../domain/users.ts';
import type { SimPerson } from './principals.ts';
import { same, type World } from './world.ts';

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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
