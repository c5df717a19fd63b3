// Dry runs (D-48): `?dryRun=true` on create, sell, deal advance and gig advance answers what the
// real call would do and does none of it: no record, no id, no event, no stored answer. The
// scenarios show each answer; the property test sends random proposals both ways (dry, then
// real, on the same state) and holds the verdicts and the records to be the same. Runs on every
// store (TEST_STORE).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  advanceDeal,
  assertError,
  createDeal,
  type DealView,
  dealBody,
  fixedClock,
  getCloser,
  getDeal,
  HUMAN_CLOSER,
  MILO,
  negotiatingCloserGig,
  openCloserGig,
} from '../support/marketplace-e2e.ts';

const STAGES = ['sourced', 'qualified', 'meeting', 'proposal', 'negotiation', 'closed_won', 'closed_lost'];
const ID_FIELDS = new Set(['id', 'dealId', 'gigId', 'closerId', 'revivedFrom']);

/**
 * What a dry run shows of a record the real call made: every id field naming one of `created`
 * null. No words name an id (D-272), so every text is the real call's.
 */
function asDryRunShowsIt(value: unknown, created: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => asDryRunShowsIt(item, created));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      ID_FIELDS.has(key) && typeof item === 'string' && created.has(item) ? null : asDryRunShowsIt(item, created),
    ]),
  );
}

const numberOf = (id: string) => Number(id.slice(id.indexOf('_') + 1));

describe('dry runs (D-48)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock: fixedClock });
  });
  after(() => t.close());

  /** The feed's newest seq. */
  async function lastSeq(): Promise<number> {
    let after = 0;
    for (;;) {
      const page = await t.get(`/events?after=${after}&limit=1000`);
      assert.equal(page.status, 200);
      if (page.body.events.length === 0) return after;
      after = page.body.nextAfter;
    }
  }

  async function eventsAfter(seq: number): Promise<{ type: string; data: unknown }[]> {
    const page = await t.get(`/events?after=${seq}&limit=1000`);
    return page.body.events.map((e: { type: string; data: unknown }) => ({ type: e.type, data: e.data }));
  }

  it('a dry-run create answers the deal as it would be, its id null, and creates nothing: no id, no event', async () => {
    const before = (await createDeal(t)).id;
    const seq = await lastSeq();
    const health = (await t.get('/health')).body;
    const dry = await t.post(`${t.prefix}/deals?dryRun=true`, dealBody({ listValueUsd: 40_000 }));
    assert.equal(dry.status, 200);
    assert.equal(dry.headers.get('location'), null, 'nothing was created');
    assert.equal(dry.headers.get('etag'), null, 'the deal shown is not stored');
    assert.equal(dry.body.dryRun, true);
    assert.equal(dry.body.accepted, true);
    assert.equal(dry.body.deal.id, null);
    assert.equal(dry.body.deal.version, 1);
    assert.equal(dry.body.deal.stage, 'sourced');
    assert.equal(dry.body.deal.listValueUsd, 40_000);
    assert.deepEqual(
      dry.body.events.map((e: { type: string }) => e.type),
      ['deal.created'],
    );
    assert.equal(dry.body.events[0].data.deal.id, null);
    assert.deepEqual((await t.get('/health')).body, health);
    assert.deepEqual(await eventsAfter(seq), []);
    // The next real deal takes the next number: the dry run used none.
    const real = await t.post<DealView>(`${t.prefix}/deals`, dealBody({ listValueUsd: 40_000 }));
    assert.equal(numberOf(real.body.id), numberOf(before) + 1);
    assert.deepEqual({ ...dry.body.deal, id: real.body.id }, real.body);
  });

  it('a dry-run sell that escalates shows the deal, the gig it would post (ids null) and the events in order', async () => {
    const dry = await t.post(`${t.prefix}/sell?dryRun=true`, dealBody({ mandate: HUMAN_CLOSER }));
    assert.equal(dry.status, 200);
    assert.equal(dry.body.deal.stage, 'meeting');
    assert.equal(dry.body.gig.id, null);
    assert.equal(dry.body.gig.dealId, null);
    assert.equal(dry.body.gig.status, 'open');
    assert.equal(dry.body.settlement, undefined);
    assert.deepEqual(
      dry.body.events.map((e: { type: string }) => e.type),
      ['deal.created', 'deal.stage_changed', 'deal.stage_changed', 'deal.escalated', 'gig.posted'],
    );
    assert.deepEqual(dry.body.events[3].data, { dealId: null, role: 'closer', gigId: null });
    // The entry about the would-be gig names it in its field, null (D-272); its words name no id.
    const posted = dry.body.deal.activity.at(-1);
    assert.equal(posted.note, 'The closer role needs a human: a gig posted to the closer marketplace.');
    assert.equal(posted.gigId, null);
  });

  it('a dry-run close below the floor is the real call’s 422 with the gate’s message; an accepted one shows the settlement the close then makes', async () => {
    const deal = await createDeal(t, { listValueUsd: 120_000 });
    for (let i = 0; i < 4; i++) await advanceDeal(t, deal.id);
    const low = { advanceTo: 'closed_won', valueUsd: 90_000 };
    const dryLow = await t.post(`${t.prefix}/deals/${deal.id}/advance?dryRun=true`, low);
    const error = assertError(dryLow, 422, 'GATE_BELOW_FLOOR');
    assert.match(
      error.error,
      /\$90,000\.00 is below the negotiation floor \$96,000\.00 \(80% of list value \$120,000\.00\)/,
    );
    const realLow = await t.post(`${t.prefix}/deals/${deal.id}/advance`, low);
    assert.deepEqual(realLow.body, dryLow.body);
    assert.equal(realLow.status, dryLow.status);

    const close = { advanceTo: 'closed_won', valueUsd: 110_000 };
    const dry = await t.post(`${t.prefix}/deals/${deal.id}/advance?dryRun=true`, close);
    assert.equal(dry.status, 200);
    assert.equal(dry.body.deal.id, deal.id, 'an existing id is shown as it is');
    assert.equal(dry.body.deal.stage, 'closed_won');
    assert.deepEqual(dry.body.settlement, {
      dealId: deal.id,
      finalValueUsd: 110_000,
      closedBy: 'agent',
      closerCommissionUsd: 0,
      platformFeeUsd: 5_500,
      feesSettledUsd: 0,
      netToSellerUsd: 104_500,
      fees: [],
    });
    assert.equal((await getDeal(t, deal.id)).stage, 'negotiation', 'the dry run closed nothing');
    assertError(await t.get(`${t.prefix}/deals/${deal.id}/settlement`), 409, 'DEAL_NOT_CLOSED_WON');
    const real = await t.post(`${t.prefix}/deals/${deal.id}/advance`, close);
    assert.equal(real.status, 200);
    assert.deepEqual(real.body, dry.body.deal);
    assert.deepEqual((await t.get(`${t.prefix}/deals/${deal.id}/settlement`)).body, dry.body.settlement);
  });

  it('a dry-run close of a gig shows the commission and fees it would settle; the closer’s ledger is untouched until the real close', async () => {
    const { gig, deal } = await negotiatingCloserGig(t, ADA, { listValueUsd: 50_000 });
    const ledger = await getCloser(t, ADA);
    const close = { closerId: ADA, advanceTo: 'closed_won', valueUsd: 45_000 };
    const dry = await t.post(`/closers/gigs/${gig.id}/advance?dryRun=true`, close);
    assert.equal(dry.status, 200);
    assert.equal(dry.body.gig.id, gig.id);
    assert.equal(dry.body.gig.status, 'fulfilled');
    assert.equal(dry.body.deal.stage, 'closed_won');
    assert.equal(dry.body.settlement.closerCommissionUsd, 4_500);
    assert.ok(dry.body.events.some((e: { type: string }) => e.type === 'payout.posted'));
    assert.deepEqual(await getCloser(t, ADA), ledger);
    assert.equal((await getDeal(t, deal.id)).version, deal.version);
    const real = await t.post(`/closers/gigs/${gig.id}/advance`, close);
    assert.equal(real.status, 200);
    assert.deepEqual(real.body.gig, dry.body.gig);
    assert.deepEqual(real.body.deal, dry.body.deal);
    assert.deepEqual((await t.get(`${t.prefix}/deals/${deal.id}/settlement`)).body, dry.body.settlement);
  });

  it('If-Match holds for a dry run as for the real call: a stale version is 412, the current one passes', async () => {
    const deal = await createDeal(t);
    await advanceDeal(t, deal.id);
    const stale = await t.post(`${t.prefix}/deals/${deal.id}/advance?dryRun=true`, undefined, { 'if-match': '"1"' });
    assertError(stale, 412, 'PRECONDITION_FAILED');
    assert.deepEqual(stale.body.current, { version: 2, stage: 'qualified' });
    const fresh = await t.post(`${t.prefix}/deals/${deal.id}/advance?dryRun=true`, undefined, { 'if-match': '"2"' });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body.deal.version, 3);
    // The loop an agent runs: the dry run's If-Match, then the move with the same one.
    const moved = await t.post(`${t.prefix}/deals/${deal.id}/advance`, undefined, { 'if-match': '"2"' });
    assert.deepEqual(moved.body, fresh.body.deal);
  });

  it('an Idempotency-Key on a dry run is neither replayed nor stored: the real call with the same key runs', async () => {
    const key = 'dry-run-then-real';
    const dry = await t.post(`${t.prefix}/deals?dryRun=true`, dealBody(), { 'idempotency-key': key });
    assert.equal(dry.status, 200);
    const again = await t.post(`${t.prefix}/deals?dryRun=true`, dealBody(), { 'idempotency-key': key });
    assert.equal(again.headers.get('idempotent-replayed'), null);
    const real = await t.post(`${t.prefix}/deals`, dealBody(), { 'idempotency-key': key });
    assert.equal(real.status, 201);
    assert.equal(real.headers.get('idempotent-replayed'), null, 'the dry run stored no answer');
    const retry = await t.post(`${t.prefix}/deals`, dealBody(), { 'idempotency-key': key });
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(retry.body, real.body);
    // A dry run after the real call runs against the deal as it is, not the stored answer.
    const after = await t.post(`${t.prefix}/deals?dryRun=true`, dealBody(), { 'idempotency-key': key });
    assert.equal(after.status, 200);
    assert.equal(after.body.dryRun, true);
  });

  it('dryRun must be true or false (400 INVALID_QUERY, nothing done); false is the real call; other writes take no dryRun', async () => {
    const health = (await t.get('/health')).body;
    for (const value of ['yes', '1', 'TRUE', '']) {
      const answer = await t.post(`${t.prefix}/deals?dryRun=${value}`, dealBody());
      const error = assertError(answer, 400, 'INVALID_QUERY');
      assert.match(error.error, /dryRun: must be true or false/);
    }
    assert.deepEqual((await t.get('/health')).body, health);
    const real = await t.post(`${t.prefix}/deals?dryRun=false`, dealBody());
    assert.equal(real.status, 201);
    const deal = real.body.id;
    assertError(
      await t.post(`${t.prefix}/deals/${deal}/signals?dryRun=true`, { signals: ['x'] }),
      400,
      'INVALID_QUERY',
    );
    const { gig } = await openCloserGig(t);
    assertError(await t.post(`/closers/gigs/${gig.id}/claim?dryRun=true`, { closerId: ADA }), 400, 'INVALID_QUERY');
  });

  it('property: random proposals, dry then real on the same state, get the same verdict, and the dry run changes nothing', async (context) => {
    // A seeded generator (mulberry32): a failure names its seed and step, and replays.
    const seed = Number(process.env.DRY_RUN_SEED ?? 20261123);
    let s = seed >>> 0;
    const random = () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let x = Math.imul(s ^ (s >>> 15), 1 | s);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

    const deals: string[] = [];
    const gigs: string[] = [];
    const lastNumber = { deal: 0, gig: 0 };
    for (const deal of (await t.get(`${t.prefix}/deals?limit=1000`)).body as DealView[]) {
      lastNumber.deal = Math.max(lastNumber.deal, numberOf(deal.id));
    }
    for (const gig of (await t.get('/closers/gigs?limit=1000')).body as { id: string }[]) {
      lastNumber.gig = Math.max(lastNumber.gig, numberOf(gig.id));
    }
    const body = () => {
      const mandate = pick([
        undefined,
        HUMAN_CLOSER,
        { staffing: { closer: { humanIf: { minDealSizeUsd: 100_000 } } } },
        { commissionPct: pick([0.05, 0.12, 0.2]), floorPct: pick([0.5, 0.9, 1.5]) },
        { staffing: { setter: 'human' }, fees: { setterUsd: pick([100, -5]) } },
      ]);
      return dealBody({ listValueUsd: pick([0, 9_999.99, 15_000, 250_000]), ...(mandate ? { mandate } : {}) });
    };
    const proposal = (listValueUsd: number) =>
      pick([
        undefined,
        {},
        { advanceTo: pick(STAGES) },
        { advanceTo: 'closed_won', valueUsd: Math.round(listValueUsd * pick([0.5, 0.8, 1, 1.4]) * 100) / 100 },
        { advanceTo: 'closed_lost', note: 'no budget' },
      ]);

    let seq = await lastSeq();
    let accepted = 0;
    let refused = 0;
    for (let step = 0; step < 90; step++) {
      const where = `seed ${seed}, step ${step}`;
      const kind = pick(['create', 'sell', 'advance', 'advance', 'gig', 'gig', 'claim'] as const);
      let path: string;
      let payload: unknown;
      const headers: Record<string, string> = { 'idempotency-key': `property-${seed}-${step}` };
      let dealId: string | undefined;
      if (kind === 'create' || kind === 'sell') {
        path = `${t.prefix}/${kind === 'create' ? 'deals' : 'sell'}`;
        payload = body();
      } else if (kind === 'advance' && deals.length > 0) {
        dealId = pick(deals);
        const deal = await getDeal(t, dealId);
        path = `${t.prefix}/deals/${dealId}/advance`;
        payload = proposal(deal.listValueUsd);
        const version = pick([undefined, deal.version, deal.version - 1]);
        if (version !== undefined && version > 0) headers['if-match'] = `"${version}"`;
      } else if ((kind === 'gig' || kind === 'claim') && gigs.length > 0) {
        const gig = (await t.get(`/closers/gigs/${pick(gigs)}`)).body;
        dealId = gig.dealId;
        if (kind === 'claim') {
          // Not a dry-runnable write: it moves the state on, so that claimed gigs get worked.
          await t.post(`/closers/gigs/${gig.id}/claim`, { closerId: pick([ADA, MILO]) });
          seq = await lastSeq();
          continue;
        }
        path = `/closers/gigs/${gig.id}/advance`;
        const move = proposal(gig.brief.listValueUsd) ?? {};
        payload = {
          ...move,
          advanceTo: (move as { advanceTo?: string }).advanceTo ?? pick(STAGES),
          closerId: pick([ADA, MILO, undefined]),
        };
      } else {
        continue;
      }
      const dealBefore = dealId ? await getDeal(t, dealId) : undefined;
      const health = (await t.get('/health')).body;

      const dry = await t.post(`${path}?dryRun=true`, payload, headers);
      assert.deepEqual(await eventsAfter(seq), [], `${where}: the dry run published nothing`);
      assert.deepEqual((await t.get('/health')).body, health, `${where}: the dry run created nothing`);
      if (dealId) assert.deepEqual(await getDeal(t, dealId), dealBefore, `${where}: the dry run changed nothing`);

      const real: Answer = await t.post(path, payload, headers);
      assert.equal(real.headers.get('idempotent-replayed'), null, `${where}: the dry run stored no answer`);
      if (dry.status !== 200) {
        refused++;
        assert.equal(real.status, dry.status, `${where}: ${JSON.stringify(real.body)}`);
        assert.deepEqual(real.body, dry.body, where);
        // D-61: a proposal the gate refused (409, 422) publishes its one record; nothing else does.
        const published = await eventsAfter(seq);
        if ((kind === 'advance' || kind === 'gig') && (real.status === 409 || real.status === 422)) {
          assert.deepEqual(
            published.map((e) => [e.type, (e.data as { code: string }).code]),
            [['proposal.refused', real.body.code]],
            `${where}: a refused proposal publishes its record`,
          );
          seq = await lastSeq();
        } else assert.deepEqual(published, [], `${where}: a refusal publishes nothing`);
        continue;
      }
      accepted++;
      assert.equal(dry.body.dryRun, true, where);
      assert.ok(
        real.status === 200 || real.status === 201,
        `${where}: dry run accepted, real ${real.status} ${JSON.stringify(real.body)}`,
      );
      const realDeal: DealView = 'deal' in real.body ? real.body.deal : real.body;
      const realGig = real.body.gig as { id: string } | undefined;
      const created = new Set<string>();
      if (!deals.includes(realDeal.id)) {
        assert.equal(numberOf(realDeal.id), lastNumber.deal + 1, `${where}: the dry run used no deal id`);
        lastNumber.deal++;
        created.add(realDeal.id);
        deals.push(realDeal.id);
      }
      if (realGig && !gigs.includes(realGig.id)) {
        assert.equal(numberOf(realGig.id), lastNumber.gig + 1, `${where}: the dry run used no gig id`);
        lastNumber.gig++;
        created.add(realGig.id);
        gigs.push(realGig.id);
      }
      assert.deepEqual(dry.body.deal, asDryRunShowsIt(realDeal, created), `${where}: the deal`);
      if (realGig) assert.deepEqual(dry.body.gig, asDryRunShowsIt(realGig, created), `${where}: the gig`);
      const published = await eventsAfter(seq);
      assert.deepEqual(dry.body.events, asDryRunShowsIt(published, created), `${where}: the events`);
      if (realDeal.stage === 'closed_won' && dealBefore?.stage !== 'closed_won') {
        const settlement = (await t.get(`${t.prefix}/deals/${realDeal.id}/settlement`)).body;
        assert.deepEqual(dry.body.settlement, asDryRunShowsIt(settlement, created), `${where}: the settlement`);
      } else {
        assert.equal(dry.body.settlement, undefined, where);
      }
      seq = await lastSeq();
    }
    context.diagnostic(`accepted ${accepted}, refused ${refused}`);
    // The generator reaches both verdicts often enough to mean something.
    assert.ok(accepted >= 20 && refused >= 20, `accepted ${accepted}, refused ${refused}`);
  });
});
