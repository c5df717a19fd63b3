// The memory adapter's ledger (D-79 to D-82): transfers by number with their keys and indexes by
// account and deal, refunds by deal, payouts. Units run one at a time here; every change pushes
// its undo. A wipe replaces the tables whole.
import { formatId } from '../../domain/ids.ts';
import type { Payout } from '../../domain/ledger/payouts.ts';
import type { Refund } from '../../domain/ledger/refunds.ts';
import { isEarning, type Transfer, type TransferDraft } from '../../domain/ledger/transfers.ts';
import {
  DuplicateTransferError,
  type LedgerReader,
  type LedgerUnit,
  type PayoutFilter,
  type TransferFilter,
} from '../ledger.ts';
import { append } from './memory-data.ts';

export class LedgerTables {
  /** Transfer n is transfers[n - 1]. */
  readonly transfers: Transfer[] = [];
  readonly keys = new Set<string>();
  readonly byAccount = new Map<string, Transfer[]>();
  readonly byDeal = new Map<string, Transfer[]>();
  /** Earnings not yet released (by id), in booking order. */
  readonly held = new Map<string, Transfer>();
  readonly refundsByDeal = new Map<string, Refund[]>();
  refundCounter = 0;
  readonly payouts: Payout[] = [];
  payoutCounter = 0;
}

const numberOf = (id: string) => Number(id.slice(id.indexOf('_') + 1));

function matches(t: Transfer, f: TransferFilter): boolean {
  if (f.accounts !== undefined && !f.accounts.includes(t.debit) && !f.accounts.includes(t.credit)) return false;
  if (f.dealId !== undefined && t.dealId !== f.dealId) return false;
  if (f.from !== undefined && t.at < f.from) return false;
  if (f.to !== undefined && t.at >= f.to) return false;
  if (f.sellerId !== undefined && t.sellerId !== f.sellerId) return false;
  if (f.closerId !== undefined && t.closerId !== f.closerId) return false;
  return true;
}

export class MemoryLedgerReader implements LedgerReader {
  constructor(protected readonly tables: LedgerTables) {}

  async getTransfer(id: string) {
    return this.tables.transfers[numberOf(id) - 1];
  }

  async transfers(filter: TransferFilter) {
    const after = filter.afterId === undefined ? 0 : numberOf(filter.afterId);
    // One account's lines from its index; anything else from the whole ledger.
    const source =
      filter.accounts?.length === 1
        ? (this.tables.byAccount.get(filter.accounts[0] as string) ?? [])
        : filter.dealId !== undefined
          ? (this.tables.byDeal.get(filter.dealId) ?? [])
          : this.tables.transfers;
    const page: Transfer[] = [];
    for (const t of source) {
      if (numberOf(t.id) <= after || !matches(t, filter)) continue;
      page.push(t);
      if (page.length === filter.limit) break;
    }
    return page;
  }

  async transfersOfDeal(dealId: string) {
    return [...(this.tables.byDeal.get(dealId) ?? [])];
  }

  async balances(accounts: readonly string[], asOf: number) {
    const balances = new Map<string, bigint>();
    for (const account of accounts) {
      let sum = 0n;
      for (const t of this.tables.byAccount.get(account) ?? []) {
        if (t.at > asOf) continue;
        if (t.credit === account) sum += BigInt(t.amountCents);
        if (t.debit === account) sum -= BigInt(t.amountCents);
      }
      balances.set(account, sum);
    }
    return balances;
  }

  async heldEarnings(bookedBy: number, limit: number) {
    // Oldest by time, as the SQL adapter's index orders them: the map's own order is booking
    // order, which is not time order when a line's time is not the unit's (and a rollback puts
    // an earning it had released or emptied back at the map's end).
    const due: Transfer[] = [];
    for (const earning of this.tables.held.values()) if (earning.at <= bookedBy) due.push(earning);
    due.sort((a, b) => a.at - b.at || numberOf(a.id) - numberOf(b.id));
    return due.slice(0, limit);
  }

  async payable() {
    const available = new Map<string, bigint>();
    for (const [account, lines] of this.tables.byAccount) {
      if (!account.endsWith(':available')) continue;
      let sum = 0n;
      for (const t of lines) sum += t.credit === account ? BigInt(t.amountCents) : -BigInt(t.amountCents);
      if (sum > 0n) available.set(account.split(':')[1] as string, sum);
    }
    return [...available]
      .sort(([a], [b]) => a.length - b.length || (a < b ? -1 : 1))
      .map(([closerId, availableCents]) => ({ closerId, availableCents }));
  }

  async refundsOfDeal(dealId: string) {
    return [...(this.tables.refundsByDeal.get(dealId) ?? [])];
  }

  async payouts(filter: PayoutFilter) {
    const before = filter.afterId === undefined ? Infinity : numberOf(filter.afterId);
    const page: Payout[] = [];
    for (let i = this.tables.payouts.length - 1; i >= 0 && page.length < filter.limit; i--) {
      const payout = this.tables.payouts[i] as Payout;
      if (numberOf(payout.id) >= before) continue;
      if (filter.closerId !== undefined && payout.closerId !== filter.closerId) continue;
      page.push(payout);
    }
    return page;
  }
}

export class MemoryLedgerUnit extends MemoryLedgerReader implements LedgerUnit {
  constructor(
    tables: LedgerTables,
    private readonly undo: (() => void)[],
  ) {
    super(tables);
  }

  async book(drafts: readonly TransferDraft[]) {
    await this.post(drafts);
  }

  async post(drafts: readonly TransferDraft[]) {
    const posted: Transfer[] = [];
    for (const draft of drafts) posted.push(this.append(draft));
    return posted;
  }

  private append(draft: TransferDraft): Transfer {
    const { transfers, keys, byAccount, byDeal, held } = this.tables;
    // One lookup in a set as long as the ledger, not two (has, then add): each costs a few cache
    // misses. A key already there leaves the set as it was.
    const count = keys.size;
    keys.add(draft.key);
    if (keys.size === count) throw new DuplicateTransferError(draft.key);
    const transfer: Transfer = { id: formatId('txn', transfers.length + 1), ...draft };
    transfers.push(transfer);
    append(byAccount, draft.debit, transfer);
    append(byAccount, draft.credit, transfer);
    if (draft.dealId !== undefined) append(byDeal, draft.dealId, transfer);
    const released = draft.releases === undefined ? undefined : held.get(draft.releases);
    if (isEarning(draft)) held.set(transfer.id, transfer);
    if (released) held.delete(released.id);
    // A refund's reversal that leaves nothing of a held earning ends its hold too.
    const reversed = draft.reverses === undefined ? undefined : held.get(draft.reverses);
    const emptied = reversed !== undefined && draft.debit === reversed.credit && this.leftHeld(reversed) <= 0;
    if (emptied) held.delete(reversed.id);
    this.undo.push(() => {
      transfers.pop();
      keys.delete(draft.key);
      byAccount.get(draft.debit)?.pop();
      byAccount.get(draft.credit)?.pop();
      if (draft.dealId !== undefined) byDeal.get(draft.dealId)?.pop();
      held.delete(transfer.id);
      if (released) held.set(released.id, released);
      if (emptied) held.set(reversed.id, reversed);
    });
    return transfer;
  }

  /** What a held earning still holds: its amount less what refunds took of it from pending. */
  private leftHeld(earning: Transfer): number {
    let left = earning.amountCents;
    for (const t of this.tables.byDeal.get(earning.dealId as string) ?? [])
      if (t.reverses === earning.id && t.debit === earning.credit) left -= t.amountCents;
    return left;
  }

  async takeRefundId() {
    const tables = this.tables;
    tables.refundCounter++;
    this.undo.push(() => {
      tables.refundCounter--;
    });
    return formatId('rfd', tables.refundCounter);
  }

  async putRefund(refund: Refund) {
    append(this.tables.refundsByDeal, refund.dealId, refund);
    this.undo.push(() => this.tables.refundsByDeal.get(refund.dealId)?.pop());
  }

  async takePayoutId() {
    const tables = this.tables;
    tables.payoutCounter++;
    this.undo.push(() => {
      tables.payoutCounter--;
    });
    return formatId('po', tables.payoutCounter);
  }

  async putPayout(payout: Payout) {
    this.tables.payouts.push(payout);
    this.undo.push(() => this.tables.payouts.pop());
  }
}
