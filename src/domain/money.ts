// Money is integer cents inside and USD with at most two decimals outside (D-22).
// Conversions go through the number's shortest decimal text, never through binary
// floating-point multiplication, so 1.005 USD is 101 cents and 0.07 × 12345 cents is exact.

import { divideHalfUp, multiplyHalfUp, toDecimal } from './decimal.ts';

export type Cents = number;

/** USD amount → integer cents, rounded half-up to the cent (D-22). */
export function usdToCents(usd: number): Cents {
  // Fast path: an amount with at most two decimals comes back exactly from its cents.
  const cents = Math.round(usd * 100);
  if (cents / 100 === usd && Number.isSafeInteger(cents)) return cents;
  const { digits, scale } = toDecimal(usd);
  return Number(divideHalfUp(digits * 100n, 10n ** BigInt(scale)));
}

/** Integer cents → USD number with at most two decimals. */
export function centsToUsd(cents: Cents): number {
  return cents / 100;
}

const MILLIONTHS = 1_000_000;

/** cents × fraction, rounded half-up to the cent; exact for any decimal fraction. */
export function applyFraction(cents: Cents, fraction: number): Cents {
  // Fast path in exact integer arithmetic: a non-negative fraction with at most six decimals
  // whose product stays a safe integer (the usual 0.8 × list value, 0.1 × final value).
  const millionths = Math.round(fraction * MILLIONTHS);
  if (millionths / MILLIONTHS === fraction && cents >= 0 && millionths >= 0) {
    const scaled = cents * millionths + MILLIONTHS / 2;
    if (Number.isSafeInteger(scaled)) return (scaled - (scaled % MILLIONTHS)) / MILLIONTHS;
  }
  return multiplyHalfUp(cents, fraction);
}

/** A fraction as a percentage text without float noise: 0.8 → "80%", 0.075 → "7.5%". */
export function formatPercent(fraction: number): string {
  const { digits, scale } = toDecimal(fraction);
  // percent = digits × 10^(2 - scale)
  const shift = 2 - scale;
  if (shift >= 0) return `${(digits * 10n ** BigInt(shift)).toString()}%`;
  const text = digits.toString().padStart(-shift + 1, '0');
  const point = text.length + shift;
  const fractionPart = text.slice(point).replace(/0+$/, '');
  return `${text.slice(0, point)}${fractionPart ? `.${fractionPart}` : ''}%`;
}

/**
 * The one way money is written in words, in every message and activity note: "$1,234.50"
 * (thousands separated, two decimals). Grouped by hand, not through Intl: a close writes it on
 * every sell.
 */
export function formatUsd(cents: Cents): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const dollars = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+$)/g, ',');
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, '0')}`;
}
