// An event's data as the PostgreSQL store writes it (codec.ts eventDataJson): plain JSON, and a
// closer's bigint gross closed as its digits, exact past 2^53 cents (D-24).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eventDataJson } from '../../src/store/postgres/codec.ts';

it('writes plain data as JSON.stringify does, and a bigint anywhere in it as its digits', () => {
  const deal = { id: 'deal_0001', account: { name: 'Quote "and" \\ slash', industry: 'saas' }, valueCents: 12 };
  assert.equal(eventDataJson({ deal }), JSON.stringify({ deal }));
  const closer = { id: 'closer_0001', record: { gigs: 3, wins: 2, grossClosedCents: 2n ** 60n + 7n } };
  const text = eventDataJson({ closer });
  assert.equal(
    text,
    '{"closer":{"id":"closer_0001","record":{"gigs":3,"wins":2,"grossClosedCents":"1152921504606846983"}}}',
  );
  assert.equal(eventDataJson([1n, { n: -5n }]), '["1",{"n":"-5"}]');
});

it("lets an error that is not the bigint's through", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => eventDataJson(cyclic), TypeError);
  const failing = {
    toJSON: () => {
      throw new RangeError('no');
    },
  };
  assert.throws(() => eventDataJson(failing), RangeError);
});
