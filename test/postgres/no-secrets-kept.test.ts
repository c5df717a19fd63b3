// D-63, D-64: no password, token or key is ever kept in clear. A full journey of people on a
// keys-mode service over PostgreSQL, its log at `info` captured and its mail going to a real SMTP
// server on loopback: an invitation accepted, sign-ins right and wrong, a password reset and its
// confirmation, a key made by a person, a sign-out. Then every row of every table of the schema
// (read as the platform, past no policy) and every log line are searched for each secret the
// journey used: the passwords, the invitation's and the reset's tokens, the session cookies and
// the key. None may appear. The answers are searched for the passwords and tokens too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import { as, makeSeller, OP } from '../support/keys.ts';
import { type Mailbox, startMailbox, tokenOf } from '../support/mailbox.ts';
import { asPerson, cookieOf, invite } from '../support/people.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();

describe('no secret kept: the database and the log after a journey of people', { skip: server.skip }, () => {
  let schema: TestSchema;
  let mailbox: Mailbox;
  let t: TestServer;
  const log: string[] = [];
  const answers: string[] = [];
  const secrets = new Map<string, string>();

  before(async () => {
    schema = await createTestSchema(server.url as string, 'secrets');
    mailbox = await startMailbox();
    t = await startTestServer({
      config: { auth: 'keys', operatorKey: OP, smtpUrl: mailbox.url, mailRetryBaseMs: 50 },
      store: await createStore(schema.url, { poolSize: 4, ownerUrl: schema.ownerUrl }),
      logStream: { write: (line: string) => void log.push(line) },
    });
  });
  after(async () => {
    await t?.close();
    await mailbox?.close();
    await schema?.drop();
  });

  it('a journey: invited, accepted, signed in, reset, a key made, signed out', async () => {
    const seller = await makeSeller(t, 'Secrets Seller');
    const anon = as(t, {});
    const keep = <T extends { text: string }>(answer: T) => {
      answers.push(answer.text);
      return answer;
    };
    await invite(t, OP, { email: 'sam@secrets.example', name: 'Sam Fictional', role: 'admin', principal: seller });
    const invitation = tokenOf(await mailbox.link('sam@secrets.example', 'accept'));
    secrets.set('the invitation token', invitation);
    const first = 'first fictional passphrase 11';
    secrets.set('the first password', first);
    const accepted = keep(await anon.post('/users/accept', { token: invitation, password: first }));
    assert.equal(accepted.status, 200, accepted.text);
    secrets.set('the session cookie of the acceptance', cookieOf(accepted).split('=')[1]);
    keep(await anon.post('/console/session', { email: 'sam@secrets.example', password: 'a wrong passphrase 1' }));
    const signedIn = keep(await anon.post('/console/session', { email: 'sam@secrets.example', password: first }));
    assert.equal(signedIn.status, 200);
    const cookie = cookieOf(signedIn);
    secrets.set('the session cookie of the sign-in', cookie.split('=')[1]);
    const made = keep(await asPerson(t, cookie).post('/keys', { name: 'made by Sam' }));
    assert.equal(made.status, 201);
    secrets.set('the key Sam made', (made.body as { key: string }).key);
    keep(await anon.post('/users/password-reset', { email: 'sam@secrets.example' }));
    const reset = tokenOf(await mailbox.link('sam@secrets.example', 'reset'));
    secrets.set('the reset token', reset);
    const second = 'second fictional passphrase 22';
    secrets.set('the second password', second);
    const confirmed = keep(await anon.post('/users/password-reset/confirm', { token: reset, password: second }));
    assert.equal(confirmed.status, 200, confirmed.text);
    const again = keep(await anon.post('/console/session', { email: 'sam@secrets.example', password: second }));
    assert.equal((await asPerson(t, cookieOf(again)).post('/console/session/end', {})).status, 204);
    secrets.set('OPERATOR_KEY', OP);
  });

  it('no row of any table holds a secret', async () => {
    const rows = await sqlOn(schema.adminUrl, async (client) => {
      await client.query("SELECT set_config('pipeline.principal', 'platform', false)");
      const { rows: tables } = await client.query<{ name: string }>(
        'SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename',
      );
      const all: string[] = [];
      for (const { name } of tables) {
        const { rows: found } = await client.query<{ row: string }>(
          `SELECT row_to_json(t)::text AS row FROM "${name}" t`,
        );
        all.push(...found.map(({ row }) => `${name}: ${row}`));
      }
      return all;
    });
    assert.ok(
      rows.some((row) => row.startsWith('users: ')),
      'the users were read',
    );
    assert.ok(
      rows.some((row) => row.startsWith('mail_outbox: ')),
      'the mail outbox was read',
    );
    for (const [what, secret] of secrets) {
      const holding = rows.find((row) => row.includes(secret));
      assert.equal(holding, undefined, `${what} is stored in clear: ${holding?.slice(0, 200)}`);
    }
  });

  it('no log line holds a secret', () => {
    assert.ok(log.length > 10, 'the log was captured');
    for (const [what, secret] of secrets) {
      const holding = log.find((line) => line.includes(secret));
      assert.equal(holding, undefined, `${what} is in the log: ${holding?.slice(0, 200)}`);
    }
  });

  it('no answer holds a password or a token (a key only in the answer that made it)', () => {
    for (const what of ['the first password', 'the second password', 'the invitation token', 'the reset token']) {
      const secret = secrets.get(what) as string;
      assert.equal(
        answers.find((text) => text.includes(secret)),
        undefined,
        `${what} was answered`,
      );
    }
    const key = secrets.get('the key Sam made') as string;
    assert.equal(answers.filter((text) => text.includes(key)).length, 1);
  });
});
