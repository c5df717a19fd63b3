// Runs the keys-mode walkthroughs as written: the section "Keys mode: accounts, keys and tenants"
// of docs/sellers-and-closers.md and "People: the first accounts and a team" of docs/production.md. Every
// ```sh block, command by command, in one shell session (a variable a command sets, such as
// SELLER_KEY, is there for the next), against a real keys-mode server, and checks each ```json
// block against the answer of the last command before it that printed one, and each ```text block
// line by line against its output. A section's `npm start` line starts that server instead, with
// the OPERATOR_KEY its own first line made; one that names SMTP_URL gets a real SMTP server on
// loopback in its place, and every person the section invites must receive their invitation.
// In the documented answers `…` stands for any text (a key, a time). The guides and this test
// cannot drift apart.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { REPO } from '../support/cli.ts';
import { assertContains, at, fencedBlocks, GUIDE_URL, guideLines, sectionOf, shellCommands } from '../support/guide.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { type Mailbox, startMailbox } from '../support/mailbox.ts';

const run = promisify(execFile);
const SECTIONS = [
  { file: 'docs/sellers-and-closers.md', section: 'Keys mode: accounts, keys and tenants', least: 20 },
  { file: 'docs/production.md', section: 'People: the first accounts and a team', least: 4 },
];

interface Step {
  commands: string[];
  line: number;
  json?: unknown;
  text?: string[];
}

/** The section's steps: each sh block's commands, and the json or text block after it. */
function sectionSteps(FILE: string, SECTION: string): Step[] {
  const lines = guideLines(FILE);
  const { from, stop } = sectionOf(lines, SECTION);
  const steps: Step[] = [];
  for (const block of fencedBlocks(lines, from, stop)) {
    if (block.lang === 'sh') steps.push({ commands: shellCommands(block.body), line: block.line });
    else if (block.lang === 'json' || block.lang === 'text') {
      const last = steps.at(-1);
      assert.ok(
        last && last.json === undefined && last.text === undefined,
        `${at(FILE, block.line)}: one answer per sh block`,
      );
      if (block.lang === 'json') last.json = JSON.parse(block.body);
      else last.text = block.body.split('\n').filter((l) => l.trim() !== '');
    }
  }
  return steps;
}

/** A documented line of a table or message: its words in order, any spacing, `…` any text. */
function lineMatcher(line: string): RegExp {
  const words = line
    .trim()
    .split(/\s+/)
    .map((word) =>
      word
        .split('…')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*'),
    );
  return new RegExp(`^${words.join('\\s+')}\\s*$`);
}

for (const { file: FILE, section: SECTION, least } of SECTIONS)
  describe(`${FILE} (${SECTION}): run as written`, () => {
    const steps = sectionSteps(FILE, SECTION);
    const work = mkdtempSync(join(tmpdir(), 'walkthrough-keys-'));
    const envFile = join(work, 'env');
    let api: TestServer | undefined;
    let mailbox: Mailbox | undefined;
    // The shell session's variables, carried from one command to the next.
    let env: NodeJS.ProcessEnv = { ...process.env };
    delete env.PIPELINE_KEY;
    delete env.OPERATOR_KEY;

    after(async () => {
      await api?.close();
      await mailbox?.close();
      rmSync(work, { recursive: true, force: true });
    });

    /** One command in the session: its stdout; the variables it set are kept. */
    async function shell(command: string, line: number): Promise<string> {
      const script = `set -a\n${command}\n__status=$?\nenv -0 > "$__ENV_FILE"\nexit $__status`;
      const { stdout } = await run('bash', ['-c', script], {
        cwd: REPO,
        env: { ...env, __ENV_FILE: envFile },
        timeout: 60_000,
      }).catch((error: { stderr?: string; message: string }) => {
        throw new Error(`${at(FILE, line)}: ${command}\n${error.stderr ?? error.message}`);
      });
      env = Object.fromEntries(
        readFileSync(envFile, 'utf8')
          .split('\0')
          .filter((entry) => entry.includes('=') && !entry.startsWith('__ENV_FILE='))
          .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
      );
      return stdout;
    }

    it('the section has its steps, most with a documented answer', () => {
      assert.ok(steps.length >= least, `${steps.length} steps`);
      assert.ok(steps.filter((s) => s.json !== undefined || s.text !== undefined).length >= least);
    });

    it('runs as written', async () => {
      for (const step of steps) {
        let printed = '';
        let all = '';
        for (const command of step.commands) {
          if (/\bnpm start\b/.test(command)) {
            // The service the guide starts: a test server in keys mode with the key made above.
            assert.match(command, /AUTH=keys/, `${at(FILE, step.line)}: the walkthrough runs in keys mode`);
            assert.ok(env.OPERATOR_KEY && env.OPERATOR_KEY.length >= 32, 'OPERATOR_KEY was made before the start');
            // D-64: the SMTP server the guide names is a real one on loopback here.
            if (/\bSMTP_URL=/.test(command)) mailbox = await startMailbox();
            const smtp = mailbox ? { smtpUrl: mailbox.url, mailRetryBaseMs: 50 } : {};
            api = await startTestServer({ config: { auth: 'keys', operatorKey: env.OPERATOR_KEY, ...smtp } });
            continue;
          }
          if (command.includes(GUIDE_URL)) assert.ok(api, `${at(FILE, step.line)}: the service is started first`);
          assert.match(
            command,
            /^(curl |npx sales-pipeline-gate |export |[A-Z_]+=\$\()/,
            `${at(FILE, step.line)}: only curl, the command line and variables`,
          );
          const output = await shell(command.replaceAll(GUIDE_URL, api?.url ?? GUIDE_URL), step.line);
          if (output.trim() !== '') printed = output;
          all += output;
          // Each person invited is mailed their invitation, with its link.
          const invited = /users create .*--email (\S+)/.exec(command)?.[1];
          if (invited !== undefined && mailbox !== undefined)
            await mailbox.link(invited.replace(/^['"]|['"]$/g, ''), 'accept');
        }
        if (step.json !== undefined) {
          let actual: unknown;
          try {
            actual = JSON.parse(printed);
          } catch {
            assert.fail(`${at(FILE, step.line)}: the answer is not JSON: ${printed}`);
          }
          assertContains(actual, step.json, at(FILE, step.line));
        }
        if (step.text !== undefined) {
          const got = all
            .replaceAll(api?.url ?? GUIDE_URL, GUIDE_URL)
            .trimEnd()
            .split('\n');
          for (const expected of step.text) {
            const pattern = lineMatcher(expected);
            assert.ok(
              got.some((line) => pattern.test(line)),
              `${at(FILE, step.line)}: no line of the output is\n  ${expected}\noutput:\n${got.join('\n')}`,
            );
          }
        }
      }
    });
  });
