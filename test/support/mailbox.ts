// A real SMTP server on loopback (the `smtp-server` package) for the tests of D-64: the service
// under test sends its mail here (SMTP_URL), and a test reads the links from what arrived.
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message (headers and body), as the SMTP server received it. */
  raw: string;
}

export interface Mailbox {
  /** The SMTP_URL that reaches it. */
  url: string;
  received: ReceivedMail[];
  /** Waits for a mail to `to` whose raw text matches `pattern` (the nth such, from 0), and answers it. */
  waitFor(to: string, pattern?: RegExp, nth?: number, timeoutMs?: number): Promise<ReceivedMail>;
  /** The link (`/console/#/<kind>/<token>`) of the nth mail to `to` of that kind, whole. */
  link(to: string, kind: 'accept' | 'reset', nth?: number): Promise<string>;
  close(): Promise<void>;
}

/** Undoes quoted-printable soft breaks and escapes, enough to read a link back out of a text mail. */
export function readable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

export async function startMailbox(): Promise<Mailbox> {
  const received: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw: readable(Buffer.concat(chunks).toString('utf8')),
        });
        for (const wake of waiters) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const waitFor: Mailbox['waitFor'] = async (to, pattern = /./, nth = 0, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = received.filter((mail) => mail.to.includes(to.toLowerCase()) && pattern.test(mail.raw));
      if (found.length > nth) return found[nth];
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to} matching ${pattern} (${received.length} received)`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(left, 200));
        waiters.add(wake);
      });
    }
  };

  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    waitFor,
    async link(to, kind, nth = 0) {
      const pattern = new RegExp(`https?://[^\\s]+/console/#/${kind}/[A-Za-z0-9_-]{43}`);
      const mail = await waitFor(to, pattern, nth);
      return (pattern.exec(mail.raw) as RegExpExecArray)[0];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token at the end of a mailed link. */
export const tokenOf = (link: string): string => link.slice(link.lastIndexOf('/') + 1);
