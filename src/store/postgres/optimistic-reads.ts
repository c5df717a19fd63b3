// The reads of an optimistic unit of work (D-250: a unit in one round trip): its
// records come from the instance's cache (record-cache.ts), each noted with its version for the
// unit's write to check (check-unchanged.ts). A record the cache lacks is read under a lock, as
// every unit reads, with its version, once the unit has begun (sql-unit-reads.ts): a miss costs
// what a unit cost before. And what the cache keeps once a unit committed.
import { compareIds } from '../../domain/ids.ts';
import type { Closer, Deal, Gig } from '../../domain/records.ts';
import { isTerminal } from '../../domain/stages.ts';
import { Expectations } from './check-unchanged.ts';
import type { RecordCache, Versioned } from './record-cache.ts';

const versionsOf = (gigs: readonly Versioned<Gig>[]) => new Map(gigs.map((g) => [g.record.id, g.version]));

/** Versions of records read under the unit's own transaction: current until it ends. */
export interface Known {
  deals: Map<string, string>;
  gigSets: Map<string, Map<string, string>>;
  closers: Map<string, string>;
}

export class OptimisticReads {
  /** What was served from the cache, to be checked. */
  readonly expected = new Expectations();
  /** What was read under the unit's transaction, with versions, for the cache to keep. */
  readonly known: Known = { deals: new Map(), gigSets: new Map(), closers: new Map() };
  /** Closers read, locked or not (a unit holds only the locked ones), for the cache to keep. */
  readonly closers = new Map<string, Closer>();

  constructor(readonly cache: RecordCache) {}

  deal(id: string): Deal | undefined {
    const cached = this.cache.deal(id);
    if (!cached) return undefined;
    this.expected.expectDeal(id, cached.version);
    return cached.record;
  }

  gigsOf(dealId: string): Gig[] | undefined {
    const cached = this.cache.gigsOf(dealId);
    if (!cached) return undefined;
    this.expected.expectGigs(dealId, versionsOf(cached));
    return cached.map((g) => g.record);
  }

  /** The deal of a gig whose deal's gigs the cache holds. */
  dealOfGig(id: string): string | undefined {
    const dealId = this.cache.dealOfGig(id);
    const cached = dealId === undefined ? undefined : this.cache.gigsOf(dealId);
    return cached?.some((g) => g.record.id === id) ? dealId : undefined;
  }

  /** `lock`: the unit may write the closer, so its check locks it. */
  closer(id: string, lock: boolean): Closer | undefined {
    const cached = this.cache.closer(id);
    if (!cached) return undefined;
    this.expected.expectCloser(id, cached.version, lock);
    this.closers.set(id, cached.record);
    return cached.record;
  }

  /**
   * Whether the cache now holds a newer version of a record served to this unit: one committed
   * since by another unit of this instance. Its check could only fail (group-commit.ts).
   */
  stale(): boolean {
    const { cache, expected } = this;
    for (const [id, version] of expected.deals) {
      const now = cache.deal(id);
      if (now && now.version !== version) return true;
    }
    for (const [dealId, versions] of expected.gigSets) {
      const now = cache.gigsOf(dealId);
      if (now && (now.length !== versions.size || now.some((g) => versions.get(g.record.id) !== g.version)))
        return true;
    }
    for (const closers of [expected.lockedClosers, expected.readClosers]) {
      for (const [id, version] of closers) {
        const now = cache.closer(id);
        if (now && now.version !== version) return true;
      }
    }
    return false;
  }

  /** A closer read in the unit's transaction. */
  knowCloser(closer: Closer, version: string) {
    this.known.closers.set(closer.id, version);
    this.closers.set(closer.id, closer);
  }
}

/** What a unit that committed held, put and knew, for the cache to keep. */
export interface Committed {
  /** The committing transaction's id: the version of every row it wrote. */
  xid: string | undefined;
  deals: ReadonlyMap<string, Deal>;
  gigs: ReadonlyMap<string, Gig>;
  closers: ReadonlyMap<string, Closer>;
  put: { deals: ReadonlySet<string>; gigs: ReadonlySet<string>; closers: ReadonlySet<string> };
  /** Deals whose whole gig set the unit knew: read, or created by it. */
  gigSetsKnown: ReadonlySet<string>;
  /** The versions served from the cache and read in the transaction, if the unit was optimistic. */
  expected?: Expectations;
  known?: Known;
}

/**
 * Keeps what a committed unit leaves known: every record it wrote, at the version its
 * transaction gave it, and every one it read with a version and left unchanged. What it wrote
 * without learning the version (a unit that was not optimistic), and a gig set it changed
 * without knowing it whole, are forgotten. So is a closed deal with its gigs: one is seldom
 * written again (a refund, a revival), while a sell closes a deal in every request, and copies
 * of them all (up to the cache's 25,000, about 60 MB) only gave the collector more to mark
 * (docs/performance.md).
 */
export function remember(cache: RecordCache, unit: Committed): void {
  const { xid, put, expected, known } = unit;
  const versionOf = (
    written: ReadonlySet<string>,
    id: string,
    served: ReadonlyMap<string, string> | undefined,
    read: ReadonlyMap<string, string> | undefined,
  ) => (written.has(id) ? xid : (served?.get(id) ?? read?.get(id)));
  const closed = new Set<string>();
  for (const [id, deal] of unit.deals) {
    if (isTerminal(deal.stage)) closed.add(id);
    const version = closed.has(id) ? undefined : versionOf(put.deals, id, expected?.deals, known?.deals);
    if (version !== undefined) cache.setDeal({ record: deal, version });
    else if (put.deals.has(id) || closed.has(id)) cache.forget({ deals: [id], closers: [] });
  }
  const sets = new Map<string, Versioned<Gig>[] | undefined>();
  for (const [id, gig] of unit.gigs) {
    if (!sets.has(gig.dealId)) sets.set(gig.dealId, unit.gigSetsKnown.has(gig.dealId) ? [] : undefined);
    const set = sets.get(gig.dealId);
    const version = versionOf(put.gigs, id, expected?.gigSets.get(gig.dealId), known?.gigSets.get(gig.dealId));
    if (set && version !== undefined) set.push({ record: gig, version });
    else sets.set(gig.dealId, undefined);
  }
  for (const dealId of unit.gigSetsKnown) if (!sets.has(dealId)) sets.set(dealId, []);
  for (const [dealId, set] of sets) {
    if (set && !closed.has(dealId))
      cache.setGigsOf(
        dealId,
        set.sort((a, b) => compareIds(a.record.id, b.record.id)),
      );
    else cache.forgetGigsOf(dealId);
  }
  for (const [id, closer] of unit.closers) {
    const served = expected?.lockedClosers.get(id) ?? expected?.readClosers.get(id);
    const version = put.closers.has(id) ? xid : (served ?? known?.closers.get(id));
    if (version !== undefined) cache.setCloser({ record: closer, version });
    else if (put.closers.has(id)) cache.forget({ deals: [], closers: [id] });
  }
}
