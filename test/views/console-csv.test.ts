// D-74: the CSV the console writes itself (an insight's table, web/csv.ts) is RFC 4180 as the
// service writes its lists (src/views/csv.ts): the same text for the same fields, and read back by
// a CSV parser as the fields it was given.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { csvHeader, csvRows } from '../../src/views/csv.ts';
import { csvField, csvOf } from '../../web/csv.ts';

const AWKWARD = ['plain', 'a, comma', 'a "quote"', 'two\r\nlines', 'one\nline feed', '', ' spaced ', '—', '83.33'];

describe("the console's CSV (web/csv.ts)", () => {
  it('quotes a field with a comma, a quote or a line break, its quotes doubled; nothing else', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a, comma'), '"a, comma"');
    assert.equal(csvField('a "quote"'), '"a ""quote"""');
    assert.equal(csvField('two\r\nlines'), '"two\r\nlines"');
    assert.equal(csvField('one\nline feed'), '"one\nline feed"');
    assert.equal(csvField(66.67), '66.67');
    assert.equal(csvField(null), '');
    assert.equal(csvField(undefined), '');
  });

  it('writes what the service writes for the same fields: a header row, CRLF line ends', () => {
    const columns = AWKWARD.map((_, i) => `column ${i}`);
    const record = Object.fromEntries(AWKWARD.map((value, i) => [`column ${i}`, value]));
    const served = csvHeader(columns) + csvRows(columns, [record]);
    assert.equal(csvOf([columns, AWKWARD]), served);
  });

  it('reads back as the fields it was given', () => {
    const rows = [['Stage', 'Reached', 'Conversion (%)'], ...AWKWARD.map((value, i) => [value, String(i), ''])];
    const text = csvOf(rows);
    assert.ok(text.endsWith('\r\n'));
    assert.deepEqual(parse(text, { record_delimiter: '\r\n', relax_column_count: false }), rows);
  });
});
