// What the service reports about itself as it runs (GET /metrics, src/http/metrics.ts): the
// port the store, the service and the webhook worker call, kept free of any metrics library so
// that none of them imports upward. The default reports nowhere.

export interface Telemetry {
  /**
   * The gate decided a command (a unit run again after a deadlock decides again): accepted, or
   * refused with the refusal's code. A dry run's decision is counted apart.
   */
  decided(command: string, refusalCode: string | undefined, dryRun: boolean): void;
  /** A unit of work was run again after a deadlock or a serialization failure (its SQLSTATE). */
  unitRetried(sqlState: string): void;
  /** A run of the platform timers ended: its length, how many timers fired, or that it failed. */
  timersRan(seconds: number, fired: number | 'failed'): void;
  /** A webhook delivery attempt ended: delivered (a 2xx answer) or not, and its length. */
  webhookAttempted(delivered: boolean, seconds: number): void;
  /** A batch of units committed in one transaction (group commit, D-281): how many. */
  committedTogether?(units: number): void;
}

const nothing = () => undefined;

export const NO_TELEMETRY: Telemetry = {
  decided: nothing,
  unitRetried: nothing,
  timersRan: nothing,
  webhookAttempted: nothing,
};
