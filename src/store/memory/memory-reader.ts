// Reads of the in-memory adapter: pages from the tables and their indexes, never a scan of every
// record where an index answers (the stage index for deal pages, the due indexes for timers).
import { compareIds } from '../../domain/ids.ts';
import type { Closer, Deal, Gig } from '../../domain/records.ts';
import { owningRole } from '../../domain/stages.ts';
import type { DealFilter, GigFilter, StoreReader } from '../store.ts';
import { MemoryAccountReader } from './account-tables.ts';
import { MemoryApprovalReader } from './approval-tables.ts';
import { MemoryLedgerReader } from './ledger-tables.ts';
import { MemoryMailReader } from './mail-tables.ts';
import type { Data } from './memory-data.ts';
import { memoryInsights } from './memory-insights.ts';
import { MemoryNotificationReader } from './notification-tables.ts';
import { MemoryPeopleReader } from './people-tables.ts';
import { MemoryProposalReader } from './proposal-tables.ts';
import { MemoryWebhookReader } from './webhook-tables.ts';

const byId = (a: { id: string }, b: { id: string }) => compareIds(a.id, b.id);

export class MemoryReader implements StoreReader {
  constructor(protected data: Data) {}
  async getAnswer(key: string) {
    return this.data.answers.get(key);
  }
  get webhooks() {
    return new MemoryWebhookReader(this.data.webhooks);
  }
  get accounts() {
    return new MemoryAccountReader(this.data.accounts);
  }
  get approvals() {
    return new MemoryApprovalReader(this.data.approvals, this.data.deals);
  }
  get ledger() {
    return new MemoryLedgerReader(this.data.ledger);
  }
  get insights() {
    return memoryInsights(this.data);
  }
  get proposals() {
    return new MemoryProposalReader(this.data.proposals, this.data.deals, this.data.gigs);
  }
  get people() {
    return new MemoryPeopleReader(this.data.accounts.people, this.data.accounts.sessions);
  }
  get mail() {
    return new MemoryMailReader(this.data.accounts.mail);
  }
  get notifications() {
    return new MemoryNotificationReader(this.data.accounts.notifications);
  }
  async getDeal(id: string) {
    return this.data.deals.get(id);
  }
  async listDeals(filter: DealFilter) {
    const { deals, stages } = this.data;
    let after = filter.afterId === undefined ? -1 : (deals.numberOf(filter.afterId) ?? -1);
    const { role, humanTrack, closerId, sellerId } = filter;
    const q = filter.q?.toLowerCase();
    if (
      role === undefined &&
      humanTrack === undefined &&
      closerId === undefined &&
      sellerId === undefined &&
      q === undefined
    ) {
      return stages.page(filter.stage, after, filter.limit).map((n) => deals.at(n) as Deal);
    }
    // Other filters read the stage's deals in batches until the page is full.
    const found: Deal[] = [];
    for (;;) {
      const batch = stages.page(filter.stage, after, 256);
      for (const n of batch) {
        const deal = deals.at(n) as Deal;
        if (role !== undefined && owningRole(deal) !== role) continue;
        if (humanTrack !== undefined && (deal.humanTrack === true) !== humanTrack) continue;
        if (closerId !== undefined && !this.hasGigOf(deal.id, closerId)) continue;
        if (sellerId !== undefined && deal.sellerId !== sellerId) continue;
        if (q !== undefined && !deal.account.name.toLowerCase().includes(q)) continue;
        found.push(deal);
        if (found.length === filter.limit) return found;
      }
      if (batch.length < 256) return found;
      after = batch[batch.length - 1];
    }
  }
  private hasGigOf(dealId: string, closerId: string): boolean {
    return (this.data.gigsByDeal.get(dealId) ?? []).some((id) => this.data.gigs.get(id)?.closerId === closerId);
  }
  async getGig(id: string) {
    return this.data.gigs.get(id);
  }
  async getCloser(id: string) {
    return this.data.closers.get(id);
  }
  async gigsOfDeal(dealId: string) {
    return (this.data.gigsByDeal.get(dealId) ?? []).map((id) => this.data.gigs.get(id) as Gig);
  }
  async listGigs(filter: GigFilter = {}) {
    const { gigs, gigsByDeal } = this.data;
    const after = filter.afterId === undefined ? 0 : (gigs.numberOf(filter.afterId) ?? 0);
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    // A deal's gigs are few and listed by deal; otherwise gigs are read in number order.
    const candidates =
      filter.dealId !== undefined
        ? (gigsByDeal.get(filter.dealId) ?? []).map((id) => gigs.get(id) as Gig).sort(byId)
        : gigs.valuesAfter(after);
    const found: Gig[] = [];
    for (const gig of candidates) {
      if (found.length >= limit) break;
      if (filter.afterId !== undefined && compareIds(gig.id, filter.afterId) <= 0) continue;
      if (filter.status !== undefined && gig.status !== filter.status) continue;
      if (filter.role !== undefined && gig.role !== filter.role) continue;
      if (filter.closerId !== undefined && gig.closerId !== filter.closerId) continue;
      if (filter.sellerId !== undefined && gig.sellerId !== filter.sellerId) continue;
      if (filter.openOrCloserId !== undefined && gig.status !== 'open' && gig.closerId !== filter.openOrCloserId)
        continue;
      found.push(gig);
    }
    return found;
  }
  async listClosers(page: { afterId?: string; limit?: number } = {}) {
    const { closers } = this.data;
    const after = page.afterId === undefined ? 0 : (closers.numberOf(page.afterId) ?? 0);
    const limit = page.limit ?? Number.POSITIVE_INFINITY;
    const found: Closer[] = [];
    for (const closer of closers.valuesAfter(after)) {
      if (found.length >= limit) break;
      found.push(closer);
    }
    return found;
  }
  async payoutsOfCloser(closerId: string) {
    return [...(this.data.payoutsByCloser.get(closerId) ?? [])];
  }
  async payoutsOfClosers(closerIds: readonly string[]) {
    return new Map(closerIds.map((id) => [id, [...(this.data.payoutsByCloser.get(id) ?? [])]]));
  }
  async payoutsOfDeal(dealId: string) {
    return [...(this.data.payoutsByDeal.get(dealId) ?? [])];
  }
  async counts() {
    return { deals: this.data.deals.size, closers: this.data.closers.size };
  }
  async clockOffsetMs() {
    return this.data.clockOffsetMs;
  }
  // From the due-time indexes: what is due, in due order, without reading every record.
  async dueGigs(now: number, limit: number) {
    const { gigs, gigTimers } = this.data;
    return gigTimers.due(now, limit).map((n) => gigs.at(n) as Gig);
  }
  async dueDeals(now: number, limit: number) {
    const { deals, dealTimers } = this.data;
    return dealTimers.due(now, limit).map((n) => deals.at(n) as Deal);
  }
}
