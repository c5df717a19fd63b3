// D-73 `marketplace`: the gigs of the caller's deals (a closer: the gigs it claimed), how many were
// claimed and how fast, and how they ended so far.
import type { Gig, GigStatus } from '../records.ts';
import { nearestRank } from './figures.ts';

export interface MarketplaceInsight {
  readonly gigs: { readonly posted: number; readonly claimed: number } & Record<
    Exclude<GigStatus, 'open' | 'claimed'>,
    number
  >;
  readonly msToClaim: { readonly p50: number | null; readonly p90: number | null };
}

/** When a gig was first claimed (a claim that expired reopens the gig, but it was claimed). */
export const firstClaimedAt = (gig: Gig): number | undefined => gig.firstClaimedAt ?? gig.claimedAt;

export function marketplaceInsight(gigs: Iterable<Gig>): MarketplaceInsight {
  const counts = { posted: 0, claimed: 0, fulfilled: 0, released: 0, expired: 0 };
  const toClaim: number[] = [];
  for (const gig of gigs) {
    counts.posted++;
    const claimed = firstClaimedAt(gig);
    if (claimed !== undefined) {
      counts.claimed++;
      toClaim.push(claimed - gig.postedAt);
    }
    if (gig.status === 'fulfilled' || gig.status === 'released' || gig.status === 'expired') counts[gig.status]++;
  }
  return {
    gigs: counts,
    msToClaim: { p50: nearestRank(toClaim, 50), p90: nearestRank(toClaim, 90) },
  };
}
