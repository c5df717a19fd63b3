// A process that logs like the service (src/http/log-destination.ts) and exits as its shutdown
// does: 3,000 lines over several turns of the event loop, then "shut down", then the exit.
// (Exiting after pino's flush() instead, as the service did, failed the test in 3 runs of 5.)
import pino from 'pino';
import { endLog, logDestination } from '../../src/http/log-destination.ts';

const log = pino({}, logDestination());
for (let i = 0; i < 3000; i++) {
  log.info({ i, pad: 'x'.repeat(100) }, 'line');
  if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
}
log.info('shut down');
await endLog(log);
process.exit(0);
