// The error catalogue (src/views/errors.ts) against its documentation and the code, after
// Fastify's test/internals/errors.test.js against docs/Reference/Errors.md: docs/errors.md is
// what `npm run docs:errors` writes, each code documented once and nothing documented that is not
// a code; the core's refusals take the status of their kind; every code the source answers with
// is in the catalogue.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ERRORS_DOC, errorsDoc } from '../../scripts/errors-doc.ts';
import { REFUSAL_KINDS } from '../../src/domain/refusal.ts';
import { DOMAIN_CODES, ERRORS, STATUS_OF_KIND } from '../../src/views/errors.ts';

const doc = readFileSync(ERRORS_DOC, 'utf8');
const catalogue = Object.entries(ERRORS) as [string, { status: number; when: string }][];

/** Rows of the doc's table: `| status | \`CODE\` | when |`. */
const documented = [...doc.matchAll(/^\| (\d{3}) \| `([A-Z0-9_]+)` \| (.*) \|$/gm)].map(([, status, code, when]) => ({
  status: Number(status),
  code,
  when: when.replaceAll('\\|', '|'),
}));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the error catalogue', () => {
  it('docs/errors.md is exactly what `npm run docs:errors` generates', () => {
    assert.equal(doc, errorsDoc(), 'docs/errors.md is stale: run `npm run docs:errors`');
  });

  it('documents every code of the catalogue once, with its status and when', () => {
    for (const [code, entry] of catalogue) {
      const rows = documented.filter((row) => row.code === code);
      assert.equal(rows.length, 1, `${code} is documented once`);
      assert.deepEqual(rows[0], { status: entry.status, code, when: entry.when }, code);
    }
  });

  it('documents no code the catalogue does not have', () => {
    assert.ok(documented.length > 0, 'the table is found');
    for (const row of documented) assert.ok(Object.hasOwn(ERRORS, row.code), `${row.code} is in the catalogue`);
  });

  it('the doc stands alone: no decision numbers, no paths outside the repository', () => {
    assert.doesNotMatch(doc, /\bD-\d/);
    assert.doesNotMatch(doc, /\.\.\//);
  });

  it("every domain code is catalogued with its kind's status", () => {
    assert.deepEqual(DOMAIN_CODES, Object.keys(REFUSAL_KINDS));
    for (const [code, kind] of Object.entries(REFUSAL_KINDS)) {
      assert.ok(Object.hasOwn(ERRORS, code), `${code} is in the catalogue`);
      assert.equal(ERRORS[code as keyof typeof ERRORS].status, STATUS_OF_KIND[kind], `${code} (${kind})`);
    }
  });

  it("every code the source answers with (code: '…', errorBody('…'), refuse.*('…')) is in the catalogue", () => {
    const src = fileURLToPath(new URL('../../src', import.meta.url));
    // Across line breaks: calls are often formatted over several lines.
    const use = /(?:\bcode:\s*|\berrorBody\(\s*|\brefuse\.\w+\(\s*)(['"`])([^'"`]+)\1/g;
    const found = new Map<string, string>();
    for (const file of sourceFiles(src)) {
      for (const [, , code] of readFileSync(file, 'utf8').matchAll(use)) found.set(code, file);
    }
    // The scan must see the codes it is meant to see, or it checks nothing.
    for (const code of [
      'INVALID_JSON',
      'ROUTE_NOT_FOUND',
      'INVALID_CURSOR',
      'GATE_BELOW_FLOOR',
      'MANDATE_OUT_OF_BOUNDS',
    ])
      assert.ok(found.has(code), `the scan finds ${code}`);
    for (const [code, file] of found) assert.ok(Object.hasOwn(ERRORS, code), `${code} (${file}) is in the catalogue`);
  });
});
