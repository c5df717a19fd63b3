// Keyed writes in group commit (D-285, D-37) on a real PostgreSQL server, through the runner every
// door uses. A key read free outside the unit lets the unit commit in a batch like any other
// write, its answer inserted only as a new row behind the key's lock. What is shown: keyed units
// of distinct keys commit together and replay their stored answers; two requests with one key in
// one batch have one effect (the second runs again with the lock and replays the first); a key
// stored by another instance after the unit read it free fails the unit's check, and the unit
// runs again with the lock and replays that answer, having changed nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { type Execution, type Rendering, UnitRunner } from '../../src/service/execute.ts';
import type { UnitCommand } from '../../src/service/unit-command.ts';
import { PgDatabase } from '../../src/store/postgres/pg-database.ts';
import { SqlStore } from '../../src/store/postgres/sql-store.ts';
import type { Store } from '../../src/store/store.ts';
import { NO_TELEMETRY, type Telemetry } from '../../src/telemetry.ts';
import { putCreated, sampleDeal } from '../store/contract.ts';
import { holdDeal, note, notesOf, turns } from '../support/held-batch.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';

const PATIENCE = { timeout: 180_000 };
const OPTIMISTIC = { optimistic: true } as const;

/** The answer of a note: the version the unit saw, as JSON. */
const rendering: Rendering<number> = {
  answer: (result) =>
    result.ok ? { status: 200, body: { saw: result.value } } : { status: 409, body: result.refusal },
  bytes: (answer) => ({ status: answer.status, body: JSON.stringify(answer.body) }),
};

/** A command that notes a deal, counting its runs. */
function noting(id: string, text: string, runs: string[]): UnitCommand<number> {
  return {
    work: (uow) => {
      runs.push(text);
      return note(uow, id, text);
    },
  };
}

const keyed = (key: string, fingerprint = `fp-${key}`) => ({ kind: 'keyed', key, fingerprint }) as const;

/** The body an execution answered or replayed. */
function bodyOf(execution: Execution): string {
  if (execution.kind === 'answered' && execution.stored) return execution.stored.body;
  if (execution.kind === 'replayed') return execution.answer.body;
  throw new Error(`no body: ${execution.kind}`);
}

/** The store, its reads of one statement (a keyed request's first read of its key) counted. */
function countingReads(store: Store, count: { reads: number }): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'read')
        return async (...args: Parameters<Store['read']>) => {
          const result = await target.read(...args);
          if (args[1]?.oneStatement) count.reads++;
          return result;
        };
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Waits until `done` holds (what is awaited is the server's answers, however slow the machine). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
}

const server = await postgresForTests();

if (server.skip !== undefined) {
  describe('keyed writes in group commit (D-285)', { skip: server.skip }, () => {});
} else {
  describe('keyed writes in group commit (D-285)', PATIENCE, () => {
    let schema: TestSchema;
    let watcher: pg.Client;
    const sizes: number[] = [];
    const retried: string[] = [];
    let a: SqlStore;
    let b: SqlStore;
    let runnerA: UnitRunner;
    let runnerB: UnitRunner;
    const clock = { now: () => Date.now() };
    const peeked = { reads: 0 };

    before(async () => {
      schema = await createTestSchema(server.url, 'keyed_group_commit');
      watcher = new pg.Client({ connectionString: schema.url });
      await watcher.connect();
      const telemetry: Telemetry = {
        ...NO_TELEMETRY,
        unitRetried: (state) => retried.push(state),
        committedTogether: (units) => sizes.push(units),
      };
      const owner = schema.ownerUrl === undefined ? undefined : new PgDatabase(schema.ownerUrl, { poolSize: 1 });
      try {
        // One batch in flight on A: the held batch's followers form the next one.
        a = await SqlStore.open(new PgDatabase(schema.url, { poolSize: 4 }), telemetry, {
          owner,
          groupCommit: { inFlight: 1 },
        });
        b = await SqlStore.open(new PgDatabase(schema.url, { poolSize: 2 }), NO_TELEMETRY, { owner });
      } finally {
        await owner?.close();
      }
      runnerA = new UnitRunner(countingReads(a, peeked), clock);
      runnerB = new UnitRunner(b, clock);
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await watcher?.end();
      await schema?.drop();
    });

    /** Deals created on A (A's cache then holds them). */
    const created = (...ids: string[]) =>
      a.transaction((uow) => putCreated(uow, ...ids.map((id) => sampleDeal(id))), OPTIMISTIC);

    /**
     * Runs `queue`'s executions on A while a batch on `heldId` is in flight: once each has read its
     * key (and then, from the cache, reached its group), and `meanwhile` is done, the batch goes.
     */
    async function behindAHeldBatch(
      heldId: string,
      queue: () => Promise<Execution>[],
      meanwhile?: () => Promise<unknown>,
    ) {
      const hold = await holdDeal(schema, watcher, heldId);
      let held: Promise<unknown> | undefined;
      let settled: Promise<PromiseSettledResult<Execution>[]> | undefined;
      try {
        held = a.transaction((uow) => note(uow, heldId, 'held'), OPTIMISTIC);
        await hold.blocking();
        sizes.length = 0;
        retried.length = 0;
        const from = peeked.reads;
        const executions = queue();
        settled = Promise.allSettled(executions);
        await until(() => peeked.reads >= from + executions.length);
        await turns();
        await meanwhile?.();
      } finally {
        await hold.release();
      }
      await held;
      return settled;
    }

    const values = (results: PromiseSettledResult<Execution>[]) =>
      results.map((r) => {
        if (r.status === 'rejected') throw r.reason;
        return r.value;
      });

    it('keyed units of distinct keys commit together, and each key replays what it stored', PATIENCE, async () => {
      const dealIds = ['deal_0011', 'deal_0012', 'deal_0013', 'deal_0014'];
      await created('deal_0010', ...dealIds);
      const runs: string[] = [];
      const results = values(
        await behindAHeldBatch('deal_0010', () =>
          dealIds.map((id) => runnerA.execute(noting(id, `keyed ${id}`, runs), keyed(`k-${id}`), rendering)),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.kind),
        ['answered', 'answered', 'answered', 'answered'],
      );
      assert.deepEqual(sizes, [1, dealIds.length], 'the held unit, then the four keyed units in one batch');
      assert.deepEqual(retried, []);
      for (const id of dealIds) {
        assert.deepEqual(notesOf(await a.read((r) => r.getDeal(id))), ['created', `keyed ${id}`]);
      }
      // Again, on either instance: the stored answer, and nothing runs.
      runs.length = 0;
      for (const [i, id] of dealIds.entries()) {
        const runner = i % 2 === 0 ? runnerA : runnerB;
        const again = await runner.execute(noting(id, 'again', runs), keyed(`k-${id}`), rendering);
        assert.equal(again.kind, 'replayed');
        assert.equal(bodyOf(again), bodyOf(results[i] as Execution));
      }
      assert.deepEqual(runs, []);
    });

    it('two requests with one key in one batch have one effect; the second replays the first', PATIENCE, async () => {
      await created('deal_0020', 'deal_0021', 'deal_0022');
      const runs: string[] = [];
      const results = values(
        await behindAHeldBatch('deal_0020', () => [
          runnerA.execute(noting('deal_0021', 'first', runs), keyed('k-shared'), rendering),
          runnerA.execute(noting('deal_0022', 'second', runs), keyed('k-shared'), rendering),
        ]),
      );
      const deals = await a.read((r) => Promise.all(['deal_0021', 'deal_0022'].map((id) => r.getDeal(id))));
      const noted = deals.map((deal) => (notesOf(deal)?.length ?? 0) - 1);
      assert.deepEqual([...noted].sort(), [0, 1], `one deal noted: ${noted}`);
      assert.deepEqual(results.map((r) => r.kind).sort(), ['answered', 'replayed']);
      assert.equal(bodyOf(results[0] as Execution), bodyOf(results[1] as Execution), 'the same answer');
      assert.ok(retried.length >= 1 && retried.every((s) => s === '40001'), `${retried}`);
      const stored = await a.read((r) => r.getAnswer('k-shared'));
      assert.equal(stored?.body, bodyOf(results[0] as Execution));
    });

    it(
      'a key another instance stores after the unit read it free: the unit runs again with the lock, and replays',
      PATIENCE,
      async () => {
        await created('deal_0030', 'deal_0031', 'deal_0032');
        const runs: string[] = [];
        let byB: Execution | undefined;
        // A reads the key free and queues behind the held batch; meanwhile B stores it.
        const results = values(
          await behindAHeldBatch(
            'deal_0030',
            () => [runnerA.execute(noting('deal_0031', 'by A', runs), keyed('k-raced'), rendering)],
            async () => {
              byB = await runnerB.execute(noting('deal_0032', 'by B', runs), keyed('k-raced'), rendering);
            },
          ),
        );
        assert.equal(byB?.kind, 'answered');
        assert.equal(results[0]?.kind, 'replayed', "A replays B's answer");
        assert.equal(bodyOf(results[0] as Execution), bodyOf(byB as Execution));
        assert.deepEqual(notesOf(await a.read((r) => r.getDeal('deal_0031'))), ['created'], 'A changed nothing');
        assert.deepEqual(notesOf(await a.read((r) => r.getDeal('deal_0032'))), ['created', 'by B']);
        assert.deepEqual(retried, ['40001'], "A's batch failed its check once");
      },
    );
  });
}
