// Money in integer cents, half-up rounding, exact fractions and message formatting (D-22);
// id formatting (D-28).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commissionCents, platformFeeCents } from '../../src/domain/gate.ts';
import { compareIds, formatId } from '../../src/domain/ids.ts';
import { applyFraction, centsToUsd, formatPercent, formatUsd, usdToCents } from '../../src/domain/money.ts';
import { T0, World } from './world.ts';

describe('D-22 money', () => {
  it('D-22: usdToCents rounds half-up to the cent from the decimal text (1.005 \u2192 101, not 100)', () => {
    assert.equal(1.005 * 100, 100.49999999999999, 'the binary trap the conversion avoids');
    assert.equal(usdToCents(1.005), 101);
    assert.equal(usdToCents(2.675), 268);
    assert.equal(usdToCents(0.015), 2);
    assert.equal(usdToCents(1.004), 100);
    assert.equal(usdToCents(0.005), 1);
    assert.equal(usdToCents(0.0049), 0);
  });

  it('D-22: usdToCents is exact for whole and two-decimal amounts, large and tiny', () => {
    assert.equal(usdToCents(0), 0);
    assert.equal(usdToCents(250), 25_000);
    assert.equal(usdToCents(19.99), 1_999);
    assert.equal(usdToCents(0.1 + 0.2), 30);
    assert.equal(usdToCents(1e12), 100_000_000_000_000);
    assert.equal(usdToCents(123_456_789.12), 12_345_678_912);
    assert.equal(usdToCents(1e-7), 0);
  });

  it('D-22: half-up means away from zero at exactly one half, also for negatives', () => {
    assert.equal(usdToCents(-1.005), -101);
    assert.equal(usdToCents(-1.004), -100);
    assert.equal(applyFraction(-50, 0.01), -1);
  });

  it('D-22: usdToCents refuses what is not a finite number', () => {
    assert.throws(() => usdToCents(Number.NaN), RangeError);
    assert.throws(() => usdToCents(Number.POSITIVE_INFINITY), RangeError);
  });

  it('D-22: centsToUsd answers USD with at most two decimals', () => {
    assert.equal(centsToUsd(101), 1.01);
    assert.equal(centsToUsd(8_000_000), 80_000);
    assert.equal(centsToUsd(1), 0.01);
  });

  it('D-22: applyFraction is exact where binary multiplication is not (1500 \u00d7 0.009 = 13.5 \u2192 14)', () => {
    assert.equal(1500 * 0.009, 13.499999999999998, 'the binary trap');
    assert.equal(applyFraction(1500, 0.009), 14);
    assert.equal(applyFraction(2500, 0.051), 128); // 127.5
    assert.equal(applyFraction(11_500, 0.011), 127); // 126.5
  });

  it('D-22: applyFraction rounds half-up to the cent', () => {
    assert.equal(applyFraction(12_345, 0.07), 864); // 864.15
    assert.equal(applyFraction(50, 0.01), 1); // 0.5
    assert.equal(applyFraction(49, 0.01), 0); // 0.49
    assert.equal(applyFraction(987_654_321, 0.8), 790_123_457); // 790,123,456.8
    assert.equal(applyFraction(10_000_000, 1), 10_000_000);
    assert.equal(applyFraction(10_000_000, 0), 0);
    assert.equal(applyFraction(3, 1e-7), 0);
  });

  it('D-22: floor, commission and platform fee are each rounded half-up to the cent', () => {
    assert.equal(platformFeeCents(199_999), 10_000); // 5% of 1,999.99 = 99.9995
    assert.equal(platformFeeCents(10), 1); // 0.5 cents
    assert.equal(commissionCents(12_345_678, 0.075), 925_926); // 925,925.85
    const w = new World();
    const dealId = w.createDeal({ listValueUsd: 0.03, mandate: { floorPct: 0.5 } });
    w.agentTo(dealId, 'negotiation');
    // floor = 0.5 × 3 cents = 1.5 → 2 cents: one cent is below it
    w.when({ type: 'AdvanceDeal', dealId, proposal: { valueUsd: 0.01 } }).thenRefused('gate', 'GATE_BELOW_FLOOR');
  });

  it('D-22: formatPercent states a fraction as a percentage without float noise', () => {
    assert.equal(0.07 * 100, 7.000000000000001, 'the binary trap');
    assert.equal(formatPercent(0.07), '7%');
    assert.equal(formatPercent(0.8), '80%');
    assert.equal(formatPercent(0.075), '7.5%');
    assert.equal(formatPercent(0.12), '12%');
    assert.equal(formatPercent(1), '100%');
    assert.equal(formatPercent(0), '0%');
    assert.equal(formatPercent(0.005), '0.5%');
    assert.equal(formatPercent(0.123456), '12.3456%');
    assert.equal(formatPercent(1e-7), '0.00001%');
  });

  it('D-22: formatUsd writes dollars with thousands separators and two decimals', () => {
    assert.equal(formatUsd(7_000_000), '$70,000.00');
    assert.equal(formatUsd(8_000_000), '$80,000.00');
    assert.equal(formatUsd(0), '$0.00');
    assert.equal(formatUsd(5), '$0.05');
    assert.equal(formatUsd(123_456_789), '$1,234,567.89');
    assert.equal(formatUsd(-123_456), '-$1,234.56');
    assert.equal(formatUsd(99), '$0.99');
    assert.equal(formatUsd(100_000), '$1,000.00');
    assert.equal(formatUsd(99_999_999), '$999,999.99');
    assert.equal(formatUsd(100_000_000_000_000), '$1,000,000,000,000.00', 'the largest amount, 1e12 USD');
  });

  it('D-22: deal amounts given with more than two decimals are rounded half-up on input', () => {
    const w = new World();
    const dealId = w.createDeal({ listValueUsd: 1234.565 });
    assert.equal(w.deal(dealId).listValueCents, 123_457);
  });
});

describe('D-28 ids', () => {
  it('D-28: a prefix and a number padded to four digits', () => {
    assert.equal(formatId('deal', 1), 'deal_0001');
    assert.equal(formatId('gig', 42), 'gig_0042');
    assert.equal(formatId('closer', 9999), 'closer_9999');
  });

  it('D-28: more digits past 9999', () => {
    assert.equal(formatId('deal', 10_000), 'deal_10000');
    assert.equal(formatId('gig', 1_234_567), 'gig_1234567');
  });

  it('D-28: decisions take their ids from the context, one counter per kind', () => {
    const w = new World();
    const closer = w.enrol();
    const first = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    const second = w.createDeal();
    const gig = w.escalate(first);
    assert.deepEqual([closer, first, second, gig], ['closer_0001', 'deal_0001', 'deal_0002', 'gig_0001']);
    w.when(
      { type: 'CreateDeal', account: { name: 'X', actor: 'B2A' }, listValueUsd: 1 },
      { nextIds: { deal: 'deal_12345', gig: 'gig_0002', closer: 'closer_0002' } },
    ).then([
      {
        type: 'DealCreated',
        deal: {
          id: 'deal_12345',
          version: 1,
          account: { name: 'X', actor: 'B2A' },
          listValueCents: 100,
          stage: 'sourced',
          signals: [],
          mandate: {
            staffing: { setter: 'agent', closer: 'agent', nurturer: 'human' },
            commissionPct: 0.1,
            maxCommissionPct: 0.12,
            floorPct: 0.8,
            fees: { setterCents: 25_000, nurturerCents: 15_000 },
            stallTimeoutDays: 14,
          },
          activity: [{ at: T0, by: 'service', stage: 'sourced', note: 'Deal created at sourced; mandate resolved.' }],
          lastActedAt: T0,
        },
      },
    ]);
  });

  it('D-28: an advance answering an existing gig posts nothing, so consumes no gig id', () => {
    const w = new World();
    const dealId = w.createDeal({ mandate: { staffing: { setter: 'human' } } });
    w.escalate(dealId);
    w.when({ type: 'AdvanceDeal', dealId, proposal: {} }).then([], {
      withVersions: true,
      escalation: { role: 'setter', gigId: 'gig_0001' },
    });
  });
});

describe('D-28: id order', () => {
  it('orders ids by number, past 9999 too', () => {
    const ids = ['gig_10000', 'gig_9999', 'gig_0002', 'gig_0010'];
    assert.deepEqual(ids.sort(compareIds), ['gig_0002', 'gig_0010', 'gig_9999', 'gig_10000']);
  });
});
