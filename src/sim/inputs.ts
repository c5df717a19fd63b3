// What the commands are sent with, all from the run's dice: which record a command is aimed at
// (mostly one it suits, so that it runs and does not only refuse), the values and stages it
// proposes, a new deal's body, and in keys mode whose key suits it and which closerId it names.
import type { Caller } from '../domain/access.ts';
import type { Snapshot } from '../domain/invariants.ts';
import { needsHuman } from '../domain/staffing.ts';
import { isTerminal, STAGES } from '../domain/stages.ts';
import type { Dice } from './random.ts';
import type { World } from './world.ts';

export const SIGNALS = ['budget_approved', 'champion_found', 'gone_dark', 'legal_review', 'Bad Signal'];

export const ids = ({ chance, pick }: Dice, s: Snapshot) => ({
  /** Mostly a deal the command suits (so that it runs, not only refuses), else any deal. */
  deal: (suits?: (deal: Snapshot['deals'][number]) => boolean) =>
    (suits && chance(0.7) ? pick(s.deals.filter(suits).map((d) => d.id)) : undefined) ??
    pick(s.deals.map((d) => d.id)) ??
    'deal_0001',
  gig: (status?: string) =>
    pick(s.gigs.filter((g) => status === undefined || g.status === status).map((g) => g.id)) ??
    pick(s.gigs.map((g) => g.id)) ??
    'gig_0001',
  closer: () => pick(s.closers.map((c) => c.id)) ?? 'closer_0001',
});

// Who a command fits (keys mode): the deal's Seller, a gig's claimant or its deal's Seller.
export const sellers = (world: World) => world.cast?.sellers ?? [];
export const closers = (world: World) => world.cast?.closers ?? [];
export const ownerOf = (s: Snapshot, dealId: string) => [s.deals.find((d) => d.id === dealId)?.sellerId];
export const gigOwners = (s: Snapshot, gigId: string) => {
  const gig = s.gigs.find((g) => g.id === gigId);
  return [gig?.closerId, ...(gig ? ownerOf(s, gig.dealId) : [])];
};

export const anyStage = ({ pick }: Dice) =>
  pick(['qualified', 'meeting', 'proposal', 'negotiation', 'closed_won', 'closed_lost', 'sideways']);
export const value = ({ pick }: Dice) => pick([1_000, 25_000.55, 80_000, 0.004, 1e12, -5]) as number;

export const dealInput = (dice: Dice) => {
  const { random, chance, pick } = dice;
  return {
    account: {
      name: `Fictional ${Math.floor(random() * 1e6)}`,
      industry: pick(['saas', 'fintech', 'retail']),
      actor: 'B2B' as const,
    },
    listValueUsd: chance(0.9) ? 1_000 + Math.floor(random() * 200_000) : (value(dice) as number),
    ...(chance(0.6)
      ? {
          mandate: {
            staffing: { setter: pick(['agent', 'human']), closer: pick(['agent', 'human']), nurturer: 'human' },
          },
        }
      : {}),
  };
};

/**
 * The closerId a closer's move names (keys mode): mostly none (the key's own closer), else the
 * one the demo would name, which closer-of refuses unless it is the key's.
 */
export const closerIdFor = (roll: number, caller: Caller | undefined, demo: string | undefined) =>
  caller === undefined || roll >= 0.5 ? demo : roll < 0.4 ? undefined : caller.principal;

/**
 * A deal advance the gate refuses, each kept on the record (D-61): a close below the
 * negotiation floor, a stage skipped, a move of a closed deal. Undefined when no deal suits.
 */
export function aimAtRefusal(
  { pick }: Dice,
  s: Snapshot,
): { dealId: string; to: { advanceTo?: string; valueUsd?: number } } | undefined {
  const aim = pick(['floor', 'skip', 'terminal']);
  if (aim === 'floor') {
    // A deal the agent works in negotiation (on a human's the gate is not asked: a gig is
    // posted). Such deals are few (the agent closes them at list value when it next moves),
    // so without one the agent takes its furthest deal a stage on, towards negotiation.
    const agents = s.deals.filter((d) => !isTerminal(d.stage) && !needsHuman(d));
    const deal = pick(agents.filter((d) => d.stage === 'negotiation'));
    if (!deal) {
      const furthest = Math.max(-1, ...agents.map((d) => STAGES.indexOf(d.stage)));
      const on = pick(agents.filter((d) => STAGES.indexOf(d.stage) === furthest));
      return on && { dealId: on.id, to: {} };
    }
    const share = pick([0.1, 0.5, 0.79]) as number;
    const valueUsd = Math.max(1, Math.floor((deal.listValueCents / 100) * share));
    return { dealId: deal.id, to: { advanceTo: 'closed_won', valueUsd } };
  }
  if (aim === 'skip') {
    // Two stages on, where one is the most a move goes (or to closed_lost).
    const deal = pick(s.deals.filter((d) => STAGES.indexOf(d.stage) + 2 < STAGES.indexOf('closed_lost')));
    if (!deal) return undefined;
    return { dealId: deal.id, to: { advanceTo: STAGES[STAGES.indexOf(deal.stage) + 2] as string } };
  }
  const deal = pick(s.deals.filter((d) => isTerminal(d.stage)));
  if (!deal) return undefined;
  const advanceTo = pick(['negotiation', 'closed_won', 'closed_lost']) as string;
  return { dealId: deal.id, to: { advanceTo, valueUsd: 1_000 } };
}
