// The in-memory feed (D-40, D-41): events in seq order, with an index by type and by deal so
// that a filtered page reads only matching events. An event costs its entry and two index
// slots; its data shares the immutable records the store holds (docs/performance.md measures
// the growth per event). Purged from the front (retention), in amortized constant time.
import type { PublicEventDraft } from '../../domain/public-events.ts';
import { eventDealId } from '../../domain/public-events.ts';
import type { EventFilter, StoredEvent } from '../store.ts';

interface Entry extends StoredEvent {
  recordedAt: number;
}

/** The first index of `list` (from `from`) whose seq is above `after`. */
function firstAfter(list: readonly Entry[], from: number, after: number): number {
  let lo = from;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].seq <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class EventLog {
  private entries: Entry[] = [];
  /** Entries before head are purged (dropped from the array in batches). */
  private head = 0;
  private byType = new Map<string, Entry[]>();
  private byDeal = new Map<string, Entry[]>();

  /** lastSeq carries on across a reset: seq is never reused (D-41). */
  constructor(private last = 0) {}

  get lastSeq(): number {
    return this.last;
  }

  get size(): number {
    return this.entries.length - this.head;
  }

  append(event: PublicEventDraft, recordedAt: number): void {
    this.last += 1;
    const entry: Entry = { seq: this.last, event, recordedAt };
    this.entries.push(entry);
    push(this.byType, event.type, entry);
    const dealId = eventDealId(event);
    if (dealId !== undefined) push(this.byDeal, dealId, entry);
  }

  /** Takes back the last `count` appends (a rolled-back unit of work). */
  truncate(count: number): void {
    for (let i = 0; i < count; i++) {
      const entry = this.entries.pop() as Entry;
      this.byType.get(entry.event.type)?.pop();
      const dealId = eventDealId(entry.event);
      if (dealId !== undefined) {
        const list = this.byDeal.get(dealId) as Entry[];
        list.pop();
        if (list.length === 0) this.byDeal.delete(dealId);
      }
      this.last -= 1;
    }
  }

  page(filter: EventFilter): StoredEvent[] {
    const firstSeq = this.head < this.entries.length ? this.entries[this.head].seq : this.last + 1;
    const after = Math.max(filter.after, firstSeq - 1);
    let list: readonly Entry[] = this.entries;
    if (filter.type !== undefined) list = this.byType.get(filter.type) ?? [];
    if (filter.dealId !== undefined) {
      const ofDeal = this.byDeal.get(filter.dealId) ?? [];
      if (filter.type === undefined || ofDeal.length < list.length) list = ofDeal;
    }
    const found: StoredEvent[] = [];
    for (let i = firstAfter(list, 0, after); i < list.length && found.length < filter.limit; i++) {
      const entry = list[i];
      if (filter.type !== undefined && entry.event.type !== filter.type) continue;
      if (filter.dealId !== undefined && eventDealId(entry.event) !== filter.dealId) continue;
      found.push({ seq: entry.seq, event: entry.event });
    }
    return found;
  }

  /** Drops the events recorded before `before`; returns how many. Not undone: see purgeEvents. */
  purge(before: number): number {
    let purged = 0;
    while (this.head < this.entries.length && this.entries[this.head].recordedAt < before) {
      this.head++;
      purged++;
    }
    // The arrays are rebuilt once half of the main one is purged: amortized constant per event.
    if (purged > 0 && this.head * 2 >= this.entries.length) this.compact();
    return purged;
  }

  private compact(): void {
    const kept = this.entries.slice(this.head);
    this.entries = [];
    this.head = 0;
    this.byType = new Map();
    this.byDeal = new Map();
    const last = this.last;
    for (const entry of kept) {
      this.entries.push(entry);
      push(this.byType, entry.event.type, entry);
      const dealId = eventDealId(entry.event);
      if (dealId !== undefined) push(this.byDeal, dealId, entry);
    }
    this.last = last;
  }
}

function push(map: Map<string, Entry[]>, key: string, entry: Entry): void {
  const list = map.get(key);
  if (list) list.push(entry);
  else map.set(key, [entry]);
}
