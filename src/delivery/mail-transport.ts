// How the mail worker's messages leave (D-64): through the SMTP server of SMTP_URL, or, unset,
// into the log at `info`, so that a development machine or a demo sends nothing to anyone and
// the operator can still follow an invitation's link. A message's text holds a one-time token:
// the SMTP transport never logs it (nor the credentials of SMTP_URL); only the log transport
// does, since there the log is where the mail goes.
import { createTransport } from 'nodemailer';

/** One message, rendered: its text holds the link and its token. */
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** The link the text holds (the log transport logs it; the SMTP transport ignores it). */
  link?: string;
}

export interface MailTransport {
  /** Sends one message; throws when it was not accepted. `signal` aborts it (stop, a timeout). */
  send(mail: OutgoingMail, signal?: AbortSignal): Promise<void>;
  /** Where mail goes, for the start-up line: never a credential. */
  describe(): string;
  close?(): Promise<void>;
}

/** Short enough that a silent SMTP server fails an attempt well within the claim's lease. */
export const SMTP_TIMEOUT_MS = 10_000;

interface InfoLog {
  info(context: object, message: string): void;
}

/** `smtp://host:port` without user or password: what may be logged of SMTP_URL. */
export function describeSmtpUrl(url: string): string {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'smtps:';
  // nodemailer's defaults when the url names no port.
  const port = parsed.port || (secure ? '465' : '587');
  return `${parsed.protocol}//${parsed.hostname}:${port}`;
}

/** D-64: mail through SMTP_URL (`smtp://` or `smtps://`, with its credentials) by nodemailer. */
export function smtpTransport(url: string, options: { timeoutMs?: number } = {}): MailTransport {
  const timeoutMs = options.timeoutMs ?? SMTP_TIMEOUT_MS;
  // Not pooled: mail is rare, and a connection per message leaves nothing open between them.
  // nodemailer logs nothing unless given a logger, so no message text reaches any log.
  const transporter = createTransport({
    url,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
  });
  const where = describeSmtpUrl(url);
  return {
    async send(mail, signal) {
      await transporter.sendMail({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(signal ? { signal } : {}),
      });
    },
    describe: () => where,
    async close() {
      transporter.close();
    },
  };
}

/** The first http(s) url of a text: the link, when the worker did not say which it is. */
export function linkIn(text: string): string | undefined {
  return /https?:\/\/[^\s<>"]+/.exec(text)?.[0];
}

/** D-64: SMTP_URL unset, mail goes to the log at `info`, with its link: nothing leaves the machine. */
export function logTransport(log: InfoLog): MailTransport {
  return {
    async send(mail) {
      log.info(
        { mail: { to: mail.to, subject: mail.subject }, link: mail.link ?? linkIn(mail.text) },
        'mail (not sent: SMTP_URL is unset)',
      );
    },
    describe: () => 'the log (SMTP_URL is unset)',
  };
}
