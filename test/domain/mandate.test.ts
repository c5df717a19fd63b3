// Mandate resolution: defaults, bounds, every violation at once (D-20).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type MandateResolution, mandateView, PLATFORM, resolveMandate } from '../../src/domain/mandate.ts';
import type { Mandate } from '../../src/domain/records.ts';
import { T0, World } from './world.ts';

function resolved(input: unknown, actor: 'B2B' | 'B2C' | 'B2D' | 'B2A' = 'B2B'): Mandate {
  const result = resolveMandate(input, actor);
  assert.ok(result.ok, `expected a mandate, got ${result.ok ? '' : result.violations.join('; ')}`);
  return result.mandate;
}

function violations(input: unknown): string[] {
  const result: MandateResolution = resolveMandate(input, 'B2B');
  assert.ok(!result.ok, `expected violations for ${JSON.stringify(input)}`);
  return result.violations;
}

const DEFAULTS: Mandate = {
  staffing: { setter: 'agent', closer: 'agent', nurturer: 'human' },
  commissionPct: 0.1,
  maxCommissionPct: 0.12,
  floorPct: 0.8,
  fees: { setterCents: 25_000, nurturerCents: 15_000 },
  stallTimeoutDays: 14,
};

describe('D-20 mandate defaults', () => {
  it('D-20: no mandate resolves to the platform defaults (B2B, B2D, B2A: stall 14)', () => {
    for (const actor of ['B2B', 'B2D', 'B2A'] as const) {
      assert.deepEqual(resolved(undefined, actor), DEFAULTS, actor);
      assert.deepEqual(resolved({}, actor), DEFAULTS, actor);
    }
  });

  it('D-20: B2C defaults the stall timeout to 7 days; a given value wins', () => {
    assert.equal(resolved(undefined, 'B2C').stallTimeoutDays, 7);
    assert.equal(resolved({ stallTimeoutDays: 21 }, 'B2C').stallTimeoutDays, 21);
  });

  it('D-20: any subset may be given; defaults fill the rest', () => {
    assert.deepEqual(resolved({ floorPct: 0.6, fees: { nurturerUsd: 99 }, staffing: { closer: 'human' } }), {
      ...DEFAULTS,
      staffing: { setter: 'agent', closer: 'human', nurturer: 'human' },
      floorPct: 0.6,
      fees: { setterCents: 25_000, nurturerCents: 9_900 },
    });
  });

  it('D-20: the default commissionPct is clamped to a lowered maxCommissionPct', () => {
    const lowered = resolved({ maxCommissionPct: 0.06 });
    assert.equal(lowered.maxCommissionPct, 0.06);
    assert.equal(lowered.commissionPct, 0.06);
    assert.equal(resolved({ maxCommissionPct: 0.11 }).commissionPct, 0.1, 'above the default: default kept');
    assert.equal(resolved({ maxCommissionPct: 0 }).commissionPct, 0);
  });

  it('D-20: the resolved mandate is echoed in full, in USD (defaults included)', () => {
    const mandate = resolved({
      staffing: { closer: { humanIf: { minDealSizeUsd: 50_000.5, signals: ['legal_review'] } } },
    });
    assert.deepEqual(mandateView(mandate), {
      staffing: {
        setter: 'agent',
        closer: { humanIf: { minDealSizeUsd: 50_000.5, signals: ['legal_review'] } },
        nurturer: 'human',
      },
      commissionPct: 0.1,
      maxCommissionPct: 0.12,
      floorPct: 0.8,
      fees: { setterUsd: 250, nurturerUsd: 150 },
      stallTimeoutDays: 14,
    });
  });

  it('D-20: a well-formed humanIf is kept (signals de-duplicated, size in cents)', () => {
    const mandate = resolved({
      staffing: { setter: { humanIf: { minDealSizeUsd: 1000.005, signals: ['a', 'b_2', 'a'] } } },
    });
    assert.deepEqual(mandate.staffing.setter, { humanIf: { minDealSizeCents: 100_001, signals: ['a', 'b_2'] } });
  });

  it('D-100: a humanIf with no condition is a violation (it could never hold)', () => {
    const resolution = resolveMandate({ staffing: { closer: { humanIf: {} } } }, 'B2B');
    assert.ok(!resolution.ok);
    assert.deepEqual(resolution.violations, [
      'mandate.staffing.closer.humanIf: needs minDealSizeUsd or signals (a rule with no condition never holds)',
    ]);
  });

  it('D-20: fees are taken to the cent, rounded half-up', () => {
    assert.deepEqual(resolved({ fees: { setterUsd: 99.995, nurturerUsd: 0 } }).fees, {
      setterCents: 10_000,
      nurturerCents: 0,
    });
  });
});

describe('D-20 mandate bounds', () => {
  it('D-20: every bound edge is accepted', () => {
    const low = resolved({
      commissionPct: 0,
      maxCommissionPct: 0,
      floorPct: 0,
      fees: { setterUsd: 0, nurturerUsd: 0 },
      stallTimeoutDays: 3,
    });
    assert.equal(low.stallTimeoutDays, 3);
    const high = resolved({
      commissionPct: 0.12,
      maxCommissionPct: 0.12,
      floorPct: 1,
      fees: { setterUsd: 10_000, nurturerUsd: 10_000 },
      stallTimeoutDays: 90,
    });
    assert.deepEqual(high.fees, { setterCents: 1_000_000, nurturerCents: 1_000_000 });
    assert.equal(high.commissionPct, PLATFORM.maxCommissionPct);
  });

  const breaches: [string, unknown, string][] = [
    ['commissionPct below 0', { commissionPct: -0.01 }, 'mandate.commissionPct: -0.01 is below 0'],
    [
      'commissionPct above maxCommissionPct',
      { commissionPct: 0.13 },
      'mandate.commissionPct: 0.13 is above maxCommissionPct 0.12',
    ],
    [
      'commissionPct above a lowered maxCommissionPct',
      { maxCommissionPct: 0.05, commissionPct: 0.06 },
      'mandate.commissionPct: 0.06 is above maxCommissionPct 0.05',
    ],
    ['maxCommissionPct below 0', { maxCommissionPct: -0.1 }, 'mandate.maxCommissionPct: -0.1 is below 0'],
    [
      'maxCommissionPct raised above the platform 0.12',
      { maxCommissionPct: 0.2 },
      'mandate.maxCommissionPct: 0.2 is above the platform maximum 0.12',
    ],
    ['floorPct below 0', { floorPct: -0.5 }, 'mandate.floorPct: -0.5 is below 0'],
    ['floorPct above 1', { floorPct: 1.01 }, 'mandate.floorPct: 1.01 is above the maximum 1'],
    ['fees.setterUsd below 0', { fees: { setterUsd: -1 } }, 'mandate.fees.setterUsd: -1 is below 0'],
    [
      'fees.nurturerUsd above 10000',
      { fees: { nurturerUsd: 10_000.01 } },
      'mandate.fees.nurturerUsd: 10000.01 is above the maximum 10000',
    ],
    ['stallTimeoutDays below 3', { stallTimeoutDays: 2 }, 'mandate.stallTimeoutDays: 2 is outside 3 to 90'],
    ['stallTimeoutDays above 90', { stallTimeoutDays: 91 }, 'mandate.stallTimeoutDays: 91 is outside 3 to 90'],
    ['stallTimeoutDays not an integer', { stallTimeoutDays: 7.5 }, 'mandate.stallTimeoutDays: must be an integer'],
  ];
  for (const [name, input, expected] of breaches) {
    it(`D-20: ${name} is a violation`, () => {
      assert.deepEqual(violations(input), [expected]);
    });
  }

  it('D-20: every breach is listed at once', () => {
    const found = violations({
      commissionPct: 0.5,
      floorPct: 2,
      fees: { setterUsd: -5, nurturerUsd: 20_000 },
      stallTimeoutDays: 1,
      staffing: { closer: 'robot' },
      bonus: true,
    });
    assert.equal(found.length, 7, found.join('\n'));
    for (const path of [
      'mandate.bonus',
      'mandate.commissionPct',
      'mandate.floorPct',
      'mandate.fees.setterUsd',
      'mandate.fees.nurturerUsd',
      'mandate.stallTimeoutDays',
      'mandate.staffing.closer',
    ]) {
      assert.ok(
        found.some((v) => v.startsWith(`${path}:`)),
        `${path} missing from ${found.join('; ')}`,
      );
    }
  });
});

describe('D-20 mandate shape problems are violations', () => {
  it('D-20: unknown fields (mandate, fees, staffing role, humanIf)', () => {
    assert.deepEqual(violations({ commission: 0.1 }), ['mandate.commission: unknown field']);
    assert.deepEqual(violations({ fees: { closerUsd: 5 } }), ['mandate.fees.closerUsd: unknown field']);
    assert.deepEqual(violations({ staffing: { manager: 'human' } }), [
      'mandate.staffing.manager: unknown role (roles are setter, closer, nurturer)',
    ]);
    assert.deepEqual(violations({ staffing: { closer: { humanIf: { maxDealSizeUsd: 5 } } } }), [
      'mandate.staffing.closer.humanIf.maxDealSizeUsd: unknown field',
    ]);
  });

  it('D-20: wrong types', () => {
    assert.deepEqual(violations({ commissionPct: '0.1' }), ['mandate.commissionPct: must be a number']);
    assert.deepEqual(violations({ maxCommissionPct: null }), ['mandate.maxCommissionPct: must be a number']);
    assert.deepEqual(violations({ floorPct: Number.NaN }), ['mandate.floorPct: must be a number']);
    assert.deepEqual(violations({ fees: { setterUsd: '250' } }), ['mandate.fees.setterUsd: must be a number']);
    assert.deepEqual(violations({ fees: [250, 150] }), ['mandate.fees: must be an object']);
    assert.deepEqual(violations({ stallTimeoutDays: '14' }), ['mandate.stallTimeoutDays: must be an integer']);
    assert.deepEqual(violations({ staffing: 'human' }), ['mandate.staffing: must be an object']);
    for (const bad of [null, [], 'agent', 7]) {
      assert.deepEqual(violations(bad), ['mandate: must be an object'], JSON.stringify(bad));
    }
  });

  it('D-20: a staffing value that is not agent, human or a well-formed humanIf', () => {
    const shape = 'must be "agent", "human" or {humanIf: {minDealSizeUsd?, signals?}}';
    for (const bad of ['robot', 'Agent', null, 3, { humanIf: 5 }, { humanIf: [] }, { humanIf: {}, extra: 1 }, {}]) {
      assert.deepEqual(
        violations({ staffing: { setter: bad } }),
        [`mandate.staffing.setter: ${shape}`],
        JSON.stringify(bad),
      );
    }
  });

  it('D-20: humanIf conditions of the wrong shape', () => {
    const min = 'mandate.staffing.closer.humanIf.minDealSizeUsd: must be a number from 0 to 1000000000000';
    for (const bad of [-1, '5000', 2e12]) {
      assert.deepEqual(violations({ staffing: { closer: { humanIf: { minDealSizeUsd: bad } } } }), [min]);
    }
    const signals = (value: unknown) => violations({ staffing: { closer: { humanIf: { signals: value } } } });
    const tooMany = Array.from({ length: 33 }, (_, i) => `s${i}`);
    for (const bad of ['gone_dark', ['Gone Dark'], ['ok', 7], ['9lives'], tooMany]) {
      const found = signals(bad);
      assert.equal(found.length, 1, JSON.stringify(bad));
      assert.match(
        found[0],
        /^mandate\.staffing\.closer\.humanIf\.signals: must be an array of at most 32 signal names/,
      );
    }
  });

  it('D-20: a deal with an out-of-bounds mandate is refused 422 (kind mandate) listing every violation, and nothing is created', () => {
    const w = new World();
    const then = w.when({
      type: 'CreateDeal',
      account: { name: 'Acme', actor: 'B2C' },
      listValueUsd: 5_000,
      mandate: { commissionPct: 0.2, stallTimeoutDays: 100 },
    });
    const refusal = then.thenRefused('mandate', 'MANDATE_OUT_OF_BOUNDS');
    assert.deepEqual(refusal.violations, [
      'mandate.commissionPct: 0.2 is above maxCommissionPct 0.12',
      'mandate.stallTimeoutDays: 100 is outside 3 to 90',
    ]);
    assert.match(refusal.message, /commissionPct.*stallTimeoutDays/);
  });

  it('D-20: a deal created without a mandate carries the fully resolved default mandate', () => {
    const account = { name: 'Acme Fictional Ltd', actor: 'B2C', industry: 'saas' } as const;
    new World().when({ type: 'CreateDeal', account, listValueUsd: 100_000 }).then([
      {
        type: 'DealCreated',
        deal: {
          id: 'deal_0001',
          version: 1,
          account,
          listValueCents: 10_000_000,
          stage: 'sourced',
          signals: [],
          mandate: { ...DEFAULTS, stallTimeoutDays: 7 },
          activity: [{ at: T0, by: 'service', stage: 'sourced', note: 'Deal created at sourced; mandate resolved.' }],
          lastActedAt: T0,
        },
      },
    ]);
  });

  it('D-20: a list value that rounds to less than one cent is invalid (not a mandate problem)', () => {
    const w = new World();
    const refusal = w
      .when({ type: 'CreateDeal', account: { name: 'Acme', actor: 'B2B' }, listValueUsd: 0.004 })
      .thenRefused('invalid', 'INVALID_BODY');
    assert.deepEqual(refusal.violations, ['listValueUsd: must be at least 0.01 after rounding to the cent']);
  });
});
