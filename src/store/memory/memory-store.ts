// The in-memory adapter (the demo default, D-3). One unit of work at a time: a queue
// serializes them, writes go straight to the tables and an undo log rolls them back on a throw.
import { compareIds, type IdKind } from '../../domain/ids.ts';
import type { PublicEventDraft } from '../../domain/public-events.ts';
import type { Closer, Deal, Gig, PayoutLine } from '../../domain/records.ts';
import { owningRole } from '../../domain/stages.ts';
import {
  type DealFilter,
  DuplicatePayoutError,
  type EventFilter,
  type GigFilter,
  type Store,
  type StoredAnswer,
  type StoredEvent,
  type StoreReader,
  type UnitOfWork,
} from '../store.ts';
import { DueIndex } from './due-index.ts';
import { EventLog } from './event-log.ts';
import { NumberedTable } from './numbered-table.ts';
import { StageIndex } from './stage-index.ts';
import { MemoryWebhookReader, MemoryWebhookUnit, WebhookTables } from './webhook-tables.ts';

interface Data {
  deals: NumberedTable<Deal>;
  /** Stage of each deal by number, for stage-filtered pages (deal ids are deal_<number>). */
  stages: StageIndex;
  gigs: NumberedTable<Gig>;
  gigsByDeal: Map<string, string[]>;
  closers: NumberedTable<Closer>;
  payouts: Map<string, PayoutLine>; // keyed by gigId: a gig pays once
  payoutsByCloser: Map<string, PayoutLine[]>;
  payoutsByDeal: Map<string, PayoutLine[]>;
  counters: Record<IdKind, number>;
  clockOffsetMs: number;
  /** Idempotency keys in the order they were stored, which is storedAt order (purged from the front). */
  answers: Map<string, StoredAnswer>;
  /** The feed (D-41); a reset starts an empty one that goes on from the last seq. */
  events: EventLog;
  /** Webhooks and their deliveries (D-42). */
  webhooks: WebhookTables;
  /** Deals by stall time and gigs by timer time, for the platform timers (due-index.ts). */
  dealTimers: DueIndex;
  gigTimers: DueIndex;
}

function emptyData(lastSeq = 0, webhookCursor = 0): Data {
  const deals = new NumberedTable<Deal>('deal');
  const gigs = new NumberedTable<Gig>('gig');
  return {
    deals,
    stages: new StageIndex(),
    gigs,
    gigsByDeal: new Map(),
    closers: new NumberedTable('closer'),
    payouts: new Map(),
    payoutsByCloser: new Map(),
    payoutsByDeal: new Map(),
    counters: { deal: 0, gig: 0, closer: 0 },
    clockOffsetMs: 0,
    answers: new Map(),
    events: new EventLog(lastSeq),
    webhooks: new WebhookTables(webhookCursor),
    dealTimers: new DueIndex((n, dueAt) => deals.at(n)?.stallDueAt === dueAt),
    gigTimers: new DueIndex((n, dueAt) => gigs.at(n)?.timerDueAt === dueAt),
  };
}

const byId = (a: { id: string }, b: { id: string }) => compareIds(a.id, b.id);

function append<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

class MemoryReader implements StoreReader {
  constructor(protected data: Data) {}
  get webhooks() {
    return new MemoryWebhookReader(this.data.webhooks);
  }
  async getDeal(id: string) {
    return this.data.deals.get(id);
  }
  async listDeals(filter: DealFilter) {
    const { deals, stages } = this.data;
    let after = filter.afterId === undefined ? -1 : (deals.numberOf(filter.afterId) ?? -1);
    const { role, humanTrack, closerId } = filter;
    if (role === undefined && humanTrack === undefined && closerId === undefined) {
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

class MemoryUnitOfWork extends MemoryReader implements UnitOfWork {
  // Units of work run one at a time in memory: a read is as good as a lock.
  readCloser(id: string) {
    return this.getCloser(id);
  }

  readonly undo: (() => void)[] = [];
  constructor(
    data: Data,
    private readonly replace: (data: Data) => void,
  ) {
    super(data);
  }

  override get webhooks() {
    return new MemoryWebhookUnit(this.data.webhooks, this.data.events, this.undo);
  }

  async nextNumbers() {
    const { deal, gig, closer } = this.data.counters;
    return { deal: deal + 1, gig: gig + 1, closer: closer + 1 };
  }
  async takeNumber(kind: IdKind) {
    const counters = this.data.counters;
    const previous = counters[kind];
    this.undo.push(() => {
      counters[kind] = previous;
    });
    counters[kind] = previous + 1;
    return counters[kind];
  }
  async putDeal(deal: Deal) {
    const { deals, stages } = this.data;
    const previous = deals.set(deal);
    const number = deals.numberOf(deal.id) as number;
    if (previous?.stage !== deal.stage) stages.set(number, deal.stage);
    const timers = this.data.dealTimers;
    const moved = previous?.stallDueAt !== deal.stallDueAt;
    if (moved && deal.stallDueAt !== undefined) timers.add(number, deal.stallDueAt);
    this.undo.push(() => {
      deals.restore(deal.id, previous);
      stages.set(number, previous?.stage);
      // The entry this put added is stale once undone; the previous time's may have been
      // dropped meanwhile (a timer read in this unit of work saw it stale): it is added again.
      if (moved && previous?.stallDueAt !== undefined) timers.add(number, previous.stallDueAt);
    });
  }
  async putGig(gig: Gig) {
    const { gigs, gigsByDeal } = this.data;
    const previous = gigs.set(gig);
    if (!previous) append(gigsByDeal, gig.dealId, gig.id);
    const timers = this.data.gigTimers;
    const number = gigs.numberOf(gig.id) as number;
    const moved = previous?.timerDueAt !== gig.timerDueAt;
    if (moved && gig.timerDueAt !== undefined) timers.add(number, gig.timerDueAt);
    this.undo.push(() => {
      gigs.restore(gig.id, previous);
      if (!previous) gigsByDeal.get(gig.dealId)?.pop();
      if (moved && previous?.timerDueAt !== undefined) timers.add(number, previous.timerDueAt);
    });
  }
  async putCloser(closer: Closer) {
    const { closers } = this.data;
    const previous = closers.set(closer);
    this.undo.push(() => closers.restore(closer.id, previous));
  }
  async appendPayout(line: PayoutLine) {
    const { payouts, payoutsByCloser, payoutsByDeal } = this.data;
    if (payouts.has(line.gigId)) throw new DuplicatePayoutError(line.gigId);
    payouts.set(line.gigId, line);
    append(payoutsByCloser, line.closerId, line);
    append(payoutsByDeal, line.dealId, line);
    this.undo.push(() => {
      payouts.delete(line.gigId);
      payoutsByCloser.get(line.closerId)?.pop();
      payoutsByDeal.get(line.dealId)?.pop();
    });
  }
  async setClockOffsetMs(offsetMs: number) {
    const previous = this.data.clockOffsetMs;
    const data = this.data;
    this.undo.push(() => {
      data.clockOffsetMs = previous;
    });
    data.clockOffsetMs = offsetMs;
  }
  async advanceClockOffsetMs(deltaMs: number) {
    await this.setClockOffsetMs(this.data.clockOffsetMs + deltaMs);
    return this.data.clockOffsetMs;
  }
  async getAnswer(key: string) {
    return this.data.answers.get(key);
  }
  async putAnswer(key: string, answer: StoredAnswer) {
    const { answers } = this.data;
    const previous = answers.get(key);
    // Deleted first, so that the map stays in storedAt order.
    answers.delete(key);
    answers.set(key, answer);
    this.undo.push(() => {
      answers.delete(key);
      if (previous) answers.set(key, previous);
    });
  }
  async purgeAnswers(before: number) {
    const { answers } = this.data;
    let purged = 0;
    for (const [key, answer] of answers) {
      if (answer.storedAt >= before) break;
      answers.delete(key);
      this.undo.push(() => answers.set(key, answer));
      purged++;
    }
    return purged;
  }
  async publish(events: readonly PublicEventDraft[], recordedAt: number) {
    const log = this.data.events;
    for (const event of events) log.append(event, recordedAt);
    this.undo.push(() => log.truncate(events.length));
  }
  async purgeEvents(before: number) {
    // Not undone: forgetting what retention allows to forget is safe to keep whatever follows.
    return this.data.events.purge(before);
  }
  async lock(_name: string) {
    // Every unit of work already runs alone here (P-23): holding any lock is implied.
  }
  async wipe() {
    const previous = this.data;
    this.undo.push(() => this.replace(previous));
    const fresh = emptyData(previous.events.lastSeq, previous.webhooks.cursor);
    this.replace(fresh);
    this.data = fresh;
  }
}

export class MemoryStore implements Store {
  private data = emptyData();
  private queue: Promise<unknown> = Promise.resolve();

  /** Runs work after every earlier unit of work has finished. */
  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  read<T>(work: (reader: StoreReader) => Promise<T>): Promise<T> {
    return this.serialize(() => work(new MemoryReader(this.data)));
  }

  transaction<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    return this.serialize(async () => {
      const uow = new MemoryUnitOfWork(this.data, (data) => {
        this.data = data;
      });
      try {
        return await work(uow);
      } catch (error) {
        for (const step of uow.undo.reverse()) step();
        throw error;
      }
    });
  }

  events(filter: EventFilter): Promise<StoredEvent[]> {
    return this.serialize(async () => this.data.events.page(filter));
  }

  lastSeq(): Promise<number> {
    return this.serialize(async () => this.data.events.lastSeq);
  }

  /** One instance only: its own moves of the clock are all there is. */
  watchClockOffset(): () => void {
    return () => undefined;
  }

  async close() {}
}
