// The in-memory adapter's tables (D-3): the records, their indexes, the feed and the counters,
// in one object that a unit of work changes in place and a wipe replaces whole.
import type { IdKind } from '../../domain/ids.ts';
import type { Closer, Deal, Gig, PayoutLine } from '../../domain/records.ts';
import type { StoredAnswer } from '../store.ts';
import { AccountTables } from './account-tables.ts';
import { ApprovalTables } from './approval-tables.ts';
import { DueIndex } from './due-index.ts';
import { EventLog } from './event-log.ts';
import { LedgerTables } from './ledger-tables.ts';
import { NumberedTable } from './numbered-table.ts';
import { ProposalTables } from './proposal-tables.ts';
import { StageIndex } from './stage-index.ts';
import { WebhookTables } from './webhook-tables.ts';

export interface Data {
  deals: NumberedTable<Deal>;
  /** Stage of each deal by number, for stage-filtered pages (deal ids are deal_<number>). */
  stages: StageIndex;
  gigs: NumberedTable<Gig>;
  gigsByDeal: Map<string, string[]>;
  closers: NumberedTable<Closer>;
  payouts: Map<string, PayoutLine>; // keyed by gigId: a gig pays once
  payoutsByCloser: Map<string, PayoutLine[]>;
  payoutsByDeal: Map<string, PayoutLine[]>;
  counters: Record<IdKind, number>;
  clockOffsetMs: number;
  /** Idempotency keys in the order they were stored, which is storedAt order (purged from the front). */
  answers: Map<string, StoredAnswer>;
  /** The feed (D-41); a reset starts an empty one that goes on from the last seq. */
  events: EventLog;
  /** Webhooks and their deliveries (D-42). */
  webhooks: WebhookTables;
  /** Deals by stall time and gigs by timer time, for the platform timers (due-index.ts). */
  dealTimers: DueIndex;
  gigTimers: DueIndex;
  /** Sellers and keys (D-51, D-52): a wipe keeps them, but for closers' keys. */
  accounts: AccountTables;
  /** Refused proposals and their tallies (D-61). */
  proposals: ProposalTables;
  /** Held proposals' approvals (D-69): a wipe deletes them with their deals. */
  approvals: ApprovalTables;
  /** The ledger (D-79): a wipe empties it with the records it books. */
  ledger: LedgerTables;
}

export function emptyData(lastSeq = 0, webhookCursor = 0, accounts = new AccountTables()): Data {
  const deals = new NumberedTable<Deal>('deal');
  const gigs = new NumberedTable<Gig>('gig');
  return {
    deals,
    stages: new StageIndex(),
    gigs,
    gigsByDeal: new Map(),
    closers: new NumberedTable('closer'),
    payouts: new Map(),
    payoutsByCloser: new Map(),
    payoutsByDeal: new Map(),
    counters: { deal: 0, gig: 0, closer: 0 },
    clockOffsetMs: 0,
    answers: new Map(),
    events: new EventLog(lastSeq),
    webhooks: new WebhookTables(webhookCursor),
    dealTimers: new DueIndex((n, dueAt) => deals.at(n)?.stallDueAt === dueAt),
    gigTimers: new DueIndex((n, dueAt) => gigs.at(n)?.timerDueAt === dueAt),
    accounts,
    proposals: new ProposalTables(),
    approvals: new ApprovalTables(),
    ledger: new LedgerTables(),
  };
}

export function append<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
