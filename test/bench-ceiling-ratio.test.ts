// The in-memory goals' ratio to their ceiling rows: each ceiling row runs right after the row it
// is the ceiling of, and with --repeat the ratio is the median of each round's (bench/report.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CEILING_GOALS } from '../bench/goals.ts';
import type { Figure } from '../bench/measure.ts';
import { ratioToCeiling } from '../bench/report.ts';
import { SCENARIOS } from '../bench/scenarios.ts';

const figure = (requestsPerSecond: number, rounds?: number[]): Figure => ({
  scenario: 'row',
  requestsPerSecond,
  p50Ms: 0,
  p99Ms: 0,
  p97_5Ms: 0,
  requests: 0,
  errors: 0,
  ratioToHealth: 0,
  ...(rounds ? { rounds: rounds.map((rps) => ({ requestsPerSecond: rps })) } : {}),
});

describe('bench: a row against its ceiling', () => {
  it('runs each ceiling row right after its row', () => {
    const names = SCENARIOS.map((s) => s.name);
    for (const [name, { ceiling }] of Object.entries(CEILING_GOALS))
      assert.equal(names[names.indexOf(name) + 1], ceiling, `${ceiling} follows ${name}`);
  });

  it('is the ratio of the figures in one round', () => {
    assert.equal(ratioToCeiling(figure(4_500), figure(10_000)), 0.45);
  });

  it("is the median of each round's ratio with --repeat, not the ratio of the median rows", () => {
    // Rounds in minutes of different speed: 0.4, 0.5 and 0.3 of the ceiling, median 0.4. The median
    // rows (5,000 and 12,000, from different rounds) would say 0.42.
    const row = figure(5_000, [4_000, 5_000, 6_000]);
    const ceiling = figure(12_000, [10_000, 10_000, 20_000]);
    assert.equal(ratioToCeiling(row, ceiling), 0.4);
    // An even count takes the lower middle, as a row's median round does.
    assert.equal(ratioToCeiling(figure(1, [1, 2, 3, 4]), figure(1, [10, 10, 10, 10])), 0.2);
  });

  it('has no ratio without both rows', () => {
    assert.equal(ratioToCeiling(undefined, figure(10_000)), undefined);
    assert.equal(ratioToCeiling(figure(4_500), figure(0)), undefined);
    // A round whose ceiling answered nothing is left out, not read as an infinite ratio.
    assert.equal(ratioToCeiling(figure(5_000, [4_000, 5_000, 6_000]), figure(9_000, [10_000, 0, 20_000])), 0.3);
  });
});
