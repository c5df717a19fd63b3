// The spec's "Deal stages" table, one test per row, then the stage rules D-7, D-8, D-9, D-18.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineEvent } from '../../src/domain/events.ts';
import { floorCents, rule } from '../../src/domain/gate.ts';
import {
  isLegalMove,
  isTerminal,
  nextStage,
  owningRole,
  STAGES,
  type Stage,
  stageRole,
} from '../../src/domain/stages.ts';
import { closedWon, entry, escalated, moved, signalsReported, wentDark } from './builders.ts';
import { claimedCloserGig, claimedNurturerGig, DAY, HOUR, T0, World } from './world.ts';

/** A fresh world with one agent-staffed deal (list value 100,000 USD, floor 80%) at `stage`. */
function agentDealAt(stage: Stage, options: Parameters<World['createDeal']>[0] = {}) {
  const w = new World();
  const dealId = w.createDeal(options);
  w.agentTo(dealId, stage);
  return { w, dealId };
}

describe('Deal stages table', () => {
  it('deal stages: (none) --create deal (or sell) [mandate within platform bounds]--> sourced, activity by service, mandate resolved', () => {
    new World()
      .when({
        type: 'CreateDeal',
        account: { name: 'Acme Fictional Ltd', actor: 'B2B', industry: 'saas' },
        listValueUsd: 100_000,
        mandate: { floorPct: 0.75 },
      })
      .then(
        [
          {
            type: 'DealCreated',
            deal: {
              id: 'deal_0001',
              version: 1,
              account: { name: 'Acme Fictional Ltd', actor: 'B2B', industry: 'saas' },
              listValueCents: 10_000_000,
              stage: 'sourced',
              signals: [],
              // resolved with defaults: only floorPct was given
              mandate: {
                staffing: { setter: 'agent', closer: 'agent', nurturer: 'human' },
                commissionPct: 0.1,
                maxCommissionPct: 0.12,
                floorPct: 0.75,
                fees: { setterCents: 25_000, nurturerCents: 15_000 },
                stallTimeoutDays: 14,
              },
              activity: [
                { at: T0, by: 'service', stage: 'sourced', note: 'Deal created at sourced; mandate resolved.' },
              ],
              lastActedAt: T0,
            },
          },
        ],
        { withVersions: true }, // a created deal is at version 1: no DealVersioned
      );
  });

  it('deal stages: (none) --create deal [mandate out of platform bounds]--> refused 422 with violations, nothing created', () => {
    const w = new World();
    const refusal = w
      .when({
        type: 'CreateDeal',
        account: { name: 'Acme', actor: 'B2B' },
        listValueUsd: 1000,
        mandate: { commissionPct: 0.2 },
      })
      .thenRefused('mandate', 'MANDATE_OUT_OF_BOUNDS');
    assert.deepEqual(refusal.violations, ['mandate.commissionPct: 0.2 is above maxCommissionPct 0.12']);
  });

  const agentRows: [Stage, Stage, string][] = [
    ['sourced', 'qualified', 'current Role\u2019s staffing is agent'],
    ['qualified', 'meeting', 'same'],
    ['meeting', 'proposal', 'closer Role staffed by agent'],
    ['proposal', 'negotiation', 'same'],
  ];
  for (const [from, to, condition] of agentRows) {
    it(`deal stages: ${from} --advance by the agent [${condition}]--> ${to}, activity entry by agent`, () => {
      const { w, dealId } = agentDealAt(from);
      w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(moved(dealId, from, to));
    });
  }

  it('deal stages: negotiation --advance by the agent [proposed close value at least the floor]--> closed_won, finalValueUsd set, closedBy agent', () => {
    const { w, dealId } = agentDealAt('negotiation');
    const closing = w.when({ type: 'AdvanceDeal', dealId, proposal: { valueUsd: 80_000 } });
    assert.equal(closing.state().deals.get(dealId)?.stallDueAt, undefined, 'a terminal deal has no stall timer');
    closing.then(closedWon(dealId, 8_000_000, '$80,000.00'));
  });

  it('deal stages: any stage --advance when the current Role\u2019s staffing rule calls for a human [staffing human]--> unchanged, gig posted open, human-track, escalation response', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    const { account, activity } = w.deal(dealId);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0001',
          role: 'setter',
          stage: 'sourced',
          pricing: { kind: 'fee', amountCents: 25_000 },
          setsTrack: true,
        },
      ),
      { escalation: { role: 'setter', gigId: 'gig_0001' } },
    );
  });

  it('deal stages: any stage --advance when the current Role\u2019s staffing rule calls for a human [humanIf minDealSizeUsd satisfied]--> unchanged, gig posted open, human-track, escalation response', () => {
    const { w, dealId } = agentDealAt('meeting', {
      listValueUsd: 250_000,
      mandate: { staffing: { closer: { humanIf: { minDealSizeUsd: 250_000 } } } },
    });
    const { account, activity } = w.deal(dealId);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0001',
          role: 'closer',
          stage: 'meeting',
          pricing: { kind: 'commission', pct: 0.1 },
          setsTrack: true,
          listValueCents: 25_000_000,
          floorCents: 20_000_000,
        },
      ),
      { escalation: { role: 'closer', gigId: 'gig_0001' } },
    );
  });

  it('deal stages: meeting --gig advance proposal (claimed closer gig) [gate finds transition legal]--> proposal, activity entry by human', () => {
    const { w, gigId, dealId, closerId } = claimedCloserGig('meeting');
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'proposal' }).then([
      ...moved(dealId, 'meeting', 'proposal', { gigId, closerId }),
      // still claimed: the claim timer restarts
      { type: 'GigMoved', gigId, at: T0, dueAt: T0 + 72 * HOUR },
    ]);
  });

  it('deal stages: proposal --gig advance proposal [legal]--> negotiation, activity entry by human', () => {
    const { w, gigId, dealId, closerId } = claimedCloserGig('proposal');
    w.when({ type: 'AdvanceGig', gigId, advanceTo: 'negotiation' }).then([
      ...moved(dealId, 'proposal', 'negotiation', { gigId, closerId }),
      { type: 'GigMoved', gigId, at: T0, dueAt: T0 + 72 * HOUR },
    ]);
  });

  it('deal stages: negotiation --gig advance closed_won with valueUsd [at least the floor]--> closed_won, gig fulfilled, commission paid to closer, finalValueUsd, closedBy human', () => {
    const { w, gigId, dealId, closerId } = claimedCloserGig('negotiation');
    const won = w.when({ type: 'AdvanceGig', gigId, advanceTo: 'closed_won', valueUsd: 90_000 });
    assert.deepEqual(won.state().closers.get(closerId)?.record, { gigs: 1, wins: 1, grossClosedCents: 9_000_000n });
    won.then([
      ...closedWon(dealId, 9_000_000, '$90,000.00', { gigId, closerId }),
      { type: 'GigFulfilled', gigId, outcome: 'closed_won', finalValueCents: 9_000_000, at: T0 },
      {
        type: 'PayoutPosted',
        line: {
          at: T0,
          closerId,
          gigId,
          dealId,
          role: 'closer',
          kind: 'commission',
          amountCents: 900_000, // 10% of 90,000 USD
        },
      },
    ]);
  });

  it('deal stages: negotiation --gig advance closed_won with valueUsd below the floor--> unchanged, refused 422, gig stays claimed', () => {
    const { w, gigId, dealId } = claimedCloserGig('negotiation');
    const then = w.when({ type: 'AdvanceGig', gigId, advanceTo: 'closed_won', valueUsd: 70_000 });
    const refusal = then.thenRefused('gate', 'GATE_BELOW_FLOOR');
    assert.match(refusal.message, /\$70,000\.00/);
    assert.match(refusal.message, /\$80,000\.00/);
    assert.match(refusal.message, /80%/);
    // refused: the state stays as given
    assert.equal(w.deal(dealId).stage, 'negotiation');
    assert.equal(w.gig(gigId).status, 'claimed');
  });

  it('deal stages: (human-track stage) --gig advance with advanceTo closed_lost [gate finds legal]--> closed_lost, gig fulfilled, settles nothing', () => {
    const { w, gigId, dealId, closerId } = claimedCloserGig('proposal');
    const lost = w.when({ type: 'AdvanceGig', gigId, advanceTo: 'closed_lost' });
    assert.deepEqual(lost.state().closers.get(closerId)?.record, { gigs: 1, wins: 0, grossClosedCents: 0n });
    lost.then([
      ...moved(dealId, 'proposal', 'closed_lost', { gigId, closerId }),
      { type: 'GigFulfilled', gigId, outcome: 'closed_lost', at: T0 },
      // no PayoutPosted: a closer's close lost settles nothing
    ]);
  });

  it('deal stages: any non-terminal --signals including gone_dark--> unchanged stage, human-track, stalled into nurturer, claimed closer gig released, back to matching', () => {
    const { w, gigId, dealId } = claimedCloserGig('proposal');
    // on the human track already (its closer gig): no HumanTrackSet; gone_dark makes the nurturer own it (D-8)
    w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] }).then([
      ...signalsReported(dealId, 'proposal', ['gone_dark']),
      ...wentDark(dealId, 'proposal', { released: { gigId, role: 'closer' } }),
    ]);
    // returns to matching under the nurturer: the next advance posts a nurturer gig
    w.signals(dealId, 'gone_dark');
    const { account, activity } = w.deal(dealId);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0002',
          role: 'nurturer',
          stage: 'proposal',
          pricing: { kind: 'fee', amountCents: 15_000 },
          setsTrack: false,
          signals: ['gone_dark'],
        },
      ),
      { escalation: { role: 'nurturer', gigId: 'gig_0002' } },
    );
  });

  it('deal stages: stalled --nurturer gig revive [gig is a nurturer gig]--> same stage, gone_dark cleared, handed back to the owning Role, nurturer fee settles', () => {
    const { w, gigId, dealId, closerId } = claimedNurturerGig('proposal');
    // gone_dark cleared: the stage's role, the closer, owns the deal again (D-8)
    w.when({ type: 'ClearGoneDark', gigId }).then([
      { type: 'SignalsCleared', dealId, signals: ['gone_dark'] },
      entry(dealId, 'human', 'proposal', 'Revived by the nurturer: gone_dark cleared; handed back to the closer role', {
        gigId,
        closerId,
      }),
      { type: 'GigFulfilled', gigId, outcome: 'revived', at: T0 },
      {
        type: 'PayoutPosted',
        line: { at: T0, closerId, gigId, dealId, role: 'nurturer', kind: 'fee', amountCents: 15_000 },
      },
    ]);
  });

  it('deal stages: closed_lost --reengage--> (new deal) sourced with lineage.revivedFrom, the original unchanged', () => {
    const { w, dealId } = agentDealAt('qualified');
    w.advance(dealId, { advanceTo: 'closed_lost' });
    const original = w.deal(dealId);
    // the whole decision, versions included: the original deal gets no event, not even a version
    w.when({ type: 'Reengage', dealId }).then(
      [
        {
          type: 'DealCreated',
          deal: {
            id: 'deal_0002',
            version: 1,
            account: original.account,
            listValueCents: 10_000_000,
            stage: 'sourced',
            signals: [],
            mandate: original.mandate,
            activity: [
              {
                at: T0,
                by: 'service',
                stage: 'sourced',
                note: 'Re-engagement of a closed_lost deal; a new deal at sourced.',
              },
            ],
            lineage: { revivedFrom: dealId },
            lastActedAt: T0,
          },
        },
      ],
      { withVersions: true },
    );
  });
});

describe('D-7 one step at a time, closed_lost from any non-terminal stage, terminal is forever', () => {
  const open: Stage[] = ['sourced', 'qualified', 'meeting', 'proposal', 'negotiation'];

  it('D-7: the legal moves are exactly the next stage and closed_lost', () => {
    for (const from of STAGES) {
      const legal = STAGES.filter((to) => isLegalMove(from, to));
      const expected = isTerminal(from) ? [] : [nextStage(from), 'closed_lost'];
      assert.deepEqual([...legal].sort(), [...expected].sort(), `from ${from}`);
    }
  });

  for (const from of open) {
    const skips = STAGES.filter((to) => to !== 'closed_lost' && to !== nextStage(from));
    it(`D-7: no skipping or going back from ${from} (${skips.join(', ')} refused by the gate)`, () => {
      const { w, dealId } = agentDealAt(from);
      for (const to of skips) {
        const refusal = w
          .when({ type: 'AdvanceDeal', dealId, proposal: { advanceTo: to, valueUsd: 100_000 } })
          .thenRefused('gate', 'GATE_ILLEGAL_MOVE');
        assert.match(refusal.message, new RegExp(`from ${from} to ${to}`));
        assert.match(refusal.message, new RegExp(`next is ${nextStage(from)}`));
      }
    });

    it(`D-7: closed_lost is legal from ${from}`, () => {
      const { w, dealId } = agentDealAt(from);
      w.when({ type: 'AdvanceDeal', dealId, proposal: { advanceTo: 'closed_lost' } }).then(
        moved(dealId, from, 'closed_lost'),
      );
    });
  }

  for (const terminal of ['closed_won', 'closed_lost'] as const) {
    it(`D-7: ${terminal} is forever: advance, signals, stall and de-escalation are 409 DEAL_TERMINAL`, () => {
      const { w, dealId } = agentDealAt('negotiation');
      w.advance(dealId, { advanceTo: terminal });
      assert.equal(w.deal(dealId).stage, terminal);
      for (const advanceTo of [undefined, 'closed_lost', 'closed_won', 'sourced']) {
        const refusal = w
          .when({ type: 'AdvanceDeal', dealId, proposal: advanceTo ? { advanceTo } : {} })
          .thenRefused('conflict', 'DEAL_TERMINAL');
        assert.match(refusal.message, new RegExp(`${terminal}; terminal is forever`));
      }
      w.when({ type: 'ReportSignals', dealId, signals: ['gone_dark'] }).thenRefused('conflict', 'DEAL_TERMINAL');
      w.when({ type: 'StallDeal', dealId }, { now: T0 + 365 * DAY }).thenRefused('conflict', 'DEAL_TERMINAL');
      w.when({ type: 'Deescalate', dealId }).thenRefused('conflict', 'DEAL_TERMINAL');
      // the gate itself refuses any move of a terminal deal as a conflict
      const ruling = rule(w.deal(dealId), { to: 'closed_lost' });
      assert.ok(!ruling.ok);
      assert.equal(ruling.refusal.kind, 'conflict');
      assert.equal(ruling.refusal.code, 'DEAL_TERMINAL');
    });
  }
});

describe('D-8 the role that owns a deal', () => {
  it('D-8: setter at sourced and qualified, closer from meeting on (terminal included)', () => {
    const roles = STAGES.map((stage) => owningRole({ stage, signals: [] }));
    assert.deepEqual(roles, ['setter', 'setter', 'closer', 'closer', 'closer', 'closer', 'closer']);
    assert.deepEqual(
      STAGES.map((stage) => stageRole(stage)),
      roles,
    );
  });

  it('D-8: nurturer at any stage while the deal carries gone_dark', () => {
    for (const stage of STAGES) {
      assert.equal(owningRole({ stage, signals: ['procurement_involved', 'gone_dark'] }), 'nurturer', stage);
      assert.equal(stageRole(stage), stage === 'sourced' || stage === 'qualified' ? 'setter' : 'closer');
    }
  });

  it('D-8: the owning role decides whose staffing rule applies (setter agent to meeting, then closer human)', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'agent', closer: 'human' } } });
    w.agentTo(dealId, 'meeting'); // sourced and qualified are the setter's: the agent works them
    const { account, activity } = w.deal(dealId);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0001',
          role: 'closer',
          stage: 'meeting',
          pricing: { kind: 'commission', pct: 0.1 },
          setsTrack: true,
        },
      ),
      { escalation: { role: 'closer', gigId: 'gig_0001' } },
    );
  });

  it('D-8: a human setter escalates at sourced while an agent closer would work meeting', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human', closer: 'agent' } } });
    const { account, activity } = w.deal(dealId);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0001',
          role: 'setter',
          stage: 'sourced',
          pricing: { kind: 'fee', amountCents: 25_000 },
          setsTrack: true,
        },
      ),
      { escalation: { role: 'setter', gigId: 'gig_0001' } },
    );
  });
});

describe('D-9 the deal advance proposal and the negotiation floor', () => {
  it('D-9: without advanceTo the agent proposes the next stage; naming the next stage is the same', () => {
    const { w, dealId } = agentDealAt('sourced');
    const qualified: PipelineEvent[] = moved(dealId, 'sourced', 'qualified');
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(qualified);
    w.when({ type: 'AdvanceDeal', dealId, proposal: { advanceTo: 'qualified' } }).then(qualified);
  });

  it('D-9: advanceTo other than the next stage or closed_lost is a gate refusal (422), also for unknown names', () => {
    const { w, dealId } = agentDealAt('proposal');
    for (const advanceTo of ['closed_won', 'meeting', 'sourced', 'won', '']) {
      w.when({ type: 'AdvanceDeal', dealId, proposal: { advanceTo } }).thenRefused('gate', 'GATE_ILLEGAL_MOVE');
    }
  });

  it('D-9: in negotiation the agent proposes listValueUsd when no valueUsd is given', () => {
    const { w, dealId } = agentDealAt('negotiation', { listValueUsd: 123_456.78 });
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(closedWon(dealId, 12_345_678, '$123,456.78'));
  });

  it('D-9: the body\u2019s valueUsd is the proposed close value (rounded half-up to the cent)', () => {
    const { w, dealId } = agentDealAt('negotiation');
    w.when({ type: 'AdvanceDeal', dealId, proposal: { valueUsd: 95_000.005 } }).then(
      closedWon(dealId, 9_500_001, '$95,000.01'),
    );
  });

  it('D-9: a close below the floor is refused; the message states the proposed value, the floor and the floor percentage', () => {
    const { w, dealId } = agentDealAt('negotiation');
    const refusal = w
      .when({ type: 'AdvanceDeal', dealId, proposal: { valueUsd: 70_000 } })
      .thenRefused('gate', 'GATE_BELOW_FLOOR');
    assert.ok(refusal.message.includes('$70,000.00'), refusal.message);
    assert.ok(refusal.message.includes('$80,000.00'), refusal.message);
    assert.ok(refusal.message.includes('80%'), refusal.message);
    assert.ok(refusal.message.includes('$100,000.00'), refusal.message);
  });

  it('D-9: the floor is exact to the cent (floorPct \u00d7 list value, half-up): one cent under is refused, the floor itself passes', () => {
    // 0.8 × 12,345.67 = 9,876.536 → floor 9,876.54
    const { w, dealId } = agentDealAt('negotiation', { listValueUsd: 12_345.67 });
    assert.equal(floorCents(w.deal(dealId)), 987_654);
    const refusal = w
      .when({ type: 'AdvanceDeal', dealId, proposal: { valueUsd: 9_876.53 } })
      .thenRefused('gate', 'GATE_BELOW_FLOOR');
    assert.ok(refusal.message.includes('$9,876.53'));
    assert.ok(refusal.message.includes('$9,876.54'));
    w.when({ type: 'AdvanceDeal', dealId, proposal: { valueUsd: 9_876.54 } }).then(
      closedWon(dealId, 987_654, '$9,876.54'),
    );
  });

  it('D-9: a non-round floor percentage is stated exactly in the message (floorPct 0.725 \u2192 72.5%)', () => {
    const { w, dealId } = agentDealAt('negotiation', { mandate: { floorPct: 0.725 } });
    const refusal = w
      .when({ type: 'AdvanceDeal', dealId, proposal: { valueUsd: 72_000 } })
      .thenRefused('gate', 'GATE_BELOW_FLOOR');
    assert.ok(refusal.message.includes('72.5%'), refusal.message);
    assert.ok(refusal.message.includes('$72,500.00'), refusal.message);
  });

  it('D-9: a close won needs a value of at least one cent', () => {
    const { w, dealId } = agentDealAt('negotiation', { mandate: { floorPct: 0 } });
    w.when({ type: 'AdvanceDeal', dealId, proposal: { valueUsd: 0 } }).thenRefused('gate', 'GATE_VALUE_REQUIRED');
    w.when({ type: 'AdvanceDeal', dealId, proposal: { valueUsd: 0.004 } }).thenRefused('gate', 'GATE_VALUE_REQUIRED');
  });

  it('D-9: the gate refuses a commission above the cap (the lower of the mandate and the platform cap)', () => {
    const { w, dealId } = agentDealAt('negotiation', { mandate: { maxCommissionPct: 0.08, commissionPct: 0.05 } });
    const deal = w.deal(dealId);
    const over = rule(deal, { to: 'closed_won', valueCents: 9_000_000, commissionPct: 0.09 });
    assert.ok(!over.ok);
    assert.equal(over.refusal.kind, 'gate');
    assert.equal(over.refusal.code, 'GATE_COMMISSION_CAP');
    assert.match(over.refusal.message, /9%.*8%/);
    assert.deepEqual(rule(deal, { to: 'closed_won', valueCents: 9_000_000, commissionPct: 0.08 }), {
      ok: true,
      to: 'closed_won',
      valueCents: 9_000_000,
    });
  });

  it('D-9: the proposal note is kept in the activity entry', () => {
    const { w, dealId } = agentDealAt('sourced');
    w.when({ type: 'AdvanceDeal', dealId, proposal: { note: 'budget confirmed' } }).then(
      moved(dealId, 'sourced', 'qualified', 'agent', { note: 'budget confirmed' }),
    );
  });

  it('D-22: the close note writes money as every message does: $12,000.00 (one format, formatUsd)', () => {
    const agent = agentDealAt('negotiation');
    agent.w.advance(agent.dealId, { valueUsd: 1_234_567.8 });
    assert.equal(agent.w.deal(agent.dealId).activity.at(-1)?.note, 'Closed won at $1,234,567.80 by the agent');

    const human = claimedCloserGig('negotiation', { listValueUsd: 12_000 });
    human.w.gigAdvance(human.gigId, 'closed_won', 12_000);
    const closed = human.w.deal(human.dealId).activity.at(-1);
    assert.equal(closed?.note, 'Closed won at $12,000.00 by the human');
    // D-272: the gig and its closer in fields, never in the words.
    assert.deepEqual([closed?.gigId, closed?.closerId], [human.gigId, human.closerId]);
  });

  it('D-9: advancing an unknown deal is not_found', () => {
    new World()
      .when({ type: 'AdvanceDeal', dealId: 'deal_9999', proposal: {} })
      .thenRefused('not_found', 'DEAL_NOT_FOUND');
  });
});

describe('D-18 re-engagement', () => {
  it('D-18: re-engage copies account, listValueUsd and mandate into the new deal', () => {
    const mandate = { floorPct: 0.9, fees: { setterUsd: 300 }, stallTimeoutDays: 30 };
    const { w, dealId } = agentDealAt('meeting', { listValueUsd: 42_000.5, industry: 'fintech', mandate });
    w.advance(dealId, { advanceTo: 'closed_lost' });
    const original = w.deal(dealId);
    w.when({ type: 'Reengage', dealId }, { now: T0 + DAY }).then([
      {
        type: 'DealCreated',
        deal: {
          id: 'deal_0002',
          version: 1,
          account: { name: 'Acme Fictional Ltd', actor: 'B2B', industry: 'fintech' },
          listValueCents: 4_200_050,
          stage: 'sourced',
          signals: [],
          mandate: original.mandate,
          activity: [
            {
              at: T0 + DAY,
              by: 'service',
              stage: 'sourced',
              note: 'Re-engagement of a closed_lost deal; a new deal at sourced.',
            },
          ],
          lineage: { revivedFrom: dealId },
          lastActedAt: T0 + DAY,
        },
      },
    ]);
  });

  for (const stage of ['sourced', 'negotiation', 'closed_won'] as const) {
    it(`D-18: re-engage of a ${stage} deal is 409 DEAL_NOT_CLOSED_LOST`, () => {
      const { w, dealId } = agentDealAt(stage === 'closed_won' ? 'negotiation' : stage);
      if (stage === 'closed_won') w.advance(dealId);
      assert.equal(w.deal(dealId).stage, stage);
      const refusal = w.when({ type: 'Reengage', dealId }).thenRefused('conflict', 'DEAL_NOT_CLOSED_LOST');
      assert.match(refusal.message, new RegExp(stage));
    });
  }

  it('D-18: re-engage of an unknown deal is not_found', () => {
    new World().when({ type: 'Reengage', dealId: 'deal_0042' }).thenRefused('not_found', 'DEAL_NOT_FOUND');
  });
});
