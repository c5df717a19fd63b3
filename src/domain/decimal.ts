// Exact decimal arithmetic on JavaScript numbers: a number is taken as its shortest decimal text
// (what the caller wrote), never as its binary value, so 1.005 is 1005 × 10^-3 and 0.00000875 h
// is exactly 31.5 ms. Money (D-22) and the demo clock (D-19) round through it.

export interface Decimal {
  digits: bigint; // value = digits × 10^-scale
  scale: number;
}

export function toDecimal(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  const text = Math.abs(value).toString();
  const [mantissa, exponentText] = text.split('e');
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  const [whole, fraction = ''] = mantissa.split('.');
  let digits = BigInt(whole + fraction);
  let scale = fraction.length - exponent;
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits: value < 0 ? -digits : digits, scale };
}

/** numerator / denominator rounded half-up (away from zero at exactly one half). */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const rounded = (n * 2n + d) / (d * 2n);
  return negative ? -rounded : rounded;
}

/** integer × factor, rounded half-up to an integer; exact for any decimal factor. */
export function multiplyHalfUp(integer: number, factor: number): number {
  const { digits, scale } = toDecimal(factor);
  return Number(divideHalfUp(BigInt(integer) * digits, 10n ** BigInt(scale)));
}
