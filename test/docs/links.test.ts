// The docs hold together: every relative link of README.md and docs/ (a markdown link or image,
// `[text](path)` or `[text](path#anchor)`, or a bare `#anchor`) names a file of the repository,
// and every anchor a heading of the file it names, by GitHub's slugs. A guide moved, renamed or
// re-headed fails here instead of leaving its readers a dead link.
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { anchors, isExternal, links, markdownFiles, ROOT, read, slug } from '../support/markdown.ts';

const files = markdownFiles();

/** The problems of one file's links, one line each ('' when none). */
function brokenLinks(file: string): string[] {
  const problems: string[] = [];
  for (const { target, line } of links(read(file))) {
    if (isExternal(target)) continue;
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const path = decodeURIComponent(pathPart);
    const resolved = path === '' ? file : normalize(join(dirname(file), path));
    const where = `${file}:${line}: ${target}`;
    if (resolved.startsWith('..') || !existsSync(join(ROOT, resolved))) {
      problems.push(`${where}: no file ${resolved}`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(join(ROOT, resolved)).isDirectory() || !resolved.endsWith('.md')) {
      problems.push(`${where}: an anchor into ${resolved}, which has no headings`);
    } else if (!anchors(read(resolved)).has(decodeURIComponent(anchor))) {
      problems.push(`${where}: ${resolved} has no heading whose anchor is #${anchor}`);
    }
  }
  return problems;
}

describe('docs: every relative link and anchor resolves', () => {
  it('finds the README and the guides, and links in them (or it checks nothing)', () => {
    for (const guide of ['README.md', 'docs/architecture.md', 'docs/production.md', 'docs/api.md']) {
      assert.ok(files.includes(guide), `${guide} is read`);
    }
    const relative = files.flatMap((file) => links(read(file)).filter((l) => !isExternal(l.target)));
    assert.ok(relative.length > 100, `${relative.length} relative links`);
    assert.ok(relative.filter((l) => l.target.includes('#')).length > 30, 'links with anchors');
  });

  it("GitHub's anchors: code spans keep their text, punctuation goes, spaces are hyphens", () => {
    assert.equal(
      slug("Walkthrough: an agent's loop (read, dry-run the close, move with `If-Match`)"),
      'walkthrough-an-agents-loop-read-dry-run-the-close-move-with-if-match',
    );
    assert.equal(slug('The contract: `/openapi.json` and `/docs`'), 'the-contract-openapijson-and-docs');
    assert.equal(slug('Durable store (PostgreSQL or PGlite)'), 'durable-store-postgresql-or-pglite');
    assert.equal(slug('D-77 Storage walls'), 'd-77-storage-walls');
    assert.deepEqual(
      [...anchors('# A\n\n## Same\n\n```\n## not a heading\n```\n\n## Same\n')],
      ['a', 'same', 'same-1'],
    );
  });

  for (const file of files) {
    it(file, () => {
      const problems = brokenLinks(file);
      assert.deepEqual(problems, [], problems.join('\n'));
    });
  }
});
