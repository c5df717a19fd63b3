// Closer matching: ranking order and score (D-25); win rate from the Register (D-24).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rankClosers, winRate } from '../../src/domain/matching.ts';
import type { Closer } from '../../src/domain/records.ts';
import { T0 } from './world.ts';

function closer(id: string, industries: string[], gigs = 0, wins = 0, grossClosedCents = 0): Closer {
  return {
    id,
    name: `Closer ${id}`,
    industries,
    record: { gigs, wins, grossClosedCents: BigInt(grossClosedCents) },
    enrolledAt: T0,
  };
}

const ids = (matches: { closer: Closer }[]) => matches.map((m) => m.closer.id);

describe('D-25 matching', () => {
  it('D-25: industry fit ranks first, whatever the record', () => {
    const star = closer('closer_0001', ['retail'], 10, 10, 1e9);
    const fit = closer('closer_0002', ['saas'], 0, 0, 0);
    assert.deepEqual(ids(rankClosers([star, fit], 'saas')), ['closer_0002', 'closer_0001']);
  });

  it('D-25: then proven win rate', () => {
    const a = closer('closer_0001', ['saas'], 4, 1, 9e8); // 25%
    const b = closer('closer_0002', ['saas'], 2, 1, 1_000); // 50%
    assert.deepEqual(ids(rankClosers([a, b], 'saas')), ['closer_0002', 'closer_0001']);
  });

  it('D-25: then closed volume', () => {
    const a = closer('closer_0001', ['saas'], 2, 1, 1_000);
    const b = closer('closer_0002', ['saas'], 4, 2, 5_000);
    assert.deepEqual(ids(rankClosers([a, b], 'saas')), ['closer_0002', 'closer_0001']);
  });

  it('D-25: then id', () => {
    const a = closer('closer_0003', ['saas']);
    const b = closer('closer_0001', ['saas']);
    const c = closer('closer_0002', ['saas']);
    assert.deepEqual(ids(rankClosers([a, b, c], 'saas')), ['closer_0001', 'closer_0002', 'closer_0003']);
  });

  it('D-25: the whole order on a mixed pool, every enrolled closer returned', () => {
    const pool = [
      closer('closer_0001', ['retail'], 1, 1, 100),
      closer('closer_0002', ['SaaS'], 3, 1, 100),
      closer('closer_0003', ['saas', 'retail'], 3, 1, 200),
      closer('closer_0004', []),
      closer('closer_0005', ['fintech', 'saas'], 1, 1, 50),
    ];
    assert.deepEqual(ids(rankClosers(pool, 'saas')), [
      'closer_0005', // fit, 100%
      'closer_0003', // fit, 33%, 200
      'closer_0002', // fit, 33%, 100
      'closer_0001', // no fit, 100%
      'closer_0004', // no fit, 0%
    ]);
    assert.deepEqual(rankClosers([], 'saas'), []);
  });

  it('D-25: industry fit is a case-insensitive exact match (no substrings)', () => {
    const upper = closer('closer_0001', ['FinTech']);
    const partial = closer('closer_0002', ['fintech-ish']);
    const ranked = rankClosers([partial, upper], 'fintech');
    assert.deepEqual(ids(ranked), ['closer_0001', 'closer_0002']);
    assert.equal(ranked[0].score, 0.6);
    assert.equal(ranked[1].score, 0);
    assert.equal(rankClosers([upper], 'FINTECH')[0].score, 0.6);
  });

  it('D-25: with no industry nothing fits', () => {
    const ranked = rankClosers([closer('closer_0001', ['saas'])], undefined);
    assert.equal(ranked[0].score, 0);
    assert.equal(rankClosers([closer('closer_0001', [''])], '')[0].score, 0);
  });

  it('D-25: score = 0.6\u00b7fit + 0.3\u00b7winRate + 0.1\u00b7(gross / largest gross)', () => {
    const ranked = rankClosers(
      [
        closer('closer_0001', ['saas'], 4, 4, 1_000_000), // 0.6 + 0.3 + 0.1 = 1
        closer('closer_0002', ['saas'], 4, 1, 500_000), // 0.6 + 0.075 + 0.05 = 0.725
        closer('closer_0003', ['retail'], 2, 1, 250_000), // 0 + 0.15 + 0.025 = 0.175
      ],
      'saas',
    );
    assert.deepEqual(
      ranked.map((m) => [m.closer.id, m.score, m.winRate]),
      [
        ['closer_0001', 1, 1],
        ['closer_0002', 0.725, 0.25],
        ['closer_0003', 0.175, 0.5],
      ],
    );
  });

  it('D-25: the score stays in [0, 1], and a pool with no volume scores no NaN', () => {
    const pool = [
      closer('closer_0001', ['saas'], 3, 3, 7e9),
      closer('closer_0002', []),
      closer('closer_0003', ['saas'], 7, 3, 1),
    ];
    for (const match of rankClosers(pool, 'saas')) {
      assert.ok(match.score >= 0 && match.score <= 1, `${match.closer.id}: ${match.score}`);
    }
    const fresh = rankClosers([closer('closer_0001', ['saas']), closer('closer_0002', [])], 'saas');
    assert.deepEqual(
      fresh.map((m) => m.score),
      [0.6, 0],
    );
  });

  it('D-25: winRate in a match is wins / gigs, shown to four decimals; the order uses the exact rate', () => {
    const a = closer('closer_0001', ['saas'], 3, 1); // 0.33333...
    const b = closer('closer_0002', ['saas'], 30_001, 10_000); // 0.333322... just below a
    const ranked = rankClosers([b, a], 'saas');
    assert.deepEqual(ids(ranked), ['closer_0001', 'closer_0002']);
    assert.equal(ranked[0].winRate, 0.3333);
  });
});

describe('D-24 win rate', () => {
  it('D-24: winRate = wins / gigs, 0 when gigs is 0', () => {
    assert.equal(winRate(closer('closer_0001', [], 0, 0, 0)), 0);
    assert.equal(winRate(closer('closer_0001', [], 4, 3, 100)), 0.75);
    assert.equal(winRate(closer('closer_0001', [], 5, 0, 0)), 0);
  });
});
