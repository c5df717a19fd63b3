// The platform's time (D-19): the machine clock plus the demo clock's offset. The offset lives
// in the store, shared by every instance, but is kept here rather than read by every unit of
// work (D-187): it is read once, then learned as it changes, from this instance's own moves
// and resets and, on PostgreSQL, from the other instances' (Store.watchClockOffset).
//
// Time never goes backwards in an instance: the offset only grows, except through a reset, and
// the time handed out never decreases until a reset. Between instances, a move of the clock on
// one reaches the other a moment later; a unit of work that finds its deal acted on later than
// its own time (the other instance moved the clock and then acted) reads the offset again
// (PipelineService), so that a deal's activity times never decrease either.

export interface Clock {
  /** Machine time in epoch milliseconds; the demo clock adds the stored offset. */
  now(): number;
}

export class PlatformClock {
  private offsetMs: number | undefined;
  private loading: Promise<number> | undefined;
  /** The latest time handed out (the floor of the next one). */
  private last = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    /** Reads the stored offset. */
    private readonly readOffset: () => Promise<number>,
  ) {}

  /**
   * The platform's time now. The first call reads the offset, through `reader` when given (a
   * unit of work in progress: the memory store would make a separate read wait for it to end).
   */
  async now(reader?: { clockOffsetMs(): Promise<number> }): Promise<number> {
    const offsetMs = this.offsetMs ?? (await this.load(reader ? () => reader.clockOffsetMs() : this.readOffset));
    const now = this.clock.now() + offsetMs;
    if (now > this.last) this.last = now;
    return this.last;
  }

  /**
   * An offset read from the store or told by another instance. Stored offsets only grow between
   * resets, so a smaller one is a read that raced a move: it is ignored.
   */
  learn(offsetMs: number): void {
    if (this.offsetMs === undefined || offsetMs > this.offsetMs) this.offsetMs = offsetMs;
  }

  /**
   * The offset after a reset (0), or one that must be taken as it is (a watcher that lost its
   * connection and may have missed a reset): time may go back, as a reset moves it back.
   */
  replace(offsetMs: number): void {
    this.offsetMs = offsetMs;
    this.last = Number.NEGATIVE_INFINITY;
  }

  /** Reads the stored offset again (learned as above) and answers the time. */
  async refresh(read: () => Promise<number> = this.readOffset): Promise<number> {
    this.learn(await read());
    return this.now();
  }

  private load(read: () => Promise<number>): Promise<number> {
    this.loading ??= read().then(
      (offsetMs) => {
        this.learn(offsetMs);
        return this.offsetMs as number;
      },
      (error: unknown) => {
        // Not kept: the next unit of work tries again.
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }
}
