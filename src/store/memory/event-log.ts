// The in-memory feed (D-40, D-41): events in seq order, with an index by type and by deal so
// that a filtered page reads only matching events. Seqs here have no gaps (one writer at a
// time, a rollback takes its seqs back), so an event's seq is its place in the log. What the
// log holds is live heap that every garbage collection walks, and each page it grows by is a page
// fault (dear on a virtual machine, docs/performance.md), so it holds the least it can: per event its
// kind, two numbers, its data and its audience (D-57, usually none). The kind is the event's type,
// or for a stage change its move (from, to, by), one shared string per move, and the data kept
// is then the deal's id alone; for an event whose data is one record (`{deal}`, `{gig}`,
// `{closer}`, `{line}`) it is the record alone, which the store holds anyway. The event is put
// back together when read. Its lists grow by chunks (column.ts), never by copying themselves.
// Purged from the front (retention), in amortized constant time.

import { OFFER_EVENTS, PLATFORM_EVENTS, seesEvent } from '../../domain/access.ts';
import type { EventAudience, PublicEventDraft, PublicEventType } from '../../domain/public-events.ts';
import { eventDealId } from '../../domain/public-events.ts';
import { STAGES } from '../../domain/stages.ts';
import type { EventFilter, StoredEvent } from '../store.ts';
import { Column, type Indexed } from './column.ts';

/** The first index of `seqs` whose seq is above `after` (seqs increase). */
function firstAfter(seqs: Indexed<number>, after: number): number {
  let lo = 0;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((seqs.at(mid) as number) <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function push(map: Map<string, number[]>, key: string, seq: number): void {
  const list = map.get(key);
  if (list) list.push(seq);
  else map.set(key, [seq]);
}

/**
 * Adds a seq to a list that grows long (a type's, a Seller's or a closer's): a column, which
 * also keeps a page's merge of such lists reading one kind of list.
 */
function pushLong(map: Map<string, Column<number>>, key: string, seq: number): void {
  let list = map.get(key);
  if (list === undefined) {
    list = Column.ofNumbers();
    map.set(key, list);
  }
  list.push(seq);
}

/**
 * The seqs above `after` of several increasing lists, in order, lazily (a principal's own events
 * and the types it shares with every principal of its kind): a page reads only what it returns.
 */
function* merged(after: number, lists: readonly Indexed<number>[]): Generator<number> {
  const at = lists.map((list) => firstAfter(list, after));
  for (;;) {
    let next = -1;
    for (let k = 0; k < lists.length; k++) {
      if (
        at[k] < lists[k].length &&
        (next < 0 || (lists[k].at(at[k]) as number) < (lists[next].at(at[next]) as number))
      )
        next = k;
    }
    if (next < 0) return;
    yield lists[next].at(at[next]++) as number;
  }
}

/** The key of the one record in the data of these types: the log keeps the record alone. */
const RECORD_KEY: Partial<Record<PublicEventType, string>> = {
  'deal.created': 'deal',
  'gig.posted': 'gig',
  'closer.enrolled': 'closer',
  'payout.posted': 'line',
};

/**
 * An event's audience (D-57: its Seller, closer and actor), or undefined when it names none.
 * The events of one unit of work mostly share theirs: `previous` is kept when it is the same.
 */
function audienceOf(event: PublicEventDraft, previous: EventAudience | undefined): EventAudience | undefined {
  const { sellerId, closerId, actor } = event;
  if (sellerId === undefined && closerId === undefined && actor === undefined) return undefined;
  if (previous?.sellerId === sellerId && previous?.closerId === closerId && previous?.actor === actor) return previous;
  const audience: { -readonly [K in keyof EventAudience]: EventAudience[K] } = {};
  if (sellerId !== undefined) audience.sellerId = sellerId;
  if (closerId !== undefined) audience.closerId = closerId;
  if (actor !== undefined) audience.actor = actor;
  return audience;
}

const STAGE_CHANGED = 'deal.stage_changed';
type StageChange = Extract<PublicEventDraft, { type: typeof STAGE_CHANGED }>['data'];
type Move = Omit<StageChange, 'dealId'>;
const MOVERS = ['agent', 'human', 'service'] as const;

/** Every move's kind, made once: index (from, to, by) in STAGES and MOVERS order. */
const MOVE_KINDS: string[] = [];
/** What each kind names. */
const MOVES = new Map<string, Move>();
for (const from of STAGES)
  for (const to of STAGES)
    for (const by of MOVERS) {
      const kind = `${STAGE_CHANGED} ${from} ${to} ${by}`;
      MOVE_KINDS.push(kind);
      MOVES.set(kind, { from, to, by });
    }

/**
 * An event's kind: its type, or its move's for a stage change (its type for a move the table
 * lacks, whose data is then kept whole).
 */
function kindOf(event: PublicEventDraft): string {
  if (event.type !== STAGE_CHANGED) return event.type;
  const { from, to, by } = event.data;
  const f = STAGES.indexOf(from);
  const t = STAGES.indexOf(to);
  const b = MOVERS.indexOf(by as (typeof MOVERS)[number]);
  if (f < 0 || t < 0 || b < 0) return STAGE_CHANGED;
  return MOVE_KINDS[(f * STAGES.length + t) * MOVERS.length + b];
}

/** The type of the events of a kind. */
const typeOf = (kind: string): PublicEventType => (MOVES.has(kind) ? STAGE_CHANGED : (kind as PublicEventType));

/** What the log keeps of an event's data, given its kind. */
function kept(event: PublicEventDraft, kind: string): unknown {
  if (kind !== event.type) return (event.data as StageChange).dealId;
  const key = RECORD_KEY[event.type];
  return key === undefined ? event.data : (event.data as Record<string, unknown>)[key];
}

export class EventLog {
  /** Event i has seq base + i; events before head are purged (dropped in batches). Each one's kind (kindOf). */
  private kinds = new Column<string>();
  private ats = Column.ofNumbers();
  private datas = new Column<unknown>();
  private recordedAt = Column.ofNumbers();
  /** Each event's audience (D-57), undefined for one that names none (the demo's). */
  private audiences = new Column<EventAudience | undefined>();
  private base: number;
  private head = 0;
  /** The seqs of each type's events, in order. */
  private byType = new Map<string, Column<number>>();
  /**
   * The seqs of each deal's events, built on the first page filtered by deal and kept from then
   * on: a service whose readers never filter by deal pays nothing for it on every write.
   */
  private byDeal: Map<string, number[]> | undefined;
  /**
   * The seqs of each Seller's and each closer's events (their ids never collide), built on the
   * first page filtered by either, as byDeal.
   */
  private byPrincipal: Map<string, Column<number>> | undefined;

  /** lastSeq carries on across a reset: seq is never reused (D-41). */
  constructor(lastSeq = 0) {
    this.base = lastSeq + 1;
  }

  get lastSeq(): number {
    return this.base + this.kinds.length - 1;
  }

  get size(): number {
    return this.kinds.length - this.head;
  }

  /** The event at index i, put back together. */
  private event(i: number): PublicEventDraft {
    const kind = this.kinds.at(i);
    const move = MOVES.get(kind);
    const type = move === undefined ? (kind as PublicEventType) : STAGE_CHANGED;
    const key = RECORD_KEY[type];
    const data =
      move !== undefined
        ? { dealId: this.datas.at(i), from: move.from, to: move.to, by: move.by }
        : key === undefined
          ? this.datas.at(i)
          : { [key]: this.datas.at(i) };
    const audience = this.audiences.at(i);
    if (audience === undefined) return { type, at: this.ats.at(i), data } as PublicEventDraft;
    return { ...audience, type, at: this.ats.at(i), data } as PublicEventDraft;
  }

  append(event: PublicEventDraft, recordedAt: number): void {
    const seq = this.base + this.kinds.length;
    const kind = kindOf(event);
    this.kinds.push(kind);
    this.ats.push(event.at);
    this.datas.push(kept(event, kind));
    this.recordedAt.push(recordedAt);
    this.audiences.push(audienceOf(event, this.audiences.last()));
    pushLong(this.byType, event.type, seq);
    if (this.byDeal) {
      const dealId = eventDealId(event);
      if (dealId !== undefined) push(this.byDeal, dealId, seq);
    }
    if (this.byPrincipal) {
      if (event.sellerId !== undefined) pushLong(this.byPrincipal, event.sellerId, seq);
      if (event.closerId !== undefined) pushLong(this.byPrincipal, event.closerId, seq);
    }
  }

  /** Takes back the last `count` appends (a rolled-back unit of work). */
  truncate(count: number): void {
    for (let i = 0; i < count; i++) {
      const event = this.event(this.kinds.length - 1);
      this.kinds.pop();
      this.ats.pop();
      this.datas.pop();
      this.recordedAt.pop();
      this.audiences.pop();
      this.byType.get(event.type)?.pop();
      if (this.byPrincipal) {
        for (const id of [event.sellerId, event.closerId]) {
          if (id === undefined) continue;
          const list = this.byPrincipal.get(id) as Column<number>;
          list.pop();
          if (list.length === 0) this.byPrincipal.delete(id);
        }
      }
      const dealId = this.byDeal ? eventDealId(event) : undefined;
      if (this.byDeal && dealId !== undefined) {
        const list = this.byDeal.get(dealId) as number[];
        list.pop();
        if (list.length === 0) this.byDeal.delete(dealId);
      }
    }
  }

  /** `offered`: whether a posting's gig is one the reader sees now (a closer's page, D-237). */
  page(filter: EventFilter, offered?: (gigId: string) => boolean): StoredEvent[] {
    const firstKept = this.base + this.head;
    const after = Math.max(filter.after, firstKept - 1);
    const found: StoredEvent[] = [];
    if (filter.types !== undefined) {
      for (const seq of merged(
        after,
        filter.types.map((type) => this.byType.get(type) ?? []),
      )) {
        if (found.length === filter.limit) break;
        found.push({ seq, event: this.event(seq - this.base) });
      }
      return found;
    }
    if (
      filter.type === undefined &&
      filter.dealId === undefined &&
      filter.sellerId === undefined &&
      filter.closerId === undefined
    ) {
      for (let seq = after + 1; seq <= this.lastSeq && found.length < filter.limit; seq++) {
        found.push({ seq, event: this.event(seq - this.base) });
      }
      return found;
    }
    // The shortest of the indexes, the other filters checked on each event. A principal's view
    // (D-58) is the union of its own events and the types every such principal sees.
    let seqs: Indexed<number> | undefined =
      filter.type === undefined ? undefined : (this.byType.get(filter.type) ?? []);
    if (filter.dealId !== undefined) {
      const ofDeal = this.dealIndex().get(filter.dealId) ?? [];
      if (seqs === undefined || ofDeal.length < seqs.length) seqs = ofDeal;
    }
    const principal = filter.sellerId ?? filter.closerId;
    const visibility = { sellerId: filter.sellerId, closerId: filter.closerId };
    let candidates: Iterable<number>;
    if (principal !== undefined && seqs === undefined) {
      const shared = filter.sellerId !== undefined ? PLATFORM_EVENTS : [...OFFER_EVENTS, ...PLATFORM_EVENTS];
      const own = this.principalIndex().get(principal) ?? [];
      candidates = merged(after, [own, ...shared.map((type) => this.byType.get(type) ?? [])]);
    } else {
      candidates = merged(after, [seqs ?? []]);
    }
    for (const seq of candidates) {
      if (found.length >= filter.limit) break;
      const event = this.event(seq - this.base);
      if (filter.type !== undefined && event.type !== filter.type) continue;
      if (filter.dealId !== undefined && eventDealId(event) !== filter.dealId) continue;
      if (principal !== undefined && !seesEvent(visibility, event)) continue;
      if (offered && event.type === 'gig.posted' && event.closerId === undefined && !offered(event.data.gig.id))
        continue;
      found.push({ seq, event });
    }
    return found;
  }

  /** Drops the events recorded before `before`; returns how many. Not undone: see purgeEvents. */
  purge(before: number): number {
    let purged = 0;
    while (this.head < this.kinds.length && this.recordedAt.at(this.head) < before) {
      this.head++;
      purged++;
    }
    // The arrays are rebuilt once half of the log is purged: amortized constant per event.
    if (purged > 0 && this.head * 2 >= this.kinds.length) this.compact();
    return purged;
  }

  private dealIndex(): Map<string, number[]> {
    if (!this.byDeal) {
      const byDeal = new Map<string, number[]>();
      for (let i = this.head; i < this.kinds.length; i++) {
        const dealId = eventDealId(this.event(i));
        if (dealId !== undefined) push(byDeal, dealId, this.base + i);
      }
      this.byDeal = byDeal;
    }
    return this.byDeal;
  }

  private principalIndex(): Map<string, Column<number>> {
    if (!this.byPrincipal) {
      const byPrincipal = new Map<string, Column<number>>();
      for (let i = this.head; i < this.kinds.length; i++) {
        const audience = this.audiences.at(i);
        if (audience?.sellerId !== undefined) pushLong(byPrincipal, audience.sellerId, this.base + i);
        if (audience?.closerId !== undefined) pushLong(byPrincipal, audience.closerId, this.base + i);
      }
      this.byPrincipal = byPrincipal;
    }
    return this.byPrincipal;
  }

  private compact(): void {
    const firstKept = this.base + this.head;
    this.kinds = this.kinds.from(this.head);
    this.ats = this.ats.from(this.head);
    this.datas = this.datas.from(this.head);
    this.recordedAt = this.recordedAt.from(this.head);
    this.audiences = this.audiences.from(this.head);
    this.base = firstKept;
    this.head = 0;
    this.byType = new Map();
    this.byDeal = undefined;
    this.byPrincipal = undefined;
    for (let i = 0; i < this.kinds.length; i++) pushLong(this.byType, typeOf(this.kinds.at(i)), firstKept + i);
  }
}
