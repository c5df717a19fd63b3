// The in-memory feed (D-40, D-41): events in seq order, with an index by type and by deal so
// that a filtered page reads only matching events. Seqs here have no gaps (one writer at a
// time, a rollback takes its seqs back), so an event's seq is its place in the log: the log
// keeps the drafts themselves and two numbers per event, no wrapper object (what the log holds
// is live heap the garbage collector walks; docs/performance.md measures the growth per event).
// Its data shares the immutable records the store holds. Purged from the front (retention),
// in amortized constant time.
import type { PublicEventDraft } from '../../domain/public-events.ts';
import { eventDealId } from '../../domain/public-events.ts';
import type { EventFilter, StoredEvent } from '../store.ts';

/** The first index of `seqs` whose seq is above `after` (seqs increase). */
function firstAfter(seqs: readonly number[], after: number): number {
  let lo = 0;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seqs[mid] <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function push(map: Map<string, number[]>, key: string, seq: number): void {
  const list = map.get(key);
  if (list) list.push(seq);
  else map.set(key, [seq]);
}

export class EventLog {
  /** events[i] has seq base + i; entries before head are purged (dropped in batches). */
  private events: PublicEventDraft[] = [];
  private recordedAt: number[] = [];
  private base: number;
  private head = 0;
  /** The seqs of each type's and each deal's events, in order. */
  private byType = new Map<string, number[]>();
  private byDeal = new Map<string, number[]>();

  /** lastSeq carries on across a reset: seq is never reused (D-41). */
  constructor(lastSeq = 0) {
    this.base = lastSeq + 1;
  }

  get lastSeq(): number {
    return this.base + this.events.length - 1;
  }

  get size(): number {
    return this.events.length - this.head;
  }

  append(event: PublicEventDraft, recordedAt: number): void {
    const seq = this.base + this.events.length;
    this.events.push(event);
    this.recordedAt.push(recordedAt);
    push(this.byType, event.type, seq);
    const dealId = eventDealId(event);
    if (dealId !== undefined) push(this.byDeal, dealId, seq);
  }

  /** Takes back the last `count` appends (a rolled-back unit of work). */
  truncate(count: number): void {
    for (let i = 0; i < count; i++) {
      const event = this.events.pop() as PublicEventDraft;
      this.recordedAt.pop();
      this.byType.get(event.type)?.pop();
      const dealId = eventDealId(event);
      if (dealId !== undefined) {
        const list = this.byDeal.get(dealId) as number[];
        list.pop();
        if (list.length === 0) this.byDeal.delete(dealId);
      }
    }
  }

  page(filter: EventFilter): StoredEvent[] {
    const firstKept = this.base + this.head;
    const after = Math.max(filter.after, firstKept - 1);
    const found: StoredEvent[] = [];
    if (filter.type === undefined && filter.dealId === undefined) {
      for (let seq = after + 1; seq <= this.lastSeq && found.length < filter.limit; seq++) {
        found.push({ seq, event: this.events[seq - this.base] });
      }
      return found;
    }
    // The shorter of the two indexes, the other filter checked on each event.
    let seqs: readonly number[] = filter.type === undefined ? [] : (this.byType.get(filter.type) ?? []);
    if (filter.dealId !== undefined) {
      const ofDeal = this.byDeal.get(filter.dealId) ?? [];
      if (filter.type === undefined || ofDeal.length < seqs.length) seqs = ofDeal;
    }
    for (let i = firstAfter(seqs, after); i < seqs.length && found.length < filter.limit; i++) {
      const seq = seqs[i];
      const event = this.events[seq - this.base];
      if (filter.type !== undefined && event.type !== filter.type) continue;
      if (filter.dealId !== undefined && eventDealId(event) !== filter.dealId) continue;
      found.push({ seq, event });
    }
    return found;
  }

  /** Drops the events recorded before `before`; returns how many. Not undone: see purgeEvents. */
  purge(before: number): number {
    let purged = 0;
    while (this.head < this.events.length && this.recordedAt[this.head] < before) {
      this.head++;
      purged++;
    }
    // The arrays are rebuilt once half of the log is purged: amortized constant per event.
    if (purged > 0 && this.head * 2 >= this.events.length) this.compact();
    return purged;
  }

  private compact(): void {
    const firstKept = this.base + this.head;
    this.events = this.events.slice(this.head);
    this.recordedAt = this.recordedAt.slice(this.head);
    this.base = firstKept;
    this.head = 0;
    this.byType = new Map();
    this.byDeal = new Map();
    this.events.forEach((event, i) => {
      push(this.byType, event.type, firstKept + i);
      const dealId = eventDealId(event);
      if (dealId !== undefined) push(this.byDeal, dealId, firstKept + i);
    });
  }
}
