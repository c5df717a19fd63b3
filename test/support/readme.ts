// The README's fenced blocks, for the tests that run its walkthroughs as written.

export interface Block {
  /** The fence's language: sh, json, text… */
  lang: string;
  body: string;
  /** The README line (0-based) the block's body starts on. */
  line: number;
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
