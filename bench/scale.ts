// `npm run bench:scale`: how the service holds up as deals grow. Loads deals through the real
// service (in memory by default: 1,000,000; --store postgres|pglite: 100,000), one in ten of
// them advanced to negotiation, then reports memory per deal, start-up and reset time, and the
// time of a stage-filtered page of 100 deals (StoreReader.listDeals) at that size.
//   --deals <n>   --store memory|postgres|pglite   --out <file>
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startServer } from '../src/server.ts';
import { PipelineService } from '../src/service/pipeline-service.ts';
import { createStore } from '../src/store/create-store.ts';
import type { Store } from '../src/store/store.ts';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const storeKind = option('--store') ?? 'memory';
const deals = Number(option('--deals') ?? (storeKind === 'memory' ? 1_000_000 : 100_000));
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:scale does)');

function databaseUrl(): string | undefined {
  if (storeKind === 'memory') return undefined;
  if (storeKind === 'pglite') return `pglite:${mkdtempSync(join(tmpdir(), 'scale-pglite-'))}`;
  const url = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('--store postgres needs DATABASE_URL or TEST_DATABASE_URL (its data is wiped)');
  return url;
}

const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const ms = (from: number) => Math.round((performance.now() - from) * 100) / 100;

async function main() {
  const figures: Record<string, unknown> = {
    takenAt: new Date().toISOString(),
    store: storeKind,
    deals,
    node: process.version,
  };
  const store: Store = await createStore(databaseUrl());
  const service = new PipelineService(store, { now: () => Date.now() }, { claimTtlHours: 72 });
  await service.reset();

  const before = heap();
  const loadStart = performance.now();
  const account = { industry: 'saas', actor: 'B2B' as const };
  const width = storeKind === 'memory' ? 1 : 8;
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < deals) {
        const i = next++;
        const created = await service.createDeal({
          account: { name: `Scale Fictional ${i}`, ...account },
          listValueUsd: 1_000 + (i % 90_000),
        });
        if (!created.ok) throw new Error(created.refusal.message);
        if (i % 10 === 0) for (let s = 0; s < 4; s++) await service.advanceDeal(created.value.id, {});
      }
    }),
  );
  figures.loadSeconds = Math.round((performance.now() - loadStart) / 10) / 100;
  if (storeKind === 'memory') {
    const perDeal = (heap() - before) / deals;
    figures.bytesPerDeal = Math.round(perDeal);
    figures.rssMiB = Math.round(process.memoryUsage().rss / 2 ** 20);
  }

  // Stage-filtered pages of 100 at random cursors (the first 200 warm the code up, unmeasured).
  const times: number[] = [];
  for (let i = -200; i < 1000; i++) {
    const after = `deal_${String(Math.floor(Math.random() * deals)).padStart(4, '0')}`;
    const start = performance.now();
    const page = await store.read((r) => r.listDeals({ stage: 'negotiation', afterId: after, limit: 100 }));
    if (i < 0) continue;
    times.push(performance.now() - start);
    if (page.some((d) => d.stage !== 'negotiation')) throw new Error('listDeals answered another stage');
  }
  times.sort((a, b) => a - b);
  const pick = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] * 1000) / 1000;
  figures.stagePageMs = { p50: pick(0.5), p99: pick(0.99), max: pick(1) };
  // The budget is 5 ms a page; a page over it is one a garbage collection landed on.
  figures.stagePagesOver5Ms = `${times.filter((t) => t >= 5).length} of ${times.length}`;

  const resetStart = performance.now();
  await service.reset();
  figures.resetMs = ms(resetStart);
  await store.close();

  // Start-up: a whole service (store, sandbox, routes) until it listens.
  const startStart = performance.now();
  const server = await startServer({
    config: { port: 0, timerIntervalSeconds: 0, databaseUrl: databaseUrl() },
    log: false,
  });
  figures.startupMs = ms(startStart);
  await server.close();

  console.table(Object.entries(figures).map(([figure, value]) => ({ figure, value: JSON.stringify(value) })));
  const out = option('--out') ?? `bench/results/scale-${storeKind}.json`;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`figures written to ${out}`);
  if (storeKind === 'memory') {
    const misses = [];
    if ((figures.bytesPerDeal as number) > 2048) misses.push(`memory per deal ${figures.bytesPerDeal} B > 2 KiB`);
    if ((figures.stagePageMs as { p99: number }).p99 >= 5) misses.push('stage-filtered page p99 ≥ 5 ms');
    for (const miss of misses) console.error(`over budget: ${miss}`);
    if (misses.length > 0 && deals >= 1_000_000) process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
