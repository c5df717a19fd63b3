// `npm run bench:durable`: sells through the service's runner on PostgreSQL (DATABASE_URL or
// TEST_DATABASE_URL; the store is reset), no HTTP, 10 at once: the service's CPU and, with the
// server on this machine, the server's CPU per sell, in three rounds of 3,000 after 500 of
// warm-up. Without the HTTP stack and the load generator on the same two cores, what
// a change to the durable path saves shows on a slow day too.
import { createPipelineService } from '../src/service/pipeline-service.ts';
import { openPostgresStore } from '../src/store/postgres/postgres-store.ts';
import { postgresOwnerUrl, postgresUrl } from './options.ts';
import { postgresCpuMs } from './proc-cpu.ts';

const SELLS = Number(process.env.DURABLE_SELLS ?? 3000);
const AT_ONCE = 10;
const store = await openPostgresStore(postgresUrl(), { poolSize: AT_ONCE, ownerUrl: postgresOwnerUrl() });
const service = createPipelineService(store, { now: () => Date.now() }, { claimTtlHours: 72 });
await service.run(service.platform.reset());
let made = 0;

/** `count` sells, AT_ONCE at a time. */
async function sells(count: number) {
  let started = 0;
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (started < count) {
        started++;
        const account = { name: `Durable ${made++} Co (fictional)`, industry: 'saas', actor: 'B2B' as const };
        const result = await service.run(service.deals.sell({ account, listValueUsd: 25_000 }));
        if (!result.ok) throw new Error(`a sell was refused: ${JSON.stringify(result)}`);
      }
    }),
  );
}

await sells(500);
for (let round = 1; round <= 3; round++) {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const server = postgresCpuMs();
  const own = process.cpuUsage();
  const started = performance.now();
  await sells(SELLS);
  // The sequencer's run after the last commits belongs to them.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(own);
  const serverAfter = postgresCpuMs();
  const serverUs =
    server === undefined || serverAfter === undefined ? '?' : Math.round(((serverAfter - server) * 1000) / SELLS);
  console.log(
    `round ${round}: ${Math.round(SELLS / seconds)} sells/s; the service ${Math.round((used.user + used.system) / SELLS)} µs a sell, the server ${serverUs} µs`,
  );
}
await store.close();
