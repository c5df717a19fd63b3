// `users create|list|disable|enable` on the command line (D-62), run as a user runs them
// (bin/sales-pipeline-gate.mjs, the key in PIPELINE_KEY) against a keys-mode server whose mail
// goes to a real SMTP server on loopback: the invitation arrives, the person accepts it, the
// table shows them active, and a disabling signs them out.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliWith } from '../support/cli.ts';
import type { TestServer } from '../support/http.ts';
import { makeSeller, OP, startKeysServer } from '../support/keys.ts';
import { type Mailbox, startMailbox } from '../support/mailbox.ts';
import { accept, asPerson } from '../support/people.ts';

function run(...args: string[]) {
  return cliWith({ ...process.env, PIPELINE_KEY: OP }, ...args);
}

describe('people on the command line (keys mode)', () => {
  let t: TestServer;
  let mailbox: Mailbox;
  let sellerId: string;
  before(async () => {
    mailbox = await startMailbox();
    t = await startKeysServer({ smtpUrl: mailbox.url, mailRetryBaseMs: 50 });
    sellerId = await makeSeller(t, 'CLI People Seller');
  });
  after(async () => {
    await t?.close();
    await mailbox?.close();
  });

  it('users create invites (id on stdout), list shows invited then active, disable ends the sessions', async () => {
    const made = await run(
      'users',
      'create',
      t.url,
      '--email',
      'cli.admin@seller.example',
      '--name',
      'Cli Admin Fictional',
      '--role',
      'admin',
      '--principal',
      sellerId,
    );
    assert.equal(made.code, 0, made.stderr);
    const id = made.stdout.trim();
    assert.match(id, /^usr_\d{4}$/);
    assert.match(made.stderr, /invited .* admin of seller_\d{4}/);
    const invited = await run('users', 'list', t.url, '--principal', sellerId);
    assert.equal(invited.code, 0, invited.stderr);
    const [header, row] = invited.stdout.trimEnd().split('\n');
    assert.deepEqual(header.split(/\s{2,}/), ['ID', 'EMAIL', 'NAME', 'ROLE', 'PRINCIPAL', 'STATUS', 'LAST SIGN-IN']);
    assert.match(
      row,
      new RegExp(`^${id}\\s+cli.admin@seller.example\\s+Cli Admin Fictional\\s+admin\\s+${sellerId}\\s+invited`),
    );
    const cookie = await accept(t, mailbox, 'cli.admin@seller.example');
    assert.match((await run('users', 'list', t.url)).stdout, new RegExp(`${id}.*active`));
    // A Seller's last admin cannot be disabled: the service's refusal, exit 1.
    const refused = await run('users', 'disable', t.url, id);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /409 LAST_ADMIN/);
    const second = await run(
      'users',
      'create',
      t.url,
      '--email',
      'cli.rep@seller.example',
      '--name',
      'Rep',
      '--role',
      'admin',
      '--principal',
      sellerId,
    );
    assert.equal(second.code, 0, second.stderr);
    const disabled = await run('users', 'disable', t.url, id);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.match(disabled.stdout, /disabled usr_\d{4} .* disabled at/);
    assert.equal((await asPerson(t, cookie).get(`${t.prefix}/deals`)).status, 401);
    assert.equal((await run('users', 'enable', t.url, id)).code, 0);
  });

  it('a command line that cannot run: exit 2 with the usage', async () => {
    const missing = await run('users', 'create', t.url, '--email', 'x@y.example');
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--email E --name N --role R/);
    const unknown = await run('users', 'promote', t.url);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /create, list, disable, enable/);
  });
});
