// The mail worker (D-64), one in every keys-mode instance: it sends the mail outbox
// (src/store/mail.ts) after the commits that filled it, so that an SMTP server slow or down never
// delays or fails a request. It claims due messages with a lease (one instance sends each
// message: a claim is not taken again before its lease ends), draws each link's one-time token
// again from the row's nonce (TokenSeal: no token is ever stored), sends, and records the
// outcome; a failure is retried with back-off, and given up after maxAttempts.
//
// Idle means idle, as for webhooks (D-249): a commit wakes it (one indexed read, and a claim only
// when something is due), a timer when the next message falls due (a retry, a lease that runs
// out), and a fallback poll catches what no wake-up reached (another instance's commits).
import type { TokenSeal } from '../service/token-seal.ts';
import type { MailMessage } from '../store/mail.ts';
import type { Store } from '../store/store.ts';
import type { MailTransport } from './mail-transport.ts';
import { Rounds } from './rounds.ts';
import type { MachineClock } from './webhook-worker.ts';

export interface MailWorkerOptions {
  /** MAIL_FROM: the sender of every message. */
  from: string;
  /** MAIL_RETRY_BASE_MS: the first retry's delay (30 s); each later one doubles, up to 6 hours. */
  retryBaseMs?: number;
  /** How long a claim holds a message (60 s): past it, another claim may send it. */
  leaseMs?: number;
  /** Attempts before a message is given up (8: about an hour of retries at the default base). */
  maxAttempts?: number;
  /** The fallback poll (30 s). */
  pollMs?: number;
  /** One attempt's bound, aborting it (30 s): below the lease, so that no other claim overlaps it. */
  sendTimeoutMs?: number;
  /** Messages claimed, and sent at once, per round. */
  batch?: number;
  /** How long stop() lets sends in flight finish before aborting them (5 s). */
  stopGraceMs?: number;
}

interface Log {
  warn(context: object, message: string): void;
  error(context: object, message: string): void;
}

export const MAX_RETRY_DELAY_MS = 6 * 60 * 60 * 1000;
/** Back-to-back rounds (commits keep coming) are spaced out by this. */
const ROUND_GAP_MS = 100;
/** D-57: the outbox holds every principal's mail; the worker is the platform's own work. */
const PLATFORM = { principal: 'platform' } as const;

/** The delay before the retry of a failed attempt (1 for the first): doubling, capped at 6 hours. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_RETRY_DELAY_MS);
}

/** A message's link (its base and the token its nonce draws) and its text with the link in place. */
export function renderMail(message: MailMessage, seal: TokenSeal): { link: string; text: string } {
  // A notification's mail (D-72) has no token: its link is the console's page itself.
  const link = message.nonce === '' ? message.linkBase : message.linkBase + seal.textOf(message.nonce);
  // A function, so that no `$` in the link is read as a replacement pattern.
  return { link, text: message.text.replaceAll('{{link}}', () => link) };
}

/** What is recorded and logged of a failure: the transport's words, never the message's. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 500);
  const code = (error as { code?: unknown }).code;
  return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}`.slice(0, 500);
}

export class MailWorker {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** When the earliest unsent message falls due, as the last round read it. */
  private nextDue: number | undefined;
  private readonly abort = new AbortController();
  private readonly retryBaseMs: number;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly pollMs: number;
  private readonly sendTimeoutMs: number;
  private readonly batch: number;
  private readonly stopGraceMs: number;

  constructor(
    private readonly store: Store,
    private readonly clock: MachineClock,
    private readonly seal: TokenSeal,
    private readonly transport: MailTransport,
    private readonly options: MailWorkerOptions,
    private readonly log?: Log,
  ) {
    this.retryBaseMs = options.retryBaseMs ?? 30_000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.maxAttempts = options.maxAttempts ?? 8;
    this.pollMs = options.pollMs ?? 30_000;
    this.sendTimeoutMs = options.sendTimeoutMs ?? Math.min(30_000, this.leaseMs / 2);
    this.batch = options.batch ?? 4;
    this.stopGraceMs = options.stopGraceMs ?? 5_000;
  }

  start(): void {
    this.wake();
  }

  /**
   * Looks for due mail soon (after a commit that may have put some, a timer, the poll). Cheap:
   * wake-ups in one turn of the event loop, or during a round, make one more round at most.
   */
  wake(): void {
    this.rounds.wake();
  }

  /** Its rounds: out of the committer's stack, what is due sent; under load, one every ROUND_GAP_MS. */
  private readonly rounds = new Rounds({
    round: () => this.sendDue(),
    after: () => this.schedule(),
    gapMs: ROUND_GAP_MS,
    stopped: () => this.stopped,
    // The store unreachable, say: the timer or the poll tries again; never a crash.
    failed: (error) => this.log?.error({ err: error }, 'mail worker failed'),
    yieldFirst: true,
  });

  /** Stops looking for mail; sends in flight get stopGraceMs to finish, then are aborted. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const running = this.rounds.current;
    if (!running) return;
    // An aborted send is recorded as failed and retried later (the server may have taken it).
    const grace = setTimeout(() => this.abort.abort(new Error('the mail worker stopped')), this.stopGraceMs);
    try {
      await running;
    } finally {
      clearTimeout(grace);
    }
  }

  /** The one timer: when the next message falls due, or the fallback poll. */
  private schedule(): void {
    if (this.stopped) return;
    let delay = this.pollMs;
    if (this.nextDue !== undefined) delay = Math.min(delay, Math.max(ROUND_GAP_MS, this.nextDue - this.clock.now()));
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, delay);
    this.timer.unref();
  }

  /** Claims and sends what is due, batch after batch, until nothing is. */
  private async sendDue(): Promise<void> {
    while (!this.stopped) {
      const now = this.clock.now();
      // One indexed statement: a wake-up with nothing due costs no transaction.
      this.nextDue = await this.store.read((reader) => reader.mail.nextMailDue(), { ...PLATFORM, oneStatement: true });
      if (this.nextDue === undefined || this.nextDue > now) return;
      const claimed = await this.store.transaction(
        (uow) => uow.mail.claimMail(now, now + this.leaseMs, this.batch),
        PLATFORM,
      );
      // Another instance claimed them first: the timer reads their leases in a moment.
      if (claimed.length === 0) return;
      await Promise.all(claimed.map((message) => this.attempt(message)));
    }
  }

  /** One attempt at a claimed message: sent, then its outcome recorded. Never throws. */
  private async attempt(message: MailMessage): Promise<void> {
    const attempt = message.attempts;
    try {
      const { link, text } = renderMail(message, this.seal);
      const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.sendTimeoutMs)]);
      let failure: unknown;
      try {
        await this.transport.send(
          { from: this.options.from, to: message.to, subject: message.subject, text, link },
          signal,
        );
      } catch (error) {
        failure = error;
      }
      const at = this.clock.now();
      if (failure === undefined) {
        await this.store.transaction((uow) => uow.mail.mailSent(message.id, attempt, at), PLATFORM);
        return;
      }
      const reason = reasonOf(failure);
      const retryAt = attempt >= this.maxAttempts ? undefined : at + retryDelayMs(attempt, this.retryBaseMs);
      // The message's id and the transport's words: never its text, whose link holds a token.
      this.log?.warn(
        {
          mail: { id: message.id, attempt },
          error: reason,
          ...(retryAt !== undefined ? { retryAt: new Date(retryAt).toISOString() } : {}),
        },
        retryAt === undefined ? `mail given up after ${attempt} attempts` : 'mail not sent; retried later',
      );
      await this.store.transaction((uow) => uow.mail.mailFailed(message.id, attempt, reason, at, retryAt), PLATFORM);
    } catch (error) {
      // Unrecorded: the lease runs out and the message is claimed again.
      this.log?.error({ err: error, mail: { id: message.id, attempt } }, 'mail attempt failed to record');
    }
  }
}
