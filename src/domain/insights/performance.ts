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

/** A group's closes, added up (by a store its own way, or performanceInsight). */
export interface GroupCloses {
  readonly group: string | null;
  readonly won: number;
  readonly lost: number;
  readonly closedValueCents: Cents;
  readonly medianMsToClose: number | null;
}

/** A count of a group's acts (moves accepted, or proposals refused). */
export interface GroupCount {
  readonly group: string | null;
  readonly n: number;
}

/** The rows of the groups that closed, moved or were refused anything, in group order (null last). */
export function performanceOf(
  closes: readonly GroupCloses[],
  accepted: readonly GroupCount[],
  refused: readonly GroupCount[],
): PerformanceRow[] {
  const rows = new Map<string | null, PerformanceRow>();
  const empty = (group: string | null): PerformanceRow => ({
    group,
    deals: 0,
    won: 0,
    lost: 0,
    closedValueCents: 0,
    medianMsToClose: null,
    accepted: 0,
    refused: 0,
  });
  const row = (group: string | null) => rows.get(group) ?? empty(group);
  for (const close of closes) rows.set(close.group, { ...row(close.group), ...close, deals: close.won + close.lost });
  for (const { group, n } of accepted) rows.set(group, { ...row(group), accepted: row(group).accepted + n });
  for (const { group, n } of refused) rows.set(group, { ...row(group), refused: row(group).refused + n });
  return [...rows.keys()]
    .sort((a, b) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1))
    .map((group) => rows.get(group) as PerformanceRow);
}

export function performanceInsight(
  by: PerformanceBy,
  cohort: readonly DealFacts[],
  refusals: Iterable<RefusalFact>,
): PerformanceRow[] {
  const closes = new Map<string | null, { won: number; lost: number; value: number; toClose: number[] }>();
  const accepted = new Map<string | null, number>();
  const refused = new Map<string | null, number>();
  const add = (into: Map<string | null, number>, group: string | null, n: number) =>
    into.set(group, (into.get(group) ?? 0) + n);
  const byId = new Map(cohort.map((deal) => [deal.id, deal]));
  for (const deal of cohort) {
    for (const move of deal.moves) {
      const group = groupOf(by, move, deal);
      if (group !== undefined) add(accepted, group, 1);
    }
    const close: MoveFact | undefined = deal.close;
    const at = closedAt(deal);
    if (close === undefined || at === undefined) continue;
    const group = groupOf(by, close, deal);
    if (group === undefined) continue;
    const into = closes.get(group) ?? { won: 0, lost: 0, value: 0, toClose: [] };
    if (deal.stage === 'closed_won') {
      into.won++;
      into.value += deal.finalValueCents ?? 0;
    } else into.lost++;
    into.toClose.push(at - deal.createdAt);
    closes.set(group, into);
  }
  for (const refusal of refusals) {
    const deal = byId.get(refusal.dealId);
    const group = deal && groupOf(by, refusal, deal);
    if (deal !== undefined && group !== undefined) add(refused, group, refusal.n);
  }
  const counts = (of: Map<string | null, number>) => [...of].map(([group, n]) => ({ group, n }));
  return performanceOf(
    [...closes].map(([group, f]) => ({
      group,
      won: f.won,
      lost: f.lost,
      closedValueCents: f.value,
      medianMsToClose: nearestRank(f.toClose, 50),
    })),
    counts(accepted),
    counts(refused),
  );
}
