// Amounts a JavaScript number cannot carry to the cent: a sum of cents without bound, such as a
// closer's gross closed (D-24), passes 2^53 cents, where a double rounds the cents away. Such an
// amount goes into the JSON text as its exact decimal digits, through JSON.rawJSON (the runtime
// is Node 22 or later, D-210), so any JSON.stringify writes them.

/** JSON.rawJSON: in every runtime the service runs on, not yet in TypeScript's library types. */
const rawJSON = (JSON as unknown as { rawJSON: (text: string) => unknown }).rawJSON;

/** A number written into JSON as exactly these digits. */
export class ExactNumber {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return rawJSON(this.text);
  }

  /** The nearest double, for code that needs a number (a comparison, not an answer). */
  valueOf(): number {
    return Number(this.text);
  }
}

/** JSON.stringify: every ExactNumber is written as its digits. */
export const stringify = (value: unknown): string => JSON.stringify(value);

/**
 * The value as plain JSON data, for a library that serializes it itself (the MCP SDK's structured
 * content): JSON.rawJSON keeps its ExactNumbers exact, so it is the value itself.
 */
export const plainJson = <T>(value: T): T => value;

/**
 * Below 2^52 cents (about 45 trillion USD) doubles lie less than a cent apart (0.008 at most), so
 * cents / 100 is the double nearest the exact amount and prints as its digits; above, a double
 * may print one decimal where the cents were two (at 2^53 cents, 90071992547409.91 prints as
 * 90071992547409.9).
 */
const EXACT_AS_NUMBER = 2n ** 52n;

/** Integer cents as USD: a number where a number prints the exact amount, the exact digits beyond. */
export function usdOfBigCents(cents: bigint): number | ExactNumber {
  if (cents < EXACT_AS_NUMBER && cents > -EXACT_AS_NUMBER) return Number(cents) / 100;
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  const fraction = abs % 100n;
  const decimals =
    fraction === 0n ? '' : fraction % 10n === 0n ? `.${fraction / 10n}` : `.${String(fraction).padStart(2, '0')}`;
  return new ExactNumber(`${negative ? '-' : ''}${abs / 100n}${decimals}`);
}
