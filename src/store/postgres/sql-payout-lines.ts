// A gig's payout line (the fee or commission its closer earned) written on PostgreSQL: one per
// gig, whatever races to write it.
import type { PayoutLine } from '../../domain/records.ts';
import { DuplicatePayoutError } from '../store.ts';
import { payoutParams } from './codec.ts';
import type { SqlSession } from './sql-database.ts';

/** Inserts the line; a line already written for its gig throws DuplicatePayoutError. */
export async function insertPayoutLine(session: SqlSession, line: PayoutLine): Promise<void> {
  // The primary key on gig_id refuses a second line; DO NOTHING keeps the transaction usable
  // and waits for a racing writer of the same line to finish before deciding.
  // Its Seller is its deal's (D-57), taken in the same statement.
  const inserted = await session.query(
    `INSERT INTO payouts (gig_id, closer_id, deal_id, role, kind, amount_cents, at, seller_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, (SELECT seller_id FROM deals WHERE id = $3))
     ON CONFLICT (gig_id) DO NOTHING RETURNING gig_id`,
    payoutParams(line),
  );
  if (inserted.length === 0) throw new DuplicatePayoutError(line.gigId);
}
