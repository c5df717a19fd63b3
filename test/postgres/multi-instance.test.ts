// Several service instances over one PostgreSQL database (D-129): two real service
// processes (`npm start`'s command) on one schema, requests raced across them. Of
// racing claims exactly one wins, ids stay distinct and gap-free, a gig pays once, each
// platform timer fires once while both sweep, and a restart keeps every deal.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Answer } from '../support/http.ts';
import { type Instance, startInstance } from '../support/instances.ts';
import {
  ADA,
  type CloserView,
  claim,
  createDeal,
  type DealView,
  dealBody,
  enrol,
  getCloser,
  getDeal,
  getGig,
  HUMAN_CLOSER,
  MILO,
  negotiatingCloserGig,
  openCloserGig,
  pctOfUsd,
} from '../support/marketplace-e2e.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();

const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;
const statuses = (answers: Answer[]) => answers.map((a) => a.status).join(',');
const dealNumber = (id: string) => Number(id.replace('deal_', ''));

describe('several instances over one PostgreSQL database', { skip: server.skip }, () => {
  let schema: TestSchema;
  let a: Instance;
  let b: Instance;
  /** Both instances, alternately: request i goes to instance i mod 2. */
  const across = (i: number) => (i % 2 === 0 ? a : b);
  const dealIds = new Set<string>();

  before(async () => {
    schema = await createTestSchema(server.url as string, 'multi');
    // Started at once on an empty schema: both migrate and both try to seed.
    [a, b] = await Promise.all([startInstance(schema), startInstance(schema)]);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  it('two instances starting at once on an empty database seed the two closers once', async () => {
    for (const instance of [a, b]) {
      const closers = await instance.get<CloserView[]>('/closers/closers');
      assert.equal(closers.status, 200);
      assert.deepEqual(
        closers.body.map((c) => c.id),
        [ADA, MILO],
      );
    }
  });

  it('racing creates across instances: every one 201, ids distinct and gap-free', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        across(i).post<DealView>('/pipeline/deals', dealBody({ account: { name: `Race ${i}` } })),
      ),
    );
    assert.equal(count(answers, 201), 20, statuses(answers));
    const numbers = answers.map((x) => dealNumber(x.body.id)).sort((x, y) => x - y);
    assert.equal(new Set(numbers).size, 20);
    assert.equal(numbers[19] - numbers[0], 19, `gap-free: ${numbers}`);
    for (const [i, x] of answers.entries()) {
      dealIds.add(x.body.id);
      // Each instance reads what the other wrote.
      assert.equal((await getDeal(across(i + 1), x.body.id)).account.name, `Race ${i}`);
    }
  });

  it('racing sells with one Idempotency-Key across instances: one deal, and every answer the same bytes (D-37)', async () => {
    const before = (await a.get('/health')).body.deals;
    const body = JSON.stringify(dealBody({ listValueUsd: 44_000 }));
    const answers = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const response = await fetch(`${across(i).url}/pipeline/sell`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': 'multi-instance-sell' },
          body,
        });
        return {
          status: response.status,
          text: await response.text(),
          replayed: response.headers.get('idempotent-replayed'),
        };
      }),
    );
    assert.deepEqual(new Set(answers.map((x) => x.status)), new Set([201]));
    assert.equal(new Set(answers.map((x) => x.text)).size, 1, 'identical answers');
    assert.equal(answers.filter((x) => x.replayed === null).length, 1, 'one request ran, the others replayed it');
    assert.equal((await b.get('/health')).body.deals, before + 1, 'one deal');
    dealIds.add(JSON.parse(answers[0].text).id);
  });

  it('racing claims of one gig sent to both instances: exactly one 200, the rest 409', async () => {
    const racers = [ADA, MILO];
    for (let i = 0; i < 8; i++) racers.push((await enrol(across(i), `Racer ${i} (fictional)`, ['saas'])).id);
    const { gig, deal } = await openCloserGig(a);
    dealIds.add(deal.id);
    const answers = await Promise.all(
      racers.map((closerId, i) => across(i).post(`/closers/gigs/${gig.id}/claim`, { closerId })),
    );
    assert.equal(count(answers, 200), 1, statuses(answers));
    assert.equal(count(answers, 409), racers.length - 1, statuses(answers));
    const winner = racers[answers.findIndex((x) => x.status === 200)];
    for (const instance of [a, b]) {
      const stored = await getGig(instance, gig.id);
      assert.equal(stored.status, 'claimed');
      assert.equal(stored.closerId, winner);
    }
    const claims = (await getDeal(b, deal.id)).activity.filter((e) => /claimed/i.test(e.note));
    assert.equal(claims.length, 1, 'one claim entry in the activity');
  });

  it('racing advances of one deal across instances: one stage each, five successes, the rest 409', async () => {
    const deal = await createDeal(a);
    dealIds.add(deal.id);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => across(i).post(`/pipeline/deals/${deal.id}/advance`)),
    );
    assert.equal(count(answers, 200), 5, statuses(answers));
    assert.equal(count(answers, 409), 7, statuses(answers));
    const stored = await getDeal(b, deal.id);
    assert.equal(stored.stage, 'closed_won');
    assert.deepEqual(
      stored.activity.map((e) => e.stage),
      ['sourced', 'qualified', 'meeting', 'proposal', 'negotiation', 'closed_won'],
    );
  });

  it('racing writers holding one version across instances (If-Match, D-47): one 200, the rest 412, each round', async () => {
    const deal = await createDeal(a);
    dealIds.add(deal.id);
    for (let version = 1; version <= 4; version++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          across(i).post(`/pipeline/deals/${deal.id}/advance`, undefined, { 'if-match': `"${version}"` }),
        ),
      );
      assert.equal(count(answers, 200), 1, statuses(answers));
      assert.equal(count(answers, 412), 7, statuses(answers));
      for (const lost of answers.filter((x) => x.status === 412)) {
        assert.equal(lost.body.code, 'PRECONDITION_FAILED');
        assert.equal(lost.body.current.version, version + 1);
      }
      const stored = await getDeal(across(version), deal.id);
      assert.equal(stored.version, version + 1);
      assert.equal(stored.activity.length, version + 1, 'the losers wrote nothing');
    }
  });

  it('racing closes of one gig across instances: one 200, one payout line', async () => {
    const before = await getCloser(a, ADA);
    const { gig, deal } = await negotiatingCloserGig(b, ADA, { listValueUsd: 50_000 });
    dealIds.add(deal.id);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        across(i).post(`/closers/gigs/${gig.id}/advance`, { advanceTo: 'closed_won', valueUsd: 45_000 + i }),
      ),
    );
    assert.equal(count(answers, 200), 1, statuses(answers));
    assert.equal(count(answers, 409), 9, statuses(answers));
    for (const instance of [a, b]) {
      const closer = await getCloser(instance, ADA);
      assert.equal(closer.payouts.filter((p) => p.gigId === gig.id).length, 1);
      assert.equal(closer.payouts.length, before.payouts.length + 1);
      assert.equal(closer.record.wins, before.record.wins + 1);
      assert.equal(closer.record.gigs, before.record.gigs + 1);
    }
    const settled = await a.get(`/pipeline/deals/${deal.id}/settlement`);
    assert.equal(settled.status, 200);
    const finalValueUsd = answers.find((x) => x.status === 200)?.body.deal.finalValueUsd;
    assert.equal(settled.body.closerCommissionUsd, pctOfUsd(finalValueUsd, 0.1));
  });

  it('each due timer fires once while both instances sweep', async () => {
    // Claims that expire after CLAIM_TTL_HOURS (72), and plain deals that go dark after 14 days.
    const claimed: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { gig, deal } = await openCloserGig(across(i), { mandate: HUMAN_CLOSER });
      await claim(across(i + 1), gig.id, MILO);
      claimed.push(deal.id);
      dealIds.add(deal.id);
    }
    const quiet: string[] = [];
    for (let i = 0; i < 6; i++) {
      const deal = await createDeal(across(i));
      quiet.push(deal.id);
      dealIds.add(deal.id);
    }
    const entries = async (dealId: string, pattern: RegExp) =>
      (await getDeal(a, dealId)).activity.filter((e) => pattern.test(e.note)).length;

    // The clock moves on one instance (its offset is in the database, so both see it) and the
    // other runs its timers at the same moment; both also sweep every 0.2 s.
    const [moved] = await Promise.all([
      a.post('/demo/clock', { advanceHours: 73 }),
      b.post('/demo/clock', { advanceHours: 0 }),
    ]);
    assert.equal(moved.status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const id of claimed) assert.equal(await entries(id, /expired; the gig is open again/), 1, id);

    await Promise.all([b.post('/demo/clock', { advanceHours: 15 * 24 }), a.post('/demo/clock', { advanceHours: 0 })]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const id of [...quiet, ...claimed]) {
      assert.equal(await entries(id, /reported gone_dark/), 1, `${id} went dark once`);
      assert.equal((await getDeal(b, id)).signals.filter((s) => s === 'gone_dark').length, 1);
    }
    for (const id of claimed) assert.ok((await entries(id, /expired unclaimed|released/i)) <= 1, id);
  });

  it('a reader following the feed while both instances write sees every event once, in seq order (D-41)', async () => {
    type FeedPage = { events: { seq: number; type: string; data: { deal?: { id: string } } }[]; nextAfter: number };
    let cursor = 0;
    // The cursor as it stands: the last seq of the feed before the writers start.
    for (;;) {
      const page = (await a.get<FeedPage>(`/events?after=${cursor}&limit=1000`)).body;
      if (page.events.length === 0) break;
      cursor = page.nextAfter;
    }
    const seen: FeedPage['events'] = [];
    let writing = true;
    const created: string[] = [];
    let doneAt = 0;
    // Once the writers are done, read until every sell's events arrived (or 20 s).
    const allArrived = () =>
      seen.filter((e) => e.type === 'deal.created').length >= created.length || Date.now() > doneAt + 20_000;
    // The reader alternates instances and reads small pages, as fast as it can, while writes commit.
    const reader = (async () => {
      for (let i = 0; ; i++) {
        const wasWriting = writing;
        const answer = await across(i).get<FeedPage>(`/events?after=${cursor}&limit=7`);
        assert.equal(answer.status, 200);
        seen.push(...answer.body.events);
        cursor = answer.body.nextAfter;
        if (!wasWriting && answer.body.events.length === 0 && allArrived()) return;
      }
    })();
    await Promise.all(
      Array.from({ length: 6 }, async (_, w) => {
        for (let k = 0; k < 10; k++) {
          const answer = await across(w + k).post<DealView>(
            '/pipeline/sell',
            dealBody({ account: { name: `Feed ${w}-${k}` } }),
          );
          assert.ok(answer.status === 201 || answer.status === 200, `${answer.status}`);
          const id = ((answer.body as { deal?: DealView }).deal ?? answer.body).id;
          created.push(id);
          dealIds.add(id);
        }
      }),
    );
    doneAt = Date.now();
    writing = false;
    await reader;
    const seqs = seen.map((e) => e.seq);
    assert.equal(new Set(seqs).size, seqs.length, 'no event twice');
    for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1] + 1, `in order, none skipped: ${seqs}`);
    const createdSeen = seen.filter((e) => e.type === 'deal.created').map((e) => e.data.deal?.id);
    assert.deepEqual(new Set(createdSeen), new Set(created), 'every sell’s deal.created was read');
    assert.equal(createdSeen.length, created.length);
    // And the reader saw exactly what the feed holds.
    const whole = (await b.get<FeedPage>(`/events?after=${seqs[0] - 1}&limit=1000`)).body.events;
    assert.deepEqual(
      whole.map((e) => e.seq),
      seqs,
    );
  });

  it('a restart keeps every deal, the closers and the id counters', async () => {
    const deals = new Map<string, DealView>();
    for (const id of dealIds) deals.set(id, await getDeal(a, id));
    const closers = (await a.get<CloserView[]>('/closers/closers')).body;
    await Promise.all([a.close(), b.close()]);

    a = await startInstance(schema);
    for (const [id, deal] of deals) assert.deepEqual(await getDeal(a, id), deal, id);
    assert.deepEqual((await a.get<CloserView[]>('/closers/closers')).body, closers, 'not seeded again');
    const next = await createDeal(a);
    assert.equal(dealNumber(next.id), Math.max(...[...dealIds].map(dealNumber)) + 1);
    b = await startInstance(schema);
    assert.deepEqual(await getDeal(b, next.id), next);
  });
});

// D-19: two instances move the demo clock at once, while both run their timers (claims expire)
// and act on the same deals. Before, a timer run that had taken its time before the other
// instance acted wrote its entry at that earlier time, after the later one.
describe('two instances moving the demo clock at once (D-19)', { skip: server.skip }, () => {
  it("no deal's activity times ever decrease", async () => {
    const schema = await createTestSchema(server.url as string, 'clock');
    const [a, b] = await Promise.all([
      startInstance(schema, { TIMER_INTERVAL_SECONDS: '0.05' }),
      startInstance(schema, { TIMER_INTERVAL_SECONDS: '0.05' }),
    ]);
    try {
      const deals: string[] = [];
      for (let round = 0; round < 4; round++) {
        // Claims that the next moves make due.
        const gigs = await Promise.all(Array.from({ length: 6 }, () => openCloserGig(a)));
        for (const [i, escalation] of gigs.entries()) {
          await claim(i % 2 === 0 ? a : b, escalation.gig.id, i % 2 === 0 ? ADA : MILO);
          deals.push(escalation.deal.id);
        }
        // Both move the clock past the claims' 72 hours, in small steps, while both report
        // signals on the deals: every move runs the mover's timers at once.
        const moves = [a, b].map(async (instance) => {
          for (let step = 0; step < 8; step++) {
            const moved = await instance.post('/demo/clock', { advanceHours: 5 });
            assert.equal(moved.status, 200, JSON.stringify(moved.body));
          }
        });
        const acts = [a, b].map(async (instance, k) => {
          for (let step = 0; step < 24; step++) {
            const dealId = deals[(step + k) % deals.length];
            const reported = await instance.post(`/pipeline/deals/${dealId}/signals`, {
              signals: [step % 2 === 0 ? 'budget_approved' : 'champion_identified'],
            });
            assert.ok([200, 409].includes(reported.status), JSON.stringify(reported.body));
          }
        });
        await Promise.all([...moves, ...acts]);
      }
      for (const id of deals) {
        const deal = await getDeal(a, id);
        const times = deal.activity.map((entry) => Date.parse(entry.at));
        const lines = deal.activity.map((entry) => `${entry.at} ${entry.note}`).join('\n');
        assert.deepEqual(
          times,
          [...times].sort((x, y) => x - y),
          `${id}'s activity goes back in time:\n${lines}`,
        );
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
      await schema.drop();
    }
  });
});
