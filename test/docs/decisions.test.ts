// The repository explains itself: every decision number (D-n) that the code, the tests, the
// console, the scripts, the benchmarks and the docs cite is defined in docs/decisions.md, once,
// under one prefix; and no doc sends its reader to a file outside the repository.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DECISIONS = join(ROOT, 'docs', 'decisions.md');
/** The folders whose files cite decisions. */
const CITING = ['src', 'test', 'web', 'scripts', 'bench'];
const TEXT = /\.(ts|tsx|mjs|js|md|css|html)$/;
/** A citation: a capital letter, a hyphen and a number, not inside a longer word (`UTF-8`, `x-1`). */
const CITATION = /(^|[^A-Za-z0-9_-])([A-Z])-(\d{1,4})\b/g;
/** A definition: a bullet `- **D-n …` or a heading `## D-n …`. */
const DEFINITION = [/^\s*[-*]\s+\*\*D-(\d+)\b/, /^#+\s+D-(\d+)\b/];

function textFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : textFiles(path);
    return TEXT.test(entry.name) ? [path] : [];
  });
}

interface Citation {
  prefix: string;
  number: number;
  where: string;
}

function citations(files: readonly string[]): Citation[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        [...line.matchAll(CITATION)].map(([, , prefix, number]) => ({
          prefix,
          number: Number(number),
          where: `${relative(ROOT, file)}:${i + 1}`,
        })),
      ),
  );
}

/** Every definition in docs/decisions.md, in file order (a number defined twice appears twice). */
function definitions(): { number: number; line: number }[] {
  return readFileSync(DECISIONS, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      for (const pattern of DEFINITION) {
        const match = pattern.exec(line);
        if (match) return [{ number: Number(match[1]), line: i + 1 }];
      }
      return [];
    });
}

/** Undefined numbers with where they are cited (the first few places each), or '' when none. */
function undefinedCitations(cited: readonly Citation[], defined: ReadonlySet<number>): string {
  const missing = new Map<number, string[]>();
  for (const c of cited) {
    if (c.prefix !== 'D' || defined.has(c.number)) continue;
    missing.set(c.number, [...(missing.get(c.number) ?? []), c.where]);
  }
  return [...missing]
    .sort(([a], [b]) => a - b)
    .map(([n, where]) => `D-${n} cited at ${where.slice(0, 5).join(', ')}${where.length > 5 ? ', …' : ''}`)
    .join('\n');
}

const codeFiles = CITING.flatMap((dir) => textFiles(join(ROOT, dir)));
const docFiles = [join(ROOT, 'README.md'), ...textFiles(join(ROOT, 'docs'))];
const defined = new Set(definitions().map((d) => d.number));

describe('decisions: one numbering, every number defined in docs/decisions.md', () => {
  it('the scan finds citations and definitions (or it checks nothing)', () => {
    assert.ok(codeFiles.length > 100, `${codeFiles.length} files scanned`);
    assert.ok(citations(codeFiles).length > 500, 'the code cites decisions');
    for (const n of [1, 49, 100, 199]) assert.ok(defined.has(n), `D-${n} is defined`);
  });

  it('every decision cited in src/, test/, web/, scripts/ and bench/ is defined', () => {
    const missing = undefinedCitations(citations(codeFiles), defined);
    assert.equal(missing, '', `cited but not defined in docs/decisions.md:\n${missing}`);
  });

  it('every decision cited in README.md and docs/ is defined', () => {
    const missing = undefinedCitations(citations(docFiles), defined);
    assert.equal(missing, '', `cited but not defined in docs/decisions.md:\n${missing}`);
  });

  it('one prefix: decisions are D-n everywhere', () => {
    const others = citations([...codeFiles, ...docFiles]).filter((c) => c.prefix !== 'D');
    assert.deepEqual(
      others.map((c) => `${c.prefix}-${c.number} at ${c.where}`),
      [],
      'a decision is cited as D-n, whoever made it',
    );
  });

  it('no number is defined twice', () => {
    const lines = new Map<number, number[]>();
    for (const d of definitions()) lines.set(d.number, [...(lines.get(d.number) ?? []), d.line]);
    const twice = [...lines].filter(([, at]) => at.length > 1).map(([n, at]) => `D-${n} at lines ${at.join(', ')}`);
    assert.deepEqual(twice, []);
  });

  it('the repository stands alone: no doc sends its reader to ../shared or shared/DECISIONS', () => {
    for (const file of docFiles) {
      const text = readFileSync(file, 'utf8');
      assert.doesNotMatch(text, /\.\.\/shared|shared\/DECISIONS/, relative(ROOT, file));
    }
  });
});
