// Group commit (D-281) against a database that is no server: a fake whose sessions write down
// every statement, answer them in order as a server would (a failure aborts the transaction, a
// lost connection fails all that follows), and can hold a statement's answer until released, so
// that a batch stays in flight while the units behind it queue. No timer decides anything here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  GROUP_COMMIT_DEFAULTS,
  GroupCommit,
  type GroupCommitOptions,
  type GroupedUnit,
} from '../../src/store/postgres/group-commit.ts';
import { SET_PRINCIPAL, type SqlDatabase, type SqlSession, sqlState } from '../../src/store/postgres/sql-database.ts';
import { StoreUnavailableError, UnitConflictError } from '../../src/store/store.ts';

interface Sent {
  session: number;
  text: string;
  params: readonly unknown[];
}

/** An error of the server, with its SQLSTATE. */
const sqlError = (code: string) => Object.assign(new Error(`failed with ${code}`), { code });

class FakeDatabase implements SqlDatabase {
  readonly parallel = true;
  readonly sent: Sent[] = [];
  sessions = 0;
  /** The one connection's state: what the store last held it to. */
  readonly connection: { principal?: string } = { principal: 'platform' };
  /** What a statement (by its text) is answered with instead of rows, once. */
  readonly failures = new Map<string, unknown>();
  /** Thrown by session() itself, as by a pool that cannot connect. */
  refuseSessions: unknown;
  private readonly holds: { text: string; session?: number; until: Promise<void> }[] = [];

  /**
   * Holds the answer to the statement of this text (of this session, or of any), and so to all
   * behind it, until released.
   */
  hold(text: string, session?: number): () => void {
    let release: () => void = () => undefined;
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = { text, session, until };
    this.holds.push(held);
    return () => {
      this.holds.splice(this.holds.indexOf(held), 1);
      release();
    };
  }

  /** The texts of a session's statements, in the order sent. */
  texts(session: number): string[] {
    return this.sent.filter((s) => s.session === session).map((s) => s.text);
  }

  async session<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
    if (this.refuseSessions !== undefined) throw this.refuseSessions;
    const n = ++this.sessions;
    let answered: Promise<unknown> = Promise.resolve();
    let aborted = false;
    let lost: unknown;
    const session: SqlSession = {
      connection: this.connection,
      exec: () => Promise.reject(new Error('no scripts here')),
      query: <R>(text: string, params: readonly unknown[] = []) => {
        this.sent.push({ session: n, text, params });
        const hold = this.holds.find((h) => h.text === text && (h.session ?? n) === n)?.until;
        // The server answers one statement after another.
        const answer = answered.then(async () => {
          await hold;
          if (lost !== undefined) throw lost;
          if (text === 'BEGIN') aborted = false;
          if (text === 'COMMIT') return [];
          if (aborted) throw sqlError('25P02');
          const failure = this.failures.get(text);
          if (failure !== undefined) {
            this.failures.delete(text);
            aborted = true;
            // Not the server's answer: the connection is gone, and every statement behind fails so.
            if (sqlState(failure) === undefined) lost = failure;
            throw failure;
          }
          if (text.includes('take_number')) return [{ n0: 41, n1: 42 }];
          return [{ answered: text, session: n }];
        });
        answered = answer.catch(() => undefined);
        return answer as Promise<R[]>;
      },
    };
    return work(session);
  }

  async close() {}
}

/** A unit of two statements (`name.1`, `name.2`) writing `deal:name` unless told otherwise. */
function unit(
  name: string,
  options: { principal?: string; touches?: string[]; writes?: string[]; stale?: () => boolean; param?: string } = {},
): GroupedUnit {
  const writes = options.writes ?? [`deal:${name}`];
  return {
    principal: options.principal ?? 'platform',
    statements: [1, 2].map((i) => ({ text: `${name}.${i}`, params: [options.param ?? name] })),
    touches: new Set([...writes, ...(options.touches ?? [])]),
    writes: new Set(writes),
    stale: options.stale ?? (() => false),
    committed: () => undefined,
  };
}

/** A group on a fake database, with the sizes of the batches it reported committed. */
/** Most tests keep one batch in flight, so that the next's forming is theirs to watch. */
function setup(options: Partial<GroupCommitOptions> = {}) {
  const db = new FakeDatabase();
  const sizes: number[] = [];
  const group = new GroupCommit(db, { ...GROUP_COMMIT_DEFAULTS, inFlight: 1, ...options }, (units) =>
    sizes.push(units),
  );
  return { db, sizes, group };
}

/** Turns of the event loop until `condition` holds (the fake answers without timers). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 1000 && !condition(); turn++) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error(`never happened: ${what}`);
}

/** Some turns of the event loop: enough for the fake to answer all it may. */
async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** Whether a promise has settled, noted as it does. */
function watch(promise: Promise<unknown>): { settled: boolean } {
  const state = { settled: false };
  const settle = () => Object.assign(state, { settled: true });
  promise.then(settle, settle);
  return state;
}

const rowsOf = (name: string, session: number) => [1, 2].map((i) => [{ answered: `${name}.${i}`, session }]);

describe('group commit (D-281), on a fake database', () => {
  it('a lone unit goes at once, alone: BEGIN, its statements, COMMIT', async () => {
    const { db, sizes, group } = setup();
    const rows = await group.commit(unit('a'));
    assert.deepEqual(db.texts(1), ['BEGIN', 'a.1', 'a.2', 'COMMIT']);
    assert.deepEqual(rows, rowsOf('a', 1));
    assert.deepEqual(sizes, [1]);
  });

  it('units ready while a batch is in flight go together in the next, in arrival order', async () => {
    const { db, sizes, group } = setup();
    const release = db.hold('a.1');
    const first = group.commit(unit('a'));
    const later = ['b', 'c', 'd'].map((name) => group.commit(unit(name)));
    await until(() => db.sent.length === 4, 'the first batch sent');
    assert.equal(db.sessions, 1, 'nothing else goes while the first is in flight');
    release();
    assert.deepEqual(await first, rowsOf('a', 1));
    assert.deepEqual(await Promise.all(later), [rowsOf('b', 2), rowsOf('c', 2), rowsOf('d', 2)]);
    assert.deepEqual(db.texts(2), ['BEGIN', 'b.1', 'b.2', 'c.1', 'c.2', 'd.1', 'd.2', 'COMMIT']);
    assert.deepEqual(sizes, [1, 3]);
  });

  it('two batches fly at once; a unit using a record one of them writes waits for it, then is refused unsent', async () => {
    const { db, group } = setup({ inFlight: 2 });
    const release = db.hold('a.1');
    const first = group.commit(unit('a'));
    const second = group.commit(unit('b'));
    await until(() => db.sessions === 2, 'the second batch sent beside the first');
    // Uses deal:a, which the first batch (held) writes: sent neither now nor beside it.
    let stale = false;
    const third = group.commit(unit('c', { touches: ['deal:a'], stale: () => stale }));
    const fourth = group.commit(unit('d'));
    await second;
    await until(() => db.sessions === 3, 'the next batch sent, without the waiting unit');
    assert.deepEqual(db.texts(3), ['BEGIN', 'd.1', 'd.2', 'COMMIT']);
    await fourth;
    // The first commits: its write is in the cache, so the waiting unit is stale now.
    stale = true;
    release();
    await first;
    await assert.rejects(third, { name: 'UnitConflictError' });
    assert.equal(db.sent.filter((sent) => sent.text.startsWith('c.')).length, 0);
  });

  it('maxUnits bounds a batch: the rest goes in the next', async () => {
    const { db, sizes, group } = setup({ maxUnits: 2, maxBytes: 1 << 20 });
    const release = db.hold('a.1');
    const all = ['a', 'b', 'c', 'd', 'e'].map((name) => group.commit(unit(name)));
    release();
    await Promise.all(all);
    assert.deepEqual(sizes, [1, 2, 2]);
    assert.deepEqual(db.texts(3), ['BEGIN', 'd.1', 'd.2', 'e.1', 'e.2', 'COMMIT']);
  });

  it('maxBytes bounds a batch, and a unit larger than it still goes, alone', async () => {
    // Each small unit sends 2 × (3 + 100) bytes: two fit in 500, three do not.
    const { db, sizes, group } = setup({ maxUnits: 64, maxBytes: 500 });
    const release = db.hold('a.1');
    const small = (name: string) => unit(name, { param: 'x'.repeat(100) });
    const all = [
      group.commit(small('a')),
      ...['b', 'c', 'd'].map((name) => group.commit(small(name))),
      group.commit(unit('big', { param: 'x'.repeat(2000) })),
    ];
    release();
    await Promise.all(all);
    assert.deepEqual(sizes, [1, 2, 1, 1]);
    assert.deepEqual(db.texts(2), ['BEGIN', 'b.1', 'b.2', 'c.1', 'c.2', 'COMMIT']);
    assert.deepEqual(db.texts(4), ['BEGIN', 'big.1', 'big.2', 'COMMIT']);
  });

  it('a unit whose statement fails gets its error; the others go again first, before later arrivals', async () => {
    const { db, sizes, group } = setup();
    const releaseFirst = db.hold('a.1');
    const a = group.commit(unit('a'));
    db.failures.set('c.1', sqlError('23505'));
    const [b, c, d] = ['b', 'c', 'd'].map((name) => group.commit(unit(name)));
    const failed = watch(c);
    const releaseSecond = db.hold('b.1');
    releaseFirst();
    await a;
    await until(() => db.sessions === 2, 'the second batch sent');
    // Arrives while the batch that will fail is in flight.
    const e = group.commit(unit('e'));
    assert.equal(failed.settled, false);
    releaseSecond();
    await assert.rejects(c, (error: { code?: string }) => error.code === '23505');
    assert.deepEqual(await b, rowsOf('b', 3));
    assert.deepEqual(await d, rowsOf('d', 3));
    assert.deepEqual(await e, rowsOf('e', 3));
    assert.deepEqual(db.texts(3), ['BEGIN', 'b.1', 'b.2', 'd.1', 'd.2', 'e.1', 'e.2', 'COMMIT']);
    assert.deepEqual(sizes, [1, 3], 'the batch that failed is not reported committed');
  });

  it('a unit using a record an earlier unit of its batch writes is refused at once, never sent', async () => {
    const { db, sizes, group } = setup();
    const release = db.hold('a.1');
    const a = group.commit(unit('a'));
    const b = group.commit(unit('b', { writes: ['deal:x'] }));
    const c = group.commit(unit('c', { writes: ['deal:c'], touches: ['deal:x'] }));
    // Two units that only read one record go together.
    const d = group.commit(unit('d', { touches: ['closer:z'] }));
    const e = group.commit(unit('e', { touches: ['closer:z'] }));
    release();
    await Promise.all([a, b, d, e]);
    await assert.rejects(c, UnitConflictError);
    assert.deepEqual(db.texts(2), ['BEGIN', 'b.1', 'b.2', 'd.1', 'd.2', 'e.1', 'e.2', 'COMMIT']);
    assert.ok(!db.sent.some((s) => s.text.startsWith('c.')), 'c was never sent');
    assert.deepEqual(sizes, [1, 3]);
  });

  it('a unit whose cached record is stale by the time its batch is taken is refused, never sent', async () => {
    const { db, sizes, group } = setup();
    // Alone, with nothing in flight: refused at once, no session taken.
    await assert.rejects(group.commit(unit('s', { stale: () => true })), UnitConflictError);
    assert.equal(db.sessions, 0);
    const release = db.hold('a.1');
    const a = group.commit(unit('a'));
    let changed = false;
    // Current when it arrives, stale when its batch is taken.
    const b = group.commit(unit('b', { stale: () => changed }));
    const c = group.commit(unit('c'));
    changed = true;
    release();
    await Promise.all([a, c]);
    await assert.rejects(b, UnitConflictError);
    assert.deepEqual(db.texts(2), ['BEGIN', 'c.1', 'c.2', 'COMMIT']);
    assert.deepEqual(sizes, [1, 1]);
  });

  it("each unit runs behind its own principal, set for the transaction only; its rows are its statements' own", async () => {
    const { db, group } = setup();
    const release = db.hold('a.1');
    const a = group.commit(unit('a', { principal: 'seller_0001' }));
    const principals = ['platform', 'seller_0001', 'seller_0001', 'seller_0002', 'platform'];
    const names = ['b', 'c', 'd', 'e', 'f'];
    const rest = names.map((name, i) => group.commit(unit(name, { principal: principals[i] })));
    release();
    assert.deepEqual(await a, rowsOf('a', 1));
    assert.deepEqual(
      await Promise.all(rest),
      names.map((name) => rowsOf(name, 2)),
    );
    assert.deepEqual(db.texts(1), ['BEGIN', SET_PRINCIPAL, 'a.1', 'a.2', 'COMMIT']);
    assert.deepEqual(db.sent[1].params, ['seller_0001']);
    const second = db.sent.filter((s) => s.session === 2);
    assert.deepEqual(
      second.map((s) => (s.text === SET_PRINCIPAL ? `set ${s.params[0]}` : s.text)),
      // The connection is held to the platform: b needs no setting, c does, d follows c's.
      ['BEGIN', 'b.1', 'b.2', 'set seller_0001', 'c.1', 'c.2', 'd.1', 'd.2', 'set seller_0002', 'e.1', 'e.2'].concat([
        'set platform',
        'f.1',
        'f.2',
        'COMMIT',
      ]),
    );
    assert.equal(db.connection.principal, 'platform', 'the connection stays held to its own principal');
  });

  for (const [what, error] of [
    ['an error without SQLSTATE', new Error('Connection terminated unexpectedly')],
    ['a StoreUnavailableError', new StoreUnavailableError(new Error('gone'))],
    [
      'a socket error whose code looks like a SQLSTATE',
      Object.assign(new Error('EPIPE'), { code: 'EPIPE', syscall: 'write' }),
    ],
  ] as const) {
    it(`a connection lost mid-batch (${what}) rejects every unit of the batch with its error`, async () => {
      const { db, sizes, group } = setup();
      const release = db.hold('a.1');
      const a = group.commit(unit('a'));
      db.failures.set('c.1', error);
      const batch = ['b', 'c', 'd'].map((name) => group.commit(unit(name)));
      release();
      await a;
      for (const promise of batch) await assert.rejects(promise, (thrown) => thrown === error);
      assert.equal(db.sessions, 2, 'nothing is sent again');
      assert.deepEqual(sizes, [1]);
      // The group goes on with the next unit.
      assert.deepEqual(await group.commit(unit('z')), rowsOf('z', 3));
    });
  }

  it('a session that cannot be had rejects every unit of the batch, and the group goes on', async () => {
    const { db, group } = setup();
    const refused = new StoreUnavailableError(new Error('no connection'));
    db.refuseSessions = refused;
    await assert.rejects(group.commit(unit('a')), (thrown) => thrown === refused);
    db.refuseSessions = undefined;
    assert.deepEqual(await group.commit(unit('b')), rowsOf('b', 1));
  });

  it('nothing settles before COMMIT has answered, a failed unit neither', async () => {
    const { db, group } = setup();
    const releaseLone = db.hold('COMMIT', 1);
    const lone = group.commit(unit('a'));
    const a = watch(lone);
    await turns(20);
    assert.equal(a.settled, false, 'its statements are answered, its COMMIT is not');
    releaseLone();
    await lone;
    const releaseFirst = db.hold('b.1');
    const b = group.commit(unit('b'));
    db.failures.set('d.1', sqlError('40001'));
    const c = group.commit(unit('c'));
    const d = group.commit(unit('d'));
    const watched = [watch(c), watch(d)];
    const releaseCommit = db.hold('COMMIT', 3);
    releaseFirst();
    await b;
    await until(() => db.texts(3).length === 6, 'the second batch sent');
    await turns(20);
    assert.deepEqual(
      watched.map((w) => w.settled),
      [false, false],
    );
    releaseCommit();
    await assert.rejects(d, (error: { code?: string }) => error.code === '40001');
    assert.deepEqual(await c, rowsOf('c', 4));
  });

  it("a ready unit's numbers go at once on a session of their own, outside the batch in flight", async () => {
    const { db, group } = setup();
    const release = db.hold('a.1');
    const a = group.commit(unit('a'));
    assert.deepEqual(await group.numbers.take(['deal', 'gig']), ['deal_0041', 'gig_0042']);
    assert.equal(db.sessions, 2);
    assert.ok(!db.texts(2).includes('BEGIN'), 'outside any transaction');
    release();
    await a;
  });
});
