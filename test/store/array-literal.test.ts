// The outbox's array parameters (buffered-writes.ts arrayLiteral) as PostgreSQL's parser reads
// them: every element comes back as it was sent, quotes, backslashes, braces and JSON escapes included.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { arrayLiteral } from '../../src/store/postgres/buffered-writes.ts';

describe('array literals of the outbox row', () => {
  let db: PGlite;
  before(async () => {
    db = new PGlite();
    await db.waitReady;
  });
  after(async () => {
    await db.close();
  });

  const texts = [
    'plain',
    'a "quoted" word',
    'a back\\slash and \\" both',
    '{braces}, commas, and NULL',
    JSON.stringify({ note: 'He said "yes" \\ \u0000 ok', list: [1, '2'] }),
    '',
    // Raw control characters and surrogate pairs: quoted by replacing, not by JSON.stringify.
    'a line\nand a tab\t and \u0001 "quoted" \\',
    'an emoji 😀 and "quotes"',
  ];

  it('quotes every element and escapes only its quotes and backslashes', () => {
    assert.equal(arrayLiteral(['a"b', 'c\\d', null, 7]), '{"a\\"b","c\\\\d",NULL,"7"}');
    assert.equal(arrayLiteral(['a\nb"', 'x😀\\']), '{"a\nb\\"","x😀\\\\"}');
  });

  it('reads back as text[] exactly what was written, NULL as null', async () => {
    const { rows } = await db.query<{ a: (string | null)[] }>('SELECT $1::text[] AS a', [
      arrayLiteral([...texts, null]),
    ]);
    assert.deepEqual(rows[0].a, [...texts, null]);
  });

  it('reads back as json[] with each document byte for byte', async () => {
    const docs = [JSON.stringify({ a: 'x "y" \\z' }), JSON.stringify([{ b: '\u00e9\n' }])];
    const { rows } = await db.query<{ a: string[] }>('SELECT $1::json[]::text[] AS a', [arrayLiteral(docs)]);
    assert.deepEqual(rows[0].a, docs);
  });
});
