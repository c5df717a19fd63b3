// Everything a store holds that a request could change, read whole: a test compares it before and
// after a request that must change nothing (a refusal, a replay, a dry run). The simulation's
// snapshot (src/sim/world.ts) reads the same, and webhooks besides.
import type { Store } from '../../src/store/store.ts';

export interface Snapshot {
  deals: unknown[];
  gigs: unknown[];
  closers: unknown[];
  payouts: unknown[];
  proposals: unknown[];
  webhooks: unknown[];
  lastSeq: number;
}

export async function snapshotOf(store: Store): Promise<Snapshot> {
  const all = Number.MAX_SAFE_INTEGER;
  const [deals, gigs, closers, proposals, webhooks] = await store.read((r) =>
    Promise.all([
      r.listDeals({ limit: all }),
      r.listGigs({}),
      r.listClosers({}),
      r.proposals.list({ limit: all }),
      r.webhooks.list(),
    ]),
  );
  const ledger = await store.read((r) => r.payoutsOfClosers(closers.map((c) => c.id)));
  const payouts = [...ledger.values()].flat();
  return { deals, gigs, closers, payouts, proposals, webhooks, lastSeq: await store.lastSeq() };
}
