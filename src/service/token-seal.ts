// D-63, D-64: a one-time token (an invitation's, a password reset's) goes out in a mail sent after
// the commit, and yet no token is ever stored. As a key's text is (key-seal.ts), a token is drawn
// from a random nonce through an HMAC whose secret is derived from OPERATOR_KEY (the same on
// every instance, never stored): the store keeps the token's SHA-256 (to find it when it comes
// back) and the mail outbox keeps the nonce (to draw it again when the mail is sent). Reading the
// database alone gives no token.
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** A token's text (32 bytes, base64url: 43 characters) and the nonce it was drawn from. */
export interface DrawnToken {
  text: string;
  nonce: string;
}

/** What a token looks like: 43 base64url characters. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export class TokenSeal {
  private readonly secret: Buffer;

  constructor(operatorKey: string) {
    this.secret = Buffer.from(hkdfSync('sha256', operatorKey, 'sales-pipeline', 'one-time token from nonce v1', 32));
  }

  /** A new token, and the nonce that draws it again. */
  draw(): DrawnToken {
    const nonce = randomBytes(32).toString('base64url');
    return { text: this.textOf(nonce), nonce };
  }

  /** The token a nonce draws: the same on every instance that has the same OPERATOR_KEY. */
  textOf(nonce: string): string {
    return createHmac('sha256', this.secret).update(nonce).digest('base64url');
  }
}
