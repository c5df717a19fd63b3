// D-63: passwords hashed with Argon2id (@node-rs/argon2: prebuilt binaries on the npm registry,
// no compiler on a fresh clone) at OWASP's minimum: 19 MiB of memory, 2 iterations, 1 lane.
// A hash takes tens of milliseconds of CPU on a thread of libuv's pool, never the event loop's.
// Hashes run at most `concurrency` at a time, the rest wait in line: a flood of sign-ins then
// costs the machine that many cores at most, and every other request keeps the rest (bench
// "sign-in with a password" measures it). A line longer than `queue` is refused at once (the
// caller answers 503 STORE_BUSY-like: try again) rather than growing without bound.
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';

export const ARGON2_OPTIONS = {
  // Algorithm.Argon2id (a const enum the module syntax cannot import): 2.
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

/** The line of hashes waiting is full: the sign-in is refused at once, not queued. */
export class HasherBusyError extends Error {
  constructor() {
    super('too many password checks are waiting');
  }
}

export class PasswordHasher {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /**
   * A hash no password has, verified in place of an unknown email's or a person's without a
   * password: the same work, so the answer's time does not tell whether the email exists.
   */
  private decoy: Promise<string> | undefined;

  constructor(
    /** Half the cores (at least one): sign-ins never take every core from the other requests. */
    private readonly concurrency = Math.max(1, Math.floor(availableParallelism() / 2)),
    private readonly queue = 256,
  ) {}

  hash(password: string): Promise<string> {
    return this.turn(() => hash(password, ARGON2_OPTIONS));
  }

  /** Whether `password` is the one `stored` was made from; with no stored hash, false after the same work. */
  async verify(stored: string | undefined, password: string): Promise<boolean> {
    if (stored === undefined) {
      this.decoy ??= hash('no one has this password: it only spends the time', ARGON2_OPTIONS);
      const decoy = await this.decoy;
      await this.turn(() => verify(decoy, password));
      return false;
    }
    return this.turn(() => verify(stored, password));
  }

  private async turn<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queue) throw new HasherBusyError();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
