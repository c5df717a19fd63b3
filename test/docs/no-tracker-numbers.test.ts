// The repository explains itself without its tracker: no comment, test name, message or doc
// cites a tracker's number (an issue's, a pull request's, a bare `#` and digits), which means
// nothing in a clone: what a number stood for is said in words, or by the decision that says it
// (D-n, defined in docs/decisions.md; test/docs/decisions.test.ts checks those).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The folders of code, tests, the console, the scripts, the benchmarks and CI: every file in them. */
const CODE = ['src', 'test', 'web', 'scripts', 'bench', 'bin', '.ci'];

/**
 * A tracker number: "issue" or "issues" and a number (`#` optional), unless the verb issues that
 * many of something (the verb, a count and keys); a pull request's number; `#` and one or two digits on its
 * own (a CSS colour has three hex digits or more, a URL's fragment follows a word, `&#39;` is an
 * entity); or any `(#n)`.
 */
const TRACKER = [
  /\bissues?\s*#?\s*\d+(?![\d,]*\s+(?:new\s+)?(?:keys?|cursors?|sessions?|tokens?)\b)/i,
  /\b(?:PR|pull request)\s*#\s*\d+/i,
  /(?<![\w&#/])#\d{1,2}(?![\w-])/,
  /\(#\d+\)/,
  // A numbered working session (the word and a number), as meaningless in a clone as a tracker item.
  /\bsessions?\s+#?\d+\b(?!\s*(?:hours?|minutes?|seconds?|s\b))/i,
];

/** Every file under `dir` that is text (binary files, such as the console's screenshots, hold a NUL byte). */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(path);
    return [path];
  });
}

function text(file: string): string | undefined {
  const bytes = readFileSync(file);
  return bytes.includes(0) ? undefined : bytes.toString('utf8');
}

/** The first tracker number in `line` with a few words either side, or undefined when it cites none. */
function cited(line: string): string | undefined {
  for (const pattern of TRACKER) {
    const match = pattern.exec(line);
    if (match) return line.slice(Math.max(0, match.index - 40), match.index + match[0].length + 40).trim();
  }
  return undefined;
}

/** Each line that cites a tracker number, as `file:line: …the words around it…`. */
function citations(paths: readonly string[]): string[] {
  return paths.flatMap((file) => {
    const lines = (text(file) ?? '').split('\n');
    return lines.flatMap((line, i) => {
      // A line break may fall between the word and its number: each line is read with the next one's start.
      const next = lines[i + 1]?.trimStart().match(/^#?\d+/)?.[0];
      const words =
        cited(line) ??
        (next !== undefined && /\b(issues?|sessions?)\s*$/i.test(line) ? `${line.trim()} ${next}` : undefined);
      return words === undefined ? [] : [`${relative(ROOT, file)}:${i + 1}: …${words}…`];
    });
  });
}

const codeFiles = CODE.flatMap((dir) => files(join(ROOT, dir)));
const docFiles = [join(ROOT, 'README.md'), ...files(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))];

/** Assembled, so that this file cites no tracker number itself. */
const say = (...parts: string[]) => parts.join('');

describe('no tracker numbers: the repository explains itself in a clone', () => {
  it('the pattern finds each way a tracker number was cited, and nothing else', () => {
    const citing = [
      say('// Idle means idle (issue', ' 27): the worker'),
      say('the goals of issues', ' 14 and 27'),
      say('Issue', " 33's figures"),
      say('issues', ' 20-24'),
      say('fixed in (#', '31)'),
      say('a race (#', '7)'),
      say('see issue #', '12'),
      say('PR #', '104 moved it'),
      say('measured in session', ' 13'),
    ];
    const clean = [
      'a close refused as D-27 says',
      'color: #333; background: #f0f0f0',
      "border: 1px solid #000000; content: '&#39;'",
      'https://example.com/page#12',
      say('the operator may issue', ' 3 keys, or issue', ' 12 new keys'),
      'a cursor this service issued; issue a new key instead',
      'D-27: the seeded closers',
      'a session of 12 hours, sessions 12 hours old',
    ];
    for (const line of citing) assert.ok(cited(line) !== undefined, `caught: ${line}`);
    for (const line of clean) assert.equal(cited(line), undefined, `not a tracker number: ${line}`);
  });

  it('the scan reads the code and the docs (or it checks nothing)', () => {
    assert.ok(codeFiles.length > 400, `${codeFiles.length} files scanned`);
    for (const dir of CODE)
      assert.ok(
        codeFiles.some((f) => relative(ROOT, f).startsWith(`${dir}/`)),
        `${dir}/ scanned`,
      );
    assert.ok(docFiles.length > 3, `${docFiles.length} docs scanned`);
  });

  it('src/, test/, web/, scripts/, bench/, bin/ and .ci/ cite no tracker number', () => {
    assert.deepEqual(citations(codeFiles), [], 'say what it is, or cite the decision (D-n)');
  });

  it('README.md and docs/ cite no tracker number', () => {
    assert.deepEqual(citations(docFiles), [], 'say what it is, or cite the decision (D-n)');
  });
});
