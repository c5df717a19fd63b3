// Dry runs at the HTTP door (D-48), for every write that has one: `?dryRun=true` answers 200
// `DryRun`, the records as the real call leaves them (an id it would hand out is null) and the
// events it would publish, and changes nothing: no record, no event, no stored answer, no id
// used. The real call then does exactly what the dry run said. A refusal is the real call's
// answer, and a dry one is not recorded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, type InjectServer, injectServer } from '../support/inject.ts';
import { advance, createDeal, DEMO_OPERATIONS, ok, ready } from '../support/operation-requests.ts';

/** `dry` with each null (an id the real call hands out) taken from `real`, where real has one. */
function filled(dry: unknown, real: unknown): unknown {
  if (dry === null) return real;
  if (Array.isArray(dry)) return dry.map((item, i) => filled(item, Array.isArray(real) ? real[i] : undefined));
  if (typeof dry !== 'object' || real === null || typeof real !== 'object') return dry;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(dry)) out[k] = filled(v, (real as Record<string, unknown>)[k]);
  return out;
}

describe('dry runs at the HTTP door: what the real call would do, and nothing done', () => {
  let t: InjectServer;
  before(async () => {
    t = await injectServer();
  });
  after(() => t.close());

  const dryRunnable = DEMO_OPERATIONS.filter((op) => op.kind === 'write' && op.dryRunnable);

  it('the dry-runnable writes are the four of D-48', () => {
    assert.deepEqual(
      dryRunnable.map((op) => op.id),
      ['createDeal', 'sell', 'advanceDeal', 'advanceGig'],
    );
  });

  for (const op of dryRunnable) {
    it(`${op.id} (${op.method} ${op.path}?dryRun=true)`, async () => {
      const { path, body } = await ready(t, op);
      const as = { ...(body === undefined ? {} : { body }), headers: { 'idempotency-key': `dry-${op.id}` } };
      const before = await t.snapshot();
      const dry = await t.send(op.method, `${path}?dryRun=true`, as);
      assert.equal(dry.status, 200, dry.text);
      assert.equal(dry.body.dryRun, true);
      assert.equal(dry.body.accepted, true);
      assert.equal(dry.headers.get('location'), null, 'nothing was created');
      assert.deepEqual(await t.snapshot(), before, 'a dry run changes nothing');
      // Again: the same answer, for nothing was used up (an id, the key).
      assert.equal((await t.send(op.method, `${path}?dryRun=true`, as)).text, dry.text);

      // The real call, under the same key: run for real (the dry run stored no answer), and it
      // does what the dry run said.
      const real = await t.send(op.method, path, as);
      assert.ok(real.status < 300, real.text);
      assert.equal(real.headers.get('idempotent-replayed'), null);
      const deal = op.id === 'advanceGig' ? real.body.deal : real.body;
      assert.deepEqual(filled(dry.body.deal, deal), deal);
      assert.equal(
        dry.body.deal.id === null,
        op.id === 'createDeal' || op.id === 'sell',
        'only a new deal has no id yet',
      );
      if (op.id === 'advanceGig') assert.deepEqual(dry.body.gig, real.body.gig);
      if (dry.body.settlement !== undefined) {
        const settlement = await ok(t, 'GET', `${t.prefix}/deals/${deal.id}/settlement`);
        assert.deepEqual(filled(dry.body.settlement, settlement), settlement);
      }
      const published = await ok(t, 'GET', `/events?after=${before.lastSeq}`);
      assert.deepEqual(
        dry.body.events.map((e: { type: string; data: unknown }, i: number) => filled(e, published.events[i])),
        published.events.map(({ type, data }: { type: string; data: unknown }) => ({ type, data })),
        'the events published are the ones the dry run listed',
      );
    });
  }

  it('a refused dry run answers as the real call does, and is not recorded (the real one is)', async () => {
    const dealId = await createDeal(t);
    for (let i = 0; i < 4; i++) await advance(t, dealId);
    const path = `${t.prefix}/deals/${dealId}/advance`;
    const below = { advanceTo: 'closed_won', valueUsd: 1_000 };
    const before = await t.snapshot();
    const dry = await t.send('POST', `${path}?dryRun=true`, { body: below });
    assertError(dry, 422, 'GATE_BELOW_FLOOR');
    assert.deepEqual(await t.snapshot(), before, 'a refused dry run records nothing');
    const real = await t.send('POST', path, { body: below });
    assert.deepEqual(real.body, dry.body);
    assert.equal(real.status, dry.status);
    const after = await t.snapshot();
    assert.equal(after.proposals.length, before.proposals.length + 1, 'the real refusal is on the record (D-61)');
  });
});
