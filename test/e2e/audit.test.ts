// `audit <base-url>` (D-199): a live service after a workload of every kind of money-moving
// path audits clean through the command line; each invariant catches a broken record of its
// own, in a snapshot read from that service and then damaged by hand; a Register past 2^53 cents
// is read to the cent (D-205).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  closerFromView,
  dealFromView,
  gigFromView,
  payoutsFromView,
  settlementFromView,
} from '../../src/audit/from-views.ts';
import { parseJsonExactly, readDeployment } from '../../src/audit/read-deployment.ts';
import { checkInvariants, checkRegisters, type Snapshot, type Violation } from '../../src/domain/invariants.ts';
import type { Gig } from '../../src/domain/records.ts';
import { cli } from '../support/cli.ts';
import { startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  advanceDeal,
  advanceGig,
  claim,
  createDeal,
  dealBody,
  HUMAN_CLOSER,
  MILO,
  negotiatingCloserGig,
  openCloserGig,
} from '../support/marketplace-e2e.ts';

describe('audit <base-url>', () => {
  let t: TestServer;
  let snapshot: Snapshot;
  before(async () => {
    t = await startTestServer();
    // Wins by human closers, a loss, an agent's close, an open and a claimed gig, a sell.
    for (const closerId of [ADA, MILO]) {
      const { gig } = await negotiatingCloserGig(t, closerId, { listValueUsd: 40_000 });
      await advanceGig(t, gig.id, { advanceTo: 'closed_won', valueUsd: 41_000.37 });
    }
    const lost = await negotiatingCloserGig(t, ADA);
    await advanceGig(t, lost.gig.id, { advanceTo: 'closed_lost' });
    const agent = await createDeal(t);
    for (let i = 0; i < 5; i++) await advanceDeal(t, agent.id);
    await openCloserGig(t);
    const open = await openCloserGig(t);
    await claim(t, open.gig.id, MILO);
    await t.post('/pipeline/sell', dealBody({ mandate: HUMAN_CLOSER }));
    const read = await readDeployment(t.url);
    const gigs = read.gigs.map(gigFromView);
    const byId = new Map<string, Gig>(gigs.map((g) => [g.id, g]));
    snapshot = {
      deals: read.deals.map(dealFromView),
      gigs,
      closers: read.closers.map(closerFromView),
      payouts: read.closers.flatMap((c) => payoutsFromView(c, byId)),
      settlements: new Map([...read.settlements].map(([id, view]) => [id, settlementFromView(view)])),
    };
  });
  after(() => t.close());

  it('a live service audits clean: exit 0, the counts of what it read', async () => {
    const run = await cli('audit', t.url);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /^no violation in 7 deals, 6 gigs, 2 closers, 2 payouts, 3 settlements, \d+ transfers, 0 refunds and \d+ events of /m,
    );
    const json = await cli('audit', t.url, '--json');
    assert.equal(json.code, 0);
    const report = JSON.parse(json.stdout);
    assert.deepEqual(report.violations, []);
    assert.equal(report.read.deals, 7);
    assert.ok(report.read.events > 20);
  });

  it('an unreachable deployment is exit 2 with the reason; a bad URL is a usage error', async () => {
    const gone = await startTestServer();
    await gone.close();
    const run = await cli('audit', gone.url);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /audit: GET http:\/\/127\.0\.0\.1:\d+\/pipeline\/deals\?limit=1000 failed/);
    assert.equal((await cli('audit', 'ftp://example')).code, 2);
  });

  it('each invariant catches a record broken by hand', () => {
    assert.deepEqual(checkInvariants(snapshot), []);
    const broken = (change: (s: Snapshot) => Snapshot): Violation['invariant'][] =>
      checkInvariants(change(structuredClone(snapshot) as Snapshot)).map((violation) => violation.invariant);
    const won = snapshot.deals.find((d) => d.stage === 'closed_won' && d.closedBy === 'human');
    assert.ok(won);
    const wonGig = snapshot.gigs.find((g) => g.dealId === won.id && g.outcome === 'closed_won') as Gig;
    // money: a settlement whose parts do not add up
    assert.ok(
      broken((s) => {
        const settlement = s.settlements?.get(won.id);
        (settlement as { netToSellerCents: number }).netToSellerCents += 1;
        return s;
      }).includes('money'),
    );
    // ledger: a payout written twice
    assert.ok(broken((s) => ({ ...s, payouts: [...s.payouts, s.payouts[0]] })).includes('ledger'));
    // ledger: a win's line missing, or of another amount than the commission it earned
    const wonLine = snapshot.payouts.findIndex((line) => line.gigId === wonGig.id);
    assert.ok(wonLine >= 0);
    // (the settlement, which counts the line, then disagrees too: money)
    assert.ok(broken((s) => ({ ...s, payouts: s.payouts.filter((_, i) => i !== wonLine) })).includes('ledger'));
    assert.ok(
      broken((s) => ({
        ...s,
        payouts: s.payouts.map((line, i) => (i === wonLine ? { ...line, amountCents: line.amountCents + 1 } : line)),
      })).includes('ledger'),
    );
    // register: a win not counted
    assert.ok(
      broken((s) => ({
        ...s,
        closers: s.closers.map((c) => (c.id === ADA ? { ...c, record: { ...c.record, wins: c.record.wins + 1 } } : c)),
      })).includes('register'),
    );
    // stages: a deal that skipped a stage; time: an entry earlier than the one before
    assert.ok(
      broken((s) => ({
        ...s,
        deals: s.deals.map((d) =>
          d.id === won.id
            ? { ...d, activity: d.activity.map((e, i) => (i === 1 ? { ...e, stage: 'proposal' } : e)) }
            : d,
        ),
      })).includes('stages'),
    );
    assert.ok(
      broken((s) => ({
        ...s,
        deals: s.deals.map((d) =>
          d.id === won.id ? { ...d, activity: d.activity.map((e, i) => (i === 2 ? { ...e, at: 0 } : e)) } : d,
        ),
      })).includes('time'),
    );
    // gigs: a claimed gig without a claimant; a won gig whose deal was lost
    assert.ok(
      broken((s) => ({
        ...s,
        gigs: s.gigs.map((g) => (g.status === 'claimed' ? ({ ...g, closerId: undefined } as Gig) : g)),
      })).includes('gigs'),
    );
    assert.ok(
      broken((s) => ({
        ...s,
        gigs: s.gigs.map((g) => (g.id === wonGig.id ? { ...g, finalValueCents: 1 } : g)),
      })).includes('gigs'),
    );
    // ids: two deals under one id
    assert.ok(broken((s) => ({ ...s, deals: [...s.deals, s.deals[0]] })).includes('ids'));
    // events: out of order, or about a deal that does not exist
    const events = [
      { seq: 2, type: 'deal.created', dealId: won.id },
      { seq: 1, type: 'deal.stage_changed', dealId: 'deal_9999', to: 'qualified' },
    ];
    assert.deepEqual(
      checkInvariants({ ...snapshot, events })
        .map((violation) => violation.invariant)
        .sort(),
      ['events', 'events'],
    );
  });
});

describe('audit reads amounts past 2^53 cents to the cent (D-205)', () => {
  // A closer whose gross is $90,999,999,999,999.09: 9,099,999,999,999,909 cents, past 2^53. The
  // service writes every digit (D-198); read as a double it is 90999999999999.09375, whose cents
  // round to an even number: a Register that disagrees with its gigs by a few cents.
  const GROSS = '90999999999999.09';
  const CLOSER = 'closer_0001';
  const gigView = (n: number, finalValueUsd: string) =>
    `{"id":"gig_${String(n).padStart(4, '0')}","status":"fulfilled","dealId":"deal_${String(n).padStart(4, '0')}",` +
    `"role":"closer","brief":{"account":{"name":"A","industry":"saas","actor":"B2B"},"listValueUsd":${finalValueUsd},` +
    `"stage":"negotiation","signals":[],"floorUsd":1,"activity":[]},"pricing":{"kind":"commission","pct":0.1},` +
    `"closerId":"${CLOSER}","postedAt":"2030-01-01T00:00:00.000Z","claimedAt":"2030-01-01T00:00:00.000Z",` +
    `"outcome":"closed_won","finalValueUsd":${finalValueUsd}}`;
  // 90 wins of $1,000,000,000,000 (the largest deal) and one of $999,999,999,999.09.
  const gigs = [
    ...Array.from({ length: 90 }, (_, i) => gigView(i + 1, '1000000000000')),
    gigView(91, '999999999999.09'),
  ];
  const closer = `{"id":"${CLOSER}","name":"Ada","industries":["saas"],"record":{"gigs":91,"wins":91,"grossClosedUsd":${GROSS}},"payouts":[]}`;
  /** A deployment that answers these texts, as the service writes them. */
  const answers: Record<string, string> = {
    '/pipeline/deals': '[]',
    '/closers/gigs': `[${gigs.join(',')}]`,
    '/closers/closers': `[${closer}]`,
    '/events': '{"events":[],"nextAfter":0}',
    '/ledger/transfers': '[]',
    '/payouts': '[]',
  };
  const fakeFetch = (async (url: string | URL) => {
    const text = answers[new URL(url).pathname];
    return new Response(text ?? '{}', { status: text === undefined ? 404 : 200 });
  }) as typeof fetch;

  it('a Register whose gross passes 2^53 cents agrees with its gigs: no false register violation', async () => {
    const read = await readDeployment('http://deployment.test', { fetch: fakeFetch });
    const closers = read.closers.map(closerFromView);
    assert.equal(closers[0].record.grossClosedCents, 9_099_999_999_999_909n);
    const snapshot: Snapshot = { deals: [], gigs: read.gigs.map(gigFromView), closers, payouts: [] };
    assert.deepEqual(checkRegisters(snapshot), []);
    // And a gross one cent off is still caught.
    const off = { ...closers[0], record: { ...closers[0].record, grossClosedCents: 9_099_999_999_999_908n } };
    assert.deepEqual(
      checkRegisters({ ...snapshot, closers: [off] }).map((violation) => violation.invariant),
      ['register'],
    );
  });

  it('the reader keeps a number with more digits than a double holds as its text, and nothing else', () => {
    const text =
      '{"name":"x 12345678901234567 \\" 0.1234567890123456","n":[12345678901234567,-0.0000001234567890123456,1.5,-0,123456789012345]}';
    assert.deepEqual(parseJsonExactly(text), {
      name: 'x 12345678901234567 " 0.1234567890123456',
      n: ['12345678901234567', '-0.0000001234567890123456', 1.5, -0, 123456789012345],
    });
  });

  it('closerFromView takes the exact digits of a gross as text, and a small gross as a number', () => {
    const view = (gross: unknown) => ({ id: CLOSER, name: 'Ada', record: { gigs: 1, wins: 1, grossClosedUsd: gross } });
    assert.equal(closerFromView(view(GROSS)).record.grossClosedCents, 9_099_999_999_999_909n);
    assert.equal(closerFromView(view('-90999999999999.1')).record.grossClosedCents, -9_099_999_999_999_910n);
    assert.equal(closerFromView(view(41_000.37)).record.grossClosedCents, 4_100_037n);
    assert.equal(closerFromView(view(0)).record.grossClosedCents, 0n);
  });
});
