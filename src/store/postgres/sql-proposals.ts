// Refused proposals on PostgreSQL (D-61, migration 014): a page of records, the tallies behind
// the summary, and the statements a unit of work records one with. Its number is taken at once
// (sql-numbers.ts); the record is written with the unit's last statement (sql-unit-of-work.ts flush).
import {
  KEPT_PER_DEAL,
  type RefusedProposal,
  type RefusedProposalDraft,
  type TallyLine,
} from '../../domain/proposals.ts';
import type { RefusalCode } from '../../domain/refusal.ts';
import type { ProposalFilter, ProposalReader, ProposalUnit, TallyScope } from '../proposals.ts';
import type { Send } from './sql-database.ts';
import { takeIds } from './sql-numbers.ts';
import { parameters } from './sql-parameters.ts';

export class SqlProposalReader implements ProposalReader {
  constructor(protected readonly send: Send) {}

  async list(filter: ProposalFilter): Promise<RefusedProposal[]> {
    const { params, param } = parameters();
    const where: string[] = [];
    const equal = (column: string, value: string | undefined) => {
      if (value !== undefined) where.push(`${column} = ${param(value)}`);
    };
    equal('deal_id', filter.dealId);
    equal('by', filter.by);
    equal('code', filter.code);
    equal('key_id', filter.keyId);
    equal('seller_id', filter.sellerId);
    equal('principal', filter.principal);
    if (filter.beforeId !== undefined) where.push(`number < ${param(Number(filter.beforeId.slice(5)))}`);
    const rows = await this.send<{ doc: RefusedProposal }>(
      `SELECT doc FROM refused_proposals ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY number DESC LIMIT ${param(filter.limit)}`,
      params,
    );
    return rows.map((row) => row.doc);
  }

  /** One statement: the refusals' counts, and the accepted moves from the deals' activity. */
  async tally(scope: TallyScope): Promise<TallyLine[]> {
    const { params, param } = parameters();
    let counts = '';
    let deals = '';
    let entries = '';
    if (scope.sellerId !== undefined) {
      const seller = param(scope.sellerId);
      counts = `WHERE seller_id = ${seller}`;
      deals = `AND d.seller_id = ${seller}`;
    } else if (scope.closerId !== undefined) {
      const closer = param(scope.closerId);
      counts = `WHERE principal = ${closer}`;
      deals = `AND d.id IN (SELECT deal_id FROM gigs WHERE closer_id = ${closer})`;
      entries = `AND e->'actor'->>'principal' = ${closer}`;
    }
    const rows = await this.send<{
      by: string;
      code: string | null;
      principal: string | null;
      key_id: string | null;
      n: string | number;
    }>(
      `SELECT by, code, principal, key_id, sum(n) AS n FROM proposal_counts ${counts} GROUP BY by, code, principal, key_id
       UNION ALL
       SELECT e->>'by', NULL, e->'actor'->>'principal', e->'actor'->>'keyId', count(*)
         FROM deals d, json_array_elements(d.doc->'activity') e
         WHERE e->>'by' IN ('agent', 'human') ${deals} ${entries}
         GROUP BY 1, 3, 4`,
      params,
    );
    return rows.map((row) => {
      const line: { by: TallyLine['by']; code?: RefusalCode; principal?: string; keyId?: string; n: number } = {
        by: row.by as TallyLine['by'],
        n: Number(row.n),
      };
      if (row.code !== null) line.code = row.code as RefusalCode;
      if (row.principal !== null && row.principal !== '') line.principal = row.principal;
      if (row.key_id !== null && row.key_id !== '') line.keyId = row.key_id;
      return line;
    });
  }
}

/** A unit of work's refused proposals: `buffer` keeps a record for the unit's last statement. */
export class SqlProposalUnit extends SqlProposalReader implements ProposalUnit {
  constructor(
    send: Send,
    private readonly buffer: (record: RefusedProposal) => void,
  ) {
    super(send);
  }

  async record(draft: RefusedProposalDraft): Promise<RefusedProposal> {
    const [id] = await takeIds(this.send, ['prop']);
    const record: RefusedProposal = { id, ...draft };
    this.buffer(record);
    return record;
  }
}

/**
 * The statements that record refusals (a parameter per value, appended to params): each record,
 * its count, and the deletion of its deal's oldest record when the deal keeps KEPT_PER_DEAL
 * already. They run as parts of one statement, so each sees the rows as they were before it: the
 * record just added is not among those counted for the deletion.
 */
export function proposalWrites(records: readonly RefusedProposal[], params: unknown[]): string[] {
  const p = (value: unknown) => `$${params.push(value)}`;
  const statements: string[] = [];
  for (const r of records) {
    const id = p(r.id);
    const deal = p(r.dealId);
    const seller = p(r.sellerId ?? null);
    const by = p(r.by);
    const code = p(r.code);
    const principal = p(r.actor?.principal ?? '');
    const key = p(r.actor?.keyId ?? '');
    statements.push(
      `INSERT INTO refused_proposals (id, number, deal_id, seller_id, principal, key_id, by, code, doc)
       VALUES (${id}, substr(${id}::text, 6)::bigint, ${deal}, ${seller}, nullif(${principal}, ''), nullif(${key}, ''),
         ${by}, ${code}, ${p(JSON.stringify(r))}::json)`,
      `DELETE FROM refused_proposals WHERE number = (SELECT number FROM refused_proposals WHERE deal_id = ${deal}
         ORDER BY number DESC OFFSET ${KEPT_PER_DEAL - 1} LIMIT 1)`,
      `INSERT INTO proposal_counts (deal_id, seller_id, by, code, principal, key_id, n)
       VALUES (${deal}, ${seller}, ${by}, ${code}, ${principal}, ${key}, 1)
       ON CONFLICT (deal_id, by, code, principal, key_id) DO UPDATE SET n = proposal_counts.n + 1`,
    );
  }
  return statements;
}
