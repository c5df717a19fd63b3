// D-68 to D-70 on two instances over one PostgreSQL schema: two keys-mode services, each with its
// own store (its own pool) and key ring, the races sent to both in turn. Only the database's
// locks (`key-usage:<keyId>`, `approval:<id>`) keep the instances' units apart: 64 closes through
// a key with closesPerDay 5 commit 5 in all, refused or held beyond; 10 final approvals racing
// on both commit the held close once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PipelineService } from '../../src/service/pipeline-service.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { Store } from '../../src/store/store.ts';
import { approvalRace, closesRace, type PolicyWorld, policyWorld } from '../support/policy-races.ts';
import { createTestSchema, postgresForTests, type TestSchema } from '../support/postgres.ts';

const server = await postgresForTests();

describe('key policies on two instances over one PostgreSQL database (D-68 to D-70)', { skip: server.skip }, () => {
  let schema: TestSchema;
  const stores: Store[] = [];
  let world: PolicyWorld;

  before(async () => {
    schema = await createTestSchema(server.url as string, 'policies');
    for (let i = 0; i < 2; i++) stores.push(await createStore(schema.url, { poolSize: 4, ownerUrl: schema.ownerUrl }));
    world = await policyWorld(stores, 'Two-instance Race Seller');
  });
  after(async () => {
    await world?.close();
    for (const store of stores) await store.close();
    await schema?.drop();
  });

  it('64 concurrent closes through a key with closesPerDay 5 and onLimit refuse commit exactly 5 across both', async () => {
    await closesRace(world, 'refuse');
  });

  it('64 concurrent closes through a key with closesPerDay 5 and onLimit hold commit exactly 5, 59 held', async () => {
    await closesRace(world, 'hold');
  });

  it('10 final approvals of one held close racing on both commit it once; the others are APPROVAL_DECIDED', async () => {
    await approvalRace(world);
  });

  it('a policy set through one instance binds the other within 5 s, and the one that set it at once', async () => {
    const [first, second] = world.services;
    const made = await first.run(
      first.accounts.createKey({ name: 'rebound', principal: world.principal }, world.operator),
    );
    assert.ok(made.ok);
    const text = made.value.text as string;
    const policyOn = async (service: PipelineService) => {
      const found = await service.keyRing?.authenticate(text);
      assert.ok(found?.ok);
      return found.caller;
    };
    assert.equal((await policyOn(second)).policy, undefined, 'the other instance knows the key, without a policy');
    const set = await first.run(first.accounts.setPolicy(made.value.key.id, { allowedMoves: [] }, world.operator));
    assert.ok(set.ok, JSON.stringify(set));
    assert.deepEqual((await policyOn(first)).policy, { allowedMoves: [] }, 'the instance that set it: at once');
    const start = Date.now();
    while ((await policyOn(second)).policy === undefined) {
      assert.ok(Date.now() - start <= 5_000, 'the other instance still knows no policy after 5 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Bound there too: its next proposal through the key is held, not committed.
    const [deal] = await world.atNegotiation(1);
    const held = await second.run(second.deals.advanceDeal(deal.id, {}, undefined, await policyOn(second)));
    assert.ok(held.ok && held.value.kind === 'held', JSON.stringify(held));
  });
});
