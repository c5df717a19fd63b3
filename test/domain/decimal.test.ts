// Exact decimal arithmetic under money (D-22) and the demo clock (D-19): a number is what its
// decimal text says, so an exact half rounds up even where binary floating point falls short.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { multiplyHalfUp } from '../../src/domain/decimal.ts';

const HOUR_MS = 3_600_000;

describe('D-19 demo clock hours to whole ms', () => {
  it('D-19: an exact half ms rounds up, though the binary product falls just below it', () => {
    assert.equal(0.00000875 * HOUR_MS, 31.499999999999996, 'the binary trap the conversion avoids');
    assert.equal(multiplyHalfUp(HOUR_MS, 0.00000875), 32);
    assert.equal(multiplyHalfUp(HOUR_MS, 0.00013125), 473);
    assert.equal(multiplyHalfUp(HOUR_MS, 0.00001625), 59);
  });

  it('D-19: below half a ms is nothing; whole and fractional hours land on whole ms', () => {
    assert.equal(multiplyHalfUp(HOUR_MS, 1e-9), 0);
    assert.equal(multiplyHalfUp(HOUR_MS, 1.3e-7), 0); // 0.468 ms
    assert.equal(multiplyHalfUp(HOUR_MS, 1.4e-7), 1); // 0.504 ms
    assert.equal(multiplyHalfUp(HOUR_MS, 1.1), 3_960_000);
    assert.equal(multiplyHalfUp(HOUR_MS, 0), 0);
    assert.equal(multiplyHalfUp(HOUR_MS, 2160), 7_776_000_000);
    assert.equal(multiplyHalfUp(HOUR_MS, 2159.9999999999), 7_776_000_000);
  });

  it('half-up is away from zero for negatives, as for money', () => {
    assert.equal(multiplyHalfUp(-50, 0.01), -1);
    assert.equal(multiplyHalfUp(50, -0.01), -1);
    assert.equal(multiplyHalfUp(-49, 0.01), 0);
  });
});
