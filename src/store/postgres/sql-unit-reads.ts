// The reads of a unit of work on PostgreSQL SQL, and when its transaction begins. A unit holds
// the records it read (under a row lock, or optimistically) or put: no one else changes a locked
// one before it ends, and an optimistic one is checked unchanged when it begins, so reading one
// again costs no statement. Reading a gig reads its deal and all the deal's gigs at once, since
// what reads a gig loads its deal. An optimistic unit (UnitOptions.optimistic, D-250) takes its
// records from the instance's cache (optimistic-reads.ts) and begins only when it must: with its
// write, or before the first read the cache cannot serve, or any other statement; BEGIN is then
// followed by the checks of what it took, and its reads lock as every unit's do.
import { compareIds } from '../../domain/ids.ts';
import type { Closer, Deal, Gig } from '../../domain/records.ts';
import { closerFromDoc } from './codec.ts';
import type { GroupCommit } from './group-commit.ts';
import type { LazySession } from './lazy-session.ts';
import { OptimisticReads } from './optimistic-reads.ts';
import type { RecordCache } from './record-cache.ts';
import { begin, later } from './sql-database.ts';
import { BY_ID, SqlReader } from './sql-reader.ts';

export interface UnitSetup {
  principal: string;
  cache: RecordCache;
  optimistic: boolean;
  /** Where a unit that has sent nothing by its commit commits, with the others ready (D-281). */
  group?: GroupCommit;
}

export abstract class SqlUnitReads extends SqlReader {
  // Records held: read under a row lock by this unit of work, or put by it. A put replaces what
  // is held; a read that comes back later never replaces a put (the put is newer).
  protected readonly heldDeals = new Map<string, Deal>();
  protected readonly heldGigs = new Map<string, Gig>();
  protected readonly heldClosers = new Map<string, Closer>();
  /** Deals whose gigs were all read under the deal's lock: new gigs of them come only from puts. */
  protected readonly dealsWithGigs = new Set<string>();
  /** The ids of the records put, and of the deals created (their gigs are all put). */
  protected readonly put = { deals: new Set<string>(), gigs: new Set<string>(), closers: new Set<string>() };
  protected readonly newDeals = new Set<string>();
  /** BEGIN and what it was sent with; unset while an optimistic unit has not begun. */
  protected begun: Promise<unknown> | undefined;
  /** The checks of what the unit read optimistically, once sent. */
  protected readonly checked: Promise<unknown>[] = [];
  /** The reads of an optimistic unit, until it begins. */
  protected readonly reads: OptimisticReads | undefined;

  constructor(
    protected readonly raw: LazySession,
    protected readonly setup: UnitSetup,
  ) {
    const gate: { unit?: SqlUnitReads } = {};
    // Every statement but the optimistic reads goes through here: BEGIN is sent before it.
    super({
      query: <R>(text: string, params?: readonly unknown[]) => {
        gate.unit?.beginNow();
        return raw.query<R>(text, params);
      },
      exec: (text: string) => {
        gate.unit?.beginNow();
        return raw.exec(text);
      },
      get connection() {
        return raw.connection;
      },
    });
    gate.unit = this;
    // Not awaited: BEGIN and the principal (D-57) go out with the unit's first statement (one
    // round trip on `pg`). BEGIN fails only with its connection, and then so does every
    // statement behind it.
    if (setup.optimistic) this.reads = new OptimisticReads(setup.cache);
    else this.begun = this.beginOn();
  }

  /** BEGIN (and the principal's setting, when needed), on the unit's connection once it has one. */
  private beginOn(): Promise<unknown> {
    return later(this.raw.use((session) => begin(session, this.setup.principal)));
  }

  /** An optimistic unit's BEGIN, and the checks of what it read so far, locking it. */
  protected beginNow(): void {
    if (this.begun || !this.reads) return;
    this.begun = this.beginOn();
    for (const { text, params } of this.reads.expected.checks()) {
      this.checked.push(later(this.raw.query(text, params)));
    }
  }

  /** Whether the unit reads records optimistically still (it has not begun). */
  protected get optimistic(): OptimisticReads | undefined {
    return this.begun ? undefined : this.reads;
  }

  /**
   * The rows of a locked read (and of readCloser's unlocked one); an optimistic unit's carry
   * their versions too, for the cache to keep.
   */
  private rowsOf<T>(text: string, params: readonly unknown[]): Promise<{ doc: T; v?: string }[]> {
    return this.send(this.reads ? text.replace('SELECT doc ', 'SELECT doc, xmin::text AS v ') : text, params);
  }

  override async getDeal(id: string) {
    const held = this.heldDeals.get(id);
    if (held) return held;
    const cached = this.optimistic?.deal(id);
    if (cached) {
      this.hold(this.heldDeals, cached);
      return this.heldDeals.get(id);
    }
    const [row] = await this.rowsOf<Deal>('SELECT doc FROM deals WHERE id = $1 FOR UPDATE', [id]);
    if (!row) return undefined;
    if (row.v !== undefined) this.reads?.known.deals.set(id, row.v);
    this.hold(this.heldDeals, row.doc);
    return this.heldDeals.get(id);
  }

  override async gigsOfDeal(dealId: string) {
    if (this.dealsWithGigs.has(dealId)) return this.heldGigsOf(dealId);
    const cached = this.optimistic?.gigsOf(dealId);
    if (cached) {
      this.holdGigsOf(dealId, cached);
      return this.heldGigsOf(dealId);
    }
    const rows = await this.rowsOf<Gig>(`SELECT doc FROM gigs WHERE deal_id = $1 ORDER BY ${BY_ID} FOR UPDATE`, [
      dealId,
    ]);
    this.knowGigs(dealId, rows);
    this.holdGigsOf(
      dealId,
      rows.map((row) => row.doc),
    );
    return this.heldGigsOf(dealId);
  }

  override async getGig(id: string) {
    const held = this.heldGigs.get(id);
    if (held && this.dealsWithGigs.has(held.dealId)) return held;
    const cachedDeal = this.optimistic?.dealOfGig(id);
    if (cachedDeal !== undefined) {
      await this.gigsOfDeal(cachedDeal);
      return this.heldGigs.get(id);
    }
    // What reads a gig goes on to load its deal: lock the deal first (the lock order every unit
    // of work follows), then all its gigs in id order, sent together. The second statement runs
    // once the first holds the deal's lock.
    const deal = later(
      this.rowsOf<Deal>('SELECT doc FROM deals WHERE id = (SELECT deal_id FROM gigs WHERE id = $1) FOR UPDATE', [id]),
    );
    const gigs = this.rowsOf<Gig>(
      `SELECT doc FROM gigs WHERE deal_id = (SELECT deal_id FROM gigs WHERE id = $1) ORDER BY ${BY_ID} FOR UPDATE`,
      [id],
    );
    const [[locked], siblings] = await Promise.all([deal, gigs]);
    if (locked) {
      if (locked.v !== undefined) this.reads?.known.deals.set(locked.doc.id, locked.v);
      this.knowGigs(locked.doc.id, siblings);
      this.hold(this.heldDeals, locked.doc);
      this.holdGigsOf(
        locked.doc.id,
        siblings.map((row) => row.doc),
      );
    }
    return this.heldGigs.get(id);
  }

  /** Closers read without a lock (readCloser), kept for the unit's next read of them. */
  private readonly readClosers = new Map<string, Promise<Closer | undefined>>();

  readCloser(id: string) {
    const held = this.heldClosers.get(id);
    if (held) return Promise.resolve(held);
    let read = this.readClosers.get(id);
    if (!read) {
      const cached = this.optimistic?.closer(id, false);
      read = cached ? Promise.resolve(cached) : this.closerRow('SELECT doc FROM closers WHERE id = $1', id);
      this.readClosers.set(id, read);
    }
    return read;
  }

  override async getCloser(id: string) {
    const held = this.heldClosers.get(id);
    if (held) return held;
    const closer =
      this.optimistic?.closer(id, true) ??
      (await this.closerRow('SELECT doc FROM closers WHERE id = $1 FOR UPDATE', id));
    if (closer) this.hold(this.heldClosers, closer);
    return this.heldClosers.get(id);
  }

  private async closerRow(text: string, id: string): Promise<Closer | undefined> {
    const [row] = await this.rowsOf<Closer>(text, [id]);
    if (!row) return undefined;
    const closer = closerFromDoc(row.doc);
    if (row.v !== undefined) this.reads?.knowCloser(closer, row.v);
    return closer;
  }

  /** The versions of a deal's whole set of gigs, read in the unit's transaction. */
  private knowGigs(dealId: string, rows: readonly { doc: Gig; v?: string }[]) {
    if (!this.reads) return;
    this.reads.known.gigSets.set(dealId, new Map(rows.map((row) => [row.doc.id, row.v as string])));
  }

  /** Holds a record read under its lock, unless this unit of work already holds it (or put it). */
  protected hold<T extends { id: string }>(held: Map<string, T>, record: T) {
    if (!held.has(record.id)) held.set(record.id, record);
  }

  protected holdGigsOf(dealId: string, gigs: readonly Gig[]) {
    for (const gig of gigs) this.hold(this.heldGigs, gig);
    this.dealsWithGigs.add(dealId);
  }

  protected heldGigsOf(dealId: string): Gig[] {
    return [...this.heldGigs.values()].filter((gig) => gig.dealId === dealId).sort((a, b) => compareIds(a.id, b.id));
  }
}
