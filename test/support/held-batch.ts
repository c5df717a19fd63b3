// A batch held in flight on purpose (group commit, D-281): a connection of the test's own holds a
// deal's row lock, so the batch of a unit on that deal waits for it while the units behind it
// queue; the test sees the server report the wait, and releases the lock when they are ready.
import assert from 'node:assert/strict';
import pg from 'pg';
import type { Deal } from '../../src/domain/records.ts';
import type { UnitOfWork } from '../../src/store/store.ts';
import type { TestSchema } from './postgres.ts';

/** A command's shape on a deal: read it, add a note to its activity, write it; the version it saw. */
export async function note(uow: UnitOfWork, id: string, text: string): Promise<number> {
  const deal = await uow.getDeal(id);
  if (!deal) throw new Error(`no ${id}`);
  const entry = { at: deal.lastActedAt, by: 'service', stage: deal.stage, note: text } as const;
  await uow.putDeal({ ...deal, version: deal.version + 1, activity: [...deal.activity, entry] });
  return deal.version;
}

export const notesOf = (deal: Deal | undefined) => deal?.activity.map((entry) => entry.note);

/**
 * A deal's row lock, held from a connection of the test's own, and the wait for a unit's batch
 * to queue behind it (the server reports the batch's connection blocked by this one).
 */
export async function holdDeal(schema: TestSchema, watcher: pg.Client, id: string) {
  const locker = new pg.Client({ connectionString: schema.url });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query("SELECT set_config('pipeline.principal', 'platform', true)");
  const [{ pid }] = (await locker.query('SELECT pg_backend_pid() AS pid')).rows;
  const locked = await locker.query('SELECT id FROM deals WHERE id = $1 FOR UPDATE', [id]);
  assert.equal(locked.rowCount, 1, `the lock on ${id} is held`);
  return {
    async blocking(): Promise<void> {
      for (;;) {
        const { rows } = await watcher.query(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))',
          [pid],
        );
        if (rows[0].n > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async release(): Promise<void> {
      await locker.query('ROLLBACK');
      await locker.end();
    },
  };
}

/** Turns of the event loop: units that decided on cached records reach their group meanwhile. */
export async function turns(count = 50): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
}
