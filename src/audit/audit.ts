// `audit <base-url>`: reads a live deployment through its public API and checks the core's
// invariants (src/domain/invariants.ts) over everything it holds.
import { checkInvariants, type EventFact, type Violation } from '../domain/invariants.ts';
import type { Gig } from '../domain/records.ts';
import { closerFromView, dealFromView, gigFromView, payoutsFromView, settlementFromView } from './from-views.ts';
import { type Json, type ReadOptions, readDeployment } from './read-deployment.ts';

export interface AuditReport {
  baseUrl: string;
  read: { deals: number; gigs: number; closers: number; payouts: number; settlements: number; events: number };
  violations: Violation[];
}

/** What an event of the feed says about the records it names. */
function eventFact(event: Json): EventFact {
  const data = (event.data ?? {}) as Json;
  const dealId = data.dealId ?? data.deal?.id ?? data.gig?.dealId;
  const gigId = data.gigId ?? data.gig?.id;
  return {
    seq: Number(event.seq),
    type: String(event.type),
    ...(typeof dealId === 'string' ? { dealId } : {}),
    ...(typeof gigId === 'string' ? { gigId } : {}),
    ...(event.type === 'deal.stage_changed' ? { to: data.to } : {}),
  };
}

export async function auditDeployment(baseUrl: string, options: ReadOptions = {}): Promise<AuditReport> {
  const read = await readDeployment(baseUrl, options);
  const gigs = read.gigs.map(gigFromView);
  const gigsById = new Map<string, Gig>(gigs.map((g) => [g.id, g]));
  const payouts = read.closers.flatMap((closer) => payoutsFromView(closer, gigsById));
  const violations = checkInvariants({
    deals: read.deals.map(dealFromView),
    gigs,
    closers: read.closers.map(closerFromView),
    payouts,
    settlements: new Map([...read.settlements].map(([id, view]) => [id, settlementFromView(view)])),
    events: read.events.map(eventFact),
  });
  return {
    baseUrl,
    read: {
      deals: read.deals.length,
      gigs: gigs.length,
      closers: read.closers.length,
      payouts: payouts.length,
      settlements: read.settlements.size,
      events: read.events.length,
    },
    violations,
  };
}
