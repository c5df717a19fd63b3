// D-68 to D-70 on PGlite: the races of test/service/key-policies.test.ts (there on the memory
// store) through the SQL adapters: 64 closes through a key with closesPerDay 5 commit 5, refused
// or held beyond, the usage counted in key_closes; 10 racing final approvals commit the held close
// once. PGlite has one connection, so its units queue and run one at a time (as memory's do):
// this shows what the SQL side counts and records under many units at once, not the locks;
// test/postgres/key-policies-instances.test.ts shows the locks, where units truly overlap.
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/store/create-store.ts';
import type { Store } from '../../src/store/store.ts';
import { approvalRace, closesRace, type PolicyWorld, policyWorld } from '../support/policy-races.ts';

describe('key policies under concurrency on PGlite (D-68 to D-70)', () => {
  let store: Store;
  let world: PolicyWorld;

  before(async () => {
    store = await createStore('pglite:memory://');
    world = await policyWorld([store], 'PGlite Race Seller');
  });
  after(async () => {
    await world?.close();
    await store?.close();
  });

  it('64 concurrent closes through a key with closesPerDay 5 and onLimit refuse commit exactly 5', async () => {
    await closesRace(world, 'refuse');
  });

  it('64 concurrent closes through a key with closesPerDay 5 and onLimit hold commit exactly 5, 59 held', async () => {
    await closesRace(world, 'hold');
  });

  it('10 racing final approvals of one held close commit it once; the others are APPROVAL_DECIDED', async () => {
    await approvalRace(world);
  });
});
