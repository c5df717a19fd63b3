// A real SMTP server on loopback (the smtp-server package) for the mail tests: it keeps every
// message it accepts, and a test decides what it answers to each attempt (accept, refuse with a
// reply code, or never answer). Plain text only: STARTTLS is off, AUTH is taken over the plain
// connection, so that SMTP_URL's credentials are exercised too.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope's sender and recipients. */
  mailFrom: string;
  rcptTo: string[];
  /** The user the client logged in as, if it did. */
  user?: string;
  headers: Map<string, string>;
  /** The body, decoded (quoted-printable or base64). */
  text: string;
  raw: string;
}

/** What the server does with an attempt (counted from 1 over every RCPT TO it sees). */
export type Answer = 'accept' | 'hang' | { code: number; message: string };

export interface SmtpReceiver {
  /** `smtp://user:password@127.0.0.1:port`. */
  url: string;
  received: ReceivedMail[];
  /** RCPT TO commands seen: one per attempt. */
  attempts: number;
  /** Attempts whose DATA is being held (the `hang` answer). */
  hanging: number;
  close(): Promise<void>;
}

export const SMTP_USER = 'mailer';
export const SMTP_PASSWORD = 'smtp-secret-password';

const refusal = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/** Unfolded headers (lower-case names) and the decoded body of a raw message. */
export function parseMail(raw: string): { headers: Map<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const body = raw.slice(split + 4);
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? body
          .replace(/=\r\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return { headers, text: text.replace(/\r\n/g, '\n') };
}

export async function startSmtpReceiver(answer: (attempt: number) => Answer = () => 'accept'): Promise<SmtpReceiver> {
  const state = { received: [] as ReceivedMail[], attempts: 0, hanging: 0 };
  /** The answer each session's attempt got at RCPT TO, for its DATA. */
  const answers = new Map<string, Answer>();
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    // Closing does not wait for a client that holds its connection open.
    closeTimeout: 100,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username });
      else callback(refusal(535, 'authentication failed'));
    },
    onRcptTo(_address, session, callback) {
      state.attempts++;
      const given = answer(state.attempts);
      answers.set(session.id, given);
      if (typeof given === 'object') callback(refusal(given.code, given.message));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (answers.get(session.id) === 'hang') {
          state.hanging++;
          return; // never answers
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        state.received.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          ...(typeof session.user === 'string' ? { user: session.user } : {}),
          ...parseMail(raw),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`,
    get received() {
      return state.received;
    },
    get attempts() {
      return state.attempts;
    },
    get hanging() {
      return state.hanging;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
