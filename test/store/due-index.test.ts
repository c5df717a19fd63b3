// The memory store's due-time index (src/store/memory/due-index.ts) against a plain scan of the
// same records: random due times set, moved, cleared and set back, and reads at random times.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DueIndex } from '../../src/store/memory/due-index.ts';

function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('the due-time index', () => {
  it('answers what a scan answers, in (due, number) order, through thousands of changes', () => {
    const next = random(14);
    const dueOf = new Map<number, number | undefined>();
    const index = new DueIndex((n, dueAt) => dueOf.get(n) === dueAt);
    for (let step = 0; step < 20_000; step++) {
      const n = Math.floor(next() * 500);
      const roll = next();
      const dueAt = roll < 0.15 ? undefined : Math.floor(next() * 1000);
      if (dueOf.get(n) !== dueAt && dueAt !== undefined) index.add(n, dueAt);
      dueOf.set(n, dueAt);
      if (step % 50 === 0) {
        const now = Math.floor(next() * 1100);
        const limit = 1 + Math.floor(next() * 120);
        const expected = [...dueOf]
          .filter(([, d]) => d !== undefined && d <= now)
          .sort(([a, da], [b, db]) => (da as number) - (db as number) || a - b)
          .slice(0, limit)
          .map(([n]) => n);
        assert.deepEqual(index.due(now, limit), expected, `step ${step}`);
      }
    }
  });

  it('with nothing due, looks only at the top: a million entries, a read in well under a millisecond', () => {
    const index = new DueIndex(() => true);
    for (let n = 0; n < 1_000_000; n++) index.add(n, 1_000_000 + n);
    const start = performance.now();
    for (let i = 0; i < 1000; i++) assert.deepEqual(index.due(999_999, 100), []);
    assert.ok((performance.now() - start) / 1000 < 0.1);
    assert.deepEqual(index.due(1_000_002, 100), [0, 1, 2]);
  });
});
