// `npm start`: the service on HOST:PORT with the store DATABASE_URL picks (unset: in memory).
import { endLog } from './http/log-destination.ts';
import { startServer } from './server.ts';
import { describeStore } from './store/create-store.ts';

try {
  const server = await startServer();
  // The line says which store is in use: a service started on memory by mistake loses its data.
  const store = describeStore(server.config.databaseUrl);
  const { auth } = server.config;
  server.app.log.info(
    { store, auth },
    `sales pipeline service listening on ${server.url} (deal prefix ${server.config.dealPrefix}, store ${store}, AUTH=${auth})`,
  );
  // D-50: an anonymous durable store was asked for; say what it means.
  if (auth === 'demo' && server.config.databaseUrl !== undefined) {
    server.app.log.warn(
      `AUTH=demo on a durable store: anyone who can reach this service can read and change every deal, and wipe the store with POST /demo/reset; set AUTH=keys (the default with DATABASE_URL) and OPERATOR_KEY for a deployment with accounts`,
    );
  }
  // Graceful shutdown: no new connection or request is taken (a request on a kept-alive
  // connection is answered 503), the requests and units of work in flight finish, the event
  // streams end, the timers' run in progress and the webhook sends finish, the store closes;
  // all within SHUTDOWN_TIMEOUT_SECONDS, after which the process exits anyway (exit code 1).
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info(`${signal}: shutting down`);
    const limit = setTimeout(() => {
      server.app.log.error(`shutdown took longer than ${server.config.shutdownTimeoutMs} ms: exiting now`);
      process.exit(1);
    }, server.config.shutdownTimeoutMs);
    limit.unref();
    try {
      await server.close();
    } catch (error) {
      server.app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
    server.app.log.info('shut down');
    // Every line written, in order, before the exit (log-destination.ts).
    await endLog(server.app.log);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
} catch (error) {
  console.error(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
