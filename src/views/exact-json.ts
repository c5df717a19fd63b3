// Amounts a JavaScript number cannot carry to the cent: a sum of cents without bound, such as a
// closer's gross closed (D-24), passes 2^53 cents, where a double rounds the cents away. Such an
// amount goes into the JSON text as its exact decimal digits. Where the runtime has
// JSON.rawJSON (Node 22 and later), any JSON.stringify writes them. Node 20 has not: there the
// amount serializes as a marker string carrying a per-process nonce (no client can forge it),
// and `stringify` below puts the digits in its place, searching for the marker only when one
// was written, so that every other answer pays a flag check.
import { randomBytes } from 'node:crypto';

const rawJSON = (JSON as { rawJSON?: (text: string) => unknown }).rawJSON;
const NONCE = randomBytes(8).toString('hex');
const MARK = `\u0000exact-${NONCE}:`;
// The marker as JSON.stringify writes it: U+0000 escaped as \u0000, inside quotes.
const WRITTEN_MARK = new RegExp(`"\\\\u0000exact-${NONCE}:(-?\\d+(?:\\.\\d+)?)"`, 'g');
let marked = false;

/** A number written into JSON as exactly these digits. */
export class ExactNumber {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    if (rawJSON) return rawJSON(this.text);
    marked = true;
    return MARK + this.text;
  }

  /** The nearest double, for code that needs a number (a comparison, not an answer). */
  valueOf(): number {
    return Number(this.text);
  }
}

/** JSON.stringify, with every ExactNumber written as its digits. */
export function stringify(value: unknown): string {
  marked = false;
  const text = JSON.stringify(value);
  if (!marked) return text;
  marked = false;
  return text.replace(WRITTEN_MARK, '$1');
}

/**
 * The value as plain JSON data, for a library that serializes it itself (the MCP SDK's structured
 * content): unchanged where JSON.rawJSON keeps ExactNumbers exact, otherwise parsed back from
 * `stringify` (an exact amount then becomes the nearest double: the text content beside it
 * keeps the digits).
 */
export function plainJson<T>(value: T): T {
  return rawJSON ? value : (JSON.parse(stringify(value)) as T);
}

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
