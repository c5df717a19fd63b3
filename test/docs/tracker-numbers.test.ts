// The docs speak for themselves: no README or guide sends its reader to a tracker's item or to a
// numbered working session, which a reader of the repository cannot open, not even when a line
// break falls between the word and its number. A change is named by what it changed, a decision
// by its D-n. (test/docs/no-tracker-numbers.test.ts holds the code to the same, line by line.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markdownFiles, read } from '../support/markdown.ts';

/** A tracker's or a session's number, a line break or not between the word and the number, or `#` and digits. */
const TRACKER = /\b(issues?|sessions?)\s+#?\d|(^|[\s(,;])#\d+\b/im;

/** Assembled, so that this file cites no tracker number itself. */
const say = (...parts: string[]) => parts.join('');

describe('docs: no tracker or session numbers', () => {
  it('the pattern finds what it must, and not anchors or D-n', () => {
    const citing = [
      say('issue', ' 27'),
      say('Issues', ' 14 and 27'),
      say('the goals of issues', ' 20–24'),
      say('session', '\n  8'),
      say('see #', '27'),
      say('(#', '35)'),
    ];
    for (const text of citing) assert.match(text, TRACKER, text);
    for (const text of ['[keys](docs/a.md#keys-mode)', 'D-27', 'a session of 12 hours', 'the issue at hand', 'C#'])
      assert.doesNotMatch(text, TRACKER, text);
  });

  for (const file of markdownFiles()) {
    it(file, () => {
      // Code blocks too: a comment in an example reads as prose.
      const text = read(file);
      const found = [...text.matchAll(new RegExp(TRACKER.source, 'gim'))].map((match) => {
        const line = text.slice(0, match.index).split('\n').length;
        return `${file}:${line}: ${text.split('\n')[line - 1].trim()}`;
      });
      assert.deepEqual(found, [], found.join('\n'));
    });
  }
});
