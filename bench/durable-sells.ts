// `npm run bench:durable`: sells through the service's runner on PostgreSQL (DATABASE_URL or
// TEST_DATABASE_URL; the store is reset), no HTTP, 10 at once: the service's CPU (and of it the
// kernel's, with the page faults behind it) and, with the server on this machine, the server's
// CPU per sell, in three rounds of 3,000 after 500 of warm-up (in memory 30,000 after 30,000).
// Without the HTTP stack and the load generator on the same two cores, what a change to the
// durable path saves shows on a slow day too. `-- --store memory` runs the same on the in-memory
// store, and `-- --command create` creates deals instead of selling them: the gate's and the
// store's own cost of a request, which the in-memory HTTP rows add their server's to
// (docs/performance.md).
import { createPipelineService } from '../src/service/pipeline-service.ts';
import { createStore } from '../src/store/create-store.ts';
import { openPostgresStore } from '../src/store/postgres/postgres-store.ts';
import { postgresOwnerUrl, postgresUrl } from './options.ts';
import { postgresCpuMs } from './proc-cpu.ts';

const argument = (name: string, fallback: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
};
const inMemory = argument('--store', 'postgres') === 'memory';
const command = argument('--command', 'sell');
if (!['sell', 'create'].includes(command)) throw new Error('--command is sell or create');
// In memory a request takes microseconds: rounds ten times longer, and as many before them for the JIT.
const PER_ROUND = Number(process.env.DURABLE_SELLS ?? (inMemory ? 30_000 : 3000));
const WARM_UP = inMemory ? PER_ROUND : 500;
const AT_ONCE = 10;
const store = inMemory
  ? await createStore()
  : await openPostgresStore(postgresUrl(), { poolSize: AT_ONCE, ownerUrl: postgresOwnerUrl() });
const service = createPipelineService(store, { now: () => Date.now() }, { claimTtlHours: 72 });
await service.run(service.platform.reset());
let made = 0;

/** `count` sells (or creates), AT_ONCE at a time. */
async function requests(count: number) {
  let started = 0;
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (started < count) {
        started++;
        const account = { name: `Durable ${made++} Co (fictional)`, industry: 'saas', actor: 'B2B' as const };
        const input = { account, listValueUsd: 25_000 };
        const result =
          command === 'sell'
            ? await service.run(service.deals.sell(input))
            : await service.run(service.deals.createDeal(input));
        if (!result.ok) throw new Error(`a ${command} was refused: ${JSON.stringify(result)}`);
      }
    }),
  );
}

await requests(WARM_UP);
for (let round = 1; round <= 3; round++) {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const server = postgresCpuMs();
  const own = process.cpuUsage();
  const faults = process.resourceUsage().minorPageFault;
  const started = performance.now();
  await requests(PER_ROUND);
  // The sequencer's run after the last commits belongs to them.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(own);
  const serverAfter = postgresCpuMs();
  const serverUs =
    inMemory || server === undefined || serverAfter === undefined
      ? '?'
      : Math.round(((serverAfter - server) * 1000) / PER_ROUND);
  // Of which the kernel's: each page the heap grows by is a page fault, about 10 µs on the
  // bench's virtual machine (docs/performance.md: what an in-memory sell keeps).
  const system = Math.round(used.system / PER_ROUND);
  const faulted = ((process.resourceUsage().minorPageFault - faults) / PER_ROUND).toFixed(2);
  const cost = `the service ${Math.round((used.user + used.system) / PER_ROUND)} µs a ${command} (system ${system} µs, ${faulted} page faults)`;
  console.log(
    `round ${round}: ${Math.round(PER_ROUND / seconds)} ${command}s/s; ${cost}${inMemory ? '' : `, the server ${serverUs} µs`}`,
  );
}
await store.close();
