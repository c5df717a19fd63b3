// A store may run a unit's work again from the start after a deadlock or a serialization
// failure (store.ts, D-46). Every mode of a write survives that: a dry run's record of what it
// would do is made inside the unit (so a second run does not add to the first's), a keyed
// request stores its answer once, a plain one writes its records once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WriteOperation } from '../../src/operations/operation.ts';
import { renderings } from '../../src/operations/run.ts';
import { OPERATIONS } from '../../src/operations/table.ts';
import { createPipelineService } from '../../src/service/pipeline-service.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { Store, UnitOfWork } from '../../src/store/store.ts';
import { writeAnswers } from '../../src/views/answers.ts';

const T0 = Date.parse('2030-03-04T09:00:00.000Z');
const SELL = { account: { name: 'Fictional Retry Co', actor: 'B2B' as const }, listValueUsd: 20_000 };

/** The memory store, but every unit of work runs its work once, is rolled back, and runs again. */
function retryingStore(): { store: Store; runs: () => number } {
  const inner = new MemoryStore();
  let runs = 0;
  const again = Symbol('deadlock');
  const store: Store = {
    runsUnitsAgain: inner.runsUnitsAgain,
    read: (work) => inner.read(work),
    events: (filter) => inner.events(filter),
    lastSeq: () => inner.lastSeq(),
    watchClockOffset: () => inner.watchClockOffset(),
    watchWebhooks: (listener) => inner.watchWebhooks(listener),
    close: () => inner.close(),
    async transaction<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
      try {
        // The first run ends in a deadlock, however its work ended: all of it rolled back.
        await inner.transaction(async (uow) => {
          runs++;
          await work(uow).catch(() => undefined);
          throw again;
        });
      } catch (error) {
        if (error !== again) throw error;
      }
      runs++;
      return inner.transaction(work);
    },
  };
  return { store, runs: () => runs };
}

const sellOp = OPERATIONS.find((op) => op.id === 'sell') as WriteOperation;

describe('a unit of work the store runs twice', () => {
  it('a dry run answers its events once', async () => {
    const plain = createPipelineService(new MemoryStore(), { now: () => T0 }, { claimTtlHours: 72 });
    const { store, runs } = retryingStore();
    const retried = createPipelineService(store, { now: () => T0 }, { claimTtlHours: 72 });
    const rendering = renderings(writeAnswers('/pipeline'))(sellOp);
    const dry = async (service: typeof plain) =>
      service.runner.execute(service.deals.sell(SELL), { kind: 'dry' }, rendering);
    const once = await dry(plain);
    const twice = await dry(retried);
    assert.ok(runs() >= 2, 'the work ran twice');
    assert.equal(once.kind, 'dry');
    assert.equal(twice.kind, 'dry');
    const events = (e: typeof once) => (e as { answer: { body: { events: unknown[] } } }).answer.body.events;
    assert.ok(events(once).length > 0);
    assert.deepEqual(events(twice), events(once), 'the same events, not twice as many');
  });

  it('a keyed request stores one answer and writes its records once; its replay is that answer', async () => {
    const { store } = retryingStore();
    const service = createPipelineService(store, { now: () => T0 }, { claimTtlHours: 72 });
    const rendering = renderings(writeAnswers('/pipeline'))(sellOp);
    const mode = { kind: 'keyed' as const, key: 'retry-1', fingerprint: 'f' };
    const first = await service.runner.execute(service.deals.sell(SELL), mode, rendering);
    assert.equal(first.kind, 'answered');
    const replayed = await service.runner.execute(service.deals.sell(SELL), mode, rendering);
    assert.equal(replayed.kind, 'replayed');
    assert.equal(
      (replayed as { answer: { body: string } }).answer.body,
      (first as { stored: { body: string } }).stored.body,
    );
    const deals = await service.queries.listDeals({ limit: 100 });
    assert.deepEqual(
      deals.map((d) => d.id),
      ['deal_0001'],
      'one deal, numbered once',
    );
  });
});
