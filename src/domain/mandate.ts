// Mandate resolution: the Seller's values, platform defaults for the rest, platform bounds
// enforced, every breach listed (D-20). Pure: takes untrusted JSON, returns a value.
import { type Cents, centsToUsd, usdToCents } from './money.ts';
import type { Actor, Mandate, StaffingRule } from './records.ts';
import { ROLES, type Role } from './stages.ts';

export const PLATFORM = {
  maxCommissionPct: 0.12,
  defaultCommissionPct: 0.1,
  defaultFloorPct: 0.8,
  defaultFees: { setterUsd: 250, nurturerUsd: 150 },
  maxFeeUsd: 10_000,
  stallTimeoutDays: { default: 14, b2c: 7, min: 3, max: 90 },
  platformFeePct: 0.05,
  maxDealSizeUsd: 1e12,
} as const;

/** D-10: default staffing when the Seller leaves a role unset. */
export const DEFAULT_STAFFING: Readonly<Record<Role, StaffingRule>> = {
  setter: 'agent',
  closer: 'agent',
  nurturer: 'human',
};

export const SIGNAL_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
export const MAX_SIGNALS_PER_CALL = 32;
/** D-44: distinct signals one deal may carry. */
export const MAX_SIGNALS_PER_DEAL = 256;

export type MandateResolution = { ok: true; mandate: Mandate } | { ok: false; violations: string[] };

const MANDATE_KEYS = ['staffing', 'commissionPct', 'maxCommissionPct', 'floorPct', 'fees', 'stallTimeoutDays'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * The platform's mandate for each actor, when the Seller names none: resolved once and shared
 * by every such deal (records are immutable, so it is frozen rather than copied).
 */
const DEFAULT_MANDATES = new Map<Actor, MandateResolution>();

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Resolves a Seller's mandate (or undefined) for a deal of the given actor. */
export function resolveMandate(input: unknown, actor: Actor): MandateResolution {
  if (input !== undefined) return resolveGiven(input, actor);
  let resolved = DEFAULT_MANDATES.get(actor);
  if (!resolved) {
    resolved = deepFreeze(resolveGiven(undefined, actor));
    DEFAULT_MANDATES.set(actor, resolved);
  }
  return resolved;
}

function resolveGiven(input: unknown, actor: Actor): MandateResolution {
  const violations: string[] = [];
  const given: Record<string, unknown> = input === undefined ? {} : isPlainObject(input) ? input : {};
  if (input !== undefined && !isPlainObject(input)) {
    return { ok: false, violations: ['mandate: must be an object'] };
  }
  for (const key of Object.keys(given)) {
    if (!MANDATE_KEYS.includes(key)) violations.push(`mandate.${key}: unknown field`);
  }

  const fraction = (key: string, fallback: number, max: number, maxName: string): number => {
    const value = given[key];
    if (value === undefined) return fallback;
    if (!isFiniteNumber(value)) {
      violations.push(`mandate.${key}: must be a number`);
      return fallback;
    }
    if (value < 0) violations.push(`mandate.${key}: ${value} is below 0`);
    else if (value > max) violations.push(`mandate.${key}: ${value} is above ${maxName} ${max}`);
    return value;
  };

  const maxCommissionPct = fraction(
    'maxCommissionPct',
    PLATFORM.maxCommissionPct,
    PLATFORM.maxCommissionPct,
    'the platform maximum',
  );
  // A Seller who lowers the cap without naming a commission gets the default clamped to the cap.
  const commissionPct = fraction(
    'commissionPct',
    Math.min(PLATFORM.defaultCommissionPct, maxCommissionPct),
    Math.min(maxCommissionPct, PLATFORM.maxCommissionPct),
    'maxCommissionPct',
  );
  const floorPct = fraction('floorPct', PLATFORM.defaultFloorPct, 1, 'the maximum');

  const fees = {
    setterCents: usdToCents(PLATFORM.defaultFees.setterUsd),
    nurturerCents: usdToCents(PLATFORM.defaultFees.nurturerUsd),
  };
  if (given.fees !== undefined) {
    if (!isPlainObject(given.fees)) violations.push('mandate.fees: must be an object');
    else {
      for (const key of Object.keys(given.fees)) {
        if (key !== 'setterUsd' && key !== 'nurturerUsd') violations.push(`mandate.fees.${key}: unknown field`);
      }
      for (const [key, target] of [
        ['setterUsd', 'setterCents'],
        ['nurturerUsd', 'nurturerCents'],
      ] as const) {
        const value = given.fees[key];
        if (value === undefined) continue;
        if (!isFiniteNumber(value)) violations.push(`mandate.fees.${key}: must be a number`);
        else if (value < 0) violations.push(`mandate.fees.${key}: ${value} is below 0`);
        else if (value > PLATFORM.maxFeeUsd)
          violations.push(`mandate.fees.${key}: ${value} is above the maximum ${PLATFORM.maxFeeUsd}`);
        else fees[target] = usdToCents(value);
      }
    }
  }

  const bounds = PLATFORM.stallTimeoutDays;
  let stallTimeoutDays: number = actor === 'B2C' ? bounds.b2c : bounds.default;
  const stall = given.stallTimeoutDays;
  if (stall !== undefined) {
    if (!Number.isInteger(stall)) violations.push('mandate.stallTimeoutDays: must be an integer');
    else if ((stall as number) < bounds.min || (stall as number) > bounds.max) {
      violations.push(`mandate.stallTimeoutDays: ${stall} is outside ${bounds.min} to ${bounds.max}`);
    } else stallTimeoutDays = stall as number;
  }

  const staffing: Record<Role, StaffingRule> = { ...DEFAULT_STAFFING };
  if (given.staffing !== undefined) {
    if (!isPlainObject(given.staffing)) violations.push('mandate.staffing: must be an object');
    else {
      for (const [role, rule] of Object.entries(given.staffing)) {
        if (!(ROLES as readonly string[]).includes(role)) {
          violations.push(`mandate.staffing.${role}: unknown role (roles are ${ROLES.join(', ')})`);
          continue;
        }
        const resolved = resolveStaffingRule(rule, `mandate.staffing.${role}`, violations);
        if (resolved) staffing[role as Role] = resolved;
      }
    }
  }

  if (violations.length > 0) return { ok: false, violations };
  return { ok: true, mandate: { staffing, commissionPct, maxCommissionPct, floorPct, fees, stallTimeoutDays } };
}

function resolveStaffingRule(rule: unknown, path: string, violations: string[]): StaffingRule | undefined {
  if (rule === 'agent' || rule === 'human') return rule;
  const shape = `${path}: must be "agent", "human" or {humanIf: {minDealSizeUsd?, signals?}}`;
  if (!isPlainObject(rule) || Object.keys(rule).length !== 1 || !isPlainObject(rule.humanIf)) {
    violations.push(shape);
    return undefined;
  }
  const conditions = rule.humanIf;
  const before = violations.length;
  const humanIf: { minDealSizeCents?: Cents; signals?: string[] } = {};
  for (const key of Object.keys(conditions)) {
    if (key !== 'minDealSizeUsd' && key !== 'signals') violations.push(`${path}.humanIf.${key}: unknown field`);
  }
  if (Object.keys(conditions).length === 0) {
    violations.push(`${path}.humanIf: needs minDealSizeUsd or signals (a rule with no condition never holds)`);
  }
  const min = conditions.minDealSizeUsd;
  if (min !== undefined) {
    if (!isFiniteNumber(min) || min < 0 || min > PLATFORM.maxDealSizeUsd) {
      violations.push(`${path}.humanIf.minDealSizeUsd: must be a number from 0 to ${PLATFORM.maxDealSizeUsd}`);
    } else humanIf.minDealSizeCents = usdToCents(min);
  }
  const signals = conditions.signals;
  if (signals !== undefined) {
    if (
      !Array.isArray(signals) ||
      signals.length > MAX_SIGNALS_PER_CALL ||
      !signals.every((s) => typeof s === 'string' && SIGNAL_PATTERN.test(s))
    ) {
      violations.push(
        `${path}.humanIf.signals: must be an array of at most ${MAX_SIGNALS_PER_CALL} signal names matching ${SIGNAL_PATTERN.source}`,
      );
    } else humanIf.signals = [...new Set(signals as string[])];
  }
  return violations.length === before ? { humanIf } : undefined;
}

const VIEWS = new WeakMap<Mandate, ReturnType<typeof buildView>>();

/**
 * The mandate as the API shows it (USD, not cents). The view of a shared (frozen) mandate is
 * kept, since many deals show it and it never changes; a Seller's own mandate belongs to one
 * deal, so its view is built each time rather than cached.
 */
export function mandateView(mandate: Mandate) {
  if (!Object.isFrozen(mandate)) return buildView(mandate);
  let view = VIEWS.get(mandate);
  if (!view) {
    view = deepFreeze(buildView(mandate));
    VIEWS.set(mandate, view);
  }
  return view;
}

function buildView(mandate: Mandate) {
  const staffing: Record<string, unknown> = {};
  for (const role of ROLES) {
    const rule = mandate.staffing[role];
    if (typeof rule === 'string') staffing[role] = rule;
    else {
      const humanIf: { minDealSizeUsd?: number; signals?: readonly string[] } = {};
      if (rule.humanIf.minDealSizeCents !== undefined)
        humanIf.minDealSizeUsd = centsToUsd(rule.humanIf.minDealSizeCents);
      if (rule.humanIf.signals !== undefined) humanIf.signals = rule.humanIf.signals;
      staffing[role] = { humanIf };
    }
  }
  return {
    staffing,
    commissionPct: mandate.commissionPct,
    maxCommissionPct: mandate.maxCommissionPct,
    floorPct: mandate.floorPct,
    fees: { setterUsd: centsToUsd(mandate.fees.setterCents), nurturerUsd: centsToUsd(mandate.fees.nurturerCents) },
    stallTimeoutDays: mandate.stallTimeoutDays,
  };
}
