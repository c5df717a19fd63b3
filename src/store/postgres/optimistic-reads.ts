// The reads of an optimistic unit of work (issue 27: a unit in one round trip): its records come
// from the instance's cache (record-cache.ts) when it has them, else from one statement with no
// lock and no transaction around it, and every one is noted with its version, for the unit's
// write to check (check-unchanged.ts). And what the cache keeps once a unit committed.
import { compareIds, renameIds } from '../../domain/ids.ts';
import type { Closer, Deal, Gig } from '../../domain/records.ts';
import { Expectations, VERSIONED } from './check-unchanged.ts';
import { closerFromDoc } from './codec.ts';
import type { RecordCache, Versioned } from './record-cache.ts';
import type { Renames } from './reserved-ids.ts';
import { hold, type SqlSession } from './sql-database.ts';

type Row<T> = { doc: T; v: string };

const versionsOf = (gigs: readonly Versioned<Gig>[]) => new Map(gigs.map((g) => [g.record.id, g.version]));

export class OptimisticReads {
  readonly expected = new Expectations();
  /** Closers read, locked or not (a unit holds only the locked ones), for the cache to keep. */
  readonly closers = new Map<string, Closer>();
  /** The principal's setting, when the connection was not held to it yet (`hold`). */
  private holding: Promise<unknown> | undefined;
  private prepared = false;

  constructor(
    private readonly session: SqlSession,
    readonly cache: RecordCache,
    readonly principal: string,
  ) {}

  /** Sends the principal's setting first, if the connection needs it; once. */
  prepare(): void {
    if (this.prepared) return;
    this.prepared = true;
    this.holding = hold(this.session, this.principal);
  }

  /** Settles when the principal's setting did: what was read counts only if it was read as the principal. */
  held(): Promise<unknown> {
    return this.holding ?? Promise.resolve();
  }

  private query<R>(text: string, params: readonly unknown[]): Promise<R[]> {
    this.prepare();
    return this.session.query<R>(text, params);
  }

  async deal(id: string): Promise<Deal | undefined> {
    const cached = this.cache.deal(this.principal, id);
    if (cached) {
      this.expected.fromCache = true;
      this.expected.expectDeal(id, cached.version);
      return cached.record;
    }
    const [row] = await this.query<Row<Deal>>(VERSIONED.deal, [id]);
    if (row) this.expected.expectDeal(id, row.v);
    return row?.doc;
  }

  async gigsOf(dealId: string): Promise<Gig[]> {
    const cached = this.cache.gigsOf(this.principal, dealId);
    if (cached) {
      this.expected.fromCache = true;
      this.expected.expectGigs(dealId, versionsOf(cached));
      return cached.map((g) => g.record);
    }
    const rows = await this.query<Row<Gig>>(VERSIONED.gigsOfDeal, [dealId]);
    const gigs = rows.map((row) => ({ record: row.doc, version: row.v }));
    this.expected.expectGigs(dealId, versionsOf(gigs));
    return gigs.map((g) => g.record);
  }

  /** A gig with all its deal's gigs, and its deal when read with them (not from the cache). */
  async gig(id: string): Promise<{ deal?: Deal; gigs: Gig[] }> {
    const dealId = this.cache.dealOfGig(this.principal, id);
    const cached = dealId === undefined ? undefined : this.cache.gigsOf(this.principal, dealId);
    if (dealId !== undefined && cached?.some((g) => g.record.id === id)) return { gigs: await this.gigsOf(dealId) };
    const rows = await this.query<Row<Deal | Gig> & { k: 'd' | 'g' }>(VERSIONED.gigWithDeal, [id]);
    const dealRow = rows.find((row) => row.k === 'd');
    if (!dealRow) return { gigs: [] };
    const gigs = rows.filter((row) => row.k === 'g').map((row) => ({ record: row.doc as Gig, version: row.v }));
    gigs.sort((a, b) => compareIds(a.record.id, b.record.id));
    const deal = dealRow.doc as Deal;
    this.expected.expectDeal(deal.id, dealRow.v);
    this.expected.expectGigs(deal.id, versionsOf(gigs));
    return { deal, gigs: gigs.map((g) => g.record) };
  }

  /** `lock`: the unit may write the closer, so its check locks it. */
  async closer(id: string, lock: boolean): Promise<Closer | undefined> {
    const cached = this.cache.closer(this.principal, id);
    if (cached) {
      this.expected.fromCache = true;
      this.expected.expectCloser(id, cached.version, lock);
      this.closers.set(id, cached.record);
      return cached.record;
    }
    const [row] = await this.query<Row<Closer>>(VERSIONED.closer, [id]);
    if (!row) return undefined;
    this.expected.expectCloser(id, row.v, lock);
    const closer = closerFromDoc(row.doc);
    this.closers.set(id, closer);
    return closer;
  }
}

/** What a unit that committed held, put and knew, for the cache to keep. */
export interface Committed {
  principal: string;
  /** The committing transaction's id: the version of every row it wrote. */
  xid: string | undefined;
  deals: ReadonlyMap<string, Deal>;
  gigs: ReadonlyMap<string, Gig>;
  closers: ReadonlyMap<string, Closer>;
  put: { deals: ReadonlySet<string>; gigs: ReadonlySet<string>; closers: ReadonlySet<string> };
  /** Deals whose whole gig set the unit knew: read, or created by it. */
  gigSetsKnown: ReadonlySet<string>;
  /** The versions read, if the unit read optimistically. */
  expected?: Expectations;
  renames: Renames;
}

/**
 * Keeps what a committed unit leaves known: every record it wrote, at the version its
 * transaction gave it, and every one it read with a version and left unchanged. A gig set it
 * changed without knowing it whole is forgotten.
 */
export function remember(cache: RecordCache, unit: Committed): void {
  const { principal, xid, put, expected, renames } = unit;
  const name = (id: string) => renames.get(id) ?? id;
  const versionOf = (written: ReadonlySet<string>, id: string, read: ReadonlyMap<string, string> | undefined) =>
    written.has(id) ? xid : read?.get(id);
  for (const [id, deal] of unit.deals) {
    const version = versionOf(put.deals, id, expected?.deals);
    if (version !== undefined) cache.setDeal(principal, { record: renameIds(deal, renames), version });
  }
  const sets = new Map<string, Versioned<Gig>[] | undefined>();
  for (const [id, gig] of unit.gigs) {
    if (!sets.has(gig.dealId)) sets.set(gig.dealId, unit.gigSetsKnown.has(gig.dealId) ? [] : undefined);
    const set = sets.get(gig.dealId);
    const version = versionOf(put.gigs, id, expected?.gigSets.get(gig.dealId));
    if (set && version !== undefined) set.push({ record: renameIds(gig, renames), version });
    else sets.set(gig.dealId, undefined);
  }
  for (const dealId of unit.gigSetsKnown) if (!sets.has(dealId)) sets.set(dealId, []);
  for (const [dealId, set] of sets) {
    if (set)
      cache.setGigsOf(
        principal,
        name(dealId),
        set.sort((a, b) => compareIds(a.record.id, b.record.id)),
      );
    else cache.forget(principal, { deals: [name(dealId)], closers: [] });
  }
  for (const [id, closer] of unit.closers) {
    const version = put.closers.has(id) ? xid : (expected?.lockedClosers.get(id) ?? expected?.readClosers.get(id));
    if (version !== undefined) cache.setCloser(principal, { record: renameIds(closer, renames), version });
  }
}
