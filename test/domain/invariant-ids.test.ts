// The ids invariant (D-28, D-199): numbers in creation order, with the slack that overlapping
// creates need. The crash test's load once made deal_0033 hours older than deal_0032: a move of
// the demo clock committed while both were in flight, and the create decided after it took its
// number first. That is an overlap, not a counter gone wrong; a counter that went back is.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatId } from '../../src/domain/ids.ts';
import { checkIds, OVERLAP_MS, OVERTAKERS, type Snapshot } from '../../src/domain/invariants.ts';
import type { Closer } from '../../src/domain/records.ts';

const HOUR = 3_600_000;
const START = Date.parse('2030-01-07T09:00:00.000Z');

/** Closers numbered 1.. with these enrolment times (only the id and the time matter here). */
const snapshotOf = (times: number[]): Snapshot => ({
  deals: [],
  gigs: [],
  payouts: [],
  closers: times.map((enrolledAt, i) => ({ id: formatId('closer', i + 1), enrolledAt }) as unknown as Closer),
});

/** One record a second, in number order. */
const steady = (count: number) => Array.from({ length: count }, (_, i) => START + i * 1000);

describe('ids follow creation order (D-28)', () => {
  it('in order, nothing to say', () => {
    assert.deepEqual(checkIds(snapshotOf(steady(300))), []);
  });

  it('two overlapping creates across a move of the demo clock: the later number hours older', () => {
    const times = steady(300);
    // closer_0033 decided at its time, then the clock moved 5 hours and closer_0032 was decided
    // and took its number first; everything after is dated after the move.
    times[31] = times[32] + 5 * HOUR;
    for (let i = 33; i < times.length; i++) times[i] += 5 * HOUR;
    assert.deepEqual(checkIds(snapshotOf(times)), []);
  });

  it('a few milliseconds out of order among neighbours (creates that overlapped): allowed', () => {
    const times = steady(300);
    [times[10], times[11]] = [times[11], times[10]];
    assert.deepEqual(checkIds(snapshotOf(times)), []);
  });

  it('a counter that went back: a number reused far below records already created', () => {
    // closer_0150 was created last: its number is below 150 records created before it.
    const times = steady(300);
    times[149] = times[299] + 1000;
    const violations = checkIds(snapshotOf(times));
    assert.ok(violations.length > 0);
    assert.ok(violations.every((v) => v.invariant === 'ids'));
    // Each record created before it but numbered OVERTAKERS or more above it is named with it.
    assert.ok(
      violations.some((v) => v.ids.includes('closer_0150') && v.ids.includes(formatId('closer', 150 + OVERTAKERS))),
    );
  });

  it('a record far below others in number and more than the overlap older is a violation', () => {
    const times = steady(OVERTAKERS + 1);
    times[OVERTAKERS] = times[0] - OVERLAP_MS - 1;
    assert.deepEqual(
      checkIds(snapshotOf(times)).map((v) => v.message),
      [`${formatId('closer', OVERTAKERS + 1)} was created before ${formatId('closer', 1)}`],
    );
    // Within the overlap: allowed.
    times[OVERTAKERS] = times[0] - OVERLAP_MS + 1;
    assert.deepEqual(checkIds(snapshotOf(times)), []);
  });

  it('two records under one number', () => {
    const snapshot = snapshotOf(steady(3));
    const closers = [...snapshot.closers, snapshot.closers[1]];
    assert.deepEqual(
      checkIds({ ...snapshot, closers }).map((v) => v.message),
      ['two closers are closer_0002'],
    );
  });
});
