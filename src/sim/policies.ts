// Keys' policies in the simulation (D-68): random policies for Seller keys, made tight on purpose
// so that the agent's advances through them meet their limits (a close or two a day, a close
// value near the list value, a few stages only, approvals that lapse within hours); a policy
// tighter than a given one, and one looser in exactly one way; and the rules the service is held
// to, written here again from the decisions rather than taken from src/domain/policy.ts: what is
// looser than a key's own policy, and a key's closes won of a platform day as the deals'
// activity shows them.
import type { KeyPolicy } from '../domain/policy.ts';
import type { Deal } from '../domain/records.ts';
import type { Stage } from '../domain/stages.ts';
import type { Dice } from './random.ts';

/** The sets of stages a key may be allowed to move a deal to: each leaves out a move agents make. */
const MOVE_SETS: readonly (readonly Stage[])[] = [
  ['qualified', 'meeting', 'proposal', 'negotiation', 'closed_lost'],
  ['qualified', 'meeting', 'proposal', 'closed_lost'],
  ['qualified', 'meeting', 'proposal', 'negotiation', 'closed_won'],
  ['meeting', 'proposal', 'negotiation', 'closed_won', 'closed_lost'],
];

/**
 * A random policy, mostly holding what goes over it, with at least one limit agents meet every
 * day: a close or two a day, or no close won at all (the other limits alone may never bite).
 */
export function randomPolicy({ chance, pick }: Dice): KeyPolicy {
  const policy: { -readonly [K in keyof KeyPolicy]: KeyPolicy[K] } = {};
  if (chance(0.7)) policy.closesPerDay = pick([0, 1, 1, 2]) as number;
  if (chance(0.2)) policy.closedValuePerDayCents = pick([5_000_000, 15_000_000, 40_000_000]) as number;
  if (chance(0.4)) policy.minCloseValuePct = pick([0.85, 0.9, 0.95, 1]) as number;
  if (chance(0.35)) policy.allowedMoves = [...(pick(MOVE_SETS) as Stage[])];
  if (chance(0.1)) policy.maxDealValueCents = pick([10_000_000, 15_000_000]) as number;
  if (policy.closesPerDay === undefined && policy.allowedMoves?.includes('closed_won') !== false)
    policy.closesPerDay = 1;
  if (chance(0.12)) policy.onLimit = 'refuse';
  else if (chance(0.3)) policy.onLimit = 'hold';
  if (chance(0.3)) policy.approvalsRequired = pick([2, 2, 3]) as number;
  if (chance(0.75)) policy.approvalTtlHours = pick([1, 2, 4, 8, 24, 48]) as number;
  return policy;
}

/** A policy no looser than `own` in any way D-68 names (each cap as low or lower, and so on). */
export function tighter(own: KeyPolicy, { chance, pick }: Dice): KeyPolicy {
  const lower = (cap: number | undefined) => (cap === undefined ? undefined : chance(0.5) ? cap : Math.floor(cap / 2));
  const policy: { -readonly [K in keyof KeyPolicy]: KeyPolicy[K] } = { ...own };
  const caps = ['closesPerDay', 'closedValuePerDayCents', 'maxDealValueCents'] as const;
  for (const cap of caps) if (own[cap] !== undefined) policy[cap] = lower(own[cap]);
  if (own.minCloseValuePct !== undefined && chance(0.5))
    policy.minCloseValuePct = Math.min(1, own.minCloseValuePct + 0.05);
  if (own.allowedMoves !== undefined && chance(0.4)) policy.allowedMoves = own.allowedMoves.filter(() => chance(0.7));
  if (chance(0.15)) policy.onLimit = 'refuse';
  if (chance(0.3)) policy.approvalsRequired = Math.max(own.approvalsRequired ?? 1, pick([1, 2, 3]) as number);
  if (chance(0.4)) policy.approvalTtlHours = pick([1, 2, 6]) as number;
  return policy;
}

/**
 * A policy looser than `own` in one way, when `own` has something to loosen (else undefined):
 * a cap raised or dropped, the least close value lowered, a move added, hold where it refuses,
 * or fewer approvals.
 */
export function looserThan(own: KeyPolicy, { pick }: Dice): KeyPolicy | undefined {
  const ways: (() => KeyPolicy)[] = [];
  for (const cap of ['closesPerDay', 'closedValuePerDayCents', 'maxDealValueCents'] as const) {
    const value = own[cap];
    if (value === undefined) continue;
    ways.push(() => ({ ...own, [cap]: value + 1 }));
    ways.push(() => {
      const { [cap]: _, ...rest } = own;
      return rest;
    });
  }
  const pct = own.minCloseValuePct;
  if (pct !== undefined && pct > 0) ways.push(() => ({ ...own, minCloseValuePct: Math.max(0, pct - 0.1) }));
  const moves = own.allowedMoves;
  if (moves !== undefined) {
    const outside = (['closed_won', 'closed_lost', 'negotiation', 'qualified'] as Stage[]).find(
      (s) => !moves.includes(s),
    );
    if (outside !== undefined) ways.push(() => ({ ...own, allowedMoves: [...moves, outside] }));
    ways.push(() => {
      const { allowedMoves: _, ...rest } = own;
      return rest;
    });
  }
  if (own.onLimit === 'refuse') ways.push(() => ({ ...own, onLimit: 'hold' }));
  const required = own.approvalsRequired ?? 1;
  if (required > 1) ways.push(() => ({ ...own, approvalsRequired: required - 1 }));
  return pick(ways)?.();
}

/**
 * D-68: whether `policy` is looser than `own`, the policy of the key that sets or makes it (a
 * person, or a key without a policy, is bound by none): a cap higher or absent where own has one,
 * a lower minCloseValuePct, moves outside own's, hold where own refuses, fewer approvals.
 */
export function isLooser(policy: KeyPolicy | undefined, own: KeyPolicy | undefined): boolean {
  if (own === undefined) return false;
  const mine = policy ?? {};
  for (const cap of ['closesPerDay', 'closedValuePerDayCents', 'maxDealValueCents'] as const) {
    const bound = own[cap];
    const asked = mine[cap];
    if (bound !== undefined && (asked === undefined || asked > bound)) return true;
  }
  if (own.minCloseValuePct !== undefined && (mine.minCloseValuePct ?? 0) < own.minCloseValuePct) return true;
  const allowed = own.allowedMoves;
  if (allowed !== undefined && (mine.allowedMoves === undefined || mine.allowedMoves.some((s) => !allowed.includes(s))))
    return true;
  if (own.onLimit === 'refuse' && mine.onLimit !== 'refuse') return true;
  return (mine.approvalsRequired ?? 1) < (own.approvalsRequired ?? 1);
}

/** The platform clock's UTC day of an instant, as `YYYY-MM-DD`: the day a close counts in. */
export const dayOf = (at: number): string => new Date(at).toISOString().slice(0, 10);

/** A deal's close won, if it closed won: the entry that closed it (its first at closed_won). */
export function closeOf(deal: Deal): Deal['activity'][number] | undefined {
  if (deal.stage !== 'closed_won') return undefined;
  return deal.activity.find((entry) => entry.stage === 'closed_won');
}

/** What a key's closes won add up to, per key and day: the deals' activity, by the closing entry's key. */
export type Closes = Map<string, Map<string, { closes: number; closedValueCents: number }>>;

export function closesByKey(deals: readonly Deal[]): Closes {
  const out: Closes = new Map();
  for (const deal of deals) {
    const entry = closeOf(deal);
    const keyId = entry?.actor?.keyId;
    if (entry === undefined || keyId === undefined || entry.actor?.userId !== undefined) continue;
    const days = out.get(keyId) ?? new Map();
    out.set(keyId, days);
    const day = dayOf(entry.at);
    const used = days.get(day) ?? { closes: 0, closedValueCents: 0 };
    days.set(day, { closes: used.closes + 1, closedValueCents: used.closedValueCents + (deal.finalValueCents ?? 0) });
  }
  return out;
}

/** A key's closes of a day (none: zero). */
export const usedOn = (closes: Closes, keyId: string, day: string) =>
  closes.get(keyId)?.get(day) ?? { closes: 0, closedValueCents: 0 };

/** Two policies alike, field by field (none is none: absent and undefined alike). */
export function samePolicy(a: KeyPolicy | undefined, b: KeyPolicy | undefined): boolean {
  const canonical = (p: KeyPolicy | undefined) =>
    p === undefined
      ? 'none'
      : JSON.stringify(
          Object.entries(p)
            .filter(([, v]) => v !== undefined)
            .sort(([x], [y]) => (x < y ? -1 : 1)),
        );
  return canonical(a) === canonical(b);
}
