// The operator's commands of keys mode (`keys create|list|revoke|roll`, `sellers create|list`)
// and a keyed `audit`, run as a user runs them (bin/sales-pipeline-gate.mjs, the key in
// PIPELINE_KEY) against a real keys-mode server: a new key alone on stdout, usable at once; a
// table that follows every page; the service's refusals on stderr with exit 1; a command line
// that cannot run (no PIPELINE_KEY, an unknown option) exit 2.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliWith } from '../support/cli.ts';
import { startTestServer, type TestServer } from '../support/http.ts';

const OPERATOR_KEY = 'op-test-key-0123456789-abcdefghijklmnopqrstuvwxyz';

/** The command line with PIPELINE_KEY set to `key` (unset when undefined). */
function run(key: string | undefined, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.PIPELINE_KEY;
  if (key !== undefined) env.PIPELINE_KEY = key;
  return cliWith(env, ...args);
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('keys and sellers on the command line (keys mode)', () => {
  let t: TestServer;
  let sellerId: string;
  before(async () => {
    // More keys of one Seller than a page holds (100), so more than KEYS_PER_PRINCIPAL's default allows (D-75).
    t = await startTestServer({ config: { auth: 'keys', operatorKey: OPERATOR_KEY, keysPerPrincipal: 1000 } });
  });
  after(() => t.close());

  it('sellers create prints the new id on stdout; sellers list is a table of every Seller', async () => {
    const made = await run(OPERATOR_KEY, 'sellers', 'create', t.url, '--name', 'Fictional Widgets Ltd');
    assert.equal(made.code, 0, made.stderr);
    sellerId = made.stdout.trim();
    assert.match(sellerId, /^seller_\d{4}$/);
    assert.match(made.stderr, new RegExp(`created Seller ${sellerId} "Fictional Widgets Ltd"`));
    const listed = await run(OPERATOR_KEY, 'sellers', 'list', t.url);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    assert.match(header, /^ID\s+NAME\s+CREATED$/);
    assert.equal(rows.length, 1);
    assert.match(rows[0], new RegExp(`^${sellerId}\\s+Fictional Widgets Ltd\\s+\\d{4}-\\d\\d-\\d\\dT`));
  });

  it('keys create prints the key alone on stdout, once; it works at once, with the scopes asked', async () => {
    const made = await run(
      OPERATOR_KEY,
      'keys',
      'create',
      t.url,
      '--name',
      'pricing agent',
      '--principal',
      sellerId,
      '--scope',
      'deals:read',
      '--scope',
      'deals:propose',
    );
    assert.equal(made.code, 0, made.stderr);
    const key = made.stdout.trim();
    assert.match(key, /^sp_sk_[0-9A-Za-z]{43}$/);
    assert.equal(made.stdout, `${key}\n`, 'nothing else on stdout');
    assert.match(
      made.stderr,
      new RegExp(`created key_\\d{4} \\(${key.slice(0, 12)}…\\) "pricing agent" of ${sellerId}`),
    );
    assert.match(made.stderr, /scopes deals:read deals:propose/);
    assert.doesNotMatch(made.stderr, new RegExp(key), 'the key is never on stderr');
    assert.equal((await t.get(`${t.prefix}/deals`, bearer(key))).status, 200);
    const sell = await t.post(`${t.prefix}/sell`, { account: { name: 'X' }, listValueUsd: 1000 }, bearer(key));
    assert.equal(sell.status, 403);
    assert.equal(sell.body.code, 'INSUFFICIENT_SCOPE');
  });

  it('keys list follows every page: a table of id, prefix, name, principal, scopes, times, revoked', async () => {
    // More keys than one page (100) holds.
    for (let i = 0; i < 100; i++) {
      const made = await t.post(
        '/keys',
        { name: `bulk ${i}`, principal: sellerId, scopes: ['deals:read'] },
        bearer(OPERATOR_KEY),
      );
      assert.equal(made.status, 201);
    }
    const listed = await run(OPERATOR_KEY, 'keys', 'list', t.url);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    assert.deepEqual(header.split(/\s{2,}/), [
      'ID',
      'PREFIX',
      'NAME',
      'PRINCIPAL',
      'SCOPES',
      'CREATED',
      'EXPIRES',
      'LAST USED',
      'REVOKED',
    ]);
    assert.equal(rows.length, 102, 'the operator key, the agent key and 100 more');
    assert.match(rows[0], /^key_0001\s+\S+\s+OPERATOR_KEY\s+operator\s+admin\s/);
    assert.match(
      rows[1],
      new RegExp(`^key_0002\\s+sp_sk_\\S+\\s+pricing agent\\s+${sellerId}\\s+deals:read,deals:propose\\s+\\S+\\s+-\\s`),
    );
    assert.match(listed.stderr, /102 keys/);
    const filtered = await run(OPERATOR_KEY, 'keys', 'list', t.url, '--principal', 'operator');
    assert.equal(filtered.code, 0, filtered.stderr);
    assert.equal(filtered.stdout.trimEnd().split('\n').length, 2);
  });

  it('keys roll prints the new key; the old one works for the grace period (0: not at all)', async () => {
    const made = await t.post('/keys', { name: 'to roll', principal: sellerId }, bearer(OPERATOR_KEY));
    const rolled = await run(OPERATOR_KEY, 'keys', 'roll', t.url, made.body.id, '--grace-seconds', '600');
    assert.equal(rolled.code, 0, rolled.stderr);
    const fresh = rolled.stdout.trim();
    assert.match(fresh, /^sp_sk_[0-9A-Za-z]{43}$/);
    assert.match(rolled.stderr, new RegExp(`rolled ${made.body.id} into key_\\d{4}`));
    assert.equal((await t.get(`${t.prefix}/deals`, bearer(fresh))).status, 200);
    assert.equal((await t.get(`${t.prefix}/deals`, bearer(made.body.key))).status, 200, 'still in its grace period');
    const again = await run(OPERATOR_KEY, 'keys', 'roll', t.url, made.body.id, '--grace-seconds=0');
    assert.equal(again.code, 0, again.stderr);
    // Refused within the 5 s every instance's key ring promises (D-52, D-212).
    const deadline = Date.now() + 5_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await t.get(`${t.prefix}/deals`, bearer(made.body.key))).status;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 401);
  });

  it('keys revoke: refused at once; a second roll of it is the service refusal on stderr, exit 1', async () => {
    const made = await t.post('/keys', { name: 'to revoke', principal: sellerId }, bearer(OPERATOR_KEY));
    const revoked = await run(OPERATOR_KEY, 'keys', 'revoke', t.url, made.body.id);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`^revoked ${made.body.id} .* at \\d{4}-`));
    const refused = await t.get(`${t.prefix}/deals`, bearer(made.body.key));
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'INVALID_KEY');
    const roll = await run(OPERATOR_KEY, 'keys', 'roll', t.url, made.body.id);
    assert.equal(roll.code, 1);
    assert.equal(roll.stdout, '');
    assert.match(roll.stderr, /answered 409 KEY_REVOKED: /);
  });

  it("the service's refusals: exit 1, with its status, code and message", async () => {
    const seller = await t.post('/keys', { name: 'seller', principal: sellerId }, bearer(OPERATOR_KEY));
    const denied = await run(seller.body.key, 'sellers', 'create', t.url, '--name', 'Another');
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /answered 403 INSUFFICIENT_SCOPE: .*\n\s+the key needs the scope admin/);
    const invalid = await run('sp_sk_not-a-key-the-service-made-0000000000', 'keys', 'list', t.url);
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /answered 401 INVALID_KEY/);
    const bad = await run(
      OPERATOR_KEY,
      'keys',
      'create',
      t.url,
      '--name',
      'x',
      '--principal',
      sellerId,
      '--scope',
      'gigs:work',
    );
    assert.equal(bad.code, 1);
    assert.match(
      bad.stderr,
      /answered 422 KEY_SCOPE_NOT_OF_PRINCIPAL: .*\n\s+scopes: "gigs:work" is not a scope of a seller's key/,
    );
    const unknown = await run(OPERATOR_KEY, 'keys', 'revoke', t.url, 'key_9999');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /answered 404 KEY_NOT_FOUND/);
  });

  it('a command line that cannot run: exit 2 with the usage (no PIPELINE_KEY, a bad option, no URL)', async () => {
    const noKey = await run(undefined, 'keys', 'list', t.url);
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /set PIPELINE_KEY/);
    assert.match(noKey.stderr, /Usage: /);
    const option = await run(OPERATOR_KEY, 'keys', 'create', t.url, '--name', 'x', '--key', 'y');
    assert.equal(option.code, 2);
    assert.match(option.stderr, /unknown option --key/);
    const noName = await run(OPERATOR_KEY, 'sellers', 'create', t.url);
    assert.equal(noName.code, 2);
    const noUrl = await run(OPERATOR_KEY, 'keys', 'list');
    assert.equal(noUrl.code, 2);
    const sub = await run(OPERATOR_KEY, 'keys', 'delete', t.url);
    assert.equal(sub.code, 2);
    assert.match(sub.stderr, /takes one of: create, list, revoke, roll/);
  });

  it('--help says the key comes from PIPELINE_KEY, never the command line', async () => {
    const help = await run(undefined, '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /keys create <base-url> --name N/);
    assert.match(help.stdout, /PIPELINE_KEY, never from the command line/);
  });

  it('audit sends PIPELINE_KEY: the operator key reads everything; without one the reads are refused', async () => {
    const audited = await run(OPERATOR_KEY, 'audit', t.url);
    assert.equal(audited.code, 0, audited.stderr);
    assert.match(audited.stdout, /^no violation in /m);
    const keyless = await run(undefined, 'audit', t.url);
    assert.equal(keyless.code, 2);
    assert.match(keyless.stderr, /401/);
  });
});
