// Wires a store, the service and the HTTP app together, and runs the platform timers on an
// interval. main.ts starts one; the end-to-end tests start their own on a free port, and the
// in-process tests compose one that never listens (composeServer).
import type { FastifyInstance } from 'fastify';
import { type Config, loadConfig } from './config.ts';
import { logTransport, type MailTransport, smtpTransport } from './delivery/mail-transport.ts';
import { MailWorker } from './delivery/mail-worker.ts';
import { Notifier } from './delivery/notifier.ts';
import { WebhookWorker } from './delivery/webhook-worker.ts';
import { buildApp, type LogStream } from './http/app.ts';
import { createMetrics } from './http/metrics.ts';
import { defaultAllowedHosts } from './http/origin-guard.ts';
import { RootCatalog } from './public/catalog.ts';
import { type Clock, createPipelineService, type PipelineService } from './service/pipeline-service.ts';
import { TokenSeal } from './service/token-seal.ts';
import { createStore } from './store/create-store.ts';
import type { Store } from './store/store.ts';
import type { Telemetry } from './telemetry.ts';

export interface RunningServer {
  app: FastifyInstance;
  service: PipelineService;
  store: Store;
  config: Config;
  url: string;
  /** D-64: keys mode's mail worker (none in the demo, which sends no mail). */
  mail?: MailWorker;
  /** Keys mode's notifier (D-72). */
  notifier?: Notifier;
  close(): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now() };

let catalogOnce: Promise<RootCatalog> | undefined;
/** The sandbox is the same for every server in a process, so it is built once. */
function sandboxCatalog(): Promise<RootCatalog> {
  catalogOnce ??= RootCatalog.create();
  return catalogOnce;
}

export interface ServerOptions {
  config?: Partial<Config>;
  clock?: Clock;
  store?: Store;
  /** false: no log at all. */
  log?: boolean;
  /** Where log lines go instead of stdout. */
  logStream?: LogStream;
}

/** A server's parts, wired but not listening: no port, no timers, no webhook worker. */
export interface ComposedServer {
  app: FastifyInstance;
  service: PipelineService;
  store: Store;
  config: Config;
  telemetry: Telemetry | undefined;
}

/**
 * Wires the store, the service and the app as startServer does, and stops short of listening:
 * startServer listens on it, and the in-process tests (test/support/inject.ts) call its routes
 * through Fastify's inject, so both serve the very same app.
 */
export async function composeServer(options: ServerOptions = {}): Promise<ComposedServer> {
  const config = { ...loadConfig(), ...options.config };
  const metrics = config.metrics ? createMetrics() : undefined;
  const telemetry = metrics?.telemetry;
  /** What opening the store warned of (D-77: the serving role owns the tables), logged once the log exists. */
  const storeWarnings: string[] = [];
  const store =
    options.store ??
    (await createStore(config.databaseUrl, {
      poolSize: config.databasePoolSize,
      groupCommit: config.groupCommit,
      telemetry,
      // D-57: keys mode refuses a PostgreSQL role that row-level security would not hold.
      requireRowSecurity: config.auth === 'keys',
      // D-77: migrations as the owner role, serving as DATABASE_URL's.
      ownerUrl: config.databaseOwnerUrl,
      warn: (message) => storeWarnings.push(message),
    }));
  const service = createPipelineService(store, options.clock ?? systemClock, {
    telemetry,
    claimTtlHours: config.claimTtlHours,
    payoutHoldDays: config.payoutHoldDays,
    eventRetentionHours: config.eventRetentionHours,
    webhookAllowPrivate: config.webhookAllowPrivate,
    auth: config.auth,
    ...(config.operatorKey !== undefined ? { operatorKey: config.operatorKey } : {}),
    keysPerPrincipal: config.keysPerPrincipal,
    ...(config.publicUrl !== undefined ? { publicUrl: config.publicUrl } : {}),
  });
  await service.platform.seedIfEmpty();
  if (service.keyRing) {
    // D-52: keys mode starts with the operator's key and every key known.
    if (config.operatorKey === undefined) throw new Error('keys mode needs OPERATOR_KEY');
    await service.accounts.ensureOperatorKey(config.operatorKey);
    await service.keyRing.start();
  }
  const catalog = await sandboxCatalog();
  const app = await buildApp({
    service,
    auth: config.auth,
    demoControls: config.demoControls,
    catalog,
    dealPrefix: config.dealPrefix,
    logLevel: options.log === false ? undefined : config.logLevel,
    connectionLimits: {
      headersTimeoutMs: config.headersTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
      maxConnections: config.maxConnections,
    },
    rateLimitPerMinute: config.rateLimitPerMinute,
    // D-49: unset, the loopback names when listening on a loopback address, else every host.
    allowedHosts: config.allowedHosts ?? defaultAllowedHosts(config.host),
    allowedOrigins: config.allowedOrigins,
    logStream: options.logStream,
    metrics,
    stream: {
      heartbeatMs: config.streamHeartbeatMs,
      pollMs: config.streamPollMs,
      maxBufferedBytes: config.streamBufferBytes,
    },
    streamBounds: { perClient: config.streamsPerClient },
  });
  for (const warning of storeWarnings) app.log.warn(warning);
  return { app, service, store, config, telemetry };
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const { app, service, store, config, telemetry } = await composeServer(options);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;

  let timer: NodeJS.Timeout | undefined;
  /** The timers' run in progress: closing waits for it. */
  let running: Promise<void> | undefined;
  if (config.timerIntervalSeconds > 0) {
    timer = setInterval(() => {
      if (running) return; // a slow sweep is never run twice at once
      running = service.platform
        .runTimers()
        .then(
          () => undefined,
          (error) => app.log.error({ err: error }, 'platform timers failed'),
        )
        .finally(() => {
          running = undefined;
        });
    }, config.timerIntervalSeconds * 1000);
    timer.unref();
  }

  // D-42: every instance delivers webhooks. Its own commits wake it, and so does any instance's
  // commit that makes or deletes a webhook; a timer wakes it when a retry falls due, and a rare
  // poll catches anything else (D-249: an idle instance sends the database next to nothing).
  const webhooks = new WebhookWorker(
    store,
    systemClock,
    {
      allowPrivate: config.webhookAllowPrivate,
      retryBaseMs: config.webhookRetryBaseMs,
      timeoutMs: config.webhookTimeoutMs,
      telemetry,
    },
    app.log,
  );
  const stopWaking = service.runner.onCommit(() => webhooks.committed());
  const stopWatching = store.watchWebhooks(() => webhooks.wake());
  webhooks.start();

  // D-64: keys mode sends its mail outbox after the commits that fill it, through SMTP_URL or,
  // unset, into the log. Only a commit that wrote mail wakes the worker (the service says so):
  // every other request costs it nothing; the worker's own poll finds another instance's mail.
  let mail: { worker: MailWorker; transport: MailTransport; stopWaking: () => void } | undefined;
  if (config.auth === 'keys' && config.operatorKey !== undefined) {
    const transport = config.smtpUrl !== undefined ? smtpTransport(config.smtpUrl) : logTransport(app.log);
    const worker = new MailWorker(
      store,
      // The machine clock the service stamps mail with (a test's, when it moves time on).
      options.clock ?? systemClock,
      new TokenSeal(config.operatorKey),
      transport,
      { from: config.mailFrom, retryBaseMs: config.mailRetryBaseMs },
      app.log,
    );
    app.log.info(
      config.smtpUrl !== undefined
        ? `mail is sent through ${transport.describe()}`
        : 'mail goes to the log (SMTP_URL is unset)',
    );
    mail = { worker, transport, stopWaking: service.onMail(() => worker.wake()) };
    worker.start();
  }

  // D-72: keys mode tells people what concerns them: every instance's notifier follows the feed
  // (one at a time), woken by this instance's commits, and hands its mail to the mail worker.
  let notifier: { worker: Notifier; stopWaking: () => void } | undefined;
  if (config.auth === 'keys') {
    const worker = new Notifier(
      store,
      options.clock ?? systemClock,
      { origin: config.publicUrl ?? `http://${host}:${port}` },
      () => mail?.worker.wake(),
      app.log,
    );
    notifier = { worker, stopWaking: service.runner.onCommit(() => worker.committed()) };
    worker.start();
  }

  return {
    app,
    service,
    store,
    config,
    url: `http://${host}:${port}`,
    ...(mail ? { mail: mail.worker } : {}),
    ...(notifier ? { notifier: notifier.worker } : {}),
    async close() {
      if (timer) clearInterval(timer);
      stopWaking();
      stopWatching();
      await webhooks.stop();
      notifier?.stopWaking();
      await notifier?.worker.stop();
      mail?.stopWaking();
      await mail?.worker.stop();
      await mail?.transport.close?.();
      // Stops taking requests, waits for those in flight (and so their units of work) and ends
      // the event streams; then the timers' run in progress, if any, finishes.
      // A kept-alive connection whose request was in flight when closing began stays open once
      // answered, and the server would wait for the client to close it (up to the keep-alive
      // timeout): such connections are closed as soon as they are idle.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      try {
        await app.close();
      } finally {
        clearInterval(sweep);
      }
      // D-286: and the handlers whose clients went away meanwhile, before the store closes.
      await app.handlersInFlight.drained();
      await running;
      await service.close();
      await store.close();
    },
  };
}
