// D-75, D-251: a key made under an Idempotency-Key is answered again, the same secret, on a
// retry, and yet no key text is ever stored. A new key's text is drawn from a random nonce
// through an HMAC whose secret is derived from OPERATOR_KEY (the same on every instance of a
// deployment, never stored). A keyed answer is stored with the nonce in the key's place; a replay
// draws the same text from it again. Reading the stored answers alone gives no key: that needs
// OPERATOR_KEY too, which is the platform's own key to everything already. A plain (unkeyed)
// answer's nonce is thrown away, so its text exists only in that answer, as before.
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { PrincipalKind } from '../domain/access.ts';
import { DISPLAY_PREFIX_CHARS, KEY_PREFIXES, keyText } from '../domain/keys.ts';

/** A sealed key in a stored answer: the marker, the kind's prefix, the nonce (base64url). */
const SEALED = /"key":"sealed:(sp_(?:op|sk|ck)_):([A-Za-z0-9_-]{43})"/;
const KIND_OF_PREFIX = new Map(Object.entries(KEY_PREFIXES).map(([kind, prefix]) => [prefix, kind as PrincipalKind]));

/** A key's text and the nonce it was drawn from. */
export interface DrawnKey {
  text: string;
  nonce: string;
}

export class KeySeal {
  private readonly secret: Buffer;

  constructor(operatorKey: string) {
    this.secret = Buffer.from(hkdfSync('sha256', operatorKey, 'sales-pipeline', 'key text from nonce v1', 32));
  }

  /** A new key's text, and the nonce that draws it again. */
  draw(kind: PrincipalKind): DrawnKey {
    const nonce = randomBytes(32).toString('base64url');
    return { text: this.textOf(kind, nonce), nonce };
  }

  /** The text a nonce draws: the same on every instance that has the same OPERATOR_KEY. */
  textOf(kind: PrincipalKind, nonce: string): string {
    let block = 0;
    // An endless stream of HMAC blocks: keyText skips the bytes that would bias base62.
    return keyText(kind, (n) => {
      const out = new Uint8Array(n);
      for (let filled = 0; filled < n; block++) {
        const bytes = createHmac('sha256', this.secret).update(`${nonce}.${block}`).digest();
        const take = Math.min(bytes.length, n - filled);
        out.set(bytes.subarray(0, take), filled);
        filled += take;
      }
      return out;
    });
  }

  /** The answer's bytes as stored: the key's text replaced by its nonce. */
  seal(body: string, drawn: DrawnKey): string {
    const prefix = drawn.text.slice(0, 6);
    return body.replace(`"key":"${drawn.text}"`, `"key":"sealed:${prefix}:${drawn.nonce}"`);
  }

  /**
   * A stored answer's bytes as answered again: the key drawn again from its nonce. Undefined
   * when the text drawn is not the key that was made (its display prefix differs: OPERATOR_KEY
   * changed since), so that a replay never hands out a key that is not the one made.
   */
  unseal(body: string): string | undefined {
    const found = SEALED.exec(body);
    if (found === null) return body;
    const [marker, prefix, nonce] = found;
    const text = this.textOf(KIND_OF_PREFIX.get(prefix) as PrincipalKind, nonce);
    const shown = /"prefix":"([^"]*)"/.exec(body)?.[1];
    if (shown !== text.slice(0, DISPLAY_PREFIX_CHARS)) return undefined;
    return body.replace(marker, `"key":"${text}"`);
  }

  /** Whether stored bytes hold a sealed key. */
  static isSealed(body: string): boolean {
    return SEALED.test(body);
  }
}
