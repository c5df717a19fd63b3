// The fenced blocks of the README and the guides in docs/, for the tests that run their
// walkthroughs as written, and how an answer is held to the one a block documents.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** The repository's root, where README.md is and docs/ begins. */
export const REPO_ROOT = new URL('../../', import.meta.url);

/** The URL every walkthrough is written against; the tests put their server's in its place. */
export const GUIDE_URL = 'http://127.0.0.1:3000';

export interface Block {
  /** The fence's language: sh, json, text… */
  lang: string;
  body: string;
  /** The line (0-based) of the guide the block's body starts on. */
  line: number;
}

/** A guide's lines: README.md or docs/<name>.md, by its path from the repository's root. */
export function guideLines(file: string): string[] {
  return readFileSync(new URL(file, REPO_ROOT), 'utf8').split('\n');
}

/** Where a block is, for a message: the guide and its 1-based line. */
export const at = (file: string, line: number) => `${file} line ${line + 1}`;

/**
 * A section of a guide by its `## ` heading: the line after the heading, and where the section
 * ends (the next `## ` or `# ` heading; `### ` subsections belong to it).
 */
export function sectionOf(
  lines: readonly string[],
  heading: string,
): { from: number; stop: (line: string) => boolean } {
  const start = lines.indexOf(`## ${heading}`);
  assert.ok(start >= 0, `the guide has the section "## ${heading}"`);
  return { from: start + 1, stop: (line) => line.startsWith('## ') || line.startsWith('# ') };
}

/** The fenced blocks from line `from` on, until a line `stop` says ends the part read. */
export function fencedBlocks(lines: readonly string[], from: number, stop: (line: string) => boolean): Block[] {
  const blocks: Block[] = [];
  for (let i = from; i < lines.length && !stop(lines[i]); i++) {
    if (!lines[i].startsWith('```')) continue;
    const lang = lines[i].slice(3).trim();
    const start = i + 1;
    let end = start;
    while (!lines[end].startsWith('```')) end++;
    blocks.push({ lang, body: lines.slice(start, end).join('\n'), line: start });
    i = end;
  }
  return blocks;
}

/** A sh block's commands: one per line, after joining backslash continuations and lines inside quotes. */
export function shellCommands(body: string): string[] {
  const commands: string[] = [];
  let pending = '';
  for (const text of body.replace(/\\\n\s*/g, ' ').split('\n')) {
    pending = pending ? `${pending}\n${text}` : text;
    if ((pending.match(/'/g) ?? []).length % 2 === 0) {
      if (pending.trim() !== '') commands.push(pending);
      pending = '';
    }
  }
  return commands;
}

/** A documented string: exact, or with `…` standing for any text. */
function matchesText(actual: string, expected: string): boolean {
  if (!expected.includes('…')) return actual === expected;
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^]*');
  return new RegExp(`^${pattern}$`).test(actual);
}

/** expected ⊆ actual: objects by their documented keys, arrays element by element and of equal length. */
export function assertContains(actual: unknown, expected: unknown, path = '$'): void {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array, got ${JSON.stringify(actual)}`);
    assert.equal(actual.length, expected.length, `${path}: array length`);
    for (const [index, item] of expected.entries()) assertContains(actual[index], item, `${path}[${index}]`);
  } else if (typeof expected === 'object' && expected !== null) {
    assert.ok(
      typeof actual === 'object' && actual !== null,
      `${path}: expected an object, got ${JSON.stringify(actual)}`,
    );
    for (const [key, value] of Object.entries(expected)) {
      assertContains((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
    }
  } else if (typeof expected === 'string') {
    assert.ok(
      typeof actual === 'string' && matchesText(actual, expected),
      `${path}: expected ${expected}, got ${JSON.stringify(actual)}`,
    );
  } else {
    assert.deepEqual(actual, expected, path);
  }
}
