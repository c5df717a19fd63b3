// The mail outbox in memory (D-64): the reference behaviour of src/store/mail.ts. One process
// holds it, so a claim is the only claim; its lease still matters to a sender that stops.
import type { MailMessage, MailReader, MailUnit } from '../mail.ts';

export class MailTables {
  messages = new Map<string, MailMessage>();
}

const due = (message: MailMessage) => message.sentAt === undefined && message.failedAt === undefined;

export class MemoryMailReader implements MailReader {
  constructor(protected readonly tables: MailTables) {}
  async getMail(id: string) {
    return this.tables.messages.get(id);
  }
  async nextMailDue() {
    let next: number | undefined;
    for (const message of this.tables.messages.values()) {
      if (due(message) && (next === undefined || message.nextAttemptAt < next)) next = message.nextAttemptAt;
    }
    return next;
  }
}

export class MemoryMailUnit extends MemoryMailReader implements MailUnit {
  constructor(
    tables: MailTables,
    private readonly undo: (() => void)[],
  ) {
    super(tables);
  }

  private write(message: MailMessage): void {
    const { messages } = this.tables;
    const previous = messages.get(message.id);
    messages.set(message.id, message);
    this.undo.push(() => (previous ? messages.set(message.id, previous) : messages.delete(message.id)));
  }

  async putMail(message: MailMessage) {
    this.write(message);
  }

  async claimMail(now: number, leaseUntil: number, limit: number) {
    const claimable = [...this.tables.messages.values()]
      .filter((message) => due(message) && message.nextAttemptAt <= now)
      .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.createdAt - b.createdAt)
      .slice(0, limit);
    return claimable.map((message) => {
      const claimed = { ...message, attempts: message.attempts + 1, nextAttemptAt: leaseUntil };
      this.write(claimed);
      return claimed;
    });
  }

  async mailSent(id: string, attempt: number, at: number) {
    const message = this.tables.messages.get(id);
    if (message === undefined || message.attempts !== attempt || message.sentAt !== undefined) return;
    this.write({ ...message, sentAt: at });
  }

  async mailFailed(id: string, attempt: number, error: string, at: number, retryAt: number | undefined) {
    const message = this.tables.messages.get(id);
    if (message === undefined || message.attempts !== attempt || message.sentAt !== undefined) return;
    this.write(
      retryAt === undefined
        ? { ...message, lastError: error, failedAt: at }
        : { ...message, lastError: error, nextAttemptAt: retryAt },
    );
  }
}
