// The mail the service under test sends, as the end-to-end tests read it (D-64): the real SMTP
// server on loopback of smtp-receiver.ts (SMTP_URL, its credentials and all), and a wait for the
// mail to a person and the link in it.
import { type ReceivedMail, startSmtpReceiver } from './smtp-receiver.ts';

export interface Mailbox {
  /** The SMTP_URL that reaches it. */
  url: string;
  received: readonly ReceivedMail[];
  /** Waits for a mail to `to` whose text matches `pattern` (the nth such, from 0), and answers it. */
  waitFor(to: string, pattern?: RegExp, nth?: number, timeoutMs?: number): Promise<ReceivedMail>;
  /** The link (`…/console/#/<kind>/<token>`) of the nth mail to `to` of that kind, whole. */
  link(to: string, kind: 'accept' | 'reset', nth?: number): Promise<string>;
  close(): Promise<void>;
}

/** Whether a mail went to `to` (compared without regard to case, as emails are). */
export const mailedTo = (mail: ReceivedMail, to: string): boolean =>
  mail.rcptTo.some((address) => address.toLowerCase() === to.toLowerCase());

export async function startMailbox(): Promise<Mailbox> {
  const receiver = await startSmtpReceiver();
  const waitFor: Mailbox['waitFor'] = async (to, pattern = /./, nth = 0, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = receiver.received.filter((mail) => mailedTo(mail, to) && pattern.test(mail.text));
      if (found.length > nth) return found[nth];
      if (Date.now() > deadline)
        throw new Error(`no mail to ${to} matching ${pattern} (${receiver.received.length} received)`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return {
    url: receiver.url,
    get received() {
      return receiver.received;
    },
    waitFor,
    async link(to, kind, nth = 0) {
      const pattern = new RegExp(`https?://\\S+/console/#/${kind}/[A-Za-z0-9_-]{43}`);
      const mail = await waitFor(to, pattern, nth);
      return (pattern.exec(mail.text) as RegExpExecArray)[0];
    },
    close: () => receiver.close(),
  };
}

/** The token at the end of a mailed link. */
export const tokenOf = (link: string): string => link.slice(link.lastIndexOf('/') + 1);
