// The records this instance last read or wrote, each with its row's version (its xmin, the
// transaction that wrote it), one copy for every principal (D-282). A unit of work that reads
// from here is trusted nothing: its write checks, under the rows' locks and behind the unit's
// own principal, that every record it used is still that version (check-unchanged.ts), and runs
// again with locks when one is not (D-250). A row the principal may not see is not found by that
// check, so it counts as changed: row-level security still decides what each principal acts on,
// and a record served from another principal's reads decides nothing unless the unit's principal
// sees that very version. So the cache may be stale, or emptied, at any time without harm; it
// only saves the round trip of the reads. A version is never reused, a demo reset included: new
// rows have new xmins. What it keeps of a committed unit is remember's choice (optimistic-reads.ts):
// no closed deal, for one.
import type { Closer, Deal, Gig } from '../../domain/records.ts';

export interface Versioned<T> {
  record: T;
  /** The row's xmin as text. */
  version: string;
}

/**
 * How many deals (with their gigs) and closers are kept, each: the oldest written go first.
 * About 30 s of this machine's writes at full speed (a claim's gig was usually posted that
 * recently); a sold deal with its gig takes about 2.5 KB of heap here, so about 60 MB when full.
 */
const LIMIT = 25_000;

/** A map that forgets its oldest entry beyond a size. */
class Bounded<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly limit: number) {}
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, value: V): void {
    // Written again: it goes to the back of the line.
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value as string);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
}

export class RecordCache {
  private readonly deals: Bounded<Versioned<Deal>>;
  private readonly closers: Bounded<Versioned<Closer>>;
  /** A deal's whole set of gigs, in id order. */
  private readonly gigSets: Bounded<Versioned<Gig>[]>;
  /** The deal of a gig, to find its set. */
  private readonly dealOfGigs: Bounded<string>;

  constructor(limit = LIMIT) {
    this.deals = new Bounded(limit);
    this.closers = new Bounded(limit);
    this.gigSets = new Bounded(limit);
    this.dealOfGigs = new Bounded(limit * 4);
  }

  deal(id: string) {
    return this.deals.get(id);
  }

  closer(id: string) {
    return this.closers.get(id);
  }

  gigsOf(dealId: string) {
    return this.gigSets.get(dealId);
  }

  dealOfGig(gigId: string) {
    return this.dealOfGigs.get(gigId);
  }

  setDeal(deal: Versioned<Deal>) {
    this.deals.set(deal.record.id, deal);
  }

  setCloser(closer: Versioned<Closer>) {
    this.closers.set(closer.record.id, closer);
  }

  setGigsOf(dealId: string, gigs: Versioned<Gig>[]) {
    this.gigSets.set(dealId, gigs);
    for (const gig of gigs) this.dealOfGigs.set(gig.record.id, dealId);
  }

  /** Forgets what a unit that failed used: it may have been stale. */
  forget(touched: { deals: Iterable<string>; closers: Iterable<string> }) {
    for (const id of touched.deals) {
      this.deals.delete(id);
      this.gigSets.delete(id);
    }
    for (const id of touched.closers) this.closers.delete(id);
  }

  forgetGigsOf(dealId: string) {
    this.gigSets.delete(dealId);
  }

  clear() {
    this.deals.clear();
    this.closers.clear();
    this.gigSets.clear();
    this.dealOfGigs.clear();
  }
}
