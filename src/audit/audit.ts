// `audit <base-url>`: reads a live deployment through its public API and checks the core's
// invariants (src/domain/invariants.ts) over everything it holds, its books too (D-82: the
// balances sum to zero, every settlement's transfers equal its figures, replaying the transfers
// gives every balance; src/domain/ledger/ledger-invariants.ts).
import { checkInvariants, type EventFact, type Violation } from '../domain/invariants.ts';
import type { Gig } from '../domain/records.ts';
import {
  balanceFromView,
  closerFromView,
  closerPayoutFromView,
  dealFromView,
  gigFromView,
  payoutsFromView,
  refundFromView,
  settlementFromView,
  transferFromView,
} from './from-views.ts';
import { type Json, type ReadOptions, readDeployment } from './read-deployment.ts';

export interface AuditReport {
  baseUrl: string;
  read: {
    deals: number;
    gigs: number;
    closers: number;
    payouts: number;
    settlements: number;
    events: number;
    /** The books: transfers, the accounts whose balances were read, refunds and payouts to closers. */
    transfers: number;
    accounts: number;
    refunds: number;
    closerPayouts: number;
  };
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
  const settlements = new Map([...read.settlements].map(([id, view]) => [id, settlementFromView(view)]));
  const refunds = [...read.refunds.values()].flat().map(refundFromView);
  const violations = checkInvariants({
    deals: read.deals.map(dealFromView),
    gigs,
    closers: read.closers.map(closerFromView),
    payouts,
    settlements,
    events: read.events.map(eventFact),
    books: {
      transfers: read.transfers.map(transferFromView),
      settlements,
      balances: new Map([...read.balances].map(([account, view]) => [account, balanceFromView(view)])),
      refunds,
      payouts: read.payouts.map(closerPayoutFromView),
    },
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
      transfers: read.transfers.length,
      accounts: read.balances.size,
      refunds: refunds.length,
      closerPayouts: read.payouts.length,
    },
    violations,
  };
}
