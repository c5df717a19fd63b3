// `npm start`: the compiled service (dist/main.js), built first when missing or stale
// (scripts/build.mjs). Stack traces name the TypeScript sources through the source maps. On
// Node 22 or later: npm runs it on the project's Node, and `node scripts/start.mjs` on an older
// one runs itself again there (scripts/runtime.mjs).
import { ensureBuilt } from './build.mjs';
import { onSupportedNode } from './runtime.mjs';

await onSupportedNode();
try {
  await ensureBuilt();
} catch (error) {
  console.error(`cannot build the service: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
process.setSourceMapsEnabled(true);
await import('../dist/main.js');
