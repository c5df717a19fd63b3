// The mail outbox of the store port (D-64): a message is written in the unit of work that causes
// it (an invitation, a password reset) and sent after the commit by the mail worker
// (src/delivery/mail-worker.ts), so a slow or failing SMTP server never slows or fails a request.
// A sender claims due messages with a lease, so that of several instances one sends each message;
// a failure is retried with back-off. A message's link holds a one-time token, which is never
// stored: the row keeps the nonce the token is drawn from (src/service/token-seal.ts), and the
// text keeps `{{link}}` where the link goes. Every adapter implements it and the store contract
// (test/store/mail-contract.ts) holds them to it.

export interface MailMessage {
  /** `mail_` and random characters: made by the service. */
  readonly id: string;
  /** The principal the message is about (the row's owner, D-77). */
  readonly principal: string;
  readonly to: string;
  readonly subject: string;
  /** The words, with `{{link}}` where the link goes. */
  readonly text: string;
  /** The link without its token: the origin and path the token is appended to. */
  readonly linkBase: string;
  /** The nonce the link's token is drawn from (never the token). */
  readonly nonce: string;
  /** Machine epoch ms. */
  readonly createdAt: number;
  /** Attempts made so far (a claim counts one). */
  readonly attempts: number;
  /** When it may next be claimed: when due, a retry's time, or a lease's end. */
  readonly nextAttemptAt: number;
  readonly sentAt?: number;
  /** Given up after too many attempts: kept, and never claimed again. */
  readonly failedAt?: number;
  readonly lastError?: string;
}

export interface MailReader {
  /** A message by id (tests and diagnostics). */
  getMail(id: string): Promise<MailMessage | undefined>;
  /** When the earliest unsent message falls due (neither sent nor given up), undefined if none. */
  nextMailDue(): Promise<number | undefined>;
}

export interface MailUnit extends MailReader {
  /** Adds a message to send after the commit. */
  putMail(message: MailMessage): Promise<void>;
  /**
   * Claims up to `limit` messages due at `now` (unsent, not given up, nextAttemptAt ≤ now),
   * earliest first: each gets one more attempt and is not due again before `leaseUntil`. Claims
   * made at once by several instances never take the same message (SKIP LOCKED on PostgreSQL).
   */
  claimMail(now: number, leaseUntil: number, limit: number): Promise<MailMessage[]>;
  /** Marks a claimed message sent (only if its claim is still this attempt's). */
  mailSent(id: string, attempt: number, at: number): Promise<void>;
  /** Records a failed attempt: due again at `retryAt`, or given up (`failedAt`) when undefined. */
  mailFailed(id: string, attempt: number, error: string, at: number, retryAt: number | undefined): Promise<void>;
}
