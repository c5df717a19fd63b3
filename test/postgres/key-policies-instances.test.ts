// D-68 to D-70 on two instances over one PostgreSQL schema: two keys-mode services, each with its
// own store (its own pool) and key ring, the races sent to both in turn. Only the database's
// locks (`key-usage:<keyId>`, `approval:<id>`) keep the instances' units apart: 64 closes through
// a key with closesPerDay 5 commit 5 in all, refused or held beyond; 10 final approvals racing
// on both commit the held close once.
import { after, before, describe, it } from 'node:test';
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
});
