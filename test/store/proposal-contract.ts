// The refused proposals part of the store contract (D-61), run by describeStoreContract on every
// adapter: records numbered and listed newest first, filtered; a deal keeps its newest
// KEPT_PER_DEAL and the tally its exact counts; a rollback undoes a record; a wipe clears them.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { KEPT_PER_DEAL, type RefusedProposalDraft, summarize } from '../../src/domain/proposals.ts';
import type { ProposalFilter } from '../../src/store/proposals.ts';
import type { Store } from '../../src/store/store.ts';
import { putCreated, sampleDeal, sampleGig } from './contract.ts';

const T0 = Date.parse('2026-01-05T09:00:00.000Z');

const draft = (dealId: string, overrides: Partial<RefusedProposalDraft> = {}): RefusedProposalDraft => ({
  dealId,
  by: 'agent',
  proposal: { advanceTo: 'closed_won', valueUsd: 1 },
  stage: 'negotiation',
  code: 'GATE_BELOW_FLOOR',
  reason: 'Proposed close value $1.00 is below the negotiation floor.',
  at: T0,
  ...overrides,
});

export function proposalContract(_name: string, store: () => Store) {
  it('refused proposals: numbered, listed newest first and filtered; a rollback and a wipe undo them', async () => {
    const seller = { sellerId: 'seller_0001' };
    await store().transaction(async (uow) => {
      await putCreated(uow, sampleDeal('deal_0001', seller), sampleDeal('deal_0002'));
      await uow.putGig(sampleGig('gig_0001', 'deal_0002', { status: 'claimed', closerId: 'closer_0001' }));
    });
    const actor = { principal: 'seller_0001', keyId: 'key_0002' };
    await store().transaction((uow) => uow.proposals.record(draft('deal_0001', { ...seller, actor })));
    await store().transaction((uow) =>
      uow.proposals.record(
        draft('deal_0002', {
          by: 'human',
          gigId: 'gig_0001',
          code: 'GATE_ILLEGAL_MOVE',
          actor: { principal: 'closer_0001', keyId: 'key_0003' },
        }),
      ),
    );
    await store().transaction((uow) => uow.proposals.record(draft('deal_0001', { ...seller, at: T0 + 1 })));
    await assert.rejects(
      store().transaction(async (uow) => {
        await uow.proposals.record(draft('deal_0001'));
        throw new Error('rolled back');
      }),
    );
    const all = await store().read((r) => r.proposals.list({ limit: 10 }));
    assert.deepEqual(
      all.map((p) => p.id),
      ['prop_0003', 'prop_0002', 'prop_0001'],
    );
    assert.deepEqual(all[2], { id: 'prop_0001', ...draft('deal_0001', { ...seller, actor }) });
    const ids = async (filter: Partial<ProposalFilter>) =>
      (await store().read((r) => r.proposals.list({ limit: 10, ...filter }))).map((p) => p.id);
    assert.deepEqual(await ids({ dealId: 'deal_0001' }), ['prop_0003', 'prop_0001']);
    assert.deepEqual(await ids({ by: 'human' }), ['prop_0002']);
    assert.deepEqual(await ids({ code: 'GATE_ILLEGAL_MOVE' }), ['prop_0002']);
    assert.deepEqual(await ids({ keyId: 'key_0002' }), ['prop_0001']);
    assert.deepEqual(await ids({ sellerId: 'seller_0001' }), ['prop_0003', 'prop_0001']);
    assert.deepEqual(await ids({ principal: 'closer_0001' }), ['prop_0002']);
    assert.deepEqual(await ids({ beforeId: 'prop_0003', limit: 1 }), ['prop_0002']);
    assert.deepEqual(await ids({ dealId: 'deal_0001', beforeId: 'prop_0003' }), ['prop_0001']);

    await store().transaction((uow) => uow.wipe());
    assert.deepEqual(await store().read((r) => r.proposals.list({ limit: 10 })), []);
    assert.deepEqual(await store().read((r) => r.proposals.tally({})), []);
    await store().transaction((uow) => putCreated(uow, sampleDeal('deal_0001')));
    const again = await store().transaction((uow) => uow.proposals.record(draft('deal_0001')));
    // Numbered when recorded, on every store (D-273): its real id, the first after the wipe.
    assert.equal(again.id, 'prop_0001');
    assert.deepEqual(
      (await store().read((r) => r.proposals.list({ limit: 10 }))).map((p) => p.id),
      ['prop_0001'],
    );
  });

  it(`refused proposals: a deal keeps its newest ${KEPT_PER_DEAL}, and the tally every count`, async () => {
    const seller = { sellerId: 'seller_0001' };
    await store().transaction((uow) =>
      putCreated(
        uow,
        sampleDeal('deal_0001', {
          ...seller,
          activity: [
            { at: T0, by: 'service', stage: 'sourced', note: 'created' },
            {
              at: T0,
              by: 'agent',
              stage: 'qualified',
              note: 'moved',
              actor: { principal: 'seller_0001', keyId: 'key_0002' },
            },
            {
              at: T0,
              by: 'agent',
              stage: 'meeting',
              note: 'moved',
              actor: { principal: 'seller_0001', keyId: 'key_0009' },
            },
          ],
        }),
        sampleDeal('deal_0002', { activity: [{ at: T0, by: 'human', stage: 'qualified', note: 'moved' }] }),
      ),
    );
    const extra = 5;
    for (let i = 0; i < KEPT_PER_DEAL + extra; i++) {
      const code = i % 2 === 0 ? 'GATE_BELOW_FLOOR' : 'GATE_ILLEGAL_MOVE';
      const actor = { principal: 'seller_0001', keyId: 'key_0002' };
      await store().transaction((uow) =>
        uow.proposals.record(draft('deal_0001', { ...seller, code, actor, at: T0 + i })),
      );
    }
    await store().transaction((uow) =>
      uow.proposals.record(draft('deal_0002', { by: 'human', code: 'GIG_NOT_CLAIMED' })),
    );
    const kept = await store().read((r) => r.proposals.list({ dealId: 'deal_0001', limit: 2000 }));
    assert.equal(kept.length, KEPT_PER_DEAL);
    assert.equal(kept[0]?.at, T0 + KEPT_PER_DEAL + extra - 1, 'the newest is kept');
    assert.equal(kept.at(-1)?.at, T0 + extra, 'the oldest ones went');
    // The other deal's record is untouched by the first one's trimming.
    assert.equal((await store().read((r) => r.proposals.list({ dealId: 'deal_0002', limit: 10 }))).length, 1);

    const total = KEPT_PER_DEAL + extra;
    const all = summarize(await store().read((r) => r.proposals.tally({})));
    assert.deepEqual(all, {
      accepted: { agent: 2, human: 1 },
      refused: { agent: total, human: 1 },
      byCode: { GATE_BELOW_FLOOR: Math.ceil(total / 2), GATE_ILLEGAL_MOVE: Math.floor(total / 2), GIG_NOT_CLAIMED: 1 },
    });
    const sellers = summarize(await store().read((r) => r.proposals.tally({ sellerId: 'seller_0001' })));
    assert.deepEqual(sellers.refused, { agent: total, human: 0 });
    assert.deepEqual(sellers.accepted, { agent: 2, human: 0 });
    const oneKey = summarize(await store().read((r) => r.proposals.tally({ sellerId: 'seller_0001' })), {
      keyId: 'key_0009',
    });
    assert.deepEqual(oneKey, { accepted: { agent: 1, human: 0 }, refused: { agent: 0, human: 0 }, byCode: {} });
  });
}
