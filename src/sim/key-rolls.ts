// Keys mode's key rolls in the simulation (D-52, D-75, D-214): a key (never a principal's first)
// rolled through the door by a random caller, now and then a weaker key of the same principal
// (one that lacks a scope of the key rolled). The rules are written here again from the
// decisions, not taken from the service: a caller of another tenant finds no such key; one whose
// scopes do not include every scope of the key is refused (403 INSUFFICIENT_SCOPE); a revoked or
// expired key is not rolled (409 KEY_REVOKED); a principal at KEYS_PER_PRINCIPAL live keys gets
// none more (409 TOO_MANY_KEYS). A refused roll, and one whose unit failed, changes nothing. A
// roll that succeeds gives a new key of exactly the old one's principal, scopes and expiry, and
// leaves the old one expiring at the earlier of its own expiry and the grace's end: from then on
// every step holds both keys to that (the old one refused once its grace is over, its streams
// ended, src/sim/streams.ts), and the new key keeps the old one's policy (D-68), which must be
// no looser than the caller's own (POLICY_WIDENING otherwise).
import { type Caller, OPERATOR } from '../domain/access.ts';
import { type ApiKey, DEFAULT_GRACE_SECONDS } from '../domain/keys.ts';
import type { Refusal } from '../domain/refusal.ts';
import { DEFAULT_KEYS_PER_PRINCIPAL, type IssuedKey } from '../service/accounts.ts';
import type { Result } from '../service/result.ts';
import { act, UNKNOWN } from './door.ts';
import { isLooser, samePolicy } from './policies.ts';
import type { Cast, SimKey } from './principals.ts';
import { same, type World } from './world.ts';

/** Grace periods asked for, in seconds (undefined: the default, a day). A step is up to a minute. */
const GRACES = [0, 0, 60, 600, 3_600, undefined] as const;

const covers = (held: readonly string[], wanted: readonly string[]) =>
  held.includes('admin') || wanted.every((scope) => held.includes(scope));

export function rollKey(world: World): Promise<unknown> {
  const { chance, pick } = world.dice;
  const cast = world.cast as Cast;
  const rollable = cast.keys.filter((k) => !k.main);
  const key = (chance(0.85) ? pick(rollable.filter((k) => cast.isLive(k))) : undefined) ?? pick(rollable);
  const grace = pick(GRACES);
  // Now and then the caller is a live key of the same principal that lacks a scope of the key:
  // mostly one that manages keys (the service must refuse it, D-75), else any (the door does).
  const weaker = key ? cast.keysOf(key.principal).filter((k) => cast.isLive(k) && !covers(k.scopes, key.scopes)) : [];
  const managers = weaker.filter((k) => k.scopes.includes('keys:manage'));
  const given = chance(0.4) ? ((chance(0.8) ? pick(managers) : undefined) ?? pick(weaker)) : undefined;
  return act(
    world,
    'rollKey',
    [key?.principal, OPERATOR],
    { kind: 'key', id: key?.id ?? UNKNOWN.key },
    async (c, id) => {
      const caller = c as Caller;
      const run = () => world.service.run(world.service.accounts.rollKey(id, grace, caller));
      // The cross-tenant probe (an unknown id) and a roll of no key of the cast's: only answered.
      if (!key || id !== key.id) return run();
      // The key as stored (its last use aside: the ring writes it on a timer of its own).
      const state = () =>
        world.store.read(async (r): Promise<KeyState> => {
          const { lastUsedAt: _, ...stored } = (await r.accounts.getKey(id)) ?? ({} as ApiKey);
          return { key: stored, keys: (await r.accounts.listKeys({ principal: key.principal })).length };
        });
      const before = await state();
      let rolled: Result<IssuedKey>;
      try {
        rolled = await run();
      } catch (error) {
        // A unit that failed (an injected fault): nothing of the roll remains.
        await unchanged(world, key, before, await state(), 'a roll whose unit failed');
        throw error;
      }
      if (rolled.ok) settled(world, key, caller, grace, rolled.value);
      else {
        refused(world, key, caller, rolled.refusal);
        await unchanged(world, key, before, await state(), `a roll refused ${rolled.refusal.code}`);
      }
      return rolled;
    },
    given ? { key: given } : {},
  );
}

/** What may refuse a roll of `key` by `caller` (none: it must succeed), as the decisions say. */
function refusalsOf(cast: Cast, key: SimKey, caller: Caller): Set<string> {
  if (caller.kind !== 'operator' && caller.principal !== key.principal) return new Set(['KEY_NOT_FOUND']);
  const may = new Set<string>();
  if (!covers([...caller.scopes], key.scopes)) may.add('INSUFFICIENT_SCOPE');
  // D-68: the caller receives the new key: a key with a policy rolls none looser than itself.
  if (isLooser(key.policy, caller.policy)) may.add('POLICY_WIDENING');
  if (!cast.isLive(key)) may.add('KEY_REVOKED');
  if (cast.keysOf(key.principal).filter((k) => cast.isLive(k)).length >= DEFAULT_KEYS_PER_PRINCIPAL)
    may.add('TOO_MANY_KEYS');
  return may;
}

/** A roll that succeeded: the new key is the old one's, and the old one ends with its grace. */
function settled(world: World, key: SimKey, caller: Caller, grace: number | undefined, issued: IssuedKey): void {
  const cast = world.cast as Cast;
  const found = (message: string) => world.found.push({ invariant: 'keys', message, ids: [key.id, issued.key.id] });
  const may = refusalsOf(cast, key, caller);
  if (may.size > 0) found(`${caller.keyId} of ${caller.principal} rolled ${key.id}, which ${[...may]} should refuse`);
  const made = issued.key;
  if (made.principal !== key.principal || !same([...made.scopes].sort(), [...key.scopes].sort()))
    found(
      `the roll of ${key.id} (${key.principal}: ${key.scopes}) made ${made.id} of ${made.principal}: ${made.scopes}`,
    );
  if (made.expiresAt !== key.expiresAt)
    found(`the roll of ${key.id} (expiring ${key.expiresAt}) made ${made.id} expiring ${made.expiresAt}`);
  // D-68: a roll keeps the policy.
  if (!samePolicy(made.policy, key.policy))
    found(
      `the roll of ${key.id} (policy ${JSON.stringify(key.policy)}) made ${made.id} with ${JSON.stringify(made.policy)}`,
    );
  const graceEnds = world.machine + (grace ?? DEFAULT_GRACE_SECONDS) * 1000;
  const ends = Math.min(key.expiresAt ?? graceEnds, graceEnds);
  if (issued.rolled?.expiresAt !== ends)
    found(`the roll of ${key.id} left it expiring ${issued.rolled?.expiresAt}, not at ${ends} (grace ${grace})`);
  key.expiresAt = ends;
  cast.learn(made, issued.text as string);
  world.tally.rolled++;
}

/** A roll refused: for one of the reasons the decisions give it (D-75's counted). */
function refused(world: World, key: SimKey, caller: Caller, refusal: Refusal): void {
  const may = refusalsOf(world.cast as Cast, key, caller);
  if (!may.has(refusal.code))
    world.found.push({
      invariant: 'keys',
      message: `${caller.keyId} of ${caller.principal} rolling ${key.id} was refused ${refusal.code}; expected ${may.size > 0 ? [...may] : 'success'}`,
      ids: [key.id],
    });
  if (refusal.code === 'INSUFFICIENT_SCOPE') world.tally.rollsRefused++;
}

type KeyState = { key: Partial<ApiKey>; keys: number };

/** A roll that did not happen left the key as it was and made no key. */
async function unchanged(world: World, key: SimKey, before: KeyState, after: KeyState, what: string) {
  if (!same(before, after))
    world.found.push({
      invariant: 'keys',
      message: `${what} changed ${key.id} (${JSON.stringify(before)} → ${JSON.stringify(after)})`,
      ids: [key.id],
    });
  // And the ring still answers for it as before.
  const cast = world.cast as Cast;
  const still = await cast.callerOf(key);
  if ((still !== undefined) !== cast.isLive(key))
    world.found.push({
      invariant: 'keys',
      message: `${what}: ${key.id} is ${still ? 'accepted' : 'refused'}`,
      ids: [key.id],
    });
}
