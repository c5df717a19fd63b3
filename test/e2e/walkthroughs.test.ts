// Runs the curl walkthroughs of the README and the guides as written: every ```sh block of each
// section, against a real server, and checks that the answer of its last command contains the
// ```json block after it. Every `## Walkthrough…` section of README.md and docs/*.md is run
// (keys mode's, which needs a shell session and a keyed server, has walkthrough-keys.test.ts), so
// a guide and its answers cannot drift apart.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import {
  assertContains,
  at,
  fencedBlocks,
  GUIDE_URL,
  guideLines,
  REPO_ROOT,
  sectionOf,
  shellCommands,
} from '../support/guide.ts';
import { startTestServer, type TestServer } from '../support/http.ts';

const run = promisify(execFile);

/** The walkthroughs, where each is, in the order they run (each starts from a reset). */
const WALKTHROUGHS = [
  { file: 'README.md', heading: 'A five-minute tour' },
  { file: 'docs/agents.md', heading: "Walkthrough: an agent's loop (read, dry-run the close, move with `If-Match`)" },
  { file: 'docs/agents.md', heading: 'Walkthrough: what the gate refused' },
  { file: 'docs/agents.md', heading: 'Walkthrough: the agent sells a deal' },
  { file: 'docs/sellers-and-closers.md', heading: 'Walkthrough: a human closer through the marketplace' },
];

interface Step {
  commands: string[];
  expected?: unknown;
  line: number;
}

/** A section's steps: its sh blocks' commands, each with the documented answer after it. */
function walkthroughSteps(file: string, heading: string): Step[] {
  const lines = guideLines(file);
  const { from, stop } = sectionOf(lines, heading);
  const steps: Step[] = [];
  for (const block of fencedBlocks(lines, from, stop)) {
    if (block.lang === 'sh') steps.push({ commands: shellCommands(block.body), line: block.line });
    else if (block.lang === 'json') {
      const last = steps.at(-1);
      assert.ok(last && last.expected === undefined, `${at(file, block.line)}: a json block must follow a sh block`);
      last.expected = JSON.parse(block.body);
    }
  }
  return steps;
}

/** Every `## Walkthrough` heading of the README and the guides, as `file: heading`. */
function walkthroughHeadings(): string[] {
  const docs = readdirSync(new URL('docs/', REPO_ROOT))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].flatMap((file) =>
    guideLines(file)
      .filter((line) => line.startsWith('## Walkthrough'))
      .map((line) => `${file}: ${line.slice(3)}`),
  );
}

describe('the walkthroughs of the README and the guides run as written', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer();
  });
  after(() => api.close());

  it('every walkthrough of the README and docs/ is run here, each with documented answers', () => {
    const listed = WALKTHROUGHS.filter((w) => w.heading.startsWith('Walkthrough')).map(
      (w) => `${w.file}: ${w.heading}`,
    );
    assert.deepEqual(walkthroughHeadings().sort(), listed.sort());
    for (const { file, heading } of WALKTHROUGHS) {
      const answered = walkthroughSteps(file, heading).filter((s) => s.expected !== undefined);
      assert.ok(answered.length >= 4, `${file}: ${heading} has ${answered.length} documented answers`);
    }
  });

  for (const { file, heading } of WALKTHROUGHS) {
    it(`${file}: ${heading}`, async () => {
      for (const step of walkthroughSteps(file, heading)) {
        let output = '';
        for (const command of step.commands) {
          assert.match(command, /^curl /, `${at(file, step.line)}: only curl commands`);
          // curl runs in another process; the server answers from this one, so never block here.
          ({ stdout: output } = await run('bash', ['-c', command.replaceAll(GUIDE_URL, api.url)]));
        }
        if (step.expected !== undefined) assertContains(JSON.parse(output), step.expected, at(file, step.line));
      }
    });
  }
});
