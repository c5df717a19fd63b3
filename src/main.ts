// `npm start`: the service on HOST:PORT with the store DATABASE_URL picks (unset: in memory).
import { startServer } from './server.ts';
import { describeStore } from './store/create-store.ts';

try {
  const server = await startServer();
  // The line says which store is in use: a service started on memory by mistake loses its data.
  const store = describeStore(server.config.databaseUrl);
  server.app.log.info(
    { store },
    `sales pipeline service listening on ${server.url} (deal prefix ${server.config.dealPrefix}, store ${store})`,
  );
  const stop = async (signal: string) => {
    server.app.log.info(`${signal}: shutting down`);
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
} catch (error) {
  console.error(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
