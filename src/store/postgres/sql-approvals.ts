// Approvals on PostgreSQL (D-69, D-70; migration 023): the held proposals, their documents in
// rows with the columns the lists and the sweep filter on. Approvals are few beside the moves
// they hold, so each write is its own statement, sent at once.
import type { Approval, ApprovalDraft } from '../../domain/approvals.ts';
import type { ApprovalFilter, ApprovalReader, ApprovalUnit } from '../approvals.ts';
import type { Send } from './sql-database.ts';
import { takeIds } from './sql-numbers.ts';
import { parameters } from './sql-parameters.ts';

const numberOf = (id: string) => Number(id.slice('apr_'.length));

export class SqlApprovalReader implements ApprovalReader {
  constructor(protected readonly send: Send) {}

  async get(id: string) {
    const [row] = await this.send<{ doc: Approval }>('SELECT doc FROM approvals WHERE id = $1', [id]);
    return row?.doc;
  }

  async list(filter: ApprovalFilter) {
    const { params, param } = parameters();
    const where: string[] = [];
    const equal = (column: string, value: string | undefined) => {
      if (value !== undefined) where.push(`${column} = ${param(value)}`);
    };
    equal('status', filter.status);
    equal('deal_id', filter.dealId);
    equal('key_id', filter.keyId);
    equal('seller_id', filter.sellerId);
    if (filter.beforeId !== undefined) where.push(`number < ${param(numberOf(filter.beforeId))}`);
    const rows = await this.send<{ doc: Approval }>(
      `SELECT doc FROM approvals ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY number DESC LIMIT ${param(filter.limit)}`,
      params,
    );
    return rows.map((row) => row.doc);
  }

  async pendingOfDeal(dealId: string) {
    const [row] = await this.send<{ doc: Approval }>(
      "SELECT doc FROM approvals WHERE deal_id = $1 AND status = 'pending'",
      [dealId],
    );
    return row?.doc;
  }

  async due(now: number, limit: number) {
    const rows = await this.send<{ doc: Approval }>(
      `SELECT a.doc FROM approvals a LEFT JOIN deals d ON d.id = a.deal_id
       WHERE a.status = 'pending' AND (a.expires_at <= $1 OR (d.doc->>'version')::int IS DISTINCT FROM a.deal_version)
       ORDER BY a.number LIMIT $2`,
      [now, limit],
    );
    return rows.map((row) => row.doc);
  }
}

export class SqlApprovalUnit extends SqlApprovalReader implements ApprovalUnit {
  async create(draft: ApprovalDraft) {
    const [id] = await takeIds(this.send, ['apr']);
    const approval: Approval = { id, ...draft };
    await this.put(approval);
    return approval;
  }

  async put(approval: Approval) {
    await this.send(
      `INSERT INTO approvals (id, number, deal_id, seller_id, key_id, status, deal_version, expires_at, doc)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::json)
       ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, doc = EXCLUDED.doc`,
      [
        approval.id,
        numberOf(approval.id),
        approval.dealId,
        approval.sellerId,
        approval.keyId,
        approval.status,
        approval.dealVersion,
        approval.expiresAt,
        JSON.stringify(approval),
      ],
    );
  }
}
