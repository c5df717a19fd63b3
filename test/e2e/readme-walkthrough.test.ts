// Runs the README's walkthroughs as written: every ```sh block with curl, against a real
// server, and checks that the answer of its last command contains the ```json block after it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/http.ts';
import { assertContains, fencedBlocks, shellCommands } from '../support/readme.ts';

const run = promisify(execFile);

interface Step {
  commands: string[];
  expected?: unknown;
  line: number;
}

/** The walkthrough sections of the README as steps: shell commands, then the documented answer. */
function walkthroughSteps(markdown: string): { title: string; steps: Step[] }[] {
  const lines = markdown.split('\n');
  const sections: { title: string; steps: Step[] }[] = [];
  lines.forEach((line, at) => {
    if (!line.startsWith('## Walkthrough')) return;
    const section = { title: line.slice(3), steps: [] as Step[] };
    sections.push(section);
    for (const block of fencedBlocks(lines, at + 1, (next) => next.startsWith('## '))) {
      if (block.lang === 'sh') section.steps.push({ commands: shellCommands(block.body), line: block.line });
      else if (block.lang === 'json') {
        const last = section.steps.at(-1);
        assert.ok(
          last && last.expected === undefined,
          `README line ${block.line}: a json block must follow a sh block`,
        );
        last.expected = JSON.parse(block.body);
      }
    }
  });
  return sections;
}

describe('README walkthroughs run as written', () => {
  let api: TestServer;
  before(async () => {
    api = await startTestServer();
  });
  after(() => api.close());

  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const sections = walkthroughSteps(readme);

  it('the README has its four walkthroughs, each with documented answers', () => {
    assert.deepEqual(
      sections.map((s) => s.title),
      [
        "Walkthrough: an agent's loop (read, dry-run the close, move with `If-Match`)",
        'Walkthrough: what the gate refused',
        'Walkthrough: the agent sells a deal',
        'Walkthrough: a human closer through the marketplace',
      ],
    );
    for (const section of sections) assert.ok(section.steps.filter((s) => s.expected !== undefined).length >= 4);
  });

  for (const section of sections) {
    it(section.title, async () => {
      for (const step of section.steps) {
        let output = '';
        for (const command of step.commands) {
          assert.match(command, /^curl /, `README line ${step.line}: only curl commands`);
          // curl runs in another process; the server answers from this one, so never block here.
          ({ stdout: output } = await run('bash', ['-c', command.replaceAll('http://127.0.0.1:3000', api.url)]));
        }
        if (step.expected !== undefined) {
          assertContains(JSON.parse(output), step.expected, `README line ${step.line}`);
        }
      }
    });
  }
});
