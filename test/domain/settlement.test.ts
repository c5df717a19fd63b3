// Outcome billing (D-23) and the Register and payout ledger (D-24).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PayoutLine } from '../../src/domain/records.ts';
import type { Refusal } from '../../src/domain/refusal.ts';
import { type Settlement, settle } from '../../src/domain/settlement.ts';
import type { Stage } from '../../src/domain/stages.ts';
import { closedWon } from './builders.ts';
import { claimedCloserGig, claimedNurturerGig, claimedSetterGig, T0, World } from './world.ts';

function settlementOf(w: World, dealId: string): Settlement {
  const result = settle(
    w.deal(dealId),
    w.state.payouts.filter((line) => line.dealId === dealId),
  );
  assert.ok(!('kind' in result), `expected a settlement, got ${JSON.stringify(result)}`);
  return result;
}

/**
 * The full human journey of one deal: a setter gig to meeting (fee 250), a closer gig to
 * proposal, gone dark (closer gig released), a nurturer revive (fee 150), a fresh closer gig
 * to a close won at 90,000 USD (commission 10%).
 */
function humanJourney() {
  const w = new World();
  const setter = w.enrol('Sam Setter', ['saas']);
  const closer = w.enrol('Cleo Closer', ['saas']);
  const nurturer = w.enrol('Nia Nurturer', ['saas']);
  const dealId = w.createDeal({ mandate: { staffing: { setter: 'human', closer: 'human' } } });
  const setterGig = w.escalate(dealId);
  w.claim(setterGig, setter).gigAdvance(setterGig, 'qualified').gigAdvance(setterGig, 'meeting');
  const firstCloserGig = w.escalate(dealId);
  w.claim(firstCloserGig, closer).gigAdvance(firstCloserGig, 'proposal');
  w.signals(dealId, 'gone_dark');
  const nurturerGig = w.escalate(dealId);
  w.claim(nurturerGig, nurturer).run({ type: 'ClearGoneDark', gigId: nurturerGig });
  const closerGig = w.escalate(dealId);
  w.claim(closerGig, closer).gigAdvance(closerGig, 'negotiation').gigAdvance(closerGig, 'closed_won', 90_000);
  return { w, dealId, setter, closer, nurturer, setterGig, firstCloserGig, nurturerGig, closerGig };
}

describe('D-23 settlement', () => {
  it('D-23: an agent close: commission 0, platform fee 5%, no fees, net = final \u2212 platform fee', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.agentTo(dealId, 'negotiation').advance(dealId, { valueUsd: 85_000 });
    assert.deepEqual(settlementOf(w, dealId), {
      dealId,
      finalValueCents: 8_500_000,
      closedBy: 'agent',
      closerCommissionCents: 0,
      platformFeeCents: 425_000,
      feesSettledCents: 0,
      netToSellerCents: 8_075_000,
      fees: [],
    });
  });

  it('D-23: a human close with no fees: net = final \u2212 commission \u2212 platform fee', () => {
    const { w, gigId, dealId } = claimedCloserGig('negotiation', {
      mandate: { staffing: { closer: 'human' }, commissionPct: 0.12 },
    });
    w.gigAdvance(gigId, 'closed_won', 100_000.01);
    const settlement = settlementOf(w, dealId);
    assert.equal(settlement.closedBy, 'human');
    assert.equal(settlement.finalValueCents, 10_000_001);
    assert.equal(settlement.closerCommissionCents, 1_200_000); // 12% of 10,000,001 = 1,200,000.12
    assert.equal(settlement.platformFeeCents, 500_000); // 5% = 500,000.05
    assert.equal(settlement.feesSettledCents, 0);
    assert.equal(settlement.netToSellerCents, 10_000_001 - 1_200_000 - 500_000);
  });

  it('D-23: net = final \u2212 commission \u2212 platform fee \u2212 fees settled, fees listed as line items', () => {
    const j = humanJourney();
    const settlement = settlementOf(j.w, j.dealId);
    assert.deepEqual(settlement, {
      dealId: j.dealId,
      finalValueCents: 9_000_000,
      closedBy: 'human',
      closerCommissionCents: 900_000,
      platformFeeCents: 450_000,
      feesSettledCents: 40_000,
      netToSellerCents: 9_000_000 - 900_000 - 450_000 - 40_000,
      fees: [
        { gigId: j.setterGig, role: 'setter', closerId: j.setter, amountCents: 25_000 },
        { gigId: j.nurturerGig, role: 'nurturer', closerId: j.nurturer, amountCents: 15_000 },
      ],
    });
  });

  const notWon: Stage[] = ['sourced', 'qualified', 'meeting', 'proposal', 'negotiation', 'closed_lost'];
  for (const stage of notWon) {
    it(`D-23: no settlement for a ${stage} deal: 409 DEAL_NOT_CLOSED_WON`, () => {
      const w = new World();
      const dealId = w.createDeal();
      if (stage === 'closed_lost') w.advance(dealId, { advanceTo: 'closed_lost' });
      else w.agentTo(dealId, stage);
      const result = settle(w.deal(dealId), []) as Refusal;
      assert.equal(result.kind, 'conflict');
      assert.equal(result.code, 'DEAL_NOT_CLOSED_WON');
      assert.match(result.message, new RegExp(`${stage}; a settlement exists only for closed_won`));
    });
  }
});

describe('D-24 Register and ledger', () => {
  it('D-24: a closer starts with a zeroed Register', () => {
    const w = new World();
    const id = w.enrol('Zed Fictional', ['retail', 'saas']);
    assert.deepEqual(w.closer(id), {
      id: 'closer_0001',
      name: 'Zed Fictional',
      industries: ['retail', 'saas'],
      record: { gigs: 0, wins: 0, grossClosedCents: 0n },
      enrolledAt: w.now,
    });
    assert.deepEqual(w.state.payouts, []);
  });

  it('D-24: gigs counts fulfilled gigs of every role; wins and grossClosed count closed_won only', () => {
    const j = humanJourney();
    assert.deepEqual(j.w.closer(j.setter).record, { gigs: 1, wins: 0, grossClosedCents: 0n });
    assert.deepEqual(j.w.closer(j.nurturer).record, { gigs: 1, wins: 0, grossClosedCents: 0n });
    // the released first closer gig does not count; the won one does
    assert.equal(j.w.gig(j.firstCloserGig).status, 'released');
    assert.deepEqual(j.w.closer(j.closer).record, { gigs: 1, wins: 1, grossClosedCents: 9_000_000n });
  });

  it('D-24: a closed_lost fulfilment counts a gig but no win; wins accumulate gross across deals', () => {
    const w = new World();
    const closerId = w.enrol();
    for (const [value, outcome] of [
      [100_000, 'closed_won'],
      [0, 'closed_lost'],
      [120_000.5, 'closed_won'],
    ] as const) {
      const dealId = w.createDeal({ listValueUsd: 120_000.5, mandate: { staffing: { closer: 'human' } } });
      w.agentTo(dealId, 'meeting');
      const gigId = w.escalate(dealId);
      w.claim(gigId, closerId).gigAdvance(gigId, 'proposal').gigAdvance(gigId, 'negotiation');
      w.gigAdvance(gigId, outcome, outcome === 'closed_won' ? value : undefined);
    }
    assert.deepEqual(w.closer(closerId).record, { gigs: 3, wins: 2, grossClosedCents: 10_000_000n + 12_000_050n });
  });

  it('D-24: every payout is one ledger line, appended in order', () => {
    const j = humanJourney();
    const lines: PayoutLine[] = [...j.w.state.payouts];
    assert.deepEqual(
      lines.map((line) => [line.gigId, line.closerId, line.kind, line.amountCents]),
      [
        [j.setterGig, j.setter, 'fee', 25_000],
        [j.nurturerGig, j.nurturer, 'fee', 15_000],
        [j.closerGig, j.closer, 'commission', 900_000],
      ],
    );
    assert.ok(lines.every((line) => line.dealId === j.dealId));
  });

  it('D-24: a 0% commission close won writes no $0 ledger line; the gig and the win still count in the Register', () => {
    const { w, gigId, closerId, dealId } = claimedCloserGig('negotiation', {
      mandate: { staffing: { closer: 'human' }, commissionPct: 0 },
    });
    const won = w.when({ type: 'AdvanceGig', gigId, advanceTo: 'closed_won', valueUsd: 100_000 });
    w.gigAdvance(gigId, 'closed_won', 100_000);
    assert.deepEqual(w.state.payouts, []);
    assert.deepEqual(w.closer(closerId).record, { gigs: 1, wins: 1, grossClosedCents: 10_000_000n });
    const settlement = settlementOf(w, dealId);
    assert.equal(settlement.closerCommissionCents, 0);
    assert.equal(settlement.netToSellerCents, 10_000_000 - 500_000);
    won.then([
      ...closedWon(dealId, 10_000_000, '$100,000.00', { gigId, closerId }),
      { type: 'GigFulfilled', gigId, outcome: 'closed_won', finalValueCents: 10_000_000, at: T0 },
      // no payout event for $0
    ]);
  });

  it('D-24: a $0 setter fee (meeting) or $0 nurturer fee (revive, confirmed dead) writes no ledger line; the gig counts', () => {
    const setter = claimedSetterGig({ mandate: { staffing: { setter: 'human' }, fees: { setterUsd: 0 } } });
    setter.w.gigAdvance(setter.gigId, 'qualified').gigAdvance(setter.gigId, 'meeting');
    assert.equal(setter.w.gig(setter.gigId).outcome, 'meeting');
    assert.deepEqual(setter.w.state.payouts, []);
    assert.deepEqual(setter.w.closer(setter.closerId).record, { gigs: 1, wins: 0, grossClosedCents: 0n });

    for (const confirm of ['revive', 'closed_lost'] as const) {
      const nurturer = claimedNurturerGig('proposal', { mandate: { fees: { nurturerUsd: 0.004 } } }); // rounds to $0
      if (confirm === 'revive') nurturer.w.run({ type: 'ClearGoneDark', gigId: nurturer.gigId });
      else nurturer.w.gigAdvance(nurturer.gigId, 'closed_lost');
      assert.equal(nurturer.w.gig(nurturer.gigId).status, 'fulfilled', confirm);
      assert.deepEqual(nurturer.w.state.payouts, [], confirm);
      assert.deepEqual(
        nurturer.w.closer(nurturer.closerId).record,
        { gigs: 1, wins: 0, grossClosedCents: 0n },
        confirm,
      );
    }
  });

  it('D-24: a fee of one cent is still a ledger line', () => {
    const setter = claimedSetterGig({ mandate: { staffing: { setter: 'human' }, fees: { setterUsd: 0.01 } } });
    setter.w.gigAdvance(setter.gigId, 'qualified').gigAdvance(setter.gigId, 'meeting');
    assert.deepEqual(
      setter.w.state.payouts.map((line) => [line.gigId, line.kind, line.amountCents]),
      [[setter.gigId, 'fee', 1]],
    );
  });

  it('D-24: released and expired gigs pay nothing and leave the Register alone', () => {
    const { w, gigId, closerId, dealId } = claimedCloserGig('proposal');
    w.run({ type: 'ReleaseGig', gigId });
    const next = w.escalate(dealId);
    w.claim(next, closerId).run({ type: 'ReopenGig', gigId: next, platform: false });
    assert.deepEqual(w.closer(closerId).record, { gigs: 0, wins: 0, grossClosedCents: 0n });
    assert.deepEqual(w.state.payouts, []);
  });
});
