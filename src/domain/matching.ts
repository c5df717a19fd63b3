// D-25: every enrolled closer, ranked by industry fit, then win rate, then closed volume, then id.
import { compareIds } from './ids.ts';
import type { Closer } from './records.ts';

export interface Match {
  readonly closer: Closer;
  readonly score: number;
  readonly winRate: number;
}

export function winRate(closer: Closer): number {
  return closer.record.gigs === 0 ? 0 : closer.record.wins / closer.record.gigs;
}

function fits(closer: Closer, industry: string | undefined): boolean {
  if (!industry) return false;
  const wanted = industry.toLowerCase();
  return closer.industries.some((i) => i.toLowerCase() === wanted);
}

const compareBig = (x: bigint, y: bigint) => (x > y ? 1 : x < y ? -1 : 0);

export function rankClosers(closers: readonly Closer[], industry: string | undefined): Match[] {
  let largest = 0n;
  for (const c of closers) if (c.record.grossClosedCents > largest) largest = c.record.grossClosedCents;
  const rows = closers.map((closer) => {
    const fit = fits(closer, industry) ? 1 : 0;
    const rate = winRate(closer);
    // A share of the largest, for the score only: as numbers, close enough at any size.
    const volume = largest === 0n ? 0 : Number(closer.record.grossClosedCents) / Number(largest);
    // Rounded for display only: the order below, not the score, is authoritative.
    const score = Math.round((0.6 * fit + 0.3 * rate + 0.1 * volume) * 10_000) / 10_000;
    return { closer, score, winRate: Math.round(rate * 10_000) / 10_000, fit, rate };
  });
  rows.sort(
    (a, b) =>
      b.fit - a.fit ||
      b.rate - a.rate ||
      compareBig(b.closer.record.grossClosedCents, a.closer.record.grossClosedCents) ||
      compareIds(a.closer.id, b.closer.id),
  );
  return rows.map(({ closer, score, winRate }) => ({ closer, score, winRate }));
}
