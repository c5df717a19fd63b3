// D-273: once the store has numbered a unit's new records, their provisional ids are replaced
// field by field in the decided events (numbering.ts): every id field of every event, and
// nothing else, no text searched. One event of each type (a type added to PipelineEvent does not
// typecheck here until it has one), every id field holding a provisional id.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineCommand } from '../../src/domain/commands.ts';
import { decide } from '../../src/domain/decide.ts';
import type { PipelineEvent } from '../../src/domain/events.ts';
import { numberedEscalation, numberedEvents, numberedState } from '../../src/domain/numbering.ts';
import type { ActivityEntry, Closer, Deal, Gig } from '../../src/domain/records.ts';
import { evolveAll, initialState } from '../../src/domain/state.ts';
import { provisionalIds } from '../../src/service/provisional-ids.ts';
import { context } from '../support/given-when-then.ts';

const DEAL = 'deal_9123456789000000001';
const GIG = 'gig_9123456789000000001';
const CLOSER = 'closer_9123456789000000001';
const RENAMES = new Map([
  [DEAL, 'deal_0007'],
  [GIG, 'gig_0003'],
  [CLOSER, 'closer_0002'],
]);
const AT = Date.UTC(2026, 0, 5);

/** A note that looks like an id is words: kept as it is. */
const entry: ActivityEntry = {
  at: AT,
  by: 'human',
  stage: 'meeting',
  note: `see ${GIG}`,
  gigId: GIG,
  closerId: CLOSER,
};
const deal: Deal = {
  id: DEAL,
  version: 1,
  account: { name: `Fictional ${DEAL} Co`, actor: 'B2B' },
  listValueCents: 100_000_00,
  stage: 'meeting',
  signals: [],
  mandate: {} as Deal['mandate'],
  activity: [{ at: AT, by: 'service', stage: 'sourced', note: 'Deal created at sourced; mandate resolved.' }, entry],
  lastActedAt: AT,
};
const gig: Gig = {
  id: GIG,
  status: 'claimed',
  dealId: DEAL,
  role: 'closer',
  brief: {
    account: deal.account,
    listValueCents: deal.listValueCents,
    stage: 'meeting',
    signals: [],
    floorCents: 0,
    activity: [entry],
  },
  pricing: { kind: 'commission', pct: 0.1 },
  closerId: CLOSER,
  postedAt: AT,
  openedAt: AT,
};
const closer: Closer = {
  id: CLOSER,
  name: 'Casey Fictional',
  industries: [],
  record: { gigs: 0, wins: 0, grossClosedCents: 0n },
  enrolledAt: AT,
};

const ONE_OF_EACH: { [T in PipelineEvent['type']]: Extract<PipelineEvent, { type: T }> } = {
  DealCreated: { type: 'DealCreated', deal },
  DealMoved: { type: 'DealMoved', dealId: DEAL, to: 'proposal' },
  ActivityRecorded: { type: 'ActivityRecorded', dealId: DEAL, entry, acted: true },
  SignalsAdded: { type: 'SignalsAdded', dealId: DEAL, signals: ['gone_dark'] },
  SignalsCleared: { type: 'SignalsCleared', dealId: DEAL, signals: ['gone_dark'] },
  HumanTrackSet: { type: 'HumanTrackSet', dealId: DEAL, humanTrack: true },
  DealEdited: { type: 'DealEdited', dealId: DEAL, changes: [{ field: 'listValue', from: 100, to: 200 }] },
  DealVersioned: { type: 'DealVersioned', dealId: DEAL, version: 2 },
  GigPosted: { type: 'GigPosted', gig },
  GigClaimed: { type: 'GigClaimed', gigId: GIG, closerId: CLOSER, at: AT, dueAt: AT },
  GigMoved: { type: 'GigMoved', gigId: GIG, at: AT, dueAt: AT },
  GigReleased: { type: 'GigReleased', gigId: GIG, at: AT },
  GigReopened: { type: 'GigReopened', gigId: GIG, at: AT, dueAt: AT },
  GigExpired: { type: 'GigExpired', gigId: GIG, at: AT },
  GigFulfilled: { type: 'GigFulfilled', gigId: GIG, outcome: 'closed_won', at: AT },
  PayoutPosted: {
    type: 'PayoutPosted',
    line: { at: AT, closerId: CLOSER, gigId: GIG, dealId: DEAL, role: 'closer', kind: 'commission', amountCents: 1 },
  },
  CloserEnrolled: { type: 'CloserEnrolled', closer },
};

/** Every string held at a key named like an id field, and every other string, apart. */
function strings(value: unknown, key = '', out = { ids: [] as string[], words: [] as string[] }) {
  if (typeof value === 'string') (/^(id|\w+Id)$/.test(key) ? out.ids : out.words).push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, key, out);
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) strings(v, k, out);
  return out;
}

describe('D-273 numbering a unit’s events', () => {
  for (const event of Object.values(ONE_OF_EACH)) {
    it(`${event.type}: every id field gets its real id, every text is kept`, () => {
      const [numbered] = numberedEvents([event], RENAMES);
      const before = strings(event);
      const after = strings(numbered);
      assert.ok(before.ids.length > 0);
      assert.deepEqual(
        after.ids,
        before.ids.map((id) => RENAMES.get(id) ?? id),
      );
      assert.deepEqual(after.words, before.words, 'words, names and notes unchanged');
    });
  }

  it('keeps what names no provisional id as it is, not copied, and leaves the decided events unchanged', () => {
    const events = Object.values(ONE_OF_EACH) as PipelineEvent[];
    const copy = structuredClone(events);
    assert.deepEqual(
      numberedEvents(events, new Map([['deal_9999999999999999999', 'deal_0001']])).map((e, i) => e === events[i]),
      events.map(() => true),
    );
    numberedEvents(events, RENAMES);
    assert.deepEqual(events, copy);
  });

  it('a sell’s state numbered is the state its numbered events make: a new deal worked to meeting, its gig posted', () => {
    const before = initialState();
    let state = before;
    const events: PipelineEvent[] = [];
    /** Decides a step of the sell, each with fresh provisional ids, as the service does. */
    const step = (command: PipelineCommand) => {
      const nextIds = provisionalIds();
      const decision = decide(state, command, context({ nextIds }));
      assert.ok(decision.ok);
      events.push(...decision.events);
      state = evolveAll(state, decision.events);
      return { decision, nextIds };
    };
    const account = { name: 'Fictional Numbers Co', actor: 'B2B' as const };
    const created = step({
      type: 'CreateDeal',
      account,
      listValueUsd: 50_000,
      mandate: { staffing: { closer: 'human' } },
    });
    const dealId = created.nextIds.deal;
    let advanced = step({ type: 'AdvanceDeal', dealId, proposal: {} });
    while (!advanced.decision.escalation) advanced = step({ type: 'AdvanceDeal', dealId, proposal: {} });
    const renames = new Map([
      [dealId, 'deal_0001'],
      [advanced.nextIds.gig, 'gig_0001'],
    ]);
    assert.deepEqual(numberedState(state, renames), evolveAll(before, numberedEvents(events, renames)));
    assert.deepEqual(
      [...numberedState(state, renames).gigs.values()].map((g) => [g.id, g.dealId]),
      [['gig_0001', 'deal_0001']],
    );
  });

  it('renames the gig an escalation names', () => {
    assert.deepEqual(numberedEscalation({ role: 'closer', gigId: GIG }, RENAMES), {
      role: 'closer',
      gigId: 'gig_0003',
    });
    const other = { role: 'closer' as const, gigId: 'gig_0001' };
    assert.equal(numberedEscalation(other, RENAMES), other);
  });
});
