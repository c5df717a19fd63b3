// Keys mode's own steps: reads of every kind as a random principal (each answer then held to
// its tenancy, an unfiltered list to its completeness), tokens put to the key ring (live keys,
// dead ones, forged and mangled ones), keys made (now and then with a policy, none looser than
// the caller's own: D-68), rolled (key-rolls.ts) and revoked through the service's accounts, and
// event streams opened with keys (streams.ts).
import { type Caller, OPERATOR } from '../domain/access.ts';
import type { Snapshot } from '../domain/invariants.ts';
import type { KeyPolicy } from '../domain/policy.ts';
import { STAGES, type Stage } from '../domain/stages.ts';
import { ok } from '../service/result.ts';
import type { Command } from './commands.ts';
import { act, UNKNOWN } from './door.ts';
import { ids, sellers } from './inputs.ts';
import { rollKey } from './key-rolls.ts';
import { checkWidening, policyForNewKey } from './policy-commands.ts';
import { type Cast, forgedKey, type SimKey } from './principals.ts';
import { openStream } from './streams.ts';
import { HOUR, type World } from './world.ts';

export function keyCommands(world: World): Command[] {
  const dice = world.dice;
  const { random, chance, pick } = dice;
  const svc = () => world.service;
  const reads = readsOf(world);
  return [
    ['read', 12, (s) => (pick(reads) as (typeof reads)[number])[1](s)],
    ['auth', 4, () => authenticate(world)],
    [
      'key-create',
      2,
      () => {
        const all = world.cast as Cast;
        const principal = pick(all.principals()) as string;
        const own = all.keysOf(principal)[0]?.scopes ?? [];
        const scopes = chance(0.3) ? own.filter(() => chance(0.6)) : undefined;
        const expiresAt = chance(0.4) ? world.machine + Math.floor(random() * 48 * HOUR) : undefined;
        // D-68: the policy asked, chosen once by the caller the door made (the probe sends the same).
        let asked: { policy: KeyPolicy | undefined } | undefined;
        return act(world, 'createKey', [principal, OPERATOR], { kind: 'principal', id: principal }, async (c, id) => {
          asked ??= { policy: policyForNewKey(world, c as Caller, principal) };
          const { policy } = asked;
          const made = await svc().run(
            svc().accounts.createKey(
              {
                name: `more for ${id}`,
                principal: id,
                ...(scopes ? { scopes } : {}),
                ...(expiresAt ? { expiresAt } : {}),
                ...(policy ? { policy } : {}),
              },
              c as Caller,
            ),
          );
          if (id === principal) checkWidening(world, 'createKey', made, policy, c as Caller, principal);
          if (made.ok && id === principal) {
            all.learn(made.value.key, made.value.text as string);
            world.tally.issued++;
          }
          return made;
        });
      },
    ],
    [
      'key-revoke',
      2,
      () => {
        const all = world.cast as Cast;
        // Now and then a key a stream is open with (the stream must end, D-76); a key with a
        // policy seldom, so that the agents bound by one go on proposing (D-68).
        const streaming = world.streams.filter((st) => st.open && !st.key.main).map((st) => st.key);
        const key =
          (chance(0.3) ? pick(streaming) : undefined) ??
          pick(all.keys.filter((k) => !k.main && (k.policy === undefined || chance(0.2))));
        const target = key?.id ?? UNKNOWN.key;
        return act(world, 'revokeKey', [key?.principal, OPERATOR], { kind: 'key', id: target }, async (c, id) => {
          const revoked = await svc().run(svc().accounts.revokeKey(id, c as Caller));
          if (revoked.ok && key && id === key.id) {
            key.revoked = true;
            world.tally.revoked++;
            // Refused at once by the instance that revoked it.
            const again = await svc().keyRing?.authenticate(key.text);
            if (again?.ok)
              world.found.push({ invariant: 'keys', message: `${key.id} authenticated once revoked`, ids: [key.id] });
          }
          return revoked;
        });
      },
    ],
    ['key-roll', 2, () => rollKey(world)],
    ['stream-open', 2, () => openStream(world)],
  ];
}

/** Every read of the API, each as a random principal's key. */
function readsOf(world: World): [string, (s: Snapshot) => Promise<unknown>][] {
  const dice = world.dice;
  const { chance, pick } = dice;
  const svc = () => world.service;
  return [
    [
      'getDeal',
      (s) =>
        act(world, 'getDeal', [], { kind: 'deal', id: ids(dice, s).deal() }, (c, id) => svc().queries.getDeal(id, c)),
    ],
    [
      'getSettlement',
      (s) =>
        act(
          world,
          'getSettlement',
          [],
          { kind: 'deal', id: ids(dice, s).deal((d) => d.stage === 'closed_won') },
          (c, id) => svc().queries.settlement(id, c),
        ),
    ],
    [
      'listDeals',
      () => {
        // The door lets only a stage through (the query's schema).
        const filter = chance(0.3) ? { stage: pick(STAGES) as Stage } : {};
        return act(
          world,
          'listDeals',
          [],
          undefined,
          async (c) => ok(await svc().queries.listDeals({ limit: Number.MAX_SAFE_INTEGER, ...filter }, c)),
          { complete: 'stage' in filter ? undefined : 'deals' },
        );
      },
    ],
    [
      'getGig',
      (s) => act(world, 'getGig', [], { kind: 'gig', id: ids(dice, s).gig() }, (c, id) => svc().queries.getGig(id, c)),
    ],
    [
      'listGigs',
      () => {
        const filter = chance(0.3) ? { status: pick(['open', 'claimed', 'fulfilled']) as never } : {};
        return act(world, 'listGigs', [], undefined, async (c) => ok(await svc().queries.listGigs(filter, c)), {
          complete: 'status' in filter ? undefined : 'gigs',
        });
      },
    ],
    [
      'getCloser',
      (s) => {
        const closerId = ids(dice, s).closer();
        return act(world, 'getCloser', [], undefined, (c) => svc().queries.getCloser(closerId, c));
      },
    ],
    [
      'listClosers',
      () => act(world, 'listClosers', [], undefined, async (c) => ok(await svc().queries.listClosers({}, c))),
    ],
    [
      'listEvents',
      () =>
        act(world, 'listEvents', [], undefined, async (c) =>
          ok(await svc().queries.events({ after: 0, limit: 1000 }, c)),
        ),
    ],
    [
      'listSellers',
      () => act(world, 'listSellers', [], undefined, async (c) => ok(await svc().queries.listSellers({}, c))),
    ],
    [
      'listProposals',
      () =>
        act(
          world,
          'listProposals',
          [],
          undefined,
          async (c) => ok(await svc().queries.listProposals({ limit: Number.MAX_SAFE_INTEGER }, c)),
          { complete: 'proposals' },
        ),
    ],
    [
      'listDealProposals',
      (s) =>
        act(world, 'listDealProposals', [], { kind: 'deal', id: ids(dice, s).deal() }, (c, id) =>
          svc().queries.dealProposals(id, { limit: Number.MAX_SAFE_INTEGER }, c),
        ),
    ],
    [
      'getProposalSummary',
      () =>
        act(world, 'getProposalSummary', [], undefined, async (c) => ok(await svc().queries.proposalSummary({}, c))),
    ],
    [
      'getSeller',
      () =>
        act(world, 'getSeller', [], { kind: 'seller', id: pick(sellers(world)) ?? 'seller_0001' }, (c, id) =>
          svc().queries.getSeller(id, c),
        ),
    ],
  ];
}

/** What the key ring makes of a token: a live key its own caller, anything else nothing. */
async function authenticate(world: World): Promise<{ ok: true }> {
  const { random, pick } = world.dice;
  const all = world.cast as Cast;
  const t = world.tally;
  const live = all.keys.filter((k) => all.isLive(k));
  const dead = all.keys.filter((k) => !all.isLive(k));
  const roll = random();
  let token: string;
  let expect: SimKey | undefined;
  const some = pick(live) as SimKey;
  if (roll < 0.35) {
    expect = some;
    token = some.text;
  } else if (roll < 0.6 && dead.length > 0) {
    token = (pick(dead) as SimKey).text;
  } else if (roll < 0.75) {
    token = forgedKey(random);
  } else if (roll < 0.9) {
    // One character changed.
    const at = Math.floor(random() * some.text.length);
    const swap = some.text[at] === 'x' ? 'y' : 'x';
    token = some.text.slice(0, at) + swap + some.text.slice(at + 1);
  } else {
    token = pick([
      '',
      'short',
      `${all.operator.text}x`,
      all.operator.text.slice(1),
      ` ${some.text}`,
      'sp_sk_',
    ]) as string;
  }
  t.tokens++;
  const got = await world.service.keyRing?.authenticate(token);
  if (!got?.ok) t.tokensRefused++;
  if (expect) {
    if (!got?.ok || got.caller.keyId !== expect.id || got.caller.principal !== expect.principal)
      world.found.push({
        invariant: 'keys',
        message: `live ${expect.id} of ${expect.principal} authenticated as ${got?.ok ? got.caller.keyId : 'nothing'}`,
        ids: [expect.id],
      });
  } else if (got?.ok) {
    world.found.push({
      invariant: 'keys',
      message: `${JSON.stringify(token.slice(0, 14))}… (not a live key) authenticated as ${got.caller.keyId} of ${got.caller.principal}`,
      ids: [got.caller.keyId ?? got.caller.principal],
    });
  }
  return { ok: true };
}
