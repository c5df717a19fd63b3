// docs/architecture.md's table of layers is the truth about the imports: every file of src/ and
// web/ belongs to a row of it, and imports from another row only what its row allows. An import
// across the layers that the table does not allow, or a new folder that no row names, fails here:
// change the code, or the table (and say why there).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { proseLines, ROOT, read } from '../support/markdown.ts';

interface Row {
  /** The row's paths: folders end with `/`, files do not. */
  paths: string[];
  /** The rows' paths it may import; undefined: any. */
  allowed?: string[];
}

const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** The table under "## The layers": its first column the row's paths, its last what it may import. */
function layerTable(): Row[] {
  const lines = proseLines(read('docs/architecture.md')).map((l) => l.text);
  const start = lines.indexOf('## The layers');
  assert.ok(start >= 0, 'docs/architecture.md has "## The layers"');
  const rows: Row[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('## ')) break;
    if (!line.startsWith('| `')) continue;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1);
    const last = cells[cells.length - 1].trim();
    rows.push({
      paths: codeSpans(cells[0]),
      ...(last === 'any layer' ? {} : { allowed: last === 'nothing' ? [] : codeSpans(last) }),
    });
  }
  return rows;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The row path a file belongs to: the longest row path that is the file, or a folder holding it. */
function rowOf(file: string, paths: readonly string[]): string | undefined {
  return paths
    .filter((p) => (p.endsWith('/') ? file.startsWith(p) : file === p))
    .sort((a, b) => b.length - a.length)[0];
}

/** The relative imports of a file (static, dynamic, type-only and re-exports), resolved from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    normalize(join(dirname(file), m[1])),
  );
}

describe('docs/architecture.md: what each layer may import', () => {
  const rows = layerTable();
  const paths = rows.flatMap((r) => r.paths);
  const rowByPath = new Map(rows.flatMap((r) => r.paths.map((p) => [p, r] as const)));
  const files = [...sourceFiles('src'), ...sourceFiles('web')];

  it('the table has its rows (or it checks nothing)', () => {
    assert.ok(rows.length >= 15, `${rows.length} rows`);
    for (const path of ['src/domain/', 'src/service/', 'src/http/', 'web/']) assert.ok(paths.includes(path), path);
    assert.deepEqual(rowByPath.get('src/domain/')?.allowed, [], 'the core imports nothing');
  });

  it('every file of src/ and web/ is in a row', () => {
    const loose = files.filter((file) => rowOf(file, paths) === undefined);
    assert.deepEqual(loose, [], 'a file no row of the table names');
  });

  it('every import across rows is one its row allows', () => {
    const wrong: string[] = [];
    for (const file of files) {
      const from = rowOf(file, paths) as string;
      const row = rowByPath.get(from) as Row;
      for (const target of importsOf(file)) {
        const to = rowOf(target, paths);
        if (to === undefined || to === from || row.paths.includes(to) || row.allowed === undefined) continue;
        if (!row.allowed.includes(to)) wrong.push(`${file} imports ${target} (${from} may not import ${to})`);
      }
    }
    assert.deepEqual(wrong, [], wrong.join('\n'));
  });
});
