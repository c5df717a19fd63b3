// D-73's figures: nearest-rank percentiles, days and hours with 2 decimals, ratios with 4, money
// in integer cents (rounded half up where a rate weighs it). One place, so that the insights, the
// views and the tests that recompute them from the feed round alike.
import { divideHalfUp } from '../decimal.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The nearest-rank percentile (p in 0..100) of the values; null when there are none. */
export function nearestRank(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  // p × n / 100 in that order: (p / 100) × n is 27.000000000000004 for p 90 and n 30.
  const rank = Math.max(1, Math.ceil((p * sorted.length) / 100));
  return sorted[rank - 1] as number;
}

const round = (value: number, places: number) => {
  const scale = 10 ** places;
  return Math.round(value * scale) / scale;
};

/** Milliseconds as days with 2 decimals. */
export const days = (ms: number | null): number | null => (ms === null ? null : round(ms / DAY_MS, 2));

/** Milliseconds as hours with 2 decimals. */
export const hours = (ms: number | null): number | null => (ms === null ? null : round(ms / HOUR_MS, 2));

/** A share with 4 decimals; null when the whole is 0. */
export const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : round(part / whole, 4));

/** cents × num / den, rounded half up, exact for any sum of cents. */
export const weighCents = (cents: number, num: number, den: number): number =>
  Number(divideHalfUp(BigInt(cents) * BigInt(num), BigInt(den)));

/** The UTC month (`YYYY-MM`) of a platform time. */
export const monthOf = (at: number): string => new Date(at).toISOString().slice(0, 7);

export const DAYS_30_MS = 30 * DAY_MS;
