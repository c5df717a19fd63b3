// Closers as the service answers them: each with its ledger (D-24), read at once for a page, and
// the ranking for a match or an escalation (D-25), with the ledgers of those ranked only.
import { type Caller, seesPayoutsOf } from '../domain/access.ts';
import { rankClosers } from '../domain/matching.ts';
import type { Closer, Deal, Gig } from '../domain/records.ts';
import type { Role } from '../domain/stages.ts';
import type { PipelineState } from '../domain/state.ts';
import type { StoreReader } from '../store/store.ts';
import type { CloserWithLedger, Escalation } from './outcomes.ts';

/** D-25: how many closers a match answers unless asked for fewer or more (1 to 1000). */
export const MATCH_LIMIT = 100;
export const MAX_MATCH_LIMIT = 1000;

/** A closer with its ledger, when the caller may see it (D-54: the closer itself, the operator). */
export async function withLedger(reader: StoreReader, closer: Closer, caller?: Caller): Promise<CloserWithLedger> {
  if (!seesPayoutsOf(caller, closer.id)) return { closer };
  return { closer, payouts: await reader.payoutsOfCloser(closer.id) };
}

/**
 * Every closer with its ledger, read at once (one query on a database, not one per closer):
 * the ledgers the caller may see only (none read when it may see none).
 */
export async function withLedgers(
  reader: StoreReader,
  closers: readonly Closer[],
  caller?: Caller,
): Promise<CloserWithLedger[]> {
  const shown = closers.filter((c) => seesPayoutsOf(caller, c.id)).map((c) => c.id);
  const ledgers = shown.length === 0 ? new Map<string, never[]>() : await reader.payoutsOfClosers(shown);
  return closers.map((closer) =>
    shown.includes(closer.id) ? { closer, payouts: ledgers.get(closer.id) ?? [] } : { closer },
  );
}

/** The ranking (D-25), the first `limit` with their ledgers (read for those only). */
export async function rankedWithLedgers(
  reader: StoreReader,
  industry: string | undefined,
  limit = MATCH_LIMIT,
  caller?: Caller,
) {
  const ranked = rankClosers(await reader.listClosers(), industry).slice(0, limit);
  const closers = await withLedgers(
    reader,
    ranked.map((m) => m.closer),
    caller,
  );
  return ranked.map((match, i) => ({ ...match, closer: closers[i] }));
}

/** The escalation answer (D-11): the deal, its role and gig, and the closers suggested for it. */
export async function escalationOf(
  reader: StoreReader,
  state: PipelineState,
  dealId: string,
  role: Role,
  gigId: string,
  caller?: Caller,
) {
  const deal = state.deals.get(dealId) as Deal;
  const suggestedClosers = await rankedWithLedgers(reader, deal.account.industry, MATCH_LIMIT, caller);
  return { escalated: true, role, gig: state.gigs.get(gigId) as Gig, deal, suggestedClosers } satisfies Escalation;
}
