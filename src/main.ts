// `npm start`: the service on HOST:PORT with the in-memory demo store.
import { startServer } from './server.ts';

try {
  const server = await startServer();
  server.app.log.info(`sales pipeline service listening on ${server.url} (deal prefix ${server.config.dealPrefix})`);
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
