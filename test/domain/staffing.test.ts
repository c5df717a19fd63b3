// Staffing and the human track: D-10, D-11, D-12.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_STAFFING } from '../../src/domain/mandate.ts';
import { needsHuman, ruleCallsForHuman } from '../../src/domain/staffing.ts';
import { closedWon, entry, escalated, moved } from './builders.ts';
import { claimedCloserGig, claimedNurturerGig, T0, World } from './world.ts';

const deal = (listValueCents: number, signals: string[] = []) => ({ listValueCents, signals });

describe('D-10 staffing rules', () => {
  it('D-10: agent never calls for a human, human always does', () => {
    assert.equal(ruleCallsForHuman('agent', deal(1e12, ['gone_dark'])), false);
    assert.equal(ruleCallsForHuman('human', deal(1)), true);
  });

  it('D-10: humanIf minDealSizeUsd holds when listValueUsd >= minDealSizeUsd', () => {
    const rule = { humanIf: { minDealSizeCents: 5_000_000 } };
    assert.equal(ruleCallsForHuman(rule, deal(4_999_999)), false);
    assert.equal(ruleCallsForHuman(rule, deal(5_000_000)), true);
    assert.equal(ruleCallsForHuman(rule, deal(5_000_001)), true);
  });

  it('D-10: humanIf signals holds when the deal carries any of the listed signals', () => {
    const rule = { humanIf: { signals: ['procurement_involved', 'legal_review'] } };
    assert.equal(ruleCallsForHuman(rule, deal(100, [])), false);
    assert.equal(ruleCallsForHuman(rule, deal(100, ['budget_cut'])), false);
    assert.equal(ruleCallsForHuman(rule, deal(100, ['budget_cut', 'legal_review'])), true);
  });

  it('D-10: humanIf holds when ANY given condition holds (either one suffices)', () => {
    const rule = { humanIf: { minDealSizeCents: 5_000_000, signals: ['legal_review'] } };
    assert.equal(ruleCallsForHuman(rule, deal(100, ['legal_review'])), true, 'signal only');
    assert.equal(ruleCallsForHuman(rule, deal(5_000_000, [])), true, 'size only');
    assert.equal(ruleCallsForHuman(rule, deal(100, [])), false, 'neither');
    assert.equal(ruleCallsForHuman({ humanIf: {} }, deal(1e12, ['x'])), false, 'no condition never holds');
  });

  it('D-10: default staffing is setter agent, closer agent, nurturer human: an unstaffed deal is sold by the agent', () => {
    assert.deepEqual(DEFAULT_STAFFING, { setter: 'agent', closer: 'agent', nurturer: 'human' });
    const w = new World();
    const dealId = w.createDeal();
    assert.deepEqual(w.deal(dealId).mandate.staffing, DEFAULT_STAFFING);
    w.agentTo(dealId, 'negotiation');
    // closed by the agent, never on the human track: no HumanTrackSet
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(closedWon(dealId, 10_000_000, '$100,000.00'));
  });

  it('D-10: a humanIf below its size threshold lets the agent work the stage', () => {
    const w = new World();
    const dealId = w.createDeal({
      listValueUsd: 10_000,
      mandate: { staffing: { closer: { humanIf: { minDealSizeUsd: 10_000.01 } } } },
    });
    w.agentTo(dealId, 'negotiation');
    assert.equal(w.deal(dealId).humanTrack, undefined);
  });

  it('D-10: a reported signal listed in humanIf makes the next advance escalate', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { closer: { humanIf: { signals: ['legal_review'] } } } } });
    w.agentTo(dealId, 'proposal');
    w.signals(dealId, 'legal_review');
    const { account, activity } = w.deal(dealId);
    // the deal stays at proposal: no DealMoved
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0001',
          role: 'closer',
          stage: 'proposal',
          pricing: { kind: 'commission', pct: 0.1 },
          setsTrack: true,
          signals: ['legal_review'],
        },
      ),
      { escalation: { role: 'closer', gigId: 'gig_0001' } },
    );
  });

  it('D-10: a stalled deal is always worked by a human nurturer, even when the nurturer rule says agent', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { nurturer: 'agent' } } });
    w.agentTo(dealId, 'qualified');
    w.signals(dealId, 'gone_dark');
    assert.equal(needsHuman(w.deal(dealId)), true);
    const { account, activity } = w.deal(dealId);
    // gone_dark set the human track already; the deal stays at qualified
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0001',
          role: 'nurturer',
          stage: 'qualified',
          pricing: { kind: 'fee', amountCents: 15_000 },
          setsTrack: false,
          signals: ['gone_dark'],
        },
      ),
      { escalation: { role: 'nurturer', gigId: 'gig_0001' } },
    );
  });
});

describe('D-11 the human track never moves the deal on a deal advance', () => {
  it('D-11: an advance on a human-track deal answers the escalation shape with the active open gig, deciding nothing new', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' } } });
    w.agentTo(dealId, 'meeting');
    const gigId = w.escalate(dealId);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then([], {
      withVersions: true,
      escalation: { role: 'closer', gigId },
    });
  });

  it('D-11: an advance while the gig is claimed returns that claimed gig', () => {
    const { w, dealId, gigId } = claimedCloserGig('proposal');
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then([], {
      withVersions: true,
      escalation: { role: 'closer', gigId },
    });
  });

  it('D-11: a human-track advance never moves the deal, whatever the proposal says (closed_lost, closed_won)', () => {
    const { w, dealId, gigId } = claimedCloserGig('negotiation');
    for (const proposal of [{ advanceTo: 'closed_lost' }, { advanceTo: 'closed_won', valueUsd: 100_000 }]) {
      w.when({ type: 'AdvanceDeal', dealId, proposal }).then([], {
        withVersions: true,
        escalation: { role: 'closer', gigId },
      });
    }
  });

  it('D-11: with no active gig, a human-track advance posts a fresh gig for the owning role even when its staffing is agent', () => {
    // setter human, closer agent: once the setter gig is done the deal stays on the human track
    const w = new World();
    const closerId = w.enrol();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human', closer: 'agent' } } });
    const setterGig = w.escalate(dealId);
    w.claim(setterGig, closerId).gigAdvance(setterGig, 'qualified').gigAdvance(setterGig, 'meeting');
    assert.equal(w.gig(setterGig).status, 'fulfilled');
    const { account, activity } = w.deal(dealId);
    // humanTrack is already set: no HumanTrackSet; the deal stays at meeting
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0002',
          role: 'closer',
          stage: 'meeting',
          pricing: { kind: 'commission', pct: 0.1 },
          setsTrack: false,
        },
      ),
      { escalation: { role: 'closer', gigId: 'gig_0002' } },
    );
  });

  it('D-11: the first escalation sets humanTrack and records a service activity entry', () => {
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
});

describe('D-12 de-escalation', () => {
  it('D-12: a deal that is not on the human track: 409 NOT_HUMAN_TRACK', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.when({ type: 'Deescalate', dealId }).thenRefused('conflict', 'NOT_HUMAN_TRACK');
  });

  it('D-12: a stalled deal: 409 DEAL_STALLED', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.signals(dealId, 'gone_dark');
    w.when({ type: 'Deescalate', dealId }).thenRefused('conflict', 'DEAL_STALLED');
    w.escalate(dealId); // with an open nurturer gig too
    w.when({ type: 'Deescalate', dealId }).thenRefused('conflict', 'DEAL_STALLED');
  });

  it('D-12: a deal with a claimed gig: 409 GIG_CLAIMED', () => {
    const { w, dealId, gigId, closerId } = claimedCloserGig('proposal');
    const refusal = w.when({ type: 'Deescalate', dealId }).thenRefused('conflict', 'GIG_CLAIMED');
    assert.ok(refusal.message.includes(gigId) && refusal.message.includes(closerId));
  });

  it('D-12: an open gig is released, humanTrack becomes false, activity by service', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { closer: 'human' } } });
    w.agentTo(dealId, 'meeting');
    const gigId = w.escalate(dealId);
    // the deal stays at meeting: no DealMoved
    w.when({ type: 'Deescalate', dealId }).then([
      { type: 'GigReleased', gigId, at: T0 },
      entry(dealId, 'service', 'meeting', 'The closer gig was released by de-escalation.', { gigId }),
      { type: 'HumanTrackSet', dealId, humanTrack: false },
      entry(dealId, 'service', 'meeting', 'The Seller de-escalated the deal: the staffing rules apply again.'),
    ]);
  });

  it('D-12: with no active gig, only humanTrack is cleared; then the staffing rules apply again (agent works it)', () => {
    // agent-staffed deal that went dark and was revived: human track, not stalled, no gig
    const { w, dealId, gigId } = claimedNurturerGig('proposal');
    w.run({ type: 'ClearGoneDark', gigId });
    assert.equal(w.deal(dealId).humanTrack, true);
    w.when({ type: 'Deescalate', dealId }).then([
      { type: 'HumanTrackSet', dealId, humanTrack: false },
      entry(dealId, 'service', 'proposal', 'The Seller de-escalated the deal: the staffing rules apply again.'),
    ]);
    w.run({ type: 'Deescalate', dealId });
    assert.equal(w.deal(dealId).humanTrack, false);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then(moved(dealId, 'proposal', 'negotiation'));
  });

  it('D-12: a human staffing rule still escalates after de-escalation (a fresh gig)', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    w.escalate(dealId);
    w.run({ type: 'Deescalate', dealId });
    const { account, activity } = w.deal(dealId);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }, { now: T0 + 1 }).then(
      escalated(
        { id: dealId, account, activity },
        {
          gigId: 'gig_0002',
          role: 'setter',
          stage: 'sourced',
          pricing: { kind: 'fee', amountCents: 25_000 },
          setsTrack: true,
          at: T0 + 1,
        },
      ),
      { escalation: { role: 'setter', gigId: 'gig_0002' } },
    );
  });
});
