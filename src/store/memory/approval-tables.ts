// The memory adapter's approvals (D-69, D-70): by number, with each deal's pending one. Units of
// work run one at a time here; every change pushes its undo.
import type { Approval, ApprovalDraft } from '../../domain/approvals.ts';
import { formatId } from '../../domain/ids.ts';
import type { Deal } from '../../domain/records.ts';
import type { ApprovalFilter, ApprovalReader, ApprovalUnit } from '../approvals.ts';
import type { NumberedTable } from './numbered-table.ts';

export class ApprovalTables {
  counter = 0;
  readonly records = new Map<number, Approval>();
  /** Each deal's pending approval's number. */
  readonly pending = new Map<string, number>();
}

const numberOf = (id: string) => Number(id.slice('apr_'.length));

function matches(approval: Approval, filter: ApprovalFilter): boolean {
  if (filter.status !== undefined && approval.status !== filter.status) return false;
  if (filter.dealId !== undefined && approval.dealId !== filter.dealId) return false;
  if (filter.keyId !== undefined && approval.keyId !== filter.keyId) return false;
  if (filter.sellerId !== undefined && approval.sellerId !== filter.sellerId) return false;
  return true;
}

export class MemoryApprovalReader implements ApprovalReader {
  constructor(
    protected readonly tables: ApprovalTables,
    private readonly deals: NumberedTable<Deal>,
  ) {}

  async get(id: string) {
    return this.tables.records.get(numberOf(id));
  }

  async list(filter: ApprovalFilter) {
    const page: Approval[] = [];
    let n = filter.beforeId === undefined ? this.tables.counter : numberOf(filter.beforeId) - 1;
    for (; n > 0 && page.length < filter.limit; n--) {
      const approval = this.tables.records.get(n);
      if (approval && matches(approval, filter)) page.push(approval);
    }
    return page;
  }

  async pendingOfDeal(dealId: string) {
    const n = this.tables.pending.get(dealId);
    return n === undefined ? undefined : this.tables.records.get(n);
  }

  async due(now: number, limit: number) {
    const due: Approval[] = [];
    for (const n of [...this.tables.pending.values()].sort((a, b) => a - b)) {
      const approval = this.tables.records.get(n) as Approval;
      const moved = this.deals.get(approval.dealId)?.version !== approval.dealVersion;
      if (approval.expiresAt <= now || moved) due.push(approval);
      if (due.length === limit) break;
    }
    return due;
  }
}

export class MemoryApprovalUnit extends MemoryApprovalReader implements ApprovalUnit {
  constructor(
    tables: ApprovalTables,
    deals: NumberedTable<Deal>,
    private readonly undo: (() => void)[],
  ) {
    super(tables, deals);
  }

  async create(draft: ApprovalDraft) {
    const tables = this.tables;
    const previous = tables.counter;
    tables.counter = previous + 1;
    this.undo.push(() => {
      tables.counter = previous;
    });
    const approval: Approval = { id: formatId('apr', tables.counter), ...draft };
    await this.put(approval);
    return approval;
  }

  async put(approval: Approval) {
    const { records, pending } = this.tables;
    const n = numberOf(approval.id);
    const before = records.get(n);
    const pendingBefore = pending.get(approval.dealId);
    records.set(n, approval);
    if (approval.status === 'pending') pending.set(approval.dealId, n);
    else if (pendingBefore === n) pending.delete(approval.dealId);
    this.undo.push(() => {
      if (before) records.set(n, before);
      else records.delete(n);
      if (pendingBefore === undefined) pending.delete(approval.dealId);
      else pending.set(approval.dealId, pendingBefore);
    });
  }
}
