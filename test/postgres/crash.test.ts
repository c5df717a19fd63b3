// Crashes on real storage: a service process under a mixed write load (sells with human closers,
// claims, gig moves to closed_won, signals, the demo clock and its timers, refunds and payout
// runs of the ledger, earnings released at once: PAYOUT_HOLD_DAYS=0) is killed with
// SIGKILL at random moments and started again on the same database, several times; then the
// whole database is checked: every write the service acknowledged is there, every won gig is
// fulfilled, its deal closed won, and paid exactly once, every refund and payout acknowledged is
// there, no closer was paid a cent twice, and `audit` finds no broken invariant. On PostgreSQL (a
// schema of the shared test server) and on PGlite (a folder, which the killed process leaves
// locked: the next start takes the stale lock over and PGlite recovers the folder).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { auditDeployment } from '../../src/audit/audit.ts';
import { type Instance, killInstance, startInstance } from '../support/instances.ts';
import { type Acknowledged, acknowledged, mixedLoad, random } from '../support/mixed-load.ts';
import { createTestSchema, postgresForTests } from '../support/postgres.ts';

const server = await postgresForTests();
const CRASHES = Number(process.env.CRASHES ?? 4);
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** D-80, D-81: every refund and payout acknowledged is there; each closer's paid account holds its payouts, once. */
async function ledgerAcknowledged(last: Instance, seen: Acknowledged) {
  for (const [refundId, { dealId, amountUsd }] of seen.refunds) {
    const refunds = (await last.get(`/pipeline/deals/${dealId}/refunds`)).body as { id: string; amountUsd: number }[];
    const refund = refunds.find((r) => r.id === refundId);
    assert.equal(refund?.amountUsd, amountUsd, `acknowledged ${refundId} of ${dealId} is gone`);
  }
  const payouts: { id: string; closerId: string; amountUsd: number }[] = [];
  for (let path = '/payouts?limit=1000'; ; ) {
    const page = await last.get(path);
    payouts.push(...page.body);
    const next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.get('link') ?? '');
    if (!next) break;
    const link = new URL(next[1] as string, last.url);
    path = link.pathname + link.search;
  }
  for (const [payoutId, { amountUsd }] of seen.payouts) {
    assert.equal(payouts.find((p) => p.id === payoutId)?.amountUsd, amountUsd, `acknowledged ${payoutId} is gone`);
  }
  // Each closer's paid balance is the sum of its payouts, in cents: nothing paid twice, nothing lost.
  const paidCents = new Map<string, number>();
  for (const p of payouts) paidCents.set(p.closerId, (paidCents.get(p.closerId) ?? 0) + Math.round(p.amountUsd * 100));
  for (const [closerId, cents] of paidCents) {
    const balance = await last.get(`/ledger/balances?account=closer:${closerId}:paid`);
    assert.equal(Math.round(balance.body.balanceUsd * 100), cents, `${closerId}: paid balance against its payouts`);
  }
}

async function crashAndCheck(
  database: string | { url: string; ownerUrl?: string },
  label: string,
  log: (line: string) => void,
) {
  const seen: Acknowledged = acknowledged();
  const unexpected: string[] = [];
  const choose = random(SEED);
  let sent = 0;
  let instance: Instance | undefined;
  try {
    for (let crash = 0; crash < CRASHES; crash++) {
      instance = await startInstance(database, { TIMER_INTERVAL_SECONDS: '0.1', PAYOUT_HOLD_DAYS: '0' });
      let killed = false;
      const load = mixedLoad(instance, seen, { seed: SEED + crash, clients: 4, stop: () => killed, unexpected });
      // Killed at a random moment of its second or two of work.
      await sleep(800 + Math.floor(choose() * 1600));
      killed = true;
      await killInstance(instance.process);
      instance = undefined;
      sent += await load;
    }
    const last = await startInstance(database, { TIMER_INTERVAL_SECONDS: '0', PAYOUT_HOLD_DAYS: '0' });
    instance = last;
    log(
      `${label}: seed ${SEED}, ${CRASHES} SIGKILLs, ${sent} writes sent; acknowledged ${seen.deals.size} sells, ${seen.claims.size} claims, ${seen.won.size} wins`,
    );
    assert.deepEqual(unexpected, [], 'answers other than 2xx, 4xx or 503');
    assert.ok(seen.deals.size > 0, 'the load acknowledged no sell: nothing was tested');
    for (const id of seen.deals) {
      assert.equal((await last.get(`/pipeline/deals/${id}`)).status, 200, `acknowledged ${id} is gone`);
    }
    for (const [gigId, { closerId, dealId }] of seen.won) {
      const gig = await last.get(`/closers/gigs/${gigId}`);
      assert.equal(gig.body.status, 'fulfilled', `${gigId} was closed won and is ${gig.body.status}`);
      assert.equal((await last.get(`/pipeline/deals/${dealId}`)).body.stage, 'closed_won');
      const closer = await last.get(`/closers/closers/${closerId}`);
      const lines = closer.body.payouts.filter((line: { gigId: string }) => line.gigId === gigId);
      assert.equal(lines.length, 1, `${gigId} is paid ${lines.length} times`);
    }
    await ledgerAcknowledged(last, seen);
    log(
      `${label}: acknowledged ${seen.refunds.size} refunds, ${seen.payouts.size} payouts: all there, none paid twice`,
    );
    // And every invariant, over the whole database, as `audit` reads it.
    const report = await auditDeployment(last.url);
    assert.deepEqual(report.violations, [], `audit: ${JSON.stringify(report.violations.slice(0, 5), null, 1)}`);
    log(
      `${label}: audit read ${report.read.deals} deals, ${report.read.gigs} gigs, ${report.read.events} events: no violation`,
    );
  } finally {
    if (instance) await instance.close();
  }
}

describe('SIGKILL under load on PostgreSQL', { skip: server.skip }, () => {
  it('nothing acknowledged is lost, nothing is paid twice, every invariant holds', async (t) => {
    const schema = await createTestSchema(server.url as string, 'crash');
    try {
      await crashAndCheck(schema, 'postgres', (line) => t.diagnostic(line));
    } finally {
      await schema.drop();
    }
  });
});

describe('SIGKILL under load on PGlite', () => {
  it('the folder reopens after each kill (its stale lock taken over), with everything acknowledged', async (t) => {
    const folder = await mkdtemp(join(tmpdir(), 'pipeline-crash-'));
    try {
      await crashAndCheck(`pglite:${folder}`, 'pglite', (line) => t.diagnostic(line));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
