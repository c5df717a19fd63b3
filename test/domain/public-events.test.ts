// D-40: the public events derived from the decider's events (src/domain/public-events.ts), for
// every kind of change: what is published, in order, with its data; a refusal publishes nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineCommand } from '../../src/domain/commands.ts';
import { decide } from '../../src/domain/decide.ts';
import { type PublicEventDraft, publicEvents } from '../../src/domain/public-events.ts';
import { World } from './world.ts';

/** Decides a command in the world and derives what it publishes (the command must be accepted). */
function publish(w: World, command: PipelineCommand): PublicEventDraft[] {
  const decision = decide(w.state, command, w.ctx());
  assert.ok(decision.ok, decision.ok ? '' : decision.refusal.message);
  const published = publicEvents(w.state, decision.events, w.now);
  w.run(command);
  return published;
}
const types = (events: PublicEventDraft[]) => events.map((e) => e.type);

describe('D-40 public events, derived from the decider’s events', () => {
  it('a create publishes deal.created with the deal as stored', () => {
    const w = new World();
    const published = publish(w, {
      type: 'CreateDeal',
      account: { name: 'Pub Fictional', actor: 'B2B', industry: 'saas' },
      listValueUsd: 1000,
    });
    assert.deepEqual(types(published), ['deal.created']);
    const created = published[0] as Extract<PublicEventDraft, { type: 'deal.created' }>;
    assert.equal(created.data.deal.id, 'deal_0001');
    assert.equal(created.at, w.now);
  });

  it('a move publishes deal.stage_changed with from, to and who moved it', () => {
    const w = new World();
    const dealId = w.createDeal();
    const published = publish(w, { type: 'AdvanceDeal', dealId, proposal: {} });
    assert.deepEqual(published, [
      { type: 'deal.stage_changed', at: w.now, data: { dealId, from: 'sourced', to: 'qualified', by: 'agent' } },
    ]);
  });

  it('a close publishes deal.stage_changed then deal.closed with the value in cents and who closed', () => {
    const w = new World();
    const dealId = w.createDeal({ listValueUsd: 100_000 });
    w.agentTo(dealId, 'negotiation');
    const published = publish(w, {
      type: 'AdvanceDeal',
      dealId,
      proposal: { advanceTo: 'closed_won', valueUsd: 90_000 },
    });
    assert.deepEqual(types(published), ['deal.stage_changed', 'deal.closed']);
    assert.deepEqual(published[1].data, {
      dealId,
      outcome: 'closed_won',
      finalValueCents: 9_000_000,
      closedBy: 'agent',
    });
  });

  it('an escalation publishes deal.escalated and gig.posted; a claim gig.claimed', () => {
    const w = new World();
    const closerId = w.enrol();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    const escalated = publish(w, { type: 'AdvanceDeal', dealId, proposal: {} });
    assert.deepEqual(types(escalated), ['deal.escalated', 'gig.posted']);
    assert.deepEqual(escalated[0].data, { dealId, role: 'setter', gigId: 'gig_0001' });
    const claimed = publish(w, { type: 'ClaimGig', gigId: 'gig_0001', closerId });
    assert.deepEqual(claimed, [{ type: 'gig.claimed', at: w.now, data: { gigId: 'gig_0001', dealId, closerId } }]);
  });

  it('a fulfilled setter gig publishes its moves, gig.fulfilled and payout.posted', () => {
    const w = new World();
    const closerId = w.enrol();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    const gigId = w.escalate(dealId);
    w.claim(gigId, closerId);
    w.gigAdvance(gigId, 'qualified');
    const published = publish(w, { type: 'AdvanceGig', gigId, advanceTo: 'meeting' });
    assert.deepEqual(types(published), ['deal.stage_changed', 'gig.fulfilled', 'payout.posted']);
    assert.deepEqual(published[0].data, { dealId, from: 'qualified', to: 'meeting', by: 'human' });
    assert.deepEqual(published[1].data, { gigId, dealId, closerId, outcome: 'meeting' });
    const payout = published[2] as Extract<PublicEventDraft, { type: 'payout.posted' }>;
    assert.equal(payout.data.line.gigId, gigId);
    assert.equal(payout.data.line.amountCents, 25_000);
  });

  it('signals publish deal.signals_reported (by the Seller); gone_dark also deal.stalled', () => {
    const w = new World();
    const dealId = w.createDeal();
    const plain = publish(w, { type: 'ReportSignals', dealId, signals: ['legal_review'] });
    assert.deepEqual(plain, [
      { type: 'deal.signals_reported', at: w.now, data: { dealId, signals: ['legal_review'], by: 'seller' } },
    ]);
    const dark = publish(w, { type: 'ReportSignals', dealId, signals: ['gone_dark'] });
    assert.deepEqual(types(dark), ['deal.signals_reported', 'deal.stalled']);
  });

  it('a stall by the platform timer is reported by the platform', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.tick(15 * 24 * 3_600_000);
    const published = publish(w, { type: 'StallDeal', dealId });
    assert.deepEqual(types(published), ['deal.signals_reported', 'deal.stalled']);
    assert.equal((published[0].data as { by: string }).by, 'platform');
  });

  it('a de-escalation publishes deal.deescalated (and gig.released for its open gig)', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    w.escalate(dealId);
    const published = publish(w, { type: 'Deescalate', dealId });
    assert.deepEqual(types(published).sort(), ['deal.deescalated', 'gig.released']);
  });

  it('a re-engagement publishes deal.created and deal.reengaged; an enrolment closer.enrolled', () => {
    const w = new World();
    const dealId = w.createDeal();
    w.advance(dealId, { advanceTo: 'closed_lost' });
    const published = publish(w, { type: 'Reengage', dealId });
    assert.deepEqual(types(published), ['deal.created', 'deal.reengaged']);
    assert.deepEqual(published[1].data, { dealId: 'deal_0002', revivedFrom: dealId });
    const enrolled = publish(w, { type: 'EnrolCloser', name: 'Pub Closer (fictional)', industries: [] });
    assert.deepEqual(types(enrolled), ['closer.enrolled']);
  });

  it('a refused decision has no events, so publishes nothing', () => {
    const w = new World();
    const dealId = w.createDeal();
    const decision = decide(w.state, { type: 'AdvanceDeal', dealId, proposal: { advanceTo: 'meeting' } }, w.ctx());
    assert.equal(decision.ok, false);
    assert.deepEqual(publicEvents(w.state, [], w.now), []);
  });
});
