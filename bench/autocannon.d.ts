// The part of autocannon's API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (request: any, context: any) => any;
    }
    interface Options extends Request {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      requests?: Request[];
      /** Replaces `[<id>]` in each request with a fresh id. */
      idReplacement?: boolean;
    }
    interface Histogram {
      average: number;
      total: number;
      p50: number;
      p97_5: number;
      p99: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      errors: number;
      timeouts: number;
      non2xx: number;
      /** Seconds the run took (with `amount`, until its requests were sent, whatever `duration`). */
      duration: number;
    }
    /** A run under way: awaited for its result, or stopped early (it then emits `done`). */
    interface Instance extends Promise<Result> {
      stop(): void;
      once(event: 'done', listener: (result: Result) => void): this;
    }
  }
  function autocannon(options: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
