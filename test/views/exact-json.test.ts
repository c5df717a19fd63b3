// Amounts past what a double carries to the cent (D-24) are written as their exact digits
// (JSON.rawJSON, D-210).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExactNumber, plainJson, stringify, usdOfBigCents } from '../../src/views/exact-json.ts';

describe('exact JSON amounts (D-24)', () => {
  it('cents below 2^52 are plain numbers; beyond, exact digits with two decimals or fewer', () => {
    assert.equal(usdOfBigCents(0n), 0);
    assert.equal(usdOfBigCents(12_345n), 123.45);
    assert.equal(usdOfBigCents(2n ** 52n - 1n), 45_035_996_273_704.95);
    const cases: [bigint, string][] = [
      [2n ** 52n, '45035996273704.96'],
      [9_007_199_254_740_991n, '90071992547409.91'],
      [9_099_999_999_999_905n, '90999999999999.05'],
      [9_099_999_999_999_950n, '90999999999999.5'],
      [9_100_000_000_000_000n, '91000000000000'],
      [-(2n ** 60n) - 1n, '-11529215046068469.77'],
    ];
    for (const [cents, text] of cases) {
      const usd = usdOfBigCents(cents);
      assert.ok(usd instanceof ExactNumber, String(cents));
      assert.equal(usd.text, text);
    }
  });

  it('stringify writes the digits in place, anywhere in the value; other text is untouched', () => {
    const value = { a: [usdOfBigCents(9_007_199_254_740_991n)], b: { c: usdOfBigCents(2n ** 53n + 1n) }, d: 'x' };
    assert.equal(stringify(value), '{"a":[90071992547409.91],"b":{"c":90071992547409.93},"d":"x"}');
    assert.equal(stringify({ n: 1.5 }), '{"n":1.5}');
  });

  it('plainJson keeps the digits for a library that serializes by itself', () => {
    const plain = plainJson({ usd: usdOfBigCents(9_007_199_254_740_991n) });
    assert.equal(JSON.stringify(plain), '{"usd":90071992547409.91}');
  });
});
