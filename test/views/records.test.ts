import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mandateView, resolveMandate } from '../../src/domain/mandate.ts';
import { iso } from '../../src/views/records.ts';

describe('views', () => {
  it('iso answers every instant right whatever order they come in (its cache keeps two)', () => {
    const instants = [0, 1, 0, 1, 2, 2, 1, 0, 86_400_000, 1, 1_790_000_000_123, 0];
    for (const ms of instants) assert.equal(iso(ms), new Date(ms).toISOString(), String(ms));
  });

  it("a shared default mandate's view is kept and frozen; a Seller's own is built each time", () => {
    const shared = resolveMandate(undefined, 'B2B');
    const own = resolveMandate({ commissionPct: 0.05 }, 'B2B');
    assert.ok(shared.ok && own.ok);
    assert.equal(mandateView(shared.mandate), mandateView(shared.mandate));
    assert.ok(Object.isFrozen(mandateView(shared.mandate).fees));
    assert.notEqual(mandateView(own.mandate), mandateView(own.mandate));
    assert.deepEqual(mandateView(own.mandate), mandateView(own.mandate));
    assert.equal(mandateView(own.mandate).commissionPct, 0.05);
  });
});
