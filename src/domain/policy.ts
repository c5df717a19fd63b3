// D-68, D-69: a Seller's key may carry a policy, the bounds its agent acts within. The gate
// decides first (legality, floor, cap); a move it accepts is then held to the proposing key's
// policy: within it, it commits; over it, it is held for a person's approval or refused, as the
// policy says. Pure: the usage of the day comes in (read under the key's lock, or taken as none
// and the close then written only within the daily limits, D-278: key-bounds.ts).
import { applyFraction, type Cents, formatUsd, usdToCents } from './money.ts';
import type { Deal } from './records.ts';
import type { Stage } from './stages.ts';

export type OnLimit = 'hold' | 'refuse';

/** A key's policy; money in cents inside (the views say USD). Every limit optional. */
export interface KeyPolicy {
  /** No act on a deal whose list value is above it: refused whatever onLimit says. */
  readonly maxDealValueCents?: Cents;
  /** A close won below this share (0 to 1) of the list value is over the limit. */
  readonly minCloseValuePct?: number;
  /** The stages the key may propose. */
  readonly allowedMoves?: readonly Stage[];
  /** Closes won committed through the key within the platform clock's UTC day. */
  readonly closesPerDay?: number;
  /** Their final values added up, within the same day. */
  readonly closedValuePerDayCents?: Cents;
  /** Default `hold`. */
  readonly onLimit?: OnLimit;
  /** 1 to 3, default 1. */
  readonly approvalsRequired?: number;
  /** 1 to 168, default 24. */
  readonly approvalTtlHours?: number;
}

export const DEFAULT_APPROVALS_REQUIRED = 1;
export const DEFAULT_APPROVAL_TTL_HOURS = 24;
export const APPROVALS_REQUIRED_RANGE = [1, 3] as const;
export const APPROVAL_TTL_HOURS_RANGE = [1, 168] as const;

/** A policy as callers write it (D-68): money in USD. The schema has checked every range. */
export interface PolicyInput {
  maxDealValueUsd?: number;
  minCloseValuePct?: number;
  allowedMoves?: Stage[];
  closesPerDay?: number;
  closedValuePerDayUsd?: number;
  onLimit?: OnLimit;
  approvalsRequired?: number;
  approvalTtlHours?: number;
}

/** A policy as sent → as kept: USD to cents (half-up, D-22), every other field as it is. */
export function policyOfInput(input: PolicyInput): KeyPolicy {
  const { maxDealValueUsd, closedValuePerDayUsd, ...rest } = input;
  return {
    ...rest,
    ...(maxDealValueUsd !== undefined ? { maxDealValueCents: usdToCents(maxDealValueUsd) } : {}),
    ...(closedValuePerDayUsd !== undefined ? { closedValuePerDayCents: usdToCents(closedValuePerDayUsd) } : {}),
  };
}

export type LimitName =
  | 'maxDealValueUsd'
  | 'minCloseValuePct'
  | 'allowedMoves'
  | 'closesPerDay'
  | 'closedValuePerDayUsd';

/** The limits whose figures are money (cents inside, USD in every answer). */
export const MONEY_LIMITS: readonly LimitName[] = ['maxDealValueUsd', 'closedValuePerDayUsd'];

/** One limit as a move meets it: what it allows, what the move makes it, and what the day used before. */
export interface LimitCheck {
  readonly limit: LimitName;
  readonly allowed: number | readonly Stage[];
  readonly value: number | Stage;
  /** The day's closes or closed value before this move (the daily limits only). */
  readonly used?: number;
  /** Whether the move passes it. */
  readonly within: boolean;
}

/** What a key committed within one UTC day of the platform clock (D-68's `usage`). */
export interface KeyUsage {
  /** `YYYY-MM-DD`, the platform clock's UTC day. */
  readonly day: string;
  readonly closes: number;
  readonly closedValueCents: Cents;
}

/** The platform clock's UTC day of an instant: the day a key's usage is counted in. */
export const usageDay = (at: number): string => new Date(at).toISOString().slice(0, 10);

export const emptyUsage = (day: string): KeyUsage => ({ day, closes: 0, closedValueCents: 0 });

/** A move the gate accepted, as the policy weighs it. */
export interface PolicyMove {
  /** The deal before the move (its list value is the one weighed). */
  readonly before: Deal;
  /** The stage the move goes to, when it moves the deal. */
  readonly to?: Stage;
  /** The final value, when the move closes the deal won. */
  readonly closeValueCents?: Cents;
}

export type PolicyOutcome = 'commit' | 'hold' | 'refuse';

export interface PolicyVerdict {
  readonly outcome: PolicyOutcome;
  /** Every limit of the policy the move meets, passed or not (a dry run is to show them all). */
  readonly limits: readonly LimitCheck[];
}

/** The limits over which a verdict holds or refuses (D-69's `limits`). */
export const limitsOver = (verdict: PolicyVerdict): LimitCheck[] => verdict.limits.filter((check) => !check.within);

/** Whether a policy has a daily limit (and so needs the day's usage, read under the key's lock). */
export const countsTheDay = (policy: KeyPolicy | undefined): boolean =>
  policy?.closesPerDay !== undefined || policy?.closedValuePerDayCents !== undefined;

/** The daily limits a close is checked against as it is written (D-278), those not waived; none: `{}`. */
export interface DailyLimits {
  readonly closes?: number;
  readonly closedValueCents?: Cents;
}

/** A policy's daily limits but for those an approval passed; undefined when none is left. */
export function dailyLimits(policy: KeyPolicy | undefined, waived: readonly LimitName[] = []): DailyLimits | undefined {
  const closes = waived.includes('closesPerDay') ? undefined : policy?.closesPerDay;
  const closedValueCents = waived.includes('closedValuePerDayUsd') ? undefined : policy?.closedValuePerDayCents;
  if (closes === undefined && closedValueCents === undefined) return undefined;
  return {
    ...(closes !== undefined ? { closes } : {}),
    ...(closedValueCents !== undefined ? { closedValueCents } : {}),
  };
}

/** Whether a day's usage with a close added stays within the limits (as weighMove counts them). */
export const withinDaily = (usage: KeyUsage, added: KeyUsage, limits: DailyLimits): boolean =>
  (limits.closes === undefined || usage.closes + added.closes <= limits.closes) &&
  (limits.closedValueCents === undefined || usage.closedValueCents + added.closedValueCents <= limits.closedValueCents);

/**
 * Weighs a move against a policy. `waived`: the limits an approval already passed (D-70: at the
 * last approval the proposal runs again through the policy's other limits).
 */
export function weighMove(
  policy: KeyPolicy,
  move: PolicyMove,
  usage: KeyUsage,
  waived: readonly LimitName[] = [],
): PolicyVerdict {
  const limits: LimitCheck[] = [];
  const listValue = move.before.listValueCents;
  // The one limit no approval lifts: a deal above it is never the key's to act on.
  if (policy.maxDealValueCents !== undefined) {
    const within = listValue <= policy.maxDealValueCents;
    limits.push({ limit: 'maxDealValueUsd', allowed: policy.maxDealValueCents, value: listValue, within });
  }
  if (policy.allowedMoves !== undefined && move.to !== undefined) {
    const within = policy.allowedMoves.includes(move.to) || waived.includes('allowedMoves');
    limits.push({ limit: 'allowedMoves', allowed: policy.allowedMoves, value: move.to, within });
  }
  const close = move.closeValueCents;
  if (close !== undefined) {
    if (policy.minCloseValuePct !== undefined) {
      const least = applyFraction(listValue, policy.minCloseValuePct);
      const share = listValue === 0 ? 1 : Math.round((close / listValue) * 10_000) / 10_000;
      const within = close >= least || waived.includes('minCloseValuePct');
      limits.push({ limit: 'minCloseValuePct', allowed: policy.minCloseValuePct, value: share, within });
    }
    if (policy.closesPerDay !== undefined) {
      const value = usage.closes + 1;
      const within = value <= policy.closesPerDay || waived.includes('closesPerDay');
      limits.push({ limit: 'closesPerDay', allowed: policy.closesPerDay, value, used: usage.closes, within });
    }
    if (policy.closedValuePerDayCents !== undefined) {
      const value = usage.closedValueCents + close;
      const within = value <= policy.closedValuePerDayCents || waived.includes('closedValuePerDayUsd');
      const check = { limit: 'closedValuePerDayUsd' as const, allowed: policy.closedValuePerDayCents, value };
      limits.push({ ...check, used: usage.closedValueCents, within });
    }
  }
  const over = limits.filter((check) => !check.within);
  if (over.length === 0) return { outcome: 'commit', limits };
  const refused = over.some((check) => check.limit === 'maxDealValueUsd') || policy.onLimit === 'refuse';
  return { outcome: refused ? 'refuse' : 'hold', limits };
}

/** D-68: a create or sell of a deal whose list value is above the key's maxDealValueUsd. */
export function dealValueOver(policy: KeyPolicy | undefined, listValueCents: Cents): LimitCheck | undefined {
  if (policy?.maxDealValueCents === undefined || listValueCents <= policy.maxDealValueCents) return undefined;
  return { limit: 'maxDealValueUsd', allowed: policy.maxDealValueCents, value: listValueCents, within: false };
}

// ── no key looser than its maker (D-68) ──────────────────────────────────────────────────────

const NUMERIC_CAPS = ['maxDealValueCents', 'closesPerDay', 'closedValuePerDayCents'] as const;

/**
 * What makes `policy` looser than `own` (the policy of the key that sets or makes it), in words,
 * or undefined when it is as tight or tighter: a cap higher or absent where own has one, a floor
 * (minCloseValuePct) lower or absent, moves outside own's, `hold` where own refuses, fewer
 * approvals. A caller with no policy (a person, a key without one) is bound by nothing.
 */
export function loosening(policy: KeyPolicy | undefined, own: KeyPolicy | undefined): string | undefined {
  if (own === undefined) return undefined;
  const mine = policy ?? {};
  for (const field of NUMERIC_CAPS) {
    const cap = own[field];
    if (cap === undefined) continue;
    const asked = mine[field];
    const shown = field === 'closesPerDay' ? String(cap) : formatUsd(cap);
    if (asked === undefined || asked > cap) return `${fieldName(field)} may be at most ${shown} (the caller's own)`;
  }
  if (own.minCloseValuePct !== undefined && (mine.minCloseValuePct ?? 0) < own.minCloseValuePct)
    return `minCloseValuePct may be no lower than ${own.minCloseValuePct} (the caller's own)`;
  if (own.allowedMoves !== undefined) {
    const allowed = own.allowedMoves;
    const outside =
      mine.allowedMoves === undefined ? ['any stage'] : mine.allowedMoves.filter((s) => !allowed.includes(s));
    if (outside.length > 0)
      return `allowedMoves may hold only ${allowed.join(', ')} (the caller's own), not ${outside.join(', ')}`;
  }
  if (own.onLimit === 'refuse' && mine.onLimit !== 'refuse') return "onLimit must be refuse (the caller's own)";
  const required = own.approvalsRequired ?? DEFAULT_APPROVALS_REQUIRED;
  if ((mine.approvalsRequired ?? DEFAULT_APPROVALS_REQUIRED) < required)
    return `approvalsRequired may be no fewer than ${required} (the caller's own)`;
  return undefined;
}

function fieldName(field: (typeof NUMERIC_CAPS)[number]): string {
  if (field === 'maxDealValueCents') return 'maxDealValueUsd';
  if (field === 'closedValuePerDayCents') return 'closedValuePerDayUsd';
  return field;
}
