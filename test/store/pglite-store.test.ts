// The store contract on PGlite over a data folder. Starting PGlite costs seconds, so the tests
// share one instance, and a new one is opened over the same folder only after it was closed
// (which the durability cases do).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import type { Store } from '../../src/store/store.ts';
import { describeStoreContract } from './contract.ts';

const dataDir = await mkdtemp(join(tmpdir(), 'pipeline-pglite-'));
after(() => rm(dataDir, { recursive: true, force: true }));

let current: Store | undefined;

async function open(): Promise<Store> {
  if (current) return current;
  const store = await createStore(`pglite:${dataDir}`);
  const shared: Store = {
    runsUnitsAgain: store.runsUnitsAgain,
    read: (work, options) => store.read(work, options),
    transaction: (work, options) => store.transaction(work, options),
    events: (filter, options) => store.events(filter, options),
    lastSeq: () => store.lastSeq(),
    watchClockOffset: (listener) => store.watchClockOffset(listener),
    watchWebhooks: (listener) => store.watchWebhooks(listener),
    async close() {
      if (current === shared) current = undefined;
      await store.close();
    },
  };
  current = shared;
  return shared;
}

describeStoreContract('pglite', open, { durable: true });
