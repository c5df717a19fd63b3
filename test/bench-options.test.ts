// The bench's command line: a durable store's rows are warmed longer than the in-memory ones
// (bench/options.ts says why), and an explicit --warmup or --smoke wins.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOptions } from '../bench/options.ts';

describe('bench options: the warm-up', () => {
  it('is 3 s in memory and 10 s on PostgreSQL and PGlite by default', () => {
    assert.equal(parseOptions([]).warmup, 3);
    assert.equal(parseOptions(['--store', 'memory']).warmup, 3);
    assert.equal(parseOptions(['--store', 'postgres']).warmup, 10);
    assert.equal(parseOptions(['--warmup', '4', '--store', 'pglite']).warmup, 4);
    assert.equal(parseOptions(['--store', 'postgres', '--warmup', '0']).warmup, 0);
  });

  it('is none in a smoke run, and a negative or missing figure is refused', () => {
    assert.equal(parseOptions(['--store', 'postgres', '--smoke']).warmup, 0);
    assert.throws(() => parseOptions(['--warmup', '-1']), /--warmup is a number of seconds/);
    assert.throws(() => parseOptions(['--warmup', 'soon']), /--warmup is a number of seconds/);
    assert.throws(() => parseOptions(['--warmup']), /--warmup needs a value/);
  });
});
