// A worker's rounds of work (the webhook worker's and the mail worker's): a wake-up while a round
// runs asks for one more round, never a second one at once; back-to-back rounds are spaced out by
// `gapMs` (under load a worker costs a few units of work per gap, not a few per commit); a wake-up
// that came after the last round's check is not lost (it starts the next rounds); when the rounds
// end, `after` runs (the worker's own timer). A round's failure is reported, never thrown.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RoundsOptions {
  round(): Promise<void>;
  after(): void;
  gapMs: number;
  stopped(): boolean;
  failed(error: unknown): void;
  /** Before the first round, let the waker's turn of the event loop end (its wake-ups together). */
  yieldFirst?: boolean;
}

export class Rounds {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly options: RoundsOptions) {}

  /** The rounds under way, if any (a worker that stops waits for them). */
  get current(): Promise<void> | undefined {
    return this.running;
  }

  /** One more round after this one (work found meanwhile). */
  more(): void {
    this.again = true;
  }

  wake(): void {
    const { round, after, gapMs, stopped, failed, yieldFirst } = this.options;
    if (stopped()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      for (let n = 0; ; n++) {
        if (n > 0) await sleep(gapMs);
        else if (yieldFirst) await new Promise(setImmediate);
        this.again = false;
        try {
          await round();
        } catch (error) {
          if (!stopped()) failed(error);
        }
        if (!this.again || stopped()) break;
      }
    })().finally(() => {
      this.running = undefined;
      if (this.again && !stopped()) this.wake();
      else after();
    });
  }
}
