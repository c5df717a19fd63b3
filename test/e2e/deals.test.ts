// End to end over real HTTP: the deal service under its prefix. Create (D-4, D-20, D-21, D-22,
// D-34), get, every agent row of the spec's "Deal stages" table (each test named after its row),
// the Proposal body of advance (D-9), staffing and escalation (D-10, D-11), signals (D-13),
// settlement of an agent close (D-23), re-engagement (D-18), sell, and the prefix itself (D-1).
// Gig-driven rows, de-escalation and timers live in the other e2e files.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import {
  ADA,
  advanceDeal,
  assertError,
  createDeal,
  type DealView,
  dealBody,
  type EscalationView,
  escalateDeal,
  fixedClock,
  type GigView,
  getDeal,
  listGigs,
  MILO,
  reportSignals,
  type SettlementView,
  T0,
} from '../support/marketplace-e2e.ts';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const DEFAULT_MANDATE = {
  staffing: { setter: 'agent', closer: 'agent', nurturer: 'human' },
  commissionPct: 0.1,
  maxCommissionPct: 0.12,
  floorPct: 0.8,
  fees: { setterUsd: 250, nurturerUsd: 150 },
  stallTimeoutDays: 14,
};

const HUMAN_SETTER = { staffing: { setter: 'human' } };

/** The stages an agent walks through, in order (D-7). */
const WALK = ['sourced', 'qualified', 'meeting', 'proposal', 'negotiation', 'closed_won'] as const;

/** Advances an agent-worked deal n times. */
async function advanceTimes(t: TestServer, id: string, n: number): Promise<DealView> {
  let deal = await getDeal(t, id);
  for (let i = 0; i < n; i++) deal = await advanceDeal(t, id);
  return deal;
}

/** Asserts a 422 mandate refusal and returns its violations. */
function mandateViolations(answer: { status: number; body: unknown }): string[] {
  const error = assertError(answer, 422, 'MANDATE_OUT_OF_BOUNDS');
  assert.ok(Array.isArray(error.violations), 'violations is an array');
  for (const v of error.violations ?? []) assert.equal(typeof v, 'string');
  return error.violations ?? [];
}

/** Exactly one violation names this field (by its dotted path). */
function namesField(violations: string[], path: string): string {
  const found = violations.filter((v) => v.startsWith(`${path}:`));
  assert.equal(found.length, 1, `one violation for ${path} in ${JSON.stringify(violations)}`);
  return found[0];
}

describe('deals: create (D-4, D-20, D-21, D-22, D-34)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock: fixedClock });
  });
  after(async () => {
    await t.close();
  });

  it('deal stages: (none) --create deal--> sourced: 201 with the full shape and one service entry', async () => {
    const answer = await t.post<DealView>(`${t.prefix}/deals`, {
      account: { name: 'Fictional Widgets Ltd', industry: 'saas', actor: 'B2B' },
      listValueUsd: 15_000,
    });
    assert.equal(answer.status, 201);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    const deal = answer.body;
    assert.deepEqual(Object.keys(deal).sort(), [
      'account',
      'activity',
      'id',
      'listValueUsd',
      'mandate',
      'signals',
      'stage',
      'version',
    ]);
    assert.deepEqual(deal, {
      id: 'deal_0001',
      version: 1,
      account: { name: 'Fictional Widgets Ltd', industry: 'saas', actor: 'B2B' },
      listValueUsd: 15_000,
      stage: 'sourced',
      signals: [],
      mandate: DEFAULT_MANDATE,
      activity: [{ at: new Date(T0).toISOString(), by: 'service', stage: 'sourced', note: deal.activity[0].note }],
    });
    assert.match(deal.activity[0].at, ISO_MS);
    assert.ok(deal.activity[0].note.length > 0, 'the creation entry has a note');
    for (const key of ['humanTrack', 'finalValueUsd', 'closedBy', 'lineage']) {
      assert.equal(key in deal, false, `${key} is absent on a fresh deal (D-34)`);
    }
  });

  it('ids count up per created deal', async () => {
    const second = await createDeal(t);
    const third = await createDeal(t);
    assert.equal(second.id, 'deal_0002');
    assert.equal(third.id, 'deal_0003');
  });

  it('omits industry when not given, and echoes the account as sent', async () => {
    const deal = await createDeal(t, { account: { name: 'No Industry Co', industry: undefined, actor: 'B2D' } });
    assert.deepEqual(deal.account, { name: 'No Industry Co', actor: 'B2D' });
  });

  it('every actor is accepted; B2C gets stallTimeoutDays 7, the others 14', async () => {
    for (const actor of ['B2B', 'B2C', 'B2D', 'B2A']) {
      const deal = await createDeal(t, { account: { actor } });
      assert.equal(deal.account.actor, actor);
      assert.equal(deal.mandate.stallTimeoutDays, actor === 'B2C' ? 7 : 14, actor);
      assert.deepEqual({ ...deal.mandate, stallTimeoutDays: 14 }, DEFAULT_MANDATE);
    }
  });

  it('rounds amounts with more than 2 decimals half-up to the cent (D-22)', async () => {
    const cases: [number, number][] = [
      [1000.005, 1000.01],
      [1000.004, 1000],
      [0.005, 0.01],
      [12_345.675, 12_345.68],
      [99.999, 100],
    ];
    for (const [sent, expected] of cases) {
      const deal = await createDeal(t, { listValueUsd: sent });
      assert.equal(deal.listValueUsd, expected, `${sent} → ${expected}`);
      assert.equal((await getDeal(t, deal.id)).listValueUsd, expected, 'stored rounded');
    }
    const fees = await createDeal(t, { mandate: { fees: { setterUsd: 300.555, nurturerUsd: 0.004 } } });
    assert.deepEqual(fees.mandate.fees, { setterUsd: 300.56, nurturerUsd: 0 });
  });

  it('accepts the bounds exactly: listValueUsd 0.01 and 1e12', async () => {
    assert.equal((await createDeal(t, { listValueUsd: 0.01 })).listValueUsd, 0.01);
    assert.equal((await createDeal(t, { listValueUsd: 1e12 })).listValueUsd, 1e12);
  });

  it('echoes a mandate subset with the rest defaulted (D-20)', async () => {
    const deal = await createDeal(t, {
      mandate: { floorPct: 0.75, fees: { setterUsd: 400 }, staffing: { closer: 'human' } },
    });
    assert.deepEqual(deal.mandate, {
      ...DEFAULT_MANDATE,
      floorPct: 0.75,
      fees: { setterUsd: 400, nurturerUsd: 150 },
      staffing: { setter: 'agent', closer: 'human', nurturer: 'human' },
    });
  });

  it('echoes a full mandate, including humanIf rules, exactly', async () => {
    const mandate = {
      staffing: {
        setter: { humanIf: { minDealSizeUsd: 50_000 } },
        closer: { humanIf: { minDealSizeUsd: 20_000, signals: ['procurement_involved'] } },
        nurturer: 'agent',
      },
      commissionPct: 0.05,
      maxCommissionPct: 0.08,
      floorPct: 0.9,
      fees: { setterUsd: 0, nurturerUsd: 10_000 },
      stallTimeoutDays: 90,
    };
    const deal = await createDeal(t, { account: { actor: 'B2C' }, mandate });
    assert.deepEqual(deal.mandate, mandate);
    assert.deepEqual((await getDeal(t, deal.id)).mandate, mandate);
  });

  it('a lowered maxCommissionPct caps the default commissionPct; the bounds 0 and 1 are accepted', async () => {
    const lowered = await createDeal(t, { mandate: { maxCommissionPct: 0.05 } });
    assert.equal(lowered.mandate.maxCommissionPct, 0.05);
    assert.equal(lowered.mandate.commissionPct, 0.05);
    const edges = await createDeal(t, {
      mandate: { commissionPct: 0, maxCommissionPct: 0, floorPct: 1, stallTimeoutDays: 3 },
    });
    assert.equal(edges.mandate.commissionPct, 0);
    assert.equal(edges.mandate.floorPct, 1);
    assert.equal(edges.mandate.stallTimeoutDays, 3);
  });
});

describe('deals: mandate out of platform bounds (D-20)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('422 {error, code MANDATE_OUT_OF_BOUNDS, violations} listing every breach at once', async () => {
    const answer = await t.post(`${t.prefix}/deals`, {
      account: account(),
      listValueUsd: 15_000,
      mandate: {
        commissionPct: 0.125,
        maxCommissionPct: 0.13,
        floorPct: 1.5,
        fees: { setterUsd: 10_000.01, nurturerUsd: 20_000 },
        stallTimeoutDays: 2,
        bonusPct: 0.01,
        staffing: {
          closer: 'robot',
          auditor: 'human',
          setter: { humanIf: { minDealSizeUsd: -1, signals: ['Not A Signal'], region: 'emea' } },
        },
      },
    });
    const violations = mandateViolations(answer);
    assert.match(namesField(violations, 'mandate.commissionPct'), /0\.125/);
    assert.match(namesField(violations, 'mandate.maxCommissionPct'), /0\.13/);
    assert.match(namesField(violations, 'mandate.floorPct'), /1\.5/);
    assert.match(namesField(violations, 'mandate.fees.setterUsd'), /10000\.01/);
    assert.match(namesField(violations, 'mandate.fees.nurturerUsd'), /20000/);
    assert.match(namesField(violations, 'mandate.stallTimeoutDays'), /\b2\b/);
    assert.match(namesField(violations, 'mandate.bonusPct'), /unknown/);
    assert.match(namesField(violations, 'mandate.staffing.closer'), /agent.*human.*humanIf/);
    assert.match(namesField(violations, 'mandate.staffing.auditor'), /unknown role/);
    namesField(violations, 'mandate.staffing.setter.humanIf.minDealSizeUsd');
    namesField(violations, 'mandate.staffing.setter.humanIf.signals');
    assert.match(namesField(violations, 'mandate.staffing.setter.humanIf.region'), /unknown/);
    assert.equal(violations.length, 12, JSON.stringify(violations));
    const body = answer.body as { error: string };
    assert.match(body.error, /mandate/i);
  });

  it('422 for each single breach, naming the field', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      [
        'commissionPct above maxCommissionPct',
        { maxCommissionPct: 0.05, commissionPct: 0.06 },
        'mandate.commissionPct',
      ],
      ['commissionPct above the platform 0.12', { commissionPct: 0.121 }, 'mandate.commissionPct'],
      ['commissionPct below 0', { commissionPct: -0.01 }, 'mandate.commissionPct'],
      ['maxCommissionPct above 0.12', { maxCommissionPct: 0.2 }, 'mandate.maxCommissionPct'],
      ['floorPct above 1', { floorPct: 1.01 }, 'mandate.floorPct'],
      ['floorPct below 0', { floorPct: -0.1 }, 'mandate.floorPct'],
      ['floorPct not a number', { floorPct: '0.8' }, 'mandate.floorPct'],
      ['setter fee above 10000', { fees: { setterUsd: 10_001 } }, 'mandate.fees.setterUsd'],
      ['nurturer fee above 10000', { fees: { nurturerUsd: 1e6 } }, 'mandate.fees.nurturerUsd'],
      ['fee below 0', { fees: { setterUsd: -1 } }, 'mandate.fees.setterUsd'],
      ['unknown fee', { fees: { closerUsd: 5 } }, 'mandate.fees.closerUsd'],
      ['fees not an object', { fees: 250 }, 'mandate.fees'],
      ['stallTimeoutDays 2', { stallTimeoutDays: 2 }, 'mandate.stallTimeoutDays'],
      ['stallTimeoutDays 91', { stallTimeoutDays: 91 }, 'mandate.stallTimeoutDays'],
      ['stallTimeoutDays 7.5', { stallTimeoutDays: 7.5 }, 'mandate.stallTimeoutDays'],
      ['stallTimeoutDays a string', { stallTimeoutDays: '14' }, 'mandate.stallTimeoutDays'],
      ['unknown mandate field', { closeByDate: '2030-01-01' }, 'mandate.closeByDate'],
      ['unknown staffing role', { staffing: { auditor: 'agent' } }, 'mandate.staffing.auditor'],
      ['staffing value not agent/human', { staffing: { setter: 'bot' } }, 'mandate.staffing.setter'],
      ['staffing value a number', { staffing: { closer: 1 } }, 'mandate.staffing.closer'],
      ['staffing not an object', { staffing: 'agent' }, 'mandate.staffing'],
      ['humanIf not an object', { staffing: { closer: { humanIf: 'big deals' } } }, 'mandate.staffing.closer'],
      ['humanIf beside another key', { staffing: { closer: { humanIf: {}, also: 1 } } }, 'mandate.staffing.closer'],
      [
        'humanIf minDealSizeUsd a string',
        { staffing: { closer: { humanIf: { minDealSizeUsd: '5000' } } } },
        'mandate.staffing.closer.humanIf.minDealSizeUsd',
      ],
      [
        'humanIf signals not matching the pattern',
        { staffing: { closer: { humanIf: { signals: ['Gone-Dark'] } } } },
        'mandate.staffing.closer.humanIf.signals',
      ],
      [
        'humanIf signals not an array',
        { staffing: { closer: { humanIf: { signals: 'gone_dark' } } } },
        'mandate.staffing.closer.humanIf.signals',
      ],
      [
        'humanIf unknown condition',
        { staffing: { nurturer: { humanIf: { region: 'emea' } } } },
        'mandate.staffing.nurturer.humanIf.region',
      ],
    ];
    for (const [why, mandate, path] of cases) {
      const answer = await t.post(`${t.prefix}/deals`, dealBody({ mandate }));
      const violations = mandateViolations(answer);
      assert.deepEqual(
        violations.map((v) => v.split(':')[0]),
        [path],
        `${why}: ${JSON.stringify(violations)}`,
      );
    }
  });

  it('a mandate that is not an object is a 422 violation, not a 400', async () => {
    for (const mandate of ['agent', 42, [], null]) {
      const answer = await t.post(`${t.prefix}/deals`, { account: account(), listValueUsd: 100, mandate });
      const violations = mandateViolations(answer);
      assert.deepEqual(
        violations.map((v) => v.split(':')[0]),
        ['mandate'],
        JSON.stringify(mandate),
      );
    }
  });

  it('no id was consumed by any refusal: the next create is deal_0001', async () => {
    const health = await t.get<{ deals: number }>('/health');
    assert.equal(health.body.deals, 0);
    const deal = await createDeal(t);
    assert.equal(deal.id, 'deal_0001');
  });
});

describe('deals: get', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('200 with the full activity log, oldest first, equal to what the writes answered', async () => {
    const created = await createDeal(t);
    await advanceDeal(t, created.id);
    const last = await advanceDeal(t, created.id, { note: 'meeting booked for Tuesday' });
    const answer = await t.get<DealView>(`${t.prefix}/deals/${created.id}`);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, last);
    assert.deepEqual(
      answer.body.activity.map((a) => [a.by, a.stage]),
      [
        ['service', 'sourced'],
        ['agent', 'qualified'],
        ['agent', 'meeting'],
      ],
    );
    for (const entry of answer.body.activity) {
      assert.deepEqual(Object.keys(entry).sort(), ['at', 'by', 'note', 'stage']);
      assert.match(entry.at, ISO_MS);
    }
    const times = answer.body.activity.map((a) => Date.parse(a.at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
      'oldest first',
    );
  });

  it('404 JSON {error, code DEAL_NOT_FOUND} for an unknown id', async () => {
    for (const id of ['deal_9999', 'deal_0000', 'gig_0001', 'nothing']) {
      const error = assertError(await t.get(`${t.prefix}/deals/${id}`), 404, 'DEAL_NOT_FOUND');
      assert.match(error.error, new RegExp(id));
    }
  });
});

describe('deal stages table: the agent rows', () => {
  let t: TestServer;
  let id: string;
  before(async () => {
    t = await startTestServer();
    id = (await createDeal(t, { listValueUsd: 15_000 })).id;
  });
  after(async () => {
    await t.close();
  });

  for (let i = 0; i < 4; i++) {
    const from = WALK[i];
    const to = WALK[i + 1];
    it(`deal stages: ${from} --advance by the agent--> ${to}`, async () => {
      const before = await getDeal(t, id);
      assert.equal(before.stage, from);
      const answer = await t.post<DealView>(`${t.prefix}/deals/${id}/advance`);
      assert.equal(answer.status, 200);
      const deal = answer.body;
      assert.equal(deal.id, id);
      assert.equal(deal.stage, to);
      assert.equal(deal.activity.length, before.activity.length + 1);
      const entry = deal.activity.at(-1);
      assert.equal(entry?.by, 'agent');
      assert.equal(entry?.stage, to);
      assert.match(entry?.note ?? '', new RegExp(`${from}.*${to}`));
      assert.match(entry?.at ?? '', ISO_MS);
      assert.deepEqual(deal.activity.slice(0, -1), before.activity, 'earlier entries untouched');
      for (const key of ['humanTrack', 'finalValueUsd', 'closedBy', 'lineage']) assert.equal(key in deal, false, key);
      assert.deepEqual(await getDeal(t, id), deal, 'the answer is what is stored');
    });
  }

  it('deal stages: negotiation --advance by the agent--> closed_won (default value = listValueUsd)', async () => {
    const answer = await t.post<DealView>(`${t.prefix}/deals/${id}/advance`);
    assert.equal(answer.status, 200);
    const deal = answer.body;
    assert.equal(deal.stage, 'closed_won');
    assert.equal(deal.finalValueUsd, 15_000);
    assert.equal(deal.closedBy, 'agent');
    assert.equal('humanTrack' in deal, false);
    assert.equal(deal.activity.length, 6);
    assert.deepEqual(
      deal.activity.map((a) => a.by),
      ['service', 'agent', 'agent', 'agent', 'agent', 'agent'],
    );
    assert.deepEqual(
      deal.activity.map((a) => a.stage),
      [...WALK],
    );
    assert.equal(deal.activity[5].note, 'Closed won at $15,000.00 by the agent', 'money as every message writes it');
  });

  it('terminal is forever: advance and signals on the closed_won deal answer 409, changing nothing', async () => {
    const before = await getDeal(t, id);
    assertError(await t.post(`${t.prefix}/deals/${id}/advance`), 409, 'DEAL_TERMINAL');
    assertError(await t.post(`${t.prefix}/deals/${id}/advance`, { advanceTo: 'closed_lost' }), 409, 'DEAL_TERMINAL');
    assertError(await t.post(`${t.prefix}/deals/${id}/signals`, { signals: ['gone_dark'] }), 409, 'DEAL_TERMINAL');
    assert.deepEqual(await getDeal(t, id), before);
  });
});

describe('advance: the Proposal body (D-9)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('a note lands in the activity note of the move', async () => {
    const deal = await createDeal(t);
    const moved = await advanceDeal(t, deal.id, { note: 'budget confirmed by the VP' });
    assert.equal(moved.stage, 'qualified');
    const entry = moved.activity.at(-1);
    assert.equal(entry?.by, 'agent');
    assert.match(entry?.note ?? '', /budget confirmed by the VP/);
  });

  it('advanceTo the next stage is accepted like a bare advance', async () => {
    const deal = await createDeal(t);
    const moved = await advanceDeal(t, deal.id, { advanceTo: 'qualified' });
    assert.equal(moved.stage, 'qualified');
  });

  it('skipping a stage is a 422 gate refusal {error, gate: {error}} and nothing changes', async () => {
    const deal = await createDeal(t);
    const cases: unknown[] = [
      { advanceTo: 'negotiation' },
      { advanceTo: 'meeting' },
      { advanceTo: 'closed_won', valueUsd: 15_000 },
      { advanceTo: 'sourced' },
    ];
    // A value that is no stage at all is malformed, not a proposal: 400, and nothing changes.
    const notAStage = assertError(await t.post(`${t.prefix}/deals/${deal.id}/advance`, { advanceTo: 'won' }), 400);
    assert.match(notAStage.violations?.join(' ') ?? '', /advanceTo: must be one of sourced, qualified/);
    for (const body of cases) {
      const answer = await t.post(`${t.prefix}/deals/${deal.id}/advance`, body);
      const error = assertError(answer, 422);
      assert.equal(typeof error.gate?.error, 'string', JSON.stringify(answer.body));
      assert.ok((error.gate?.error ?? '').length > 0);
      assert.match(error.gate?.error ?? '', /sourced/);
    }
    assert.deepEqual(await getDeal(t, deal.id), deal, 'deal unmoved, no activity entry');
  });

  it('a move backwards from a later stage is refused too', async () => {
    const deal = await advanceTimes(t, (await createDeal(t)).id, 3);
    assert.equal(deal.stage, 'proposal');
    const error = assertError(await t.post(`${t.prefix}/deals/${deal.id}/advance`, { advanceTo: 'meeting' }), 422);
    assert.ok(error.gate);
    assert.deepEqual(await getDeal(t, deal.id), deal);
  });

  for (let steps = 0; steps < 5; steps++) {
    const stage = WALK[steps];
    it(`closed_lost is legal from ${stage}`, async () => {
      const deal = await advanceTimes(t, (await createDeal(t)).id, steps);
      assert.equal(deal.stage, stage);
      const lost = await advanceDeal(t, deal.id, { advanceTo: 'closed_lost', note: 'went with a competitor' });
      assert.equal(lost.stage, 'closed_lost');
      assert.equal(lost.closedBy, 'agent');
      assert.equal('finalValueUsd' in lost, false);
      assert.equal(lost.activity.at(-1)?.stage, 'closed_lost');
      assert.match(lost.activity.at(-1)?.note ?? '', /went with a competitor/);
      assertError(await t.post(`${t.prefix}/deals/${deal.id}/advance`), 409, 'DEAL_TERMINAL');
      assertError(
        await t.post(`${t.prefix}/deals/${deal.id}/signals`, { signals: ['procurement_involved'] }),
        409,
        'DEAL_TERMINAL',
      );
      assert.deepEqual(await getDeal(t, deal.id), lost);
    });
  }

  it('closed_won from negotiation at a proposed value at or above the floor; value rounded half-up', async () => {
    const atFloor = await advanceTimes(t, (await createDeal(t, { listValueUsd: 15_000 })).id, 4);
    const won = await advanceDeal(t, atFloor.id, { advanceTo: 'closed_won', valueUsd: 12_000 });
    assert.equal(won.stage, 'closed_won');
    assert.equal(won.finalValueUsd, 12_000);
    assert.equal(won.closedBy, 'agent');

    const rounded = await advanceTimes(t, (await createDeal(t, { listValueUsd: 15_000 })).id, 4);
    const byValue = await advanceDeal(t, rounded.id, { valueUsd: 13_000.005 });
    assert.equal(byValue.finalValueUsd, 13_000.01, 'valueUsd without advanceTo is the close value in negotiation');

    const above = await advanceTimes(t, (await createDeal(t, { listValueUsd: 15_000 })).id, 4);
    assert.equal((await advanceDeal(t, above.id, { valueUsd: 20_000 })).finalValueUsd, 20_000);
  });

  it('a close below the floor is 422; gate.error names the value, the floor and the percentage', async () => {
    const deal = await advanceTimes(t, (await createDeal(t, { listValueUsd: 15_000 })).id, 4);
    const answer = await t.post(`${t.prefix}/deals/${deal.id}/advance`, {
      advanceTo: 'closed_won',
      valueUsd: 11_999.99,
    });
    const error = assertError(answer, 422, 'GATE_BELOW_FLOOR');
    assert.equal(error.gate?.code, 'GATE_BELOW_FLOOR');
    const message = error.gate?.error ?? '';
    assert.match(message, /11,999\.99/);
    assert.match(message, /12,000\.00/);
    assert.match(message, /80%/);
    assert.deepEqual(await getDeal(t, deal.id), deal, 'deal unmoved');

    const custom = await advanceTimes(
      t,
      (await createDeal(t, { listValueUsd: 10_000, mandate: { floorPct: 0.75 } })).id,
      4,
    );
    const low = assertError(await t.post(`${t.prefix}/deals/${custom.id}/advance`, { valueUsd: 7000 }), 422);
    assert.match(low.gate?.error ?? '', /7,000\.00/);
    assert.match(low.gate?.error ?? '', /7,500\.00/);
    assert.match(low.gate?.error ?? '', /75%/);
  });

  it('an empty POST and a content-type json POST with an empty or blank body all advance', async () => {
    const deal = await createDeal(t);
    const bare = await t.raw<DealView>('POST', `${t.prefix}/deals/${deal.id}/advance`, undefined);
    assert.equal(bare.status, 200, JSON.stringify(bare.body));
    assert.equal(bare.body.stage, 'qualified');
    const empty = await t.raw<DealView>('POST', `${t.prefix}/deals/${deal.id}/advance`, '', {
      'content-type': 'application/json',
    });
    assert.equal(empty.status, 200, JSON.stringify(empty.body));
    assert.equal(empty.body.stage, 'meeting');
    const blank = await t.raw<DealView>('POST', `${t.prefix}/deals/${deal.id}/advance`, ' \n\t ', {
      'content-type': 'application/json',
    });
    assert.equal(blank.status, 200, JSON.stringify(blank.body));
    assert.equal(blank.body.stage, 'proposal');
    const object = await t.post<DealView>(`${t.prefix}/deals/${deal.id}/advance`, {});
    assert.equal(object.status, 200);
    assert.equal(object.body.stage, 'negotiation');
  });

  it('404 DEAL_NOT_FOUND for an unknown deal', async () => {
    assertError(await t.post(`${t.prefix}/deals/deal_9999/advance`), 404, 'DEAL_NOT_FOUND');
  });
});

describe('staffing and escalation (D-10, D-11)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('deal stages: any stage --advance when the staffing calls for a human--> unchanged (setter human at sourced)', async () => {
    const deal = await createDeal(t, { listValueUsd: 15_000, mandate: HUMAN_SETTER });
    const answer = await t.post<EscalationView>(`${t.prefix}/deals/${deal.id}/advance`);
    assert.equal(answer.status, 200);
    const escalation = answer.body;
    assert.deepEqual(Object.keys(escalation).sort(), ['deal', 'escalated', 'gig', 'role', 'suggestedClosers']);
    assert.equal(escalation.escalated, true);
    assert.equal(escalation.role, 'setter');
    assert.equal(escalation.gig.id, 'gig_0001');
    assert.equal(escalation.gig.status, 'open');
    assert.equal(escalation.gig.role, 'setter');
    assert.equal(escalation.gig.dealId, deal.id);
    assert.deepEqual(escalation.gig.pricing, { kind: 'fee', amountUsd: 250 });
    assert.equal(escalation.gig.brief.stage, 'sourced');
    assert.equal(escalation.gig.brief.floorUsd, 12_000);
    assert.equal(escalation.deal.stage, 'sourced', 'the deal does not move');
    assert.equal(escalation.deal.humanTrack, true);
    const entry = escalation.deal.activity.at(-1);
    assert.equal(entry?.by, 'service');
    // D-272: the gig in a field of its own; the words name no id.
    assert.equal(entry?.gigId, 'gig_0001');
    assert.doesNotMatch(entry?.note ?? '', /gig_\d/);
    assert.deepEqual(
      escalation.suggestedClosers.map((m) => m.closer.id),
      [ADA, MILO],
      'the ranked pool: saas fits Ada',
    );
    assert.deepEqual(await getDeal(t, deal.id), escalation.deal);
  });

  it('a second advance on a human-track deal answers 200 with the same gig; no new gig, no entry', async () => {
    const deal = await createDeal(t, { mandate: HUMAN_SETTER });
    const first = await escalateDeal(t, deal.id);
    const gigsBefore = await listGigs(t);
    const dealBefore = await getDeal(t, deal.id);
    for (const body of [undefined, {}, { advanceTo: 'qualified' }]) {
      const again = await t.post<EscalationView>(`${t.prefix}/deals/${deal.id}/advance`, body);
      assert.equal(again.status, 200);
      assert.equal(again.body.escalated, true);
      assert.equal(again.body.role, 'setter');
      assert.deepEqual(again.body.gig, first.gig);
    }
    assert.deepEqual(await listGigs(t), gigsBefore);
    assert.deepEqual(await getDeal(t, deal.id), dealBefore);
  });

  it('a setter fee set in the mandate prices the setter gig', async () => {
    const deal = await createDeal(t, { mandate: { ...HUMAN_SETTER, fees: { setterUsd: 99.995 } } });
    const escalation = await escalateDeal(t, deal.id);
    assert.deepEqual(escalation.gig.pricing, { kind: 'fee', amountUsd: 100 });
  });

  it('humanIf signals escalates once the deal carries a listed signal, not before', async () => {
    const deal = await createDeal(t, {
      mandate: { staffing: { setter: { humanIf: { signals: ['procurement_involved', 'legal_review'] } } } },
    });
    const qualified = await advanceDeal(t, deal.id);
    assert.equal(qualified.stage, 'qualified', 'no listed signal: the agent works it');
    await reportSignals(t, deal.id, ['champion_left']);
    assert.equal((await advanceDeal(t, deal.id, { advanceTo: 'closed_lost' })).stage, 'closed_lost');

    const watched = await createDeal(t, {
      mandate: { staffing: { setter: { humanIf: { signals: ['procurement_involved', 'legal_review'] } } } },
    });
    await reportSignals(t, watched.id, ['legal_review']);
    const escalation = await escalateDeal(t, watched.id);
    assert.equal(escalation.role, 'setter');
    assert.equal(escalation.deal.stage, 'sourced');
    assert.equal(escalation.deal.humanTrack, true);
  });

  it('humanIf minDealSizeUsd escalates at or above the size, the agent works smaller deals', async () => {
    const mandate = { staffing: { setter: { humanIf: { minDealSizeUsd: 50_000 } } } };
    const small = await createDeal(t, { listValueUsd: 49_999.99, mandate });
    assert.equal((await advanceDeal(t, small.id)).stage, 'qualified');
    const exact = await createDeal(t, { listValueUsd: 50_000, mandate });
    assert.equal((await escalateDeal(t, exact.id)).role, 'setter');
  });

  it('a human closer escalates at meeting with a commission-priced closer gig', async () => {
    const deal = await createDeal(t, { mandate: { staffing: { closer: 'human' }, commissionPct: 0.07 } });
    await advanceDeal(t, deal.id);
    const meeting = await advanceDeal(t, deal.id);
    assert.equal(meeting.stage, 'meeting');
    const escalation = await escalateDeal(t, deal.id);
    assert.equal(escalation.role, 'closer');
    assert.deepEqual(escalation.gig.pricing, { kind: 'commission', pct: 0.07 });
    assert.equal(escalation.deal.stage, 'meeting');
  });
});

describe('signals (D-13)', () => {
  let t: TestServer;
  let id: string;
  before(async () => {
    t = await startTestServer();
    id = (await createDeal(t)).id;
  });
  after(async () => {
    await t.close();
  });

  it('adds signals with one activity entry by service', async () => {
    const answer = await t.post<DealView>(`${t.prefix}/deals/${id}/signals`, {
      signals: ['procurement_involved', 'budget_approved'],
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.signals, ['procurement_involved', 'budget_approved']);
    assert.equal(answer.body.stage, 'sourced');
    assert.equal(answer.body.activity.length, 2);
    const entry = answer.body.activity[1];
    assert.equal(entry.by, 'service');
    assert.equal(entry.stage, 'sourced');
    assert.match(entry.note, /procurement_involved/);
    assert.match(entry.note, /budget_approved/);
    assert.equal('humanTrack' in answer.body, false, 'signals other than gone_dark do not escalate');
    assert.deepEqual(await getDeal(t, id), answer.body);
  });

  it('a deal carries at most 256 distinct signals: past it, 422 SIGNAL_LIMIT and nothing changes (D-44)', async () => {
    const deal = await createDeal(t);
    for (let call = 0; call < 8; call++) {
      const signals = Array.from({ length: 32 }, (_, i) => `cap_${call * 32 + i}`);
      assert.equal((await t.post(`${t.prefix}/deals/${deal.id}/signals`, { signals })).status, 200);
    }
    const full = await getDeal(t, deal.id);
    assert.equal(full.signals.length, 256);
    const refused = await t.post(`${t.prefix}/deals/${deal.id}/signals`, { signals: ['one_more', 'cap_0'] });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'SIGNAL_LIMIT');
    assert.match(refused.body.error, /256/);
    assert.deepEqual(await getDeal(t, deal.id), full, 'no signal, no activity entry');
    // Signals it already carries add nothing, and are not refused.
    assert.equal((await t.post(`${t.prefix}/deals/${deal.id}/signals`, { signals: ['cap_7'] })).status, 200);
  });

  it('dedupes within the call and against the set already carried', async () => {
    const deal = await reportSignals(t, id, ['budget_approved', 'competitor_x', 'competitor_x']);
    assert.deepEqual(deal.signals, ['procurement_involved', 'budget_approved', 'competitor_x']);
    assert.equal(deal.activity.length, 3);
    assert.match(deal.activity[2].note, /competitor_x/);
    assert.doesNotMatch(deal.activity[2].note, /budget_approved/, 'only the new signal is reported');
  });

  it('reporting only known signals changes nothing', async () => {
    const before = await getDeal(t, id);
    const deal = await reportSignals(t, id, ['competitor_x']);
    assert.deepEqual(deal, before);
  });

  it('accepts 32 signals in one call and names of 64 chars', async () => {
    const fresh = await createDeal(t);
    const many = Array.from({ length: 31 }, (_, i) => `s_${i}`);
    const long = `a${'b'.repeat(63)}`;
    const deal = await reportSignals(t, fresh.id, [...many, long]);
    assert.equal(deal.signals.length, 32);
    assert.ok(deal.signals.includes(long));
  });

  it('400 INVALID_BODY for bad names, more than 32, an empty array, or not an array; nothing changes', async () => {
    const before = await getDeal(t, id);
    const bad: [string, unknown][] = [
      ['upper case', { signals: ['Gone_Dark'] }],
      ['leading digit', { signals: ['1st_call'] }],
      ['leading underscore', { signals: ['_x'] }],
      ['dash', { signals: ['gone-dark'] }],
      ['space', { signals: ['gone dark'] }],
      ['empty name', { signals: [''] }],
      ['65 chars', { signals: [`a${'b'.repeat(64)}`] }],
      ['one bad among good', { signals: ['fine_one', 'Bad'] }],
      ['not a string', { signals: [7] }],
      ['33 signals', { signals: Array.from({ length: 33 }, (_, i) => `s_${i}`) }],
      ['empty array', { signals: [] }],
      ['a string', { signals: 'gone_dark' }],
      ['an object', { signals: { gone_dark: true } }],
      ['missing', {}],
      ['unknown field', { signals: ['ok_one'], source: 'crm' }],
    ];
    for (const [why, body] of bad) {
      const error = assertError(await t.post(`${t.prefix}/deals/${id}/signals`, body), 400, 'INVALID_BODY');
      assert.ok(Array.isArray(error.violations) && error.violations.length > 0, why);
      assert.ok(
        error.violations?.some((v) => v.startsWith('signals') || v.startsWith('source')),
        `${why}: ${JSON.stringify(error.violations)}`,
      );
    }
    assert.deepEqual(await getDeal(t, id), before);
  });

  it('404 for an unknown deal', async () => {
    assertError(await t.post(`${t.prefix}/deals/deal_9999/signals`, { signals: ['x'] }), 404, 'DEAL_NOT_FOUND');
  });
});

describe('settlement of an agent close (D-23)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('answers the values: commission 0, platform fee 5% half-up, net', async () => {
    // 5% of 1,234,510 cents is 61,725.5 cents: half-up gives 61,726.
    const deal = await advanceTimes(t, (await createDeal(t, { listValueUsd: 12_345.1 })).id, 5);
    assert.equal(deal.stage, 'closed_won');
    const answer = await t.get<SettlementView>(`${t.prefix}/deals/${deal.id}/settlement`);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, {
      dealId: deal.id,
      finalValueUsd: 12_345.1,
      closedBy: 'agent',
      closerCommissionUsd: 0,
      platformFeeUsd: 617.26,
      feesSettledUsd: 0,
      netToSellerUsd: 11_727.84,
      fees: [],
    });
  });

  it('settles the proposed close value, not the list value', async () => {
    const deal = await advanceTimes(t, (await createDeal(t, { listValueUsd: 10_000 })).id, 4);
    await advanceDeal(t, deal.id, { valueUsd: 8_888.88 });
    const answer = await t.get<SettlementView>(`${t.prefix}/deals/${deal.id}/settlement`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.finalValueUsd, 8_888.88);
    assert.equal(answer.body.platformFeeUsd, 444.44);
    assert.equal(answer.body.netToSellerUsd, 8_444.44);
  });

  it('409 unless the deal is closed_won, at every other stage', async () => {
    const deal = await createDeal(t);
    for (let i = 0; i < 5; i++) {
      assertError(await t.get(`${t.prefix}/deals/${deal.id}/settlement`), 409, 'DEAL_NOT_CLOSED_WON');
      await advanceDeal(t, deal.id, i === 4 ? { advanceTo: 'closed_lost' } : undefined);
    }
    assert.equal((await getDeal(t, deal.id)).stage, 'closed_lost');
    assertError(await t.get(`${t.prefix}/deals/${deal.id}/settlement`), 409, 'DEAL_NOT_CLOSED_WON');
  });

  it('404 for an unknown deal', async () => {
    assertError(await t.get(`${t.prefix}/deals/deal_9999/settlement`), 404, 'DEAL_NOT_FOUND');
  });
});

describe('re-engagement (D-18)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('deal stages: closed_lost --reengage--> (new deal) sourced, with lineage; the original unchanged', async () => {
    const mandate = { floorPct: 0.7, commissionPct: 0.08, stallTimeoutDays: 30, staffing: { closer: 'human' } };
    const original = await createDeal(t, {
      account: { name: 'Lapsed Corp', industry: 'logistics', actor: 'B2A' },
      listValueUsd: 42_000.5,
      mandate,
    });
    await advanceDeal(t, original.id);
    await reportSignals(t, original.id, ['budget_frozen']);
    const lost = await advanceDeal(t, original.id, { advanceTo: 'closed_lost' });
    assert.equal(lost.stage, 'closed_lost');

    const answer = await t.post<DealView>(`${t.prefix}/deals/${original.id}/reengage`);
    assert.equal(answer.status, 201);
    const revived = answer.body;
    assert.equal(revived.id, 'deal_0002');
    assert.equal(revived.stage, 'sourced');
    assert.deepEqual(revived.lineage, { revivedFrom: original.id });
    assert.deepEqual(revived.account, { name: 'Lapsed Corp', industry: 'logistics', actor: 'B2A' });
    assert.equal(revived.listValueUsd, 42_000.5);
    assert.deepEqual(revived.mandate, original.mandate);
    assert.deepEqual(revived.signals, []);
    assert.equal(revived.activity.length, 1);
    assert.equal(revived.activity[0].by, 'service');
    assert.equal(revived.activity[0].stage, 'sourced');
    assert.match(revived.activity[0].note, /re-engage/i);
    // D-272: the lost deal is named by the lineage, not by the words.
    assert.doesNotMatch(revived.activity[0].note, /deal_\d/);
    for (const key of ['humanTrack', 'finalValueUsd', 'closedBy']) assert.equal(key in revived, false, key);
    assert.deepEqual(await getDeal(t, revived.id), revived);
    assert.deepEqual(await getDeal(t, original.id), lost, 'the original stays unchanged');
  });

  it('a re-engaged deal is worked like any other and can itself be re-engaged after a loss', async () => {
    const original = await createDeal(t);
    await advanceDeal(t, original.id, { advanceTo: 'closed_lost' });
    const first = (await t.post<DealView>(`${t.prefix}/deals/${original.id}/reengage`)).body;
    assert.equal((await advanceDeal(t, first.id)).stage, 'qualified');
    await advanceDeal(t, first.id, { advanceTo: 'closed_lost' });
    const second = await t.post<DealView>(`${t.prefix}/deals/${first.id}/reengage`);
    assert.equal(second.status, 201);
    assert.deepEqual(second.body.lineage, { revivedFrom: first.id });
  });

  it('409 for a deal that is not closed_lost (open or closed_won); 404 for an unknown deal', async () => {
    const open = await createDeal(t);
    const health = (await t.get<{ deals: number }>('/health')).body.deals;
    assertError(await t.post(`${t.prefix}/deals/${open.id}/reengage`), 409, 'DEAL_NOT_CLOSED_LOST');
    const won = await advanceTimes(t, (await createDeal(t)).id, 5);
    assertError(await t.post(`${t.prefix}/deals/${won.id}/reengage`), 409, 'DEAL_NOT_CLOSED_LOST');
    assertError(await t.post(`${t.prefix}/deals/deal_9999/reengage`), 404, 'DEAL_NOT_FOUND');
    assert.equal((await t.get<{ deals: number }>('/health')).body.deals, health + 1, 'only the won deal was created');
    assert.deepEqual(await getDeal(t, open.id), open);
  });
});

describe('sell', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('a bad mandate is 422 and consumes no id; a bad body is 400', async () => {
    const answer = await t.post(`${t.prefix}/sell`, dealBody({ mandate: { commissionPct: 0.5 } }));
    const violations = mandateViolations(answer);
    namesField(violations, 'mandate.commissionPct');
    assertError(await t.post(`${t.prefix}/sell`, { account: account() }), 400, 'INVALID_BODY');
    assert.equal((await t.get<{ deals: number }>('/health')).body.deals, 0);
  });

  it('201 with the terminal Deal: closed_won at listValueUsd, closedBy agent, 6 activity entries', async () => {
    const answer = await t.post<DealView>(`${t.prefix}/sell`, dealBody({ listValueUsd: 15_000.125 }));
    assert.equal(answer.status, 201);
    const deal = answer.body;
    assert.equal(deal.id, 'deal_0001', 'the refused sell consumed no id');
    assert.equal(deal.stage, 'closed_won');
    assert.equal(deal.listValueUsd, 15_000.13);
    assert.equal(deal.finalValueUsd, 15_000.13);
    assert.equal(deal.closedBy, 'agent');
    assert.deepEqual(deal.mandate, DEFAULT_MANDATE);
    assert.equal(deal.activity.length, 6);
    assert.deepEqual(
      deal.activity.map((a) => [a.by, a.stage]),
      [
        ['service', 'sourced'],
        ['agent', 'qualified'],
        ['agent', 'meeting'],
        ['agent', 'proposal'],
        ['agent', 'negotiation'],
        ['agent', 'closed_won'],
      ],
    );
    for (const key of ['humanTrack', 'lineage']) assert.equal(key in deal, false, key);
    assert.deepEqual(await getDeal(t, deal.id), deal);
    const settlement = await t.get<SettlementView>(`${t.prefix}/deals/${deal.id}/settlement`);
    assert.equal(settlement.status, 200);
    assert.equal(settlement.body.finalValueUsd, 15_000.13);
  });

  it('201 with the escalation shape when a role calls for a human', async () => {
    const answer = await t.post<EscalationView>(
      `${t.prefix}/sell`,
      dealBody({ mandate: { staffing: { closer: 'human' } }, account: { industry: 'healthcare' } }),
    );
    assert.equal(answer.status, 201);
    const escalation = answer.body;
    assert.equal(escalation.escalated, true);
    assert.equal(escalation.role, 'closer');
    assert.equal(escalation.deal.id, 'deal_0002');
    assert.equal(escalation.deal.stage, 'meeting');
    assert.equal(escalation.deal.humanTrack, true);
    assert.equal(escalation.gig.status, 'open');
    assert.equal(escalation.gig.role, 'closer');
    assert.deepEqual(escalation.gig.pricing, { kind: 'commission', pct: 0.1 });
    assert.deepEqual(
      escalation.suggestedClosers.map((m) => m.closer.id),
      [MILO, ADA],
      'healthcare fits Milo first',
    );
    assert.deepEqual(
      escalation.deal.activity.map((a) => a.by),
      ['service', 'agent', 'agent', 'service'],
    );
    assert.deepEqual(await getDeal(t, escalation.deal.id), escalation.deal);
    const gigs: GigView[] = await listGigs(t);
    assert.deepEqual(
      gigs.map((g) => g.id),
      [escalation.gig.id],
    );
  });

  it('a human setter escalates at sourced', async () => {
    const answer = await t.post<EscalationView>(`${t.prefix}/sell`, dealBody({ mandate: HUMAN_SETTER }));
    assert.equal(answer.status, 201);
    assert.equal(answer.body.role, 'setter');
    assert.equal(answer.body.deal.stage, 'sourced');
    assert.deepEqual(answer.body.gig.pricing, { kind: 'fee', amountUsd: 250 });
  });
});

describe('deescalate', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('404 DEAL_NOT_FOUND for an unknown deal', async () => {
    assertError(await t.post(`${t.prefix}/deals/deal_9999/deescalate`), 404, 'DEAL_NOT_FOUND');
  });
});

describe('the deal prefix is configurable (D-1)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ config: { dealPrefix: '/sales' } });
  });
  after(async () => {
    await t.close();
  });

  it('serves the deal service under /sales, and /pipeline answers 404', async () => {
    assert.equal(t.prefix, '/sales');
    const created = await t.post<DealView>('/sales/deals', dealBody());
    assert.equal(created.status, 201);
    assert.equal(created.body.id, 'deal_0001');
    assert.equal((await t.get<DealView>('/sales/deals/deal_0001')).body.id, 'deal_0001');
    const moved = await t.post<DealView>('/sales/deals/deal_0001/advance');
    assert.equal(moved.status, 200);
    assert.equal(moved.body.stage, 'qualified');
    const sold = await t.post<DealView>('/sales/sell', dealBody());
    assert.equal(sold.status, 201);
    assert.equal(sold.body.stage, 'closed_won');

    assertError(await t.post('/pipeline/deals', dealBody()), 404, 'ROUTE_NOT_FOUND');
    assertError(await t.get('/pipeline/deals/deal_0001'), 404, 'ROUTE_NOT_FOUND');
    assertError(await t.post('/pipeline/deals/deal_0001/advance'), 404, 'ROUTE_NOT_FOUND');
    assertError(await t.post('/pipeline/sell', dealBody()), 404, 'ROUTE_NOT_FOUND');
    assert.equal((await t.get<{ deals: number }>('/health')).body.deals, 2);

    const index = await t.get<{ endpoints: { method: string; path: string }[] }>('/');
    const paths = index.body.endpoints.map((e) => `${e.method} ${e.path}`);
    assert.ok(paths.includes('POST /sales/deals'));
    assert.ok(paths.includes('POST /sales/sell'));
    // (`/insights/pipeline` is an insight's path, not the deal service's.)
    assert.ok(
      !paths.some((p) => p.split(' ')[1]?.startsWith('/pipeline')),
      'the index names the configured prefix only',
    );
  });
});
