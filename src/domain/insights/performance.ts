// D-73 `performance`: who wins, over the cohort of deals created within the range. Each closed deal
// counts for the group that closed it (the executor, the closer, the key of the close, or the
// deal's industry); each accepted move and refused proposal on a cohort deal for the group that
// made it (for industry: the deal's).
import type { Cents } from '../money.ts';
import type { DealFacts, MoveFact } from './deal-facts.ts';
import { closedAt } from './deal-facts.ts';
import { nearestRank } from './figures.ts';

export const PERFORMANCE_BY = ['executor', 'closer', 'key', 'industry'] as const;
export type PerformanceBy = (typeof PERFORMANCE_BY)[number];

/** A refused proposal, as performance counts it: its deal and who made it. */
export interface RefusalFact {
  readonly dealId: string;
  readonly by: 'agent' | 'human';
  readonly keyId?: string;
  readonly closerId?: string;
  /** How many such refusals (a store's tally line), 1 for a record. */
  readonly n: number;
}

export interface PerformanceRow {
  /** The executor, closer id, key id or industry; null: a deal with no industry. */
  readonly group: string | null;
  readonly deals: number;
  readonly won: number;
  readonly lost: number;
  readonly closedValueCents: Cents;
  readonly medianMsToClose: number | null;
  readonly accepted: number;
  readonly refused: number;
}

type Who = { by: 'agent' | 'human'; keyId?: string; closerId?: string };

/** The group an act belongs to; undefined: none of this kind (a close by no closer, by no key). */
function groupOf(by: PerformanceBy, who: Who, deal: DealFacts): string | null | undefined {
  switch (by) {
    case 'executor':
      return who.by;
    case 'closer':
      return who.closerId;
    case 'key':
      return who.keyId;
    case 'industry':
      return deal.industry ?? null;
  }
}

export function performanceInsight(
  by: PerformanceBy,
  cohort: readonly DealFacts[],
  refusals: Iterable<RefusalFact>,
): PerformanceRow[] {
  const rows = new Map<
    string | null,
    { won: number; lost: number; value: number; toClose: number[]; accepted: number; refused: number }
  >();
  const row = (group: string | null) => {
    let found = rows.get(group);
    if (found === undefined) {
      found = { won: 0, lost: 0, value: 0, toClose: [], accepted: 0, refused: 0 };
      rows.set(group, found);
    }
    return found;
  };
  const byId = new Map(cohort.map((deal) => [deal.id, deal]));
  for (const deal of cohort) {
    for (const move of deal.moves) {
      const group = groupOf(by, move, deal);
      if (group !== undefined) row(group).accepted++;
    }
    const close: MoveFact | undefined = deal.close;
    const at = closedAt(deal);
    if (close === undefined || at === undefined) continue;
    const group = groupOf(by, close, deal);
    if (group === undefined) continue;
    const into = row(group);
    if (deal.stage === 'closed_won') {
      into.won++;
      into.value += deal.finalValueCents ?? 0;
    } else into.lost++;
    into.toClose.push(at - deal.createdAt);
  }
  for (const refusal of refusals) {
    const deal = byId.get(refusal.dealId);
    if (deal === undefined) continue;
    const group = groupOf(by, refusal, deal);
    if (group !== undefined) row(group).refused += refusal.n;
  }
  return [...rows.keys()]
    .sort((a, b) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1))
    .map((group) => {
      const f = rows.get(group) as NonNullable<ReturnType<typeof rows.get>>;
      return {
        group,
        deals: f.won + f.lost,
        won: f.won,
        lost: f.lost,
        closedValueCents: f.value,
        medianMsToClose: nearestRank(f.toClose, 50),
        accepted: f.accepted,
        refused: f.refused,
      };
    });
}
