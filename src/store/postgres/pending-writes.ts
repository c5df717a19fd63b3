// A unit of work's buffered writes (sql-unit-of-work.ts): what it put, published, recorded and
// counted since its last write, and the statements they go out as: each a CTE of one statement,
// whatever the number of records and tables (buffered-writes.ts makes each).
import type { TransferDraft } from '../../domain/ledger/transfers.ts';
import type { RefusedProposal } from '../../domain/proposals.ts';
import type { Closer, Deal, Gig } from '../../domain/records.ts';
import type { StoredAnswer } from '../store.ts';
import {
  answersUpsert,
  emptyOutbox,
  foldedByKey,
  foldedUsage,
  type OutboxColumns,
  outboxInsert,
  type UsageAdded,
  upsert,
  usageInsert,
} from './buffered-writes.ts';
import { closerValues, dealValues, gigValues } from './codec.ts';
import { transfersInsert } from './sql-ledger.ts';
import { proposalWrites } from './sql-proposals.ts';

export interface PendingWrites {
  deals: Map<string, Deal>;
  gigs: Map<string, Gig>;
  closers: Map<string, Closer>;
  /** The unit's outbox row (migration 015). */
  events: OutboxColumns;
  /** Refused proposals to record (D-61). */
  proposals: RefusedProposal[];
  /** Answers to store under their Idempotency-Keys (D-37). */
  answers: Map<string, StoredAnswer>;
  /** Closes added to keys' usage of the day (D-68). */
  usage: UsageAdded[];
  /** A close's settlement and a fulfilment's fee (D-79), booked with the unit's write. */
  transfers: TransferDraft[];
}

export const noWrites = (): PendingWrites => ({
  deals: new Map(),
  gigs: new Map(),
  closers: new Map(),
  events: emptyOutbox(),
  proposals: [],
  answers: new Map(),
  usage: [],
  transfers: [],
});

/**
 * The statements of the writes (their values appended to params), and the keys whose locks go
 * out just before them: a close through a key whose policy counts the day folds the key's usage
 * behind its lock (D-278), so the server grants the lock and runs the write (and the COMMIT sent
 * with it) with no round trip between.
 */
export function statementsOf(pending: PendingWrites, params: unknown[]): { statements: string[]; locks: string[] } {
  const statements: string[] = [];
  const deals = [...pending.deals.values()];
  // D-73: each deal's facts ride in its row (dealValues, migration 027).
  if (deals.length > 0) statements.push(upsert('deals', deals.map(dealValues), params));
  if (pending.gigs.size > 0) statements.push(upsert('gigs', [...pending.gigs.values()].map(gigValues), params));
  if (pending.closers.size > 0)
    statements.push(upsert('closers', [...pending.closers.values()].map(closerValues), params));
  if (pending.proposals.length > 0) statements.push(...proposalWrites(pending.proposals, params));
  if (pending.transfers.length > 0) statements.push(transfersInsert(pending.transfers, params));
  if (pending.events.types.length > 0) statements.push(outboxInsert(pending.events, params));
  if (pending.answers.size > 0) statements.push(answersUpsert(pending.answers, params));
  const plain = pending.usage.filter((added) => added.within === undefined);
  if (plain.length > 0) statements.push(usageInsert(plain, params));
  const locks: string[] = [];
  for (const added of foldedByKey(pending.usage)) {
    locks.push(added.keyId);
    const fold = foldedUsage(added, params);
    statements.push(fold.remove);
    statements.push(fold.insert(`w${statements.length - 1}`));
  }
  return { statements, locks };
}
