// No hot row (D-185, D-192) on a real PostgreSQL server, two service processes over one
// schema: no row that every write locks (ids from sequences, D-28 revised), a reset that stays
// atomic beside racing creates, closers locked in one order (D-46), and the demo clock kept in
// each instance yet never going backwards for a deal (D-19).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Answer } from '../support/http.ts';
import { type Instance, startInstance } from '../support/instances.ts';
import {
  ADA,
  advanceClock,
  claim,
  createDeal,
  dealBody,
  getDeal,
  MILO,
  openCloserGig,
} from '../support/marketplace-e2e.ts';
import { createTestSchema, postgresForTests, sqlOn, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();

const statuses = (answers: Answer[]) => [...new Set(answers.map((a) => a.status))].sort().join(',');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` in `width` loops until `ms` have passed (and, when given, until `more` says
 * enough); answers every result.
 */
async function loops<T>(
  width: number,
  ms: number,
  work: (loop: number, i: number) => Promise<T>,
  more: () => boolean = () => false,
): Promise<T[]> {
  const results: T[] = [];
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: width }, async (_, loop) => {
      for (let i = 0; Date.now() < end || more(); i++) results.push(await work(loop, i));
    }),
  );
  return results;
}

describe('no hot row on PostgreSQL (two instances)', { skip: server.skip }, () => {
  let schema: TestSchema;
  let a: Instance;
  let b: Instance;
  /** The instances' connections carry this name, so that the sampler sees only theirs. */
  const applicationName = `no_hot_row_${process.pid}`;
  const across = (i: number) => (i % 2 === 0 ? a : b);

  before(async () => {
    schema = await createTestSchema(server.url as string, 'hot');
    const url = new URL(schema.url);
    url.searchParams.set('application_name', applicationName);
    // Eight connections each: sixteen in all.
    const env = { DATABASE_POOL_SIZE: '8', TIMER_INTERVAL_SECONDS: '0' };
    const database = { url: url.toString(), ownerUrl: schema.ownerUrl };
    [a, b] = await Promise.all([startInstance(database, env), startInstance(database, env)]);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  /**
   * The sampler: every few milliseconds, the instances' backends waiting for a lock. The feed's
   * sequencer (one run at a time per database, by design) waits for the event_feed row; a
   * request must wait for nothing. Who waits is read from the same snapshot of the lock table as
   * the wait (a materialized CTE: pg_locks read once): a sequencer waiting for another one's
   * transaction holds the event_feed row's tuple lock (AccessExclusiveLock for FOR UPDATE, taken
   * before the wait for the holder's transaction), and no request locks event_feed. The tuple
   * lock is the proof, not event_feed's RowShareLock: that one is a fast-path lock, which pg_locks
   * reads backend by backend before the main lock table, so a sequencer that began between the
   * two reads waits in the snapshot without holding it (CI once saw exactly that). The query
   * text is for the reader only: pg_stat_activity is a snapshot of another moment (CI once
   * showed the sequencer's wait beside the COMMIT its connection had run before). A wait to
   * extend a table's file (locktype 'extend') is storage, not a row: every insert into a growing
   * table may queue a moment behind another one adding a page, whatever the schema (CI saw one
   * among 101 samples), so it is left out.
   */
  function sampleWaits() {
    const waits: string[] = [];
    let sampling = true;
    let samples = 0;
    const running = sqlOn(schema.url, async (client) => {
      while (sampling) {
        const { rows } = await client.query(
          `WITH l AS MATERIALIZED (SELECT * FROM pg_locks),
             ours AS (SELECT pid, query FROM pg_stat_activity WHERE application_name = $1)
           SELECT w.locktype, w.mode, ours.query, w.relation::regclass::text AS relation,
             (SELECT string_agg(h.backend_type || ': ' || left(h.query, 80), '; ') FROM pg_stat_activity h
               WHERE h.pid = ANY (pg_blocking_pids(w.pid))) AS holders
           FROM l w JOIN ours ON ours.pid = w.pid
           WHERE NOT w.granted AND w.locktype <> 'extend' AND w.relation IS DISTINCT FROM 'event_feed'::regclass
             AND NOT EXISTS (SELECT 1 FROM l h WHERE h.pid = w.pid AND h.granted
               AND h.relation = 'event_feed'::regclass AND (h.locktype = 'tuple' OR h.mode = 'RowShareLock'))`,
          [applicationName],
        );
        samples++;
        for (const row of rows)
          waits.push(
            `${row.locktype} ${row.relation ?? ''} ${row.mode} (last query: ${row.query}; held by ${row.holders})`,
          );
        await sleep(2);
      }
    });
    return {
      samples: () => samples,
      async stop() {
        sampling = false;
        await running;
        return { waits, samples };
      },
    };
  }

  it('autovacuum never shortens a queue table, which would lock out its writers (D-284)', async () => {
    const rows = await sqlOn(schema.url, async (client) => {
      const answer = await client.query(
        `SELECT c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace
           AND 'vacuum_truncate=false' = ANY (c.reloptions) ORDER BY c.relname`,
      );
      return answer.rows.map((row) => row.relname);
    });
    assert.deepEqual(rows, ['event_outbox', 'held_earnings', 'key_closes']);
  });

  it('creates and sells on sixteen connections over two instances never wait for a lock', async () => {
    const sampler = sampleWaits();
    // Three seconds at least, and on past them until a hundred samples were taken (a loaded
    // machine samples slowly), for twenty seconds at most.
    const cap = Date.now() + 20_000;
    const answers = await loops(
      16,
      3000,
      (loop, i) =>
        i % 2 === 0
          ? across(loop).post(`${a.prefix}/deals`, dealBody({ account: { name: `Hot ${loop}-${i}` } }))
          : across(loop).post(`${a.prefix}/sell`, dealBody({ account: { name: `Hot sell ${loop}-${i}` } })),
      () => sampler.samples() < 100 && Date.now() < cap,
    );
    const { waits, samples } = await sampler.stop();
    assert.equal(statuses(answers), '201', 'every create and every sell 201');
    assert.ok(answers.length > 100, `only ${answers.length} requests in 3 s`);
    assert.ok(samples >= 50, `only ${samples} samples`);
    assert.deepEqual(waits, [], `lock waits among ${samples} samples`);
    // Ids: distinct, and no number reused.
    const ids = answers.map((x) => (x.status === 201 ? x.body.id : (x.body.deal?.id ?? x.body.gig?.dealId)));
    assert.equal(new Set(ids).size, ids.length);
  });

  it("claims of one closer's on sixteen connections over two instances never wait for a lock (D-192)", async () => {
    await a.post('/demo/reset');
    // Open closer gigs: a sell whose mandate wants a human closer escalates at meeting. Enough
    // that their claims outlast twenty samples of the lock table on a fast machine (400 once
    // took 1.6 s: 18 samples).
    const GIGS = 1000;
    const human = { staffing: { closer: 'human' } };
    const gigs: string[] = [];
    await loops(
      8,
      0,
      async (loop) => {
        if (gigs.length >= GIGS) return;
        const sold = await across(loop).post(`${a.prefix}/sell`, dealBody({ mandate: human }));
        assert.equal(sold.status, 201, JSON.stringify(sold.body));
        gigs.push(sold.body.gig.id);
      },
      () => gigs.length < GIGS,
    );
    const sampler = sampleWaits();
    let next = 0;
    const answers = await loops(
      16,
      0,
      (loop) => across(loop).post(`/closers/gigs/${gigs[next++]}/claim`, { closerId: 'closer_0001' }),
      () => next < gigs.length,
    );
    const { waits, samples } = await sampler.stop();
    assert.equal(statuses(answers), '200', 'every claim 200');
    assert.ok(samples >= 20, `only ${samples} samples`);
    assert.deepEqual(waits, [], `lock waits among ${samples} samples`);
  });

  it('a reset racing creates on both instances: no create fails, and numbering starts again at 1', async () => {
    let resetting = true;
    const resets = (async () => {
      const answers: Answer[] = [];
      for (let i = 0; i < 4; i++) {
        await sleep(150);
        answers.push(await across(i).post('/demo/reset'));
      }
      resetting = false;
      return answers;
    })();
    const creates: Answer[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, loop) => {
        for (let i = 0; resetting; i++) creates.push(await across(loop + i).post(`${a.prefix}/deals`, dealBody()));
      }),
    );
    assert.equal(statuses(await resets), '200');
    assert.equal(statuses(creates), '201', 'a create racing a reset waits for it, never fails');
    await a.post('/demo/reset');
    assert.equal((await createDeal(b)).id, 'deal_0001');
    assert.equal((await createDeal(a)).id, 'deal_0002');
  });

  it('racing gig moves whose closers lock in opposite orders: no deadlock, no 5xx (D-46)', async () => {
    await a.post('/demo/reset');
    // Gig x claimed by Milo, gig y by Ada. A move of x named by Ada locks Milo (the claimant)
    // and Ada; one of y named by Milo locks Ada and Milo: the same two closers, which must be
    // locked in one order (id order) or the two units deadlock.
    const x = (await openCloserGig(a)).gig.id;
    const y = (await openCloserGig(b)).gig.id;
    await claim(a, x, MILO);
    await claim(b, y, ADA);
    // The units of work the instances ran again after a deadlock (40P01, or 25P02 when the driver
    // reports it as an aborted transaction), from their /metrics. (pg_stat_database.deadlocks
    // counts the whole database, other test files' units too, and is flushed a second late.)
    const deadlocks = async () => {
      let total = 0;
      for (const instance of [a, b]) {
        const text = await (await fetch(`${instance.url}/metrics`)).text();
        for (const line of text.split('\n')) {
          if (/^pipeline_units_retried_total\{sqlstate="(40P01|25P02)"\} /.test(line))
            total += Number(line.split(' ')[1]);
        }
      }
      return total;
    };
    const before = await deadlocks();
    const answers = await loops(8, 2000, (loop, i) =>
      loop % 2 === 0
        ? across(i).post(`/closers/gigs/${x}/advance`, { closerId: ADA, advanceTo: 'proposal' })
        : across(i + 1).post(`/closers/gigs/${y}/advance`, { closerId: MILO, advanceTo: 'proposal' }),
    );
    assert.ok(
      answers.every((x) => x.status < 500),
      `statuses ${statuses(answers)}`,
    );
    assert.equal(statuses(answers), '409', 'each is refused: not the claimant');
    assert.equal(await deadlocks(), before, 'no unit of work deadlocked');
  });

  it('one instance moves the demo clock: the other acts at the new time at once (D-19)', async () => {
    await a.post('/demo/reset');
    const deal = await createDeal(a);
    const moved = await advanceClock(b, 240);
    // b acts on the deal at the moved time, then a at once: the deal's activity never goes back,
    // whether or not a's notice of the move has arrived (test/service/platform-clock.test.ts
    // shows the case where it has not).
    assert.equal((await b.post(`${a.prefix}/deals/${deal.id}/advance`)).status, 200);
    assert.equal((await a.post(`${a.prefix}/deals/${deal.id}/advance`)).status, 200);
    const activity = (await getDeal(a, deal.id)).activity.map((e) => Date.parse(e.at));
    assert.ok((activity.at(-1) ?? 0) >= moved, 'acted at the moved time');
    for (let i = 1; i < activity.length; i++)
      assert.ok(activity[i] >= activity[i - 1], 'activity times never decrease');
    // And a's own clock learns the move: a deal it creates a moment later is created then.
    await sleep(200);
    const created = await createDeal(a);
    assert.ok(
      Date.parse(created.activity[0].at) >= moved,
      `${created.activity[0].at} before ${new Date(moved).toISOString()}`,
    );
    // A reset on b takes a back to the machine's time too.
    await b.post('/demo/reset');
    await sleep(200);
    assert.ok(Date.parse((await createDeal(a)).activity[0].at) < moved - 200 * 3_600_000);
  });
});
