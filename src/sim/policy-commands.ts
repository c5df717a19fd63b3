// Keys mode's steps about keys' policies (D-68, D-69): policies set on keys through the door
// (by a key bound by a policy of its own now and then, which may make none looser: 403
// POLICY_WIDENING), the agent's advances through a key with a policy aimed at its limits (a close
// beyond the day's closes, a close below the least close value, a move outside the allowed
// ones), and the deal of a pending approval moved by another key, so that deciding it later
// finds it stale (D-70). Whether each advance commits, is held or refused is the approvals'
// checks' to judge (approval-checks.ts, usage-checks.ts); the policy steps are judged here.
import { type Caller, isPerson, OPERATOR } from '../domain/access.ts';
import type { Snapshot } from '../domain/invariants.ts';
import type { KeyPolicy } from '../domain/policy.ts';
import type { Deal } from '../domain/records.ts';
import { needsHuman } from '../domain/staffing.ts';
import { isTerminal, nextStage, STAGES, type Stage } from '../domain/stages.ts';
import type { Result } from '../service/result.ts';
import type { Command } from './commands.ts';
import { act } from './door.ts';
import { isLooser, looserThan, randomPolicy, samePolicy, tighter } from './policies.ts';
import type { Cast, SimKey } from './principals.ts';
import { modeOf, type Proposal, send, versionOf } from './proposing.ts';
import type { ApprovalTally } from './report.ts';
import type { SimSnapshot, World } from './world.ts';

export function policyCommands(world: World): Command[] {
  return [
    ['policy-set', 3, () => setPolicy(world)],
    ['policy-advance', 8, (s) => aimAtPolicy(world, s)],
    ['policy-sell', 5, () => sellThroughPolicy(world)],
    ['approval-move', 2, (s) => moveHeldDeal(world, s)],
  ];
}

/**
 * A sell through a key with a policy that may sell (D-274): each of its advances weighed as the
 * key's proposal, the first over a limit holding the sell there (or refusing it whole). Mostly
 * a deal the agent works to its close, at a list value the key may act on.
 */
function sellThroughPolicy(world: World): Promise<unknown> {
  const { random, chance, pick } = world.dice;
  const cast = world.cast as Cast;
  const sellers = cast.keys.filter((k) => k.policy !== undefined && cast.isLive(k) && k.scopes.includes('deals:write'));
  const key = pick(sellers) ?? (pick(cast.keys.filter((k) => k.main && k.principal.startsWith('seller_'))) as SimKey);
  const most = key.policy?.maxDealValueCents;
  const list = 1_000 + Math.floor(random() * 200_000);
  const listValueUsd = most !== undefined && chance(0.8) ? Math.min(list, Math.floor(most / 100)) : list;
  const input = {
    account: { name: `Fictional ${Math.floor(random() * 1e6)}`, industry: 'saas', actor: 'B2B' as const },
    listValueUsd,
    ...(chance(0.2) ? { mandate: { staffing: { setter: 'agent', closer: 'human', nurturer: 'human' } } } : {}),
  };
  return act(world, 'sell', [key.principal], undefined, (c) => world.service.run(world.service.deals.sell(input, c)), {
    key,
  });
}

const tallyOf = (world: World) => world.report.approvals as ApprovalTally;

/** The policy of the key a caller came with, as the simulation set it (a person's: none). */
export function ownPolicy(cast: Cast, caller: Caller): KeyPolicy | undefined {
  return isPerson(caller) ? undefined : cast.keys.find((k) => k.id === caller.keyId)?.policy;
}

/**
 * The policy a new key of `principal` is asked with by `caller`: by a caller with a policy,
 * mostly one as tight as its own, now and then a looser one (or none); else now and then a random
 * one (a closer's or the operator's key takes none: 422 POLICY_NOT_OF_SELLER).
 */
export function policyForNewKey(world: World, caller: Caller, principal: string): KeyPolicy | undefined {
  const dice = world.dice;
  const own = ownPolicy(world.cast as Cast, caller);
  if (!principal.startsWith('seller_')) return dice.chance(0.05) ? randomPolicy(dice) : undefined;
  if (own === undefined) return dice.chance(0.3) ? randomPolicy(dice) : undefined;
  return dice.chance(0.6) ? tighter(own, dice) : dice.chance(0.7) ? looserThan(own, dice) : undefined;
}

/**
 * D-68 held to a key made or a policy set: one looser than the caller's own is 403
 * POLICY_WIDENING, and only such a one; a policy on a key not a Seller's is 422
 * POLICY_NOT_OF_SELLER. `done`: the answer (a key with its policy when it succeeded).
 */
export function checkWidening(
  world: World,
  op: string,
  done: Result<{ key: { id: string; policy?: KeyPolicy } }>,
  policy: KeyPolicy | undefined,
  caller: Caller,
  principal: string,
): void {
  const looser = isLooser(policy, ownPolicy(world.cast as Cast, caller));
  const foreignKind = policy !== undefined && !principal.startsWith('seller_');
  const found = (message: string) =>
    world.found.push({
      invariant: 'keys',
      message: `${op} by ${caller.keyId ?? caller.userId} of ${caller.principal}: ${message}`,
      ids: [],
    });
  if (done.ok) {
    if (looser) found(`a policy looser than the caller's own was accepted: ${JSON.stringify(policy)}`);
    if (foreignKind) found(`${principal}'s key took a policy`);
    if (!samePolicy(done.value.key.policy, policy))
      found(`${done.value.key.id} has policy ${JSON.stringify(done.value.key.policy)}, not ${JSON.stringify(policy)}`);
    tallyOf(world).policiesSet += policy === undefined ? 0 : 1;
    return;
  }
  const code = done.refusal.code;
  if (code === 'POLICY_WIDENING') {
    tallyOf(world).widening++;
    if (!looser) found(`POLICY_WIDENING for ${JSON.stringify(policy)}, which is not looser than its own`);
  }
  if (code === 'POLICY_NOT_OF_SELLER' && !foreignKind) found(`POLICY_NOT_OF_SELLER for a key of ${principal}`);
}

/** A policy set on a key: mostly an agent's by a caller of its Seller, now and then by a bounded key. */
function setPolicy(world: World): Promise<unknown> {
  const dice = world.dice;
  const { chance, pick } = dice;
  const cast = world.cast as Cast;
  const agents = cast.keys.filter(
    (k) => !k.main && k.principal.startsWith('seller_') && k.scopes.includes('deals:propose'),
  );
  // Now and then the key of a pending approval: its last vote then meets the policy as changed.
  const holding = world.before.approvals.filter((a) => a.status === 'pending').map((a) => a.keyId);
  const waiting = chance(0.3) ? pick(agents.filter((k) => holding.includes(k.id))) : undefined;
  const target = (waiting ??
    (chance(0.9) ? pick(agents) : undefined) ??
    pick(cast.keys.filter((k) => !k.main))) as SimKey;
  const bounded = cast
    .keysOf(target.principal)
    .filter((k) => k.policy !== undefined && k.scopes.includes('keys:manage') && cast.isLive(k));
  const given = chance(0.45) ? pick(bounded) : undefined;
  // Chosen once, by the caller the door made: the cross-tenant probe sends the same.
  let sent: { policy: KeyPolicy | null } | undefined;
  return act(
    world,
    'setKeyPolicy',
    [target.principal, OPERATOR],
    { kind: 'key', id: target.id },
    async (c, id) => {
      const caller = c as Caller;
      const own = ownPolicy(cast, caller);
      // A waiting key's new policy mostly forbids the moves held ones make (to negotiation, to a
      // close won), so that their last vote, which passes only the limits they were held for, is
      // refused (D-70).
      const forbidding = waiting !== undefined && chance(0.6);
      sent ??= {
        policy:
          own === undefined
            ? forbidding
              ? { ...randomPolicy(dice), allowedMoves: ['qualified', 'meeting', 'proposal', 'closed_lost'] }
              : chance(0.15)
                ? null
                : randomPolicy(dice)
            : chance(0.5)
              ? tighter(own, dice)
              : (looserThan(own, dice) ?? tighter(own, dice)),
      };
      const { policy } = sent;
      const set = await world.service.run(world.service.accounts.setPolicy(id, policy, caller));
      if (id !== target.id || (caller.kind !== 'operator' && caller.principal !== target.principal)) return set;
      checkWidening(world, 'setKeyPolicy', set, policy ?? undefined, caller, target.principal);
      if (set.ok) {
        if (policy === null) delete target.policy;
        else target.policy = policy;
      }
      return set;
    },
    given ? { key: given } : {},
  );
}

/** The deals of a Seller an agent works: not closed, and not waiting on a person. */
const agentDeals = (s: Snapshot, seller: string) =>
  s.deals.filter((d) => d.sellerId === seller && !isTerminal(d.stage) && !needsHuman(d));

/** The agent's furthest deal of the Seller, to be taken a stage on (towards negotiation). */
function furthest(s: Snapshot, seller: string, pick: World['dice']['pick']): Deal | undefined {
  const deals = agentDeals(s, seller);
  const most = Math.max(-1, ...deals.map((d) => STAGES.indexOf(d.stage)));
  return pick(deals.filter((d) => STAGES.indexOf(d.stage) === most));
}

/**
 * An agent's advance through a key with a policy, aimed at its limits: a close at list value
 * (beyond the day's closes, or over its closed value), a close between the mandate's floor and
 * the least close value, a move the policy does not allow; else a deal taken a stage on.
 */
function aimAtPolicy(world: World, s: Snapshot): Promise<unknown> {
  const { random, chance, pick } = world.dice;
  const cast = world.cast as Cast;
  const bound = cast.keys.filter((k) => k.policy !== undefined && cast.isLive(k) && k.scopes.includes('deals:propose'));
  const key = pick(bound) ?? (pick(cast.keys.filter((k) => k.main && k.principal.startsWith('seller_'))) as SimKey);
  const policy = key.policy ?? {};
  const seller = key.principal;
  const aim = pick(['close', 'close', 'close', 'low', 'low', 'move', 'on']);
  const closing = agentDeals(s, seller).filter((d) => d.stage === 'negotiation');
  let deal: Deal | undefined;
  let body: { advanceTo?: string; valueUsd?: number } = {};
  if ((aim === 'close' || aim === 'low') && closing.length > 0) {
    deal = pick(closing) as Deal;
    const list = deal.listValueCents / 100;
    if (aim === 'close') body = { advanceTo: 'closed_won', ...(chance(0.5) ? { valueUsd: list } : {}) };
    else {
      // Between the floor (the gate's) and the least close value (the policy's).
      const floor = deal.mandate.floorPct;
      const least = Math.max(policy.minCloseValuePct ?? 0.95, floor + 0.02);
      const share = floor + random() * (least - floor);
      body = { advanceTo: 'closed_won', valueUsd: Math.ceil(list * share * 100) / 100 };
    }
  } else if (aim === 'move') {
    deal = pick(s.deals.filter((d) => d.sellerId === seller && !isTerminal(d.stage)));
    const moves = policy.allowedMoves;
    const outside = [deal && nextStage(deal.stage), 'closed_lost'].filter(
      (to): to is Stage => to !== undefined && !(moves ?? []).includes(to as Stage),
    );
    body = { advanceTo: pick(outside) ?? 'closed_lost' };
  }
  deal ??= furthest(s, seller, pick) ?? pick(s.deals.filter((d) => d.sellerId === seller));
  const id = deal?.id ?? 'deal_0001';
  const p: Proposal = {
    op: 'advanceDeal',
    by: 'agent',
    dealId: id,
    body,
    mode: modeOf(random()),
    version: versionOf(s, id),
    again: chance(0.5),
  };
  return act(
    world,
    'advanceDeal',
    [seller],
    { kind: 'deal', id },
    (c, id) => send(world, { ...p, dealId: id }, c, (ifMatch) => world.service.deals.advanceDeal(id, body, ifMatch, c)),
    { key },
  );
}

/**
 * The deal of a pending approval moved by a key of its Seller without a policy (a stage on, or
 * lost), so that the approval is stale: a decision finds it so, or the timers supersede it.
 */
function moveHeldDeal(world: World, s: Snapshot): Promise<unknown> {
  const { chance, pick } = world.dice;
  const cast = world.cast as Cast;
  const approval = pick((s as SimSnapshot).approvals.filter((a) => a.status === 'pending'));
  const deal = s.deals.find((d) => d.id === approval?.dealId) ?? pick(s.deals);
  const seller = deal?.sellerId ?? (pick(cast.sellers) as string);
  const free = cast
    .keysOf(seller)
    .filter((k) => k.policy === undefined && cast.isLive(k) && k.scopes.includes('deals:propose'));
  const key = pick(free) ?? cast.keysOf(seller).find((k) => k.main);
  const id = deal?.id ?? 'deal_0001';
  const body = chance(0.25) ? { advanceTo: 'closed_lost' } : {};
  const p: Proposal = {
    op: 'advanceDeal',
    by: 'agent',
    dealId: id,
    body,
    mode: 'plain',
    version: versionOf(s, id),
    again: false,
  };
  return act(
    world,
    'advanceDeal',
    [seller],
    { kind: 'deal', id },
    (c, id) =>
      send(world, { ...p, dealId: id, by: isPerson(c) ? 'human' : 'agent' }, c, (ifMatch) =>
        world.service.deals.advanceDeal(id, body, ifMatch, c),
      ),
    key ? { key } : {},
  );
}
