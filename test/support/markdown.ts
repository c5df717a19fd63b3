// What the docs tests read of a markdown file: its prose without code (fenced blocks and inline
// code spans), its headings' anchors as GitHub makes them, and its relative links.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** README.md and every markdown file under docs/, as paths from the repository's root. */
export function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', ...walk('docs')];
}

export const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
export const fromRoot = (path: string) => relative(ROOT, path);

/** The file's lines, each with its number (1-based), outside fenced code blocks. */
export function proseLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const opening = /^\s*(```+|~~~+)/.exec(line);
    if (fence === undefined && opening) fence = opening[1][0].repeat(3);
    else if (fence !== undefined && line.trimStart().startsWith(fence)) fence = undefined;
    else if (fence === undefined) lines.push({ line: i + 1, text: line });
  });
  return lines;
}

/** A line without its inline code spans (a link written inside backticks is no link). */
export const withoutCode = (line: string) => line.replace(/(`+)[^`]*?\1/g, '');

/**
 * A heading's anchor as GitHub makes it (github-slugger): the heading's text as rendered (code
 * spans keep their text, links their label, emphasis goes), lower-cased, every character that is
 * not a letter, a digit, a space, `-` or `_` dropped, and each space a `-`.
 */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file offers: its headings' slugs (a repeated one gets -1, -2, …) and any `<a id|name>`. */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]);
      const times = seen.get(base) ?? 0;
      seen.set(base, times + 1);
      found.add(times === 0 ? base : `${base}-${times}`);
    }
    for (const html of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(html[1]);
  }
  return found;
}

export interface Link {
  target: string;
  line: number;
}

/** Every link and image of the file's prose, inline (`[text](target)`) or by reference (`[ref]: target`). */
export function links(text: string): Link[] {
  const found: Link[] = [];
  for (const { line, text: raw } of proseLines(text)) {
    const prose = withoutCode(raw);
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      found.push({ target: match[1], line });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose);
    if (definition) found.push({ target: definition[1], line });
  }
  return found;
}

/** Whether a link leaves the repository (a URL with a scheme, or mail). */
export const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
