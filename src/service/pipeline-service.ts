// The application service, composed of its parts: the reads, the writes of the deal service and
// of the marketplace, the platform's own, the webhooks, and the runner every write goes through
// (execute.ts). A write is a unit command built by its part and run by the runner, so how it
// runs (plain, keyed or dry) is decided in one place, whichever door it came through.

import { randomBytes } from 'node:crypto';
import { DAY_MS, DEFAULT_PAYOUT_HOLD_DAYS } from '../domain/ledger/holds.ts';
import { DEFAULT_EVENT_RETENTION_HOURS } from '../domain/public-events.ts';
import type { Store } from '../store/store.ts';
import { NO_TELEMETRY, type Telemetry } from '../telemetry.ts';
import { Accounts } from './accounts.ts';
import { ApprovalCommands } from './approvals.ts';
import { DealCommands } from './deal-commands.ts';
import { UnitRunner } from './execute.ts';
import { GigCommands } from './gig-commands.ts';
import { Insights } from './insights.ts';
import { KeyPolicies } from './key-policies.ts';
import { KeyRing } from './key-ring.ts';
import { KeySeal } from './key-seal.ts';
import { LedgerCommands } from './ledger-commands.ts';
import { LedgerQueries } from './ledger-queries.ts';
import { Notifications } from './notifications.ts';
import { PasswordHasher } from './passwords.ts';
import { People } from './people.ts';
import { Platform } from './platform.ts';
import { type Clock, PlatformClock } from './platform-clock.ts';
import { Queries } from './queries.ts';
import { Sessions } from './sessions.ts';
import { HOUR_MS, Steps } from './steps.ts';
import { TokenSeal } from './token-seal.ts';
import type { UnitCommand } from './unit-command.ts';
import { WebhookService } from './webhook-service.ts';

export type { Clock } from './platform-clock.ts';

import type { Result } from './result.ts';

export type { Result } from './result.ts';

export interface ServiceConfig {
  claimTtlHours: number;
  /** D-80: a closer's earning is held this many platform days (DEFAULT_PAYOUT_HOLD_DAYS unless set). */
  payoutHoldDays?: number;
  /** D-41: how long (real time) the feed keeps an event (DEFAULT_EVENT_RETENTION_HOURS unless set). */
  eventRetentionHours?: number;
  /** D-42: webhooks may point at loopback and private addresses (local development, tests). */
  webhookAllowPrivate?: boolean;
  /** Where the gate's decisions and the timers' runs are reported (GET /metrics); none unless set. */
  telemetry?: Telemetry;
  /** D-50: `keys` holds every request to a key (the key ring); `demo` (the default) is open. */
  auth?: 'demo' | 'keys';
  /**
   * D-251: the secret new keys' texts are drawn under comes from OPERATOR_KEY, the same on every
   * instance; unset (a simulation, a test), a random one of this process.
   */
  operatorKey?: string;
  /** D-75: live keys one principal may hold (KEYS_PER_PRINCIPAL). */
  keysPerPrincipal?: number;
  /** D-64: the origin links in mail point to (PUBLIC_URL); unset, the request's own. */
  publicUrl?: string;
  /** D-63: password hashes run at most this many at a time (tests and the bench may set it). */
  passwordHashers?: number;
}

export interface PipelineService {
  /** Runs every write: plain, under an idempotency key, or dry. */
  readonly runner: UnitRunner;
  readonly queries: Queries;
  /** D-73: the pipeline's figures. */
  readonly insights: Insights;
  /** The ledger's writes and reads (D-79 to D-82). */
  readonly ledger: LedgerCommands;
  readonly ledgerQueries: LedgerQueries;
  readonly deals: DealCommands;
  readonly gigs: GigCommands;
  readonly platform: Platform;
  readonly webhooks: WebhookService;
  /** Sellers and keys (D-51, D-52). */
  readonly accounts: Accounts;
  /** The console's stored sessions (D-63). */
  readonly sessions: Sessions;
  /** People: invitations, roles, sign-in by password, resets (D-62, D-63). */
  readonly people: People;
  /** What keys' policies held, and the people's decisions (D-69, D-70). */
  readonly approvals: ApprovalCommands;
  /** Keys' policies beyond the gate: a key's usage of the day (D-68). */
  readonly policies: KeyPolicies;
  /** A person's inbox and mail settings (D-72). */
  readonly notifications: Notifications;
  /** Told after a commit that wrote mail (the mail worker listens, D-64). */
  onMail(listener: () => void): () => void;
  /** Keys mode: who each bearer key is (undefined in the demo, where no key is asked for). */
  readonly keyRing?: KeyRing;
  /** Runs a command plainly: what the service's own callers use (the sandbox, the simulation). */
  run<T>(command: UnitCommand<T> | Promise<UnitCommand<T>>): Promise<Result<T>>;
  /** Stops listening to the store, and writes the keys' last use (the service is closing). */
  close(): Promise<void>;
}

export function createPipelineService(store: Store, clock: Clock, config: ServiceConfig): PipelineService {
  const telemetry = config.telemetry ?? NO_TELEMETRY;
  const platformClock = new PlatformClock(clock, () =>
    store.read((reader) => reader.clockOffsetMs(), { oneStatement: true }),
  );
  // Another instance's move of the demo clock (PostgreSQL): learned when it commits.
  const keyRing = config.auth === 'keys' ? new KeyRing(store, clock) : undefined;
  const stopWatchingClock = store.watchClockOffset((offsetMs, reset) => {
    if (!reset) return platformClock.learn(offsetMs);
    platformClock.replace(offsetMs);
    // Another instance's reset deleted closers' keys.
    void keyRing?.reload().catch(() => undefined);
  });
  const steps = new Steps(platformClock, clock, { claimTtlMs: config.claimTtlHours * HOUR_MS, telemetry });
  const seal = config.auth === 'keys' ? new KeySeal(config.operatorKey ?? randomBytes(32).toString('hex')) : undefined;
  const runner = new UnitRunner(store, clock, seal);
  const ledger = new LedgerCommands(steps);
  const sessions = new Sessions(store, clock, (session) => keyRing?.learnSession(session));
  const mailListeners = new Set<() => void>();
  const secret = config.operatorKey ?? randomBytes(32).toString('hex');
  const people = new People(
    store,
    clock,
    new PasswordHasher(config.passwordHashers),
    new TokenSeal(secret),
    sessions,
    {
      user: (user) => keyRing?.learnUser(user),
      session: (session) => keyRing?.learnSession(session),
      mail: () => {
        for (const listener of mailListeners) listener();
      },
    },
    config.publicUrl,
  );
  const retention = config.eventRetentionHours ?? DEFAULT_EVENT_RETENTION_HOURS;
  return {
    runner,
    queries: new Queries(store),
    insights: new Insights(store, platformClock),
    ledger,
    ledgerQueries: new LedgerQueries(store, platformClock),
    deals: new DealCommands(steps),
    gigs: new GigCommands(steps),
    platform: new Platform(
      store,
      runner,
      steps,
      clock,
      telemetry,
      retention,
      () => {
        void keyRing?.reload().catch(() => undefined);
      },
      // D-3: a keys-mode deployment is production: no fictional closers in it.
      keyRing === undefined,
      { ledger, holdMs: (config.payoutHoldDays ?? DEFAULT_PAYOUT_HOLD_DAYS) * DAY_MS },
    ),
    webhooks: new WebhookService(store, clock, config.webhookAllowPrivate === true),
    accounts: new Accounts(
      store,
      clock,
      (key) => keyRing?.learn(key),
      (keyId) => keyRing?.lastUsed(keyId),
      seal,
      config.keysPerPrincipal,
    ),
    sessions,
    people,
    approvals: new ApprovalCommands(store, steps),
    policies: new KeyPolicies(store, platformClock),
    notifications: new Notifications(store, clock),
    onMail: (listener) => {
      mailListeners.add(listener);
      return () => mailListeners.delete(listener);
    },
    ...(keyRing ? { keyRing } : {}),
    run: async (command) => runner.result(await command),
    close: async () => {
      stopWatchingClock();
      await keyRing?.close();
    },
  };
}
