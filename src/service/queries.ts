// The reads: answers from committed state, each in one read of the store (one statement where it
// can be), outside any unit of work. An id that could name nothing is answered without a read.
import { couldBeId } from '../domain/ids.ts';
import type { Deal, Gig } from '../domain/records.ts';
import { isRefusal, type Refusal, refuse } from '../domain/refusal.ts';
import { type Settlement, settle } from '../domain/settlement.ts';
import type { DealFilter, EventFilter, GigFilter, Store, StoredEvent, StoreReader } from '../store/store.ts';
import { withLedger, withLedgers } from './closers.ts';
import type { CloserWithLedger } from './outcomes.ts';
import { fail, ok, type Result } from './result.ts';

export class Queries {
  constructor(private readonly store: Store) {}

  // ── deals ────────────────────────────────────────────────────────────────────────────────

  getDeal(dealId: string): Promise<Result<Deal>> {
    if (!couldBeId('deal', dealId)) return Promise.resolve(fail(refuse.noDeal(dealId)));
    return this.store.read(
      async (reader) => {
        const deal = await reader.getDeal(dealId);
        return deal ? ok(deal) : fail(refuse.noDeal(dealId));
      },
      { oneStatement: true },
    );
  }

  private async readDeal<T>(dealId: string, then: (deal: Deal, reader: StoreReader) => Promise<T | Refusal>) {
    return this.store.read(async (reader): Promise<Result<T>> => {
      const deal = couldBeId('deal', dealId) ? await reader.getDeal(dealId) : undefined;
      if (!deal) return fail(refuse.noDeal(dealId));
      const value = await then(deal, reader);
      return isRefusal(value) ? fail(value) : ok(value);
    });
  }

  settlement(dealId: string): Promise<Result<Settlement>> {
    return this.readDeal(dealId, async (deal, reader) => settle(deal, await reader.payoutsOfDeal(deal.id)));
  }

  // ── marketplace ──────────────────────────────────────────────────────────────────────────

  /** A page of closers with their ledgers (the ledgers of that page only). */
  listClosers(page: { afterId?: string; limit?: number } = {}): Promise<CloserWithLedger[]> {
    return this.store.read(async (reader) => withLedgers(reader, await reader.listClosers(page)));
  }

  getCloser(closerId: string): Promise<Result<CloserWithLedger>> {
    return this.store.read(async (reader) => {
      const closer = couldBeId('closer', closerId) ? await reader.getCloser(closerId) : undefined;
      if (!closer) return fail(refuse.noCloser(closerId));
      return ok(await withLedger(reader, closer));
    });
  }

  /** A page of gigs (D-39); a dealId or closerId that could name nothing matches nothing. */
  async listGigs(filter: GigFilter = {}): Promise<Gig[]> {
    if (filter.dealId !== undefined && !couldBeId('deal', filter.dealId)) return [];
    if (filter.closerId !== undefined && !couldBeId('closer', filter.closerId)) return [];
    return this.store.read((reader) => reader.listGigs(filter), { oneStatement: true });
  }

  getGig(gigId: string): Promise<Result<Gig>> {
    return this.store.read(
      async (reader) => {
        const gig = couldBeId('gig', gigId) ? await reader.getGig(gigId) : undefined;
        return gig ? ok(gig) : fail(refuse.noGig(gigId));
      },
      { oneStatement: true },
    );
  }

  /** A page of deals (D-39); a closerId that could name nothing matches nothing. */
  async listDeals(filter: DealFilter): Promise<Deal[]> {
    if (filter.closerId !== undefined && !couldBeId('closer', filter.closerId)) return [];
    return this.store.read((reader) => reader.listDeals(filter), { oneStatement: true });
  }

  // ── events ───────────────────────────────────────────────────────────────────────────────

  /** A page of the feed (D-41); a dealId that could name no deal matches nothing. */
  async events(filter: EventFilter): Promise<StoredEvent[]> {
    if (filter.dealId !== undefined && !couldBeId('deal', filter.dealId)) return [];
    return this.store.events(filter);
  }

  /** The highest seq in the feed so far. */
  lastSeq(): Promise<number> {
    return this.store.lastSeq();
  }

  // ── platform ─────────────────────────────────────────────────────────────────────────────

  health(): Promise<{ deals: number; closers: number }> {
    return this.store.read((reader) => reader.counts(), { oneStatement: true });
  }
}
