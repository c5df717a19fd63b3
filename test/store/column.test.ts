// The memory store's chunked list (src/store/memory/column.ts): it reads back what was pushed
// across its chunks' edges, drops from its end (letting go of what it held), and copies a tail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Column } from '../../src/store/memory/column.ts';

describe('a column', () => {
  it('reads back what was pushed, across chunks, numbers (typed chunks) and references alike', () => {
    const numbers = Column.ofNumbers();
    const records = new Column<{ n: number } | undefined>();
    for (let n = 0; n < 10_000; n++) {
      numbers.push(n + 0.5);
      records.push(n % 3 === 0 ? undefined : { n });
    }
    assert.equal(numbers.length, 10_000);
    assert.equal(numbers.last(), 9_999.5);
    for (const i of [0, 4_095, 4_096, 8_191, 8_192, 9_999]) {
      assert.equal(numbers.at(i), i + 0.5);
      assert.deepEqual(records.at(i), i % 3 === 0 ? undefined : { n: i });
    }
  });

  it("pops across a chunk's edge, lets go of a reference it dropped, and pushes into the same place", () => {
    const column = new Column<{ n: number }>();
    for (let n = 0; n < 4_100; n++) column.push({ n });
    for (let k = 0; k < 10; k++) column.pop();
    assert.equal(column.length, 4_090);
    assert.deepEqual(column.last(), { n: 4_089 });
    // The dropped slots hold nothing: `at` past the end reads them.
    assert.equal(column.at(4_095), undefined);
    assert.equal(column.at(4_096), undefined);
    for (let n = 1; n <= 20; n++) column.push({ n: -n });
    assert.equal(column.length, 4_110);
    assert.deepEqual(column.at(4_090), { n: -1 });
    assert.deepEqual(column.at(4_109), { n: -20 });
    const empty = new Column<number>();
    empty.pop();
    assert.equal(empty.length, 0);
    assert.equal(empty.last(), undefined);
  });

  it('copies its tail from an index into a new column', () => {
    const column = new Column<string>();
    for (let n = 0; n < 9_000; n++) column.push(`e${n}`);
    const rest = column.from(5_000);
    assert.equal(rest.length, 4_000);
    assert.equal(rest.at(0), 'e5000');
    assert.equal(rest.at(3_999), 'e8999');
    assert.equal(column.length, 9_000);
    column.pop();
    assert.equal(column.at(8_999), undefined, 'a string dropped is let go too');
    const times = Column.ofNumbers();
    for (let n = 0; n < 5_000; n++) times.push(1_700_000_000_000 + n);
    const later = times.from(4_000);
    later.push(0.25);
    assert.deepEqual(
      [later.length, later.at(0), later.at(999), later.at(1_000)],
      [1_001, 1_700_000_004_000, 1_700_000_004_999, 0.25],
    );
  });
});
