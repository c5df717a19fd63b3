// The memory adapter's refused proposals (D-61): the kept records by number, each deal's
// numbers, and each deal's tally, which keeps the counts of the records dropped past a deal's
// KEPT_PER_DEAL. Units of work run one at a time here; a record's undo puts everything back.
import { formatId } from '../../domain/ids.ts';
import {
  acceptedMoves,
  KEPT_PER_DEAL,
  type RefusedProposal,
  type RefusedProposalDraft,
  type TallyLine,
} from '../../domain/proposals.ts';
import type { Deal, Gig } from '../../domain/records.ts';
import type { ProposalFilter, ProposalReader, ProposalUnit, TallyScope } from '../proposals.ts';
import type { NumberedTable } from './numbered-table.ts';

interface Tally {
  sellerId?: string;
  /** By `by code principal keyId`: one line each. */
  lines: Map<string, TallyLine>;
}

export class ProposalTables {
  counter = 0;
  /** Kept records by number. */
  readonly records = new Map<number, RefusedProposal>();
  /** The numbers of the kept records, ascending (a page walks it from the end). */
  readonly live: number[] = [];
  /** Each deal's kept numbers, ascending. */
  readonly byDeal = new Map<string, number[]>();
  readonly tallies = new Map<string, Tally>();
}

const numberOf = (id: string) => Number(id.slice('prop_'.length));
const lineKey = (by: string, code: string, actor: RefusedProposal['actor']) =>
  `${by} ${code} ${actor?.principal ?? ''} ${actor?.keyId ?? ''}`;

/** The index of the first number in ascending `numbers` that is not below `n`. */
function lowerBound(numbers: readonly number[], n: number): number {
  let lo = 0;
  let hi = numbers.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((numbers[mid] as number) < n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function matches(record: RefusedProposal, filter: ProposalFilter): boolean {
  if (filter.dealId !== undefined && record.dealId !== filter.dealId) return false;
  if (filter.by !== undefined && record.by !== filter.by) return false;
  if (filter.code !== undefined && record.code !== filter.code) return false;
  if (filter.keyId !== undefined && record.actor?.keyId !== filter.keyId) return false;
  if (filter.sellerId !== undefined && record.sellerId !== filter.sellerId) return false;
  if (filter.principal !== undefined && record.actor?.principal !== filter.principal) return false;
  return true;
}

export class MemoryProposalReader implements ProposalReader {
  constructor(
    protected readonly tables: ProposalTables,
    private readonly deals: NumberedTable<Deal>,
    private readonly gigs: NumberedTable<Gig>,
  ) {}

  async list(filter: ProposalFilter): Promise<RefusedProposal[]> {
    const numbers = filter.dealId === undefined ? this.tables.live : (this.tables.byDeal.get(filter.dealId) ?? []);
    let end = numbers.length;
    if (filter.beforeId !== undefined) end = lowerBound(numbers, numberOf(filter.beforeId));
    const page: RefusedProposal[] = [];
    for (let i = end - 1; i >= 0 && page.length < filter.limit; i--) {
      const record = this.tables.records.get(numbers[i] as number) as RefusedProposal;
      if (matches(record, filter)) page.push(record);
    }
    return page;
  }

  async tally(scope: TallyScope): Promise<TallyLine[]> {
    const lines: TallyLine[] = [];
    const { sellerId, closerId } = scope;
    for (const tally of this.tables.tallies.values()) {
      if (sellerId !== undefined && tally.sellerId !== sellerId) continue;
      for (const line of tally.lines.values())
        if (closerId === undefined || line.principal === closerId) lines.push(line);
    }
    if (closerId !== undefined) {
      // A closer's accepted moves are on the deals of its gigs.
      const dealIds = new Set<string>();
      for (const gig of this.gigs.values()) if (gig.closerId === closerId) dealIds.add(gig.dealId);
      for (const id of dealIds) {
        const deal = this.deals.get(id);
        if (deal) for (const line of acceptedMoves(deal)) if (line.principal === closerId) lines.push(line);
      }
      return lines;
    }
    for (const deal of this.deals.values())
      if (sellerId === undefined || deal.sellerId === sellerId) lines.push(...acceptedMoves(deal));
    return lines;
  }
}

export class MemoryProposalUnit extends MemoryProposalReader implements ProposalUnit {
  constructor(
    tables: ProposalTables,
    deals: NumberedTable<Deal>,
    gigs: NumberedTable<Gig>,
    private readonly undo: (() => void)[],
  ) {
    super(tables, deals, gigs);
  }

  async record(draft: RefusedProposalDraft): Promise<RefusedProposal> {
    const tables = this.tables;
    const number = ++tables.counter;
    const record: RefusedProposal = { id: formatId('prop', number), ...draft };
    tables.records.set(number, record);
    tables.live.push(number);
    const kept = tables.byDeal.get(draft.dealId) ?? [];
    if (kept.length === 0) tables.byDeal.set(draft.dealId, kept);
    kept.push(number);
    // The deal's oldest record goes once it has more than it keeps; its count stays in the tally.
    const dropped = kept.length > KEPT_PER_DEAL ? (kept.shift() as number) : undefined;
    const droppedRecord = dropped === undefined ? undefined : tables.records.get(dropped);
    let droppedAt = -1;
    if (dropped !== undefined) {
      tables.records.delete(dropped);
      droppedAt = lowerBound(tables.live, dropped);
      tables.live.splice(droppedAt, 1);
    }
    let tally = tables.tallies.get(draft.dealId);
    if (!tally) {
      tally = { lines: new Map() };
      if (draft.sellerId !== undefined) tally.sellerId = draft.sellerId;
      tables.tallies.set(draft.dealId, tally);
    }
    const key = lineKey(draft.by, draft.code, draft.actor);
    const previous = tally.lines.get(key);
    const line: { by: TallyLine['by']; code: string; principal?: string; keyId?: string; n: number } = {
      by: draft.by,
      code: draft.code,
      n: (previous?.n ?? 0) + 1,
    };
    if (draft.actor !== undefined) {
      line.principal = draft.actor.principal;
      line.keyId = draft.actor.keyId;
    }
    tally.lines.set(key, line as TallyLine);
    const lines = tally.lines;
    this.undo.push(() => {
      if (previous) lines.set(key, previous);
      else lines.delete(key);
      if (lines.size === 0) tables.tallies.delete(draft.dealId);
      if (dropped !== undefined && droppedRecord !== undefined) {
        tables.records.set(dropped, droppedRecord);
        tables.live.splice(droppedAt, 0, dropped);
        kept.unshift(dropped);
      }
      kept.pop();
      if (kept.length === 0) tables.byDeal.delete(draft.dealId);
      tables.live.pop();
      tables.records.delete(number);
      tables.counter = number - 1;
    });
    return record;
  }
}
