// The mail worker as startServer wires it (D-64): keys mode only; the start-up line says where
// mail goes (never SMTP_URL's credentials); the outbox is sent at start and after a commit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenSeal } from '../../src/service/token-seal.ts';
import type { MailMessage } from '../../src/store/mail.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { startTestServer } from '../support/http.ts';
import { bearer, OP, startKeysServer } from '../support/keys.ts';
import { SMTP_PASSWORD, startSmtpReceiver } from '../support/smtp-receiver.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const seal = new TokenSeal(OP);
function message(id: string): MailMessage {
  const now = Date.now();
  return {
    id,
    principal: 'platform',
    to: `${id}@example.com`,
    subject: `Invitation ${id}`,
    text: 'Set your password: {{link}}',
    linkBase: 'https://pipeline.example.com/set-password#',
    nonce: seal.draw().nonce,
    createdAt: now,
    attempts: 0,
    nextAttemptAt: now,
  };
}

function captured() {
  const lines: string[] = [];
  return { lines, logStream: { write: (line: string) => void lines.push(line) } };
}

describe('the mail worker in the server (D-64)', () => {
  it('keys mode with SMTP_URL: says where mail goes without the credentials, sends at start and after a commit', async () => {
    const smtp = await startSmtpReceiver();
    const store = new MemoryStore();
    const first = message('mail_wired1');
    await store.transaction((uow) => uow.mail.putMail(first));
    const { lines, logStream } = captured();
    const t = await startTestServer({
      store,
      config: { auth: 'keys', operatorKey: OP, smtpUrl: smtp.url },
      logStream,
    });
    try {
      assert.ok(t.server.mail, 'the worker is exposed');
      const port = new URL(smtp.url).port;
      assert.ok(lines.some((line) => line.includes(`mail is sent through smtp://127.0.0.1:${port}`)));
      await until('the outbox sent at start', () => smtp.received.length === 1);
      assert.deepEqual(smtp.received[0].rcptTo, [first.to]);

      // A commit that writes mail wakes it (the fallback poll is 30 s away): an invitation.
      const invited = await fetch(`${t.url}/users`, {
        method: 'POST',
        headers: { ...bearer(OP), 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'wired@operator.example', name: 'Wired Fictional', role: 'operator' }),
      });
      assert.equal(invited.status, 201, await invited.text());
      await until('the message sent after the commit', () => smtp.received.length === 2, 3_000);
      assert.deepEqual(smtp.received[1].rcptTo, ['wired@operator.example']);
      assert.match(smtp.received[1].text, new RegExp(`${t.url}/console/#/accept/[A-Za-z0-9_-]{43}`));
    } finally {
      await t.close();
      await smtp.close();
    }
    for (const line of lines) {
      assert.ok(!line.includes(SMTP_PASSWORD), `a log line holds the password: ${line}`);
      assert.ok(!line.includes(seal.textOf(first.nonce)), `a log line holds a token: ${line}`);
    }
  });

  it('keys mode without SMTP_URL: mail goes to the log, with its link', async () => {
    const store = new MemoryStore();
    const only = message('mail_logged');
    await store.transaction((uow) => uow.mail.putMail(only));
    const { lines, logStream } = captured();
    const t = await startTestServer({ store, config: { auth: 'keys', operatorKey: OP }, logStream });
    try {
      assert.ok(lines.some((line) => line.includes('mail goes to the log (SMTP_URL is unset)')));
      await until('the message logged', () =>
        lines.some((line) => line.includes('mail (not sent: SMTP_URL is unset)')),
      );
      const logged = JSON.parse(lines.find((line) => line.includes('mail (not sent')) ?? '{}');
      assert.equal(logged.link, only.linkBase + seal.textOf(only.nonce));
    } finally {
      await t.close();
    }
  });

  it('the demo has no mail worker', async () => {
    const t = await startTestServer({ store: new MemoryStore(), config: { auth: 'demo' } });
    try {
      assert.equal(t.server.mail, undefined);
    } finally {
      await t.close();
    }
  });

  it('startKeysServer (TEST_STORE) starts with one and closes cleanly', async () => {
    const t = await startKeysServer();
    try {
      assert.ok(t.server.mail);
    } finally {
      await t.close();
    }
  });
});
