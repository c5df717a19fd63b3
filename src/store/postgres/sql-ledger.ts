// The ledger on PostgreSQL (D-79 to D-82; migration 028). A close's settlement is booked in the
// unit's one write (transfersInsert, numbered by the table's sequence as the rows are added); a
// refund, a release and a payout post theirs at once and read their numbers back. Balances are
// sums over an account's lines by time (an index each side); the earnings still held are their
// own small table, so the timers never read the whole ledger.
import { formatId } from '../../domain/ids.ts';
import type { Payout } from '../../domain/ledger/payouts.ts';
import type { Refund } from '../../domain/ledger/refunds.ts';
import type { Transfer, TransferDraft, TransferKind } from '../../domain/ledger/transfers.ts';
import {
  DuplicateTransferError,
  type LedgerReader,
  type LedgerUnit,
  type PayoutFilter,
  type TransferFilter,
} from '../ledger.ts';
import type { Send } from './sql-database.ts';
import { takeIds } from './sql-numbers.ts';
import { parameters } from './sql-parameters.ts';

const numberOf = (id: string) => Number(id.slice(id.indexOf('_') + 1));

const COLUMNS =
  'number, key, at, debit, credit, amount_cents, kind, deal_id, gig_id, payout_id, refund_id, reverses, releases, seller_id, closer_id';

interface TransferRow {
  number: string | number;
  key: string;
  at: string | number;
  debit: string;
  credit: string;
  amount_cents: string | number;
  kind: TransferKind;
  deal_id: string | null;
  gig_id: string | null;
  payout_id: string | null;
  refund_id: string | null;
  reverses: string | number | null;
  releases: string | number | null;
  seller_id: string | null;
  closer_id: string | null;
}

function transferOf(row: TransferRow): Transfer {
  const optional = (name: keyof Transfer, value: string | null) => (value === null ? {} : { [name]: value });
  const linked = (name: keyof Transfer, value: string | number | null) =>
    value === null ? {} : { [name]: formatId('txn', Number(value)) };
  return {
    id: formatId('txn', Number(row.number)),
    key: row.key,
    at: Number(row.at),
    debit: row.debit,
    credit: row.credit,
    amountCents: Number(row.amount_cents),
    kind: row.kind,
    ...optional('dealId', row.deal_id),
    ...optional('gigId', row.gig_id),
    ...optional('payoutId', row.payout_id),
    ...optional('refundId', row.refund_id),
    ...linked('reverses', row.reverses),
    ...linked('releases', row.releases),
    ...optional('sellerId', row.seller_id),
    ...optional('closerId', row.closer_id),
  } as Transfer;
}

/** Transfers as one multi-row INSERT, a parameter per value (appended to params). */
export function transfersInsert(drafts: readonly TransferDraft[], params: unknown[]): string {
  const tuples = drafts.map((d) => {
    const values = [
      d.key,
      d.at,
      d.debit,
      d.credit,
      d.amountCents,
      d.kind,
      d.dealId ?? null,
      d.gigId ?? null,
      d.payoutId ?? null,
      d.refundId ?? null,
      d.reverses === undefined ? null : numberOf(d.reverses),
      d.releases === undefined ? null : numberOf(d.releases),
      d.sellerId ?? null,
      d.closerId ?? null,
    ];
    const first = params.length + 1;
    params.push(...values);
    return `(${values.map((_, i) => `$${first + i}`).join(', ')})`;
  });
  return `INSERT INTO transfers (${COLUMNS.slice('number, '.length)}) VALUES ${tuples.join(', ')}`;
}

export class SqlLedgerReader implements LedgerReader {
  constructor(protected readonly send: Send) {}

  async getTransfer(id: string) {
    const [row] = await this.send<TransferRow>(`SELECT ${COLUMNS} FROM transfers WHERE number = $1`, [numberOf(id)]);
    return row && transferOf(row);
  }

  async transfers(filter: TransferFilter) {
    const { params, param } = parameters();
    const where: string[] = [];
    if (filter.accounts !== undefined) {
      const accounts = param(filter.accounts);
      where.push(`(debit = ANY (${accounts}::text[]) OR credit = ANY (${accounts}::text[]))`);
    }
    if (filter.dealId !== undefined) where.push(`deal_id = ${param(filter.dealId)}`);
    if (filter.from !== undefined) where.push(`at >= ${param(filter.from)}`);
    if (filter.to !== undefined) where.push(`at < ${param(filter.to)}`);
    if (filter.sellerId !== undefined) where.push(`seller_id = ${param(filter.sellerId)}`);
    if (filter.closerId !== undefined) where.push(`closer_id = ${param(filter.closerId)}`);
    if (filter.afterId !== undefined) where.push(`number > ${param(numberOf(filter.afterId))}`);
    const rows = await this.send<TransferRow>(
      `SELECT ${COLUMNS} FROM transfers ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY number LIMIT ${param(filter.limit)}`,
      params,
    );
    return rows.map(transferOf);
  }

  async transfersOfDeal(dealId: string) {
    const rows = await this.send<TransferRow>(`SELECT ${COLUMNS} FROM transfers WHERE deal_id = $1 ORDER BY number`, [
      dealId,
    ]);
    return rows.map(transferOf);
  }

  async balances(accounts: readonly string[], asOf: number) {
    // Each side by its index: the credits to an account up to asOf, less its debits.
    const rows = await this.send<{ account: string; balance: string | null }>(
      `SELECT a.account,
         coalesce((SELECT sum(amount_cents) FROM transfers WHERE credit = a.account AND at <= $2), 0)
         - coalesce((SELECT sum(amount_cents) FROM transfers WHERE debit = a.account AND at <= $2), 0) AS balance
       FROM unnest($1::text[]) AS a(account)`,
      [accounts, asOf],
    );
    return new Map(rows.map((row) => [row.account, BigInt(row.balance ?? 0)]));
  }

  async heldEarnings(bookedBy: number, limit: number) {
    const rows = await this.send<TransferRow>(
      `SELECT ${COLUMNS.split(', ')
        .map((c) => `t.${c}`)
        .join(', ')} FROM held_earnings h JOIN transfers t ON t.number = h.number
       WHERE h.at <= $1 ORDER BY h.at, h.number LIMIT $2`,
      [bookedBy, limit],
    );
    return rows.map(transferOf);
  }

  async payable() {
    // Money comes into an available account only by releases, and leaves it by payouts and
    // reversals: a run reads those lines alone.
    const rows = await this.send<{ account: string; available: string }>(
      `SELECT account, sum(delta) AS available FROM (
         SELECT credit AS account, amount_cents AS delta FROM transfers WHERE kind = 'release'
         UNION ALL
         SELECT debit, -amount_cents FROM transfers WHERE kind IN ('payout', 'reversal') AND debit LIKE 'closer:%:available'
       ) lines GROUP BY account HAVING sum(delta) > 0`,
    );
    return rows
      .map((row) => ({ closerId: row.account.split(':')[1] as string, availableCents: BigInt(row.available) }))
      .sort((a, b) => a.closerId.length - b.closerId.length || (a.closerId < b.closerId ? -1 : 1));
  }

  async refundsOfDeal(dealId: string) {
    const rows = await this.send<{ doc: Refund }>('SELECT doc FROM refunds WHERE deal_id = $1 ORDER BY number', [
      dealId,
    ]);
    return rows.map((row) => row.doc);
  }

  async payouts(filter: PayoutFilter) {
    const { params, param } = parameters();
    const where: string[] = [];
    if (filter.closerId !== undefined) where.push(`closer_id = ${param(filter.closerId)}`);
    if (filter.afterId !== undefined) where.push(`number < ${param(numberOf(filter.afterId))}`);
    const rows = await this.send<{ doc: Payout }>(
      `SELECT doc FROM closer_payouts ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY number DESC LIMIT ${param(filter.limit)}`,
      params,
    );
    return rows.map((row) => row.doc);
  }
}

export class SqlLedgerUnit extends SqlLedgerReader implements LedgerUnit {
  constructor(
    send: Send,
    /** Buffers transfers for the unit's one write (sql-unit-of-work.ts). */
    private readonly buffer: (drafts: readonly TransferDraft[]) => void,
  ) {
    super(send);
  }

  async book(drafts: readonly TransferDraft[]) {
    if (drafts.length > 0) this.buffer(drafts);
  }

  async post(drafts: readonly TransferDraft[]) {
    if (drafts.length === 0) return [];
    const params: unknown[] = [];
    // DO NOTHING keeps the transaction usable, and waits for a racing writer of the same key to
    // end before deciding; a key that was already booked is then missing from what comes back.
    const rows = await this.send<TransferRow>(
      `${transfersInsert(drafts, params)} ON CONFLICT (key) DO NOTHING RETURNING ${COLUMNS}`,
      params,
    );
    if (rows.length < drafts.length) {
      // The first draft left unwritten: each row written answers one draft of its key, so a key
      // given twice in these drafts is found too (its second draft is the one skipped).
      const written = new Set(rows.map((row) => row.key));
      const skipped = drafts.find((d) => !written.delete(d.key));
      throw new DuplicateTransferError(skipped?.key as string);
    }
    const byKey = new Map(rows.map((row) => [row.key, transferOf(row)]));
    return drafts.map((d) => byKey.get(d.key) as Transfer);
  }

  async takeRefundId() {
    const [id] = await takeIds(this.send, ['rfd']);
    return id as string;
  }

  async putRefund(refund: Refund) {
    await this.send('INSERT INTO refunds (number, deal_id, seller_id, doc) VALUES ($1, $2, $3, $4::json)', [
      numberOf(refund.id),
      refund.dealId,
      refund.sellerId ?? null,
      JSON.stringify(refund),
    ]);
  }

  async takePayoutId() {
    const [id] = await takeIds(this.send, ['po']);
    return id as string;
  }

  async putPayout(payout: Payout) {
    await this.send('INSERT INTO closer_payouts (number, closer_id, doc) VALUES ($1, $2, $3::json)', [
      numberOf(payout.id),
      payout.closerId,
      JSON.stringify(payout),
    ]);
  }
}
