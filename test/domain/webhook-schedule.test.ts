// The webhook retry schedule (D-42): about 5 s, 30 s, 2 min, 10 min, 1 h, then every 6 h, given
// up 3 days after the delivery was made due; every delay a multiple of the base.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextAttemptAt } from '../../src/domain/webhooks.ts';

const S = 1000;
const H = 3600 * S;

describe('the webhook retry schedule', () => {
  it('5 s, 30 s, 2 min, 10 min, 1 h, then 6 h at the default base', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) => (nextAttemptAt(attempt, 0, 0, 5 * S) as number) - 0);
    assert.deepEqual(delays, [5 * S, 30 * S, 120 * S, 600 * S, H, 6 * H, 6 * H]);
  });

  it('gives up when the next attempt would fall more than 3 days after the delivery was due', () => {
    const due = 0;
    assert.equal(nextAttemptAt(12, 66 * H, due, 5 * S), 72 * H);
    assert.equal(nextAttemptAt(13, 72 * H, due, 5 * S), undefined);
  });

  it('scales with the base (tests shorten it)', () => {
    assert.equal(nextAttemptAt(1, 1000, 1000, 100), 1100);
    assert.equal(nextAttemptAt(2, 1000, 1000, 100), 1600);
  });
});
