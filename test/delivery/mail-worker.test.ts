// The mail worker (D-64) over the in-memory store, sending to a real SMTP server on loopback:
// each message is sent once, with its link drawn again from the nonce, retried with back-off
// while the server refuses and given up after the last attempt; two workers over one outbox
// never send a message twice; the log transport logs the link and sends nothing, the SMTP
// transport never logs a token; stopping never waits on a server that does not answer.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { describeSmtpUrl, logTransport, type MailTransport, smtpTransport } from '../../src/delivery/mail-transport.ts';
import { MailWorker, type MailWorkerOptions, retryDelayMs } from '../../src/delivery/mail-worker.ts';
import { TokenSeal } from '../../src/service/token-seal.ts';
import type { MailMessage } from '../../src/store/mail.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { SMTP_PASSWORD, SMTP_USER, startSmtpReceiver } from '../support/smtp-receiver.ts';

const FROM = 'Pipeline tests <no-reply@pipeline.example.com>';
const LINK_BASE = 'https://pipeline.example.com/invitations/accept?token=';
const seal = new TokenSeal('mail-worker-test-operator-key-0123456789abcdef');
const clock = { now: () => Date.now() };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds (polled), or fails saying what was awaited. */
async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

let sequence = 0;
/** A message put into the outbox, as the service writes one; its token is seal.textOf(nonce). */
async function putMessage(store: MemoryStore, overrides: Partial<MailMessage> = {}): Promise<MailMessage> {
  sequence++;
  const now = Date.now();
  const message: MailMessage = {
    id: `mail_test${String(sequence).padStart(4, '0')}`,
    principal: 'seller_0001',
    to: `invitee${sequence}@example.com`,
    subject: `You are invited (${sequence})`,
    text: 'Hello,\n\nFollow this link to set your password:\n{{link}}\n\nThe link works once.',
    linkBase: LINK_BASE,
    nonce: seal.draw().nonce,
    createdAt: now,
    attempts: 0,
    nextAttemptAt: now,
    ...overrides,
  };
  await store.transaction((uow) => uow.mail.putMail(message));
  return message;
}

const stored = (store: MemoryStore, id: string) => store.read((reader) => reader.mail.getMail(id));
const linkOf = (message: MailMessage) => LINK_BASE + seal.textOf(message.nonce);

/** A pino logger whose lines a test reads back. */
function capturedLog() {
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  return { log, lines, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const workers: MailWorker[] = [];
function worker(
  store: MemoryStore,
  transport: MailTransport,
  options: Partial<MailWorkerOptions> = {},
  log?: pino.Logger,
) {
  const made = new MailWorker(
    store,
    clock,
    seal,
    transport,
    { from: FROM, retryBaseMs: 50, pollMs: 60_000, ...options },
    log,
  );
  workers.push(made);
  return made;
}

after(async () => {
  await Promise.all(workers.map((made) => made.stop()));
});

describe('the mail worker (D-64)', () => {
  it('sends a message once, from MAIL_FROM to its recipient, with the link its nonce draws; then marks it sent', async () => {
    const smtp = await startSmtpReceiver();
    try {
      const store = new MemoryStore();
      const message = await putMessage(store);
      const mail = worker(store, smtpTransport(smtp.url));
      mail.start();
      await until('the message marked sent', async () => (await stored(store, message.id))?.sentAt !== undefined);
      assert.equal(smtp.received.length, 1);
      const [got] = smtp.received;
      assert.deepEqual(got.rcptTo, [message.to]);
      assert.equal(got.mailFrom, 'no-reply@pipeline.example.com');
      assert.equal(got.headers.get('from'), FROM);
      assert.equal(got.headers.get('to'), message.to);
      assert.equal(got.headers.get('subject'), message.subject);
      assert.equal(got.user, SMTP_USER, "SMTP_URL's credentials are used");
      assert.ok(got.text.includes(`link to set your password:\n${linkOf(message)}\n`), got.text);
      assert.ok(!got.text.includes('{{link}}'));
      const sent = await stored(store, message.id);
      assert.equal(sent?.attempts, 1);
      assert.equal(sent?.failedAt, undefined);

      // Woken again (commits, the timer): nothing is sent twice.
      mail.wake();
      mail.wake();
      await sleep(300);
      assert.equal(smtp.received.length, 1);
      assert.equal(smtp.attempts, 1);
    } finally {
      await smtp.close();
    }
  });

  it('a commit wakes it: a message put while it idles is sent without waiting for the poll', async () => {
    const smtp = await startSmtpReceiver();
    try {
      const store = new MemoryStore();
      const mail = worker(store, smtpTransport(smtp.url));
      mail.start();
      await sleep(50);
      const message = await putMessage(store);
      mail.wake();
      await until(
        'the message marked sent',
        async () => (await stored(store, message.id))?.sentAt !== undefined,
        2_000,
      );
      assert.equal(smtp.received.length, 1);
    } finally {
      await smtp.close();
    }
  });

  it('retries a message the server refuses (451) after the back-off, then sends it', async () => {
    const smtp = await startSmtpReceiver((attempt) =>
      attempt === 1 ? { code: 451, message: 'Try again later' } : 'accept',
    );
    try {
      const store = new MemoryStore();
      const message = await putMessage(store);
      const mail = worker(store, smtpTransport(smtp.url), { retryBaseMs: 200 });
      const started = Date.now();
      mail.start();
      await until('the first attempt refused', async () => (await stored(store, message.id))?.lastError !== undefined);
      const failed = await stored(store, message.id);
      assert.equal(failed?.attempts, 1);
      assert.match(failed?.lastError ?? '', /451/);
      assert.ok((failed?.nextAttemptAt ?? 0) >= started + 200, 'due again after the back-off');
      assert.equal(smtp.received.length, 0);
      await until('the message sent on the retry', async () => (await stored(store, message.id))?.sentAt !== undefined);
      assert.ok(Date.now() - started >= 200, 'not retried before the back-off');
      const sent = await stored(store, message.id);
      assert.equal(sent?.attempts, 2);
      assert.equal(smtp.received.length, 1);
      assert.ok(smtp.received[0].text.includes(linkOf(message)));
    } finally {
      await smtp.close();
    }
  });

  it('gives a message up after maxAttempts (failedAt), and never sends it again', async () => {
    const smtp = await startSmtpReceiver(() => ({ code: 550, message: 'No such mailbox' }));
    try {
      const store = new MemoryStore();
      const message = await putMessage(store);
      const mail = worker(store, smtpTransport(smtp.url), { retryBaseMs: 20, maxAttempts: 3 });
      mail.start();
      await until('the message given up', async () => (await stored(store, message.id))?.failedAt !== undefined);
      const given = await stored(store, message.id);
      assert.equal(given?.attempts, 3);
      assert.equal(given?.sentAt, undefined);
      assert.match(given?.lastError ?? '', /550/);
      assert.equal(smtp.attempts, 3);
      assert.equal(await store.read((reader) => reader.mail.nextMailDue()), undefined, 'nothing is due any more');
      mail.wake();
      await sleep(300);
      assert.equal(smtp.attempts, 3);
      assert.equal(smtp.received.length, 0);
    } finally {
      await smtp.close();
    }
  });

  it('the back-off doubles from the base and is capped at 6 hours', () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, 30_000)),
      [30_000, 60_000, 120_000, 240_000],
    );
    assert.equal(retryDelayMs(40, 30_000), 6 * 60 * 60 * 1000);
  });

  it('two workers over one outbox, woken at once, send each message once', async () => {
    const smtp = await startSmtpReceiver();
    try {
      const store = new MemoryStore();
      const messages = await Promise.all(Array.from({ length: 12 }, () => putMessage(store)));
      const first = worker(store, smtpTransport(smtp.url));
      const second = worker(store, smtpTransport(smtp.url));
      first.start();
      second.start();
      first.wake();
      second.wake();
      await until('every message sent', async () => {
        const rows = await Promise.all(messages.map((message) => stored(store, message.id)));
        return rows.every((row) => row?.sentAt !== undefined);
      });
      await sleep(200);
      assert.equal(smtp.received.length, messages.length);
      assert.equal(smtp.attempts, messages.length);
      const subjects = smtp.received.map((got) => got.headers.get('subject'));
      assert.deepEqual(new Set(subjects), new Set(messages.map((message) => message.subject)));
      for (const message of messages) assert.equal((await stored(store, message.id))?.attempts, 1);
    } finally {
      await smtp.close();
    }
  });

  it('the log transport (SMTP_URL unset) logs the link at info and sends nothing', async () => {
    const { log, records } = capturedLog();
    const store = new MemoryStore();
    const message = await putMessage(store);
    const mail = worker(store, logTransport(log), {}, log);
    mail.start();
    await until('the message marked sent', async () => (await stored(store, message.id))?.sentAt !== undefined);
    const lines = records().filter((record) => record.msg === 'mail (not sent: SMTP_URL is unset)');
    assert.equal(lines.length, 1);
    assert.equal(lines[0].level, 30, 'at info');
    assert.equal(lines[0].link, linkOf(message));
    assert.deepEqual(lines[0].mail, { to: message.to, subject: message.subject });
    assert.equal(logTransport(log).describe(), 'the log (SMTP_URL is unset)');
  });

  it('the SMTP transport never logs a token or the credentials, even when the server refuses', async () => {
    const smtp = await startSmtpReceiver((attempt) =>
      attempt === 1 ? { code: 451, message: 'Try again later' } : 'accept',
    );
    try {
      const { log, lines, records } = capturedLog();
      const store = new MemoryStore();
      const message = await putMessage(store);
      const transport = smtpTransport(smtp.url);
      const mail = worker(store, transport, {}, log);
      mail.start();
      await until('the message sent on the retry', async () => (await stored(store, message.id))?.sentAt !== undefined);
      assert.ok(
        records().some((record) => record.level === 40 && record.msg === 'mail not sent; retried later'),
        'the refusal is logged as a warning',
      );
      const token = seal.textOf(message.nonce);
      for (const line of lines) {
        assert.ok(!line.includes(token), `a log line holds the token: ${line}`);
        assert.ok(!line.includes(SMTP_PASSWORD), `a log line holds the password: ${line}`);
      }
      assert.ok(smtp.received[0].text.includes(token), 'the mail itself holds it');
      assert.match(transport.describe(), /^smtp:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(describeSmtpUrl('smtps://u:p@mail.example.com'), 'smtps://mail.example.com:465');
      assert.equal(describeSmtpUrl('smtp://u:p@mail.example.com'), 'smtp://mail.example.com:587');
    } finally {
      await smtp.close();
    }
  });

  it('an attempt the server never answers times out, is recorded failed and retried', async () => {
    const smtp = await startSmtpReceiver((attempt) => (attempt === 1 ? 'hang' : 'accept'));
    try {
      const store = new MemoryStore();
      const message = await putMessage(store);
      const mail = worker(store, smtpTransport(smtp.url), { sendTimeoutMs: 300, retryBaseMs: 50 });
      mail.start();
      await until('the message sent on the retry', async () => (await stored(store, message.id))?.sentAt !== undefined);
      const sent = await stored(store, message.id);
      assert.equal(sent?.attempts, 2);
      assert.match(sent?.lastError ?? '', /abort|timeout/i);
      assert.equal(smtp.hanging, 1);
      assert.equal(smtp.received.length, 1);
    } finally {
      await smtp.close();
    }
  });

  it('stop() while the server hangs returns within its grace, the attempt recorded failed', async () => {
    const smtp = await startSmtpReceiver(() => 'hang');
    try {
      const store = new MemoryStore();
      const message = await putMessage(store);
      const mail = worker(store, smtpTransport(smtp.url), { stopGraceMs: 200, retryBaseMs: 60_000 });
      mail.start();
      await until('the server holding the message', () => smtp.hanging === 1);
      const stopping = Date.now();
      await mail.stop();
      assert.ok(Date.now() - stopping < 2_000, `stop took ${Date.now() - stopping} ms`);
      const failed = await stored(store, message.id);
      assert.equal(failed?.attempts, 1);
      assert.equal(failed?.sentAt, undefined);
      assert.match(failed?.lastError ?? '', /abort|stopped/i);
      mail.wake();
      await sleep(100);
      assert.equal(smtp.attempts, 1, 'a stopped worker claims nothing');
    } finally {
      await smtp.close();
    }
  });
});
