// `npm start`: the compiled service (dist/main.js), built first when missing or stale
// (scripts/build.mjs). Stack traces name the TypeScript sources through the source maps.
import { ensureBuilt } from './build.mjs';

try {
  await ensureBuilt();
} catch (error) {
  console.error(`cannot build the service: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
process.setSourceMapsEnabled(true);
await import('../dist/main.js');
