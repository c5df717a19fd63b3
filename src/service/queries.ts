// The reads: answers from committed state, each in one read of the store (one statement where it
// can be), outside any unit of work. An id that could name nothing is answered without a read.
import { type Caller, seesDeal, seesGig, seesSeller, visibilityOf } from '../domain/access.ts';
import { compareIds, couldBeId } from '../domain/ids.ts';
import type { Refund } from '../domain/ledger/refunds.ts';
import { type Executor, type ProposalSummary, type RefusedProposal, summarize } from '../domain/proposals.ts';
import type { Deal, Gig, Seller } from '../domain/records.ts';
import { isRefusal, type Refusal, refuse } from '../domain/refusal.ts';
import { type Settlement, settle } from '../domain/settlement.ts';
import type { ProposalFilter } from '../store/proposals.ts';
import type {
  DealFilter,
  EventFilter,
  GigFilter,
  ReadOptions,
  Store,
  StoredEvent,
  StoreReader,
} from '../store/store.ts';
import { withLedger, withLedgers } from './closers.ts';
import type { CloserWithLedger } from './outcomes.ts';
import { fail, ok, type Result } from './result.ts';

/** D-57: the principal a read runs for (the store may hold its statements to it). */
/** How a read runs for a caller: as its principal (D-57), or as the platform without one. */
export const as = (caller: Caller | undefined): ReadOptions =>
  caller === undefined ? {} : { principal: caller.principal };

/** The filters of a page of refused proposals, as a caller asks them. */
export interface ProposalQuery {
  dealId?: string;
  by?: Executor;
  code?: string;
  keyId?: string;
  afterId?: string;
  limit: number;
}

/** D-54 for refused proposals: a Seller's deals' ones, a closer's own, everything for the rest. */
function proposalsVisibleTo(caller: Caller | undefined): Pick<ProposalFilter, 'sellerId' | 'principal'> {
  const { sellerId, closerId } = visibilityOf(caller);
  if (sellerId !== undefined) return { sellerId };
  if (closerId !== undefined) return { principal: closerId };
  return {};
}

/** A page's filter as the store takes it: newest first, so the cursor's id is where it goes on below. */
function storeFilter({ afterId, ...filter }: ProposalQuery, caller: Caller | undefined): ProposalFilter {
  const visible: ProposalFilter = { ...filter, ...proposalsVisibleTo(caller) };
  if (afterId !== undefined) visible.beforeId = afterId;
  return visible;
}

export class Queries {
  constructor(private readonly store: Store) {}

  // ── deals ────────────────────────────────────────────────────────────────────────────────

  /** A deal, or unknown when the caller may not see it (D-54: the same answer as no deal). */
  getDeal(dealId: string, caller?: Caller): Promise<Result<Deal>> {
    if (!couldBeId('deal', dealId)) return Promise.resolve(fail(refuse.noDeal(dealId)));
    // A closer sees a deal by its gigs: a second statement, so not a one-statement read.
    if (caller?.kind === 'closer') return this.readDeal(dealId, caller, async (deal) => deal);
    return this.store.read(
      async (reader) => {
        const deal = await reader.getDeal(dealId);
        return deal && seesDeal(caller, deal, []) ? ok(deal) : fail(refuse.noDeal(dealId));
      },
      { oneStatement: true, ...as(caller) },
    );
  }

  private async readDeal<T>(
    dealId: string,
    caller: Caller | undefined,
    then: (deal: Deal, reader: StoreReader) => Promise<T | Refusal>,
  ) {
    return this.store.read(async (reader): Promise<Result<T>> => {
      const deal = couldBeId('deal', dealId) ? await reader.getDeal(dealId) : undefined;
      if (!deal) return fail(refuse.noDeal(dealId));
      const gigs = caller?.kind === 'closer' ? await reader.gigsOfDeal(dealId) : [];
      if (!seesDeal(caller, deal, gigs)) return fail(refuse.noDeal(dealId));
      const value = await then(deal, reader);
      return isRefusal(value) ? fail(value) : ok(value);
    }, as(caller));
  }

  /** D-23; D-81: once the deal has a refund, with the total refunded. */
  settlement(dealId: string, caller?: Caller): Promise<Result<Settlement>> {
    return this.readDeal(dealId, caller, async (deal, reader) => {
      const [payouts, refunds] = await Promise.all([
        reader.payoutsOfDeal(deal.id),
        reader.ledger.refundsOfDeal(deal.id),
      ]);
      return settle(deal, payouts, refunds);
    });
  }

  /** D-81: a deal's refunds, oldest first, for whoever sees the deal. */
  refunds(dealId: string, caller?: Caller): Promise<Result<Refund[]>> {
    return this.readDeal(dealId, caller, (deal, reader) => reader.ledger.refundsOfDeal(deal.id));
  }

  // ── marketplace ──────────────────────────────────────────────────────────────────────────

  /** A page of closers with their ledgers (the ledgers of that page only). */
  /** A page of closers with their ledgers (the ledgers of that page only, those the caller may see). */
  listClosers(page: { afterId?: string; limit?: number } = {}, caller?: Caller): Promise<CloserWithLedger[]> {
    return this.store.read(async (reader) => withLedgers(reader, await reader.listClosers(page), caller), as(caller));
  }

  getCloser(closerId: string, caller?: Caller): Promise<Result<CloserWithLedger>> {
    return this.store.read(async (reader) => {
      const closer = couldBeId('closer', closerId) ? await reader.getCloser(closerId) : undefined;
      if (!closer) return fail(refuse.noCloser(closerId));
      return ok(await withLedger(reader, closer, caller));
    }, as(caller));
  }

  /**
   * A page of gigs (D-39), of those the caller may see (D-54); a dealId or closerId that could
   * name nothing matches nothing.
   */
  async listGigs(filter: GigFilter = {}, caller?: Caller): Promise<Gig[]> {
    if (filter.dealId !== undefined && !couldBeId('deal', filter.dealId)) return [];
    if (filter.closerId !== undefined && !couldBeId('closer', filter.closerId)) return [];
    const { sellerId, closerId } = visibilityOf(caller);
    const visible: GigFilter = { ...filter };
    if (sellerId !== undefined) visible.sellerId = sellerId;
    if (closerId !== undefined) visible.openOrCloserId = closerId;
    return this.store.read((reader) => reader.listGigs(visible), { oneStatement: true, ...as(caller) });
  }

  getGig(gigId: string, caller?: Caller): Promise<Result<Gig>> {
    return this.store.read(
      async (reader) => {
        const gig = couldBeId('gig', gigId) ? await reader.getGig(gigId) : undefined;
        return gig && seesGig(caller, gig) ? ok(gig) : fail(refuse.noGig(gigId));
      },
      { oneStatement: true, ...as(caller) },
    );
  }

  /**
   * A page of deals (D-39), of those the caller may see (D-54); a closerId that could name
   * nothing matches nothing, and so does another closer's for a closer.
   */
  async listDeals(filter: DealFilter, caller?: Caller): Promise<Deal[]> {
    if (filter.closerId !== undefined && !couldBeId('closer', filter.closerId)) return [];
    const { sellerId, closerId } = visibilityOf(caller);
    if (closerId !== undefined && filter.closerId !== undefined && filter.closerId !== closerId) return [];
    const visible: DealFilter = { ...filter };
    if (sellerId !== undefined) visible.sellerId = sellerId;
    if (closerId !== undefined) visible.closerId = closerId;
    return this.store.read((reader) => reader.listDeals(visible), { oneStatement: true, ...as(caller) });
  }

  // ── refused proposals (D-61) ─────────────────────────────────────────────────────────────

  /**
   * A page of refused proposals, newest first, of those the caller may see (D-54): a Seller the
   * ones on its deals, a closer the ones it made. A dealId or keyId that could name nothing
   * matches nothing.
   */
  async listProposals(filter: ProposalQuery, caller?: Caller): Promise<RefusedProposal[]> {
    if (filter.dealId !== undefined && !couldBeId('deal', filter.dealId)) return [];
    if (filter.keyId !== undefined && !couldBeId('key', filter.keyId)) return [];
    const visible = storeFilter(filter, caller);
    return this.store.read((reader) => reader.proposals.list(visible), { oneStatement: true, ...as(caller) });
  }

  /** A deal's refused proposals, newest first; an unknown deal (or one the caller may not see) is 404. */
  dealProposals(
    dealId: string,
    filter: Omit<ProposalQuery, 'dealId'>,
    caller?: Caller,
  ): Promise<Result<RefusedProposal[]>> {
    if (filter.keyId !== undefined && !couldBeId('key', filter.keyId))
      return this.readDeal(dealId, caller, async () => []);
    return this.readDeal(dealId, caller, (_deal, reader) =>
      reader.proposals.list(storeFilter({ ...filter, dealId }, caller)),
    );
  }

  /**
   * D-61's summary over every deal the caller may see: a Seller's deals; a closer its own moves
   * and refusals; in keys mode one key's when `keyId` is given.
   */
  proposalSummary(filter: { keyId?: string }, caller?: Caller): Promise<ProposalSummary> {
    const scope = visibilityOf(caller);
    return this.store.read(
      async (reader) => summarize(await reader.proposals.tally(scope), filter.keyId === undefined ? {} : filter),
      { oneStatement: true, ...as(caller) },
    );
  }

  // ── events ───────────────────────────────────────────────────────────────────────────────

  /**
   * A page of the feed (D-41), of the events the caller may see (D-58, seesEvent: a Seller
   * those of its deals; a closer the postings and those about itself; both the platform's
   * own); a dealId that could name no deal matches nothing.
   */
  async events(filter: EventFilter, caller?: Caller): Promise<StoredEvent[]> {
    if (filter.dealId !== undefined && !couldBeId('deal', filter.dealId)) return [];
    const { sellerId, closerId } = visibilityOf(caller);
    const visible: EventFilter = { ...filter };
    if (sellerId !== undefined) visible.sellerId = sellerId;
    if (closerId !== undefined) visible.closerId = closerId;
    return this.store.events(visible, as(caller));
  }

  // ── accounts ─────────────────────────────────────────────────────────────────────────────

  listSellers(page: { afterId?: string; limit?: number }, caller?: Caller): Promise<Seller[]> {
    return this.store.read(async (reader) => {
      // A Seller lists itself only.
      if (caller?.kind === 'seller') {
        const own = await reader.accounts.getSeller(caller.principal);
        return own && (page.afterId === undefined || compareIds(page.afterId, own.id) < 0) ? [own] : [];
      }
      return reader.accounts.listSellers(page);
    }, as(caller));
  }

  getSeller(sellerId: string, caller?: Caller): Promise<Result<Seller>> {
    return this.store.read(async (reader) => {
      const seller = couldBeId('seller', sellerId) ? await reader.accounts.getSeller(sellerId) : undefined;
      return seller && seesSeller(caller, sellerId) ? ok(seller) : fail(refuse.noSeller(sellerId));
    }, as(caller));
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
