// Keys mode's door (D-50..D-57): every command and read as the HTTP door runs it. A key of a
// principal the command suits (now and then anyone's) is authenticated by the key ring (a
// revoked or expired one must be refused), the operation's scope asked of it (the operations
// table's), then the service called as its caller; on another tenant's record the same call on
// an unknown id must answer the same, the id aside. In the demo a command is only called.
import type { Access, Caller } from '../domain/access.ts';
import { authorize, type Denial } from '../domain/authorization.ts';
import { formatId } from '../domain/ids.ts';
import type { Refusal } from '../domain/refusal.ts';
import { OPERATIONS } from '../operations/table.ts';
import { fail, RefusedError, type Result } from '../service/result.ts';
import { personCredential } from './person-door.ts';
import { samePolicy } from './policies.ts';
import type { Cast, SimKey, SimPerson } from './principals.ts';
import { foreignDeal, foreignGig } from './tenancy.ts';
import { type Answered, type SimSnapshot, same, type World } from './world.ts';

/**
 * A door's denial as the simulator tallies refusals: the code and words (a 401 has no refusal of
 * the service's, the request never reaches it; the denial stands in for it).
 */
export function asRefusal(denial: Denial): Refusal {
  return {
    kind: 'denied',
    code: denial.code,
    message: denial.message,
    ...(denial.code === 'INSUFFICIENT_SCOPE' ? { requiredScope: denial.requiredScope } : {}),
  } as unknown as Refusal;
}

/** What the operations table asks of a caller for each operation (D-53). */
const SCOPES = new Map<string, Access>(OPERATIONS.map((op) => [op.id, op.scope]));
const scopeOf = (op: string): Access => {
  const scope = SCOPES.get(op);
  if (scope === undefined) throw new Error(`no operation ${op} in the table`);
  return scope;
};

export type Target = { kind: 'deal' | 'gig' | 'seller' | 'principal' | 'key' | 'user' | 'approval'; id: string };
export const UNKNOWN: Record<Target['kind'], string> = {
  deal: formatId('deal', 99_991),
  gig: formatId('gig', 99_992),
  seller: formatId('seller', 99_993),
  principal: formatId('seller', 99_994),
  key: formatId('key', 99_995),
  user: formatId('usr', 99_996),
  approval: formatId('apr', 99_997),
};

/** A principal's key for a command: mostly one that fits it and is live, now and then any. */
function chooseKey(world: World, prefer: readonly string[], only: boolean): SimKey {
  const { chance, pick } = world.dice;
  const all = world.cast as Cast;
  const principal = (only || chance(0.8) ? pick(prefer) : undefined) ?? (pick(all.principals()) as string);
  const keys = all.keysOf(principal);
  const live = keys.filter((k) => all.isLive(k));
  return ((chance(0.88) ? pick(live) : undefined) ?? pick(keys)) as SimKey;
}

function foreign(cast: Cast, caller: Caller, target: Target, s: SimSnapshot): boolean {
  if (caller.kind === 'operator') return false;
  switch (target.kind) {
    case 'deal':
      return foreignDeal(caller, target.id, s);
    case 'gig':
      return foreignGig(caller, target.id, s);
    case 'seller':
      return cast.sellers.includes(target.id) && target.id !== caller.principal;
    case 'principal':
      return cast.principals().includes(target.id) && target.id !== caller.principal;
    case 'key': {
      const key = cast.keys.find((k) => k.id === target.id);
      return key !== undefined && key.principal !== caller.principal;
    }
    case 'user': {
      const person = cast.people.find((p) => p.userId === target.id);
      return person !== undefined && person.principal !== caller.principal;
    }
    case 'approval': {
      const approval = s.approvals.find((a) => a.id === target.id);
      return approval !== undefined && approval.sellerId !== caller.principal;
    }
  }
}

/**
 * A command or read as the door runs it. In the demo: `call` with no caller. In keys mode: a
 * key of one of `prefer` (now and then anyone's; `key` when given) authenticated by the key
 * ring, or a person's session (now and then; `person` when given), the operation's scope asked
 * of it, then `call` as its caller; on another tenant's record the same call on an unknown id
 * must answer the same, the id aside.
 */
export async function act(
  world: World,
  op: string,
  prefer: readonly (string | undefined)[],
  target: Target | undefined,
  call: (caller: Caller | undefined, id: string) => Promise<unknown>,
  {
    complete,
    only = false,
    key: given,
    person: chosen,
  }: { complete?: Answered['complete']; only?: boolean; key?: SimKey; person?: SimPerson } = {},
): Promise<unknown> {
  const cast = world.cast;
  if (!cast) return call(undefined, target?.id ?? '');
  const tally = world.tally;
  const preferred = prefer.filter((p): p is string => p !== undefined);
  // D-62: now and then a person of a preferred principal (else anyone) acts, through the console's session.
  const person =
    chosen ??
    (given === undefined && world.dice.chance(0.25)
      ? (world.dice.pick(cast.people.filter((p) => preferred.includes(p.principal))) ?? world.dice.pick(cast.people))
      : undefined);
  let decided: ReturnType<typeof authorize>;
  let key: SimKey | undefined;
  if (person !== undefined) {
    world.sent = ` ${op} as ${person.email}`;
    decided = authorize(await personCredential(world, person), scopeOf(op));
  } else {
    key = given ?? chooseKey(world, preferred, only);
    world.sent = ` ${op} with ${key.id} of ${key.principal}`;
    // The door's own decision (src/domain/authorization.ts): a key not valid, or one without the scope.
    decided = authorize({ kind: 'key', caller: await authenticated(world, key) }, scopeOf(op));
  }
  if (!decided.ok) {
    if (decided.denial.status === 401) tally.refusedKeys++;
    else tally.refusedScopes++;
    return fail(asRefusal(decided.denial));
  }
  const caller = decided.caller;
  if (person !== undefined) tally.asPeople++;
  if (
    key !== undefined &&
    (caller.principal !== key.principal || caller.keyId !== key.id || !same([...caller.scopes], key.scopes))
  ) {
    world.found.push({
      invariant: 'keys',
      message: `${key.id} of ${key.principal} authenticated as ${caller.keyId} of ${caller.principal} (${[...caller.scopes]})`,
      ids: [key.id],
    });
  }
  // D-68: the key's policy binds its requests from the moment it was set (one instance here).
  if (key !== undefined && !samePolicy(caller.policy, key.policy)) {
    world.found.push({
      invariant: 'keys',
      message: `${key.id} of ${key.principal} came through the door with policy ${JSON.stringify(caller.policy)}, not ${JSON.stringify(key.policy)}`,
      ids: [key.id],
    });
  }
  world.stepCaller = caller;
  // A refusal thrown before any unit of work (closer-of's rule) answers as the door does.
  const run = (id: string) =>
    Promise.resolve()
      .then(() => call(caller, id))
      .catch((error) => {
        if (error instanceof RefusedError) return fail(error.refusal);
        throw error;
      });
  const outcome = (await run(target?.id ?? '')) as Result<unknown>;
  if (target && foreign(cast, caller, target, world.before)) {
    tally.crossTenant++;
    world.store.disarm();
    const unknown = UNKNOWN[target.kind];
    const probe = (await run(unknown)) as Result<unknown>;
    const expected = probe.ok ? probe : { ok: false, refusal: withId(probe.refusal, unknown, target.id) };
    if (!same(outcome, expected)) {
      world.found.push({
        invariant: 'tenancy',
        message:
          `${op} as ${caller.principal} on ${target.kind} ${target.id}, another tenant's, answered ` +
          `${JSON.stringify(outcome.ok ? 'a success' : outcome.refusal)}; on an unknown one ${JSON.stringify(probe.ok ? 'a success' : probe.refusal)}`,
        ids: [target.id],
      });
    }
  }
  if (outcome.ok) world.answered = { op, value: outcome.value, caller, ...(complete ? { complete } : {}) };
  return outcome;
}

/**
 * What the key ring makes of a key, held to what the simulation knows of it: a live key is
 * accepted, a revoked or expired one (a rolled one past its grace) refused.
 */
export async function authenticated(world: World, key: SimKey): Promise<Caller | undefined> {
  const cast = world.cast as Cast;
  const caller = await cast.callerOf(key);
  if ((caller !== undefined) !== cast.isLive(key)) {
    world.found.push({
      invariant: 'keys',
      message: `${key.id} of ${key.principal} (${key.revoked ? 'revoked' : key.expiresAt !== undefined ? `expiring ${new Date(key.expiresAt).toISOString()}` : 'live'}) was ${caller ? 'accepted' : 'refused'} at ${new Date(world.machine).toISOString()}`,
      ids: [key.id],
    });
  }
  return caller;
}

/** A refusal as it would name `to` where it named `from`. */
function withId(refusal: Refusal, from: string, to: string): Refusal {
  return JSON.parse(JSON.stringify(refusal).split(from).join(to)) as Refusal;
}
