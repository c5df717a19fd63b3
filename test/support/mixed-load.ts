// A bounded mixed write load for the crash tests: sells with human closers (each posts a closer
// gig), claims, gig moves through to closed_won, signals, moves of the demo clock (the timers
// fire: claims expire, held earnings are released), partial refunds of won deals and payout runs
// (D-80, D-81), from several clients at once, seeded. It remembers what the service
// acknowledged, so that a test can check after a crash that none of it was lost.
import { seededRandom } from '../../src/sim/random.ts';
import type { TestServer } from './http.ts';

/** A seed reproduces the sequence of choices. */
export const random = seededRandom;

export interface Acknowledged {
  /** Deals a sell answered 201 for. */
  deals: Set<string>;
  /** Gigs whose claim was answered 200, with the claimant. */
  claims: Map<string, string>;
  /** Gigs closed won with 200: each must be fulfilled and paid once. */
  won: Map<string, { closerId: string; dealId: string }>;
  /** Refunds answered 201 (D-81): each must be on its deal's list, with its cents. */
  refunds: Map<string, { dealId: string; amountUsd: number }>;
  /** Payouts a run answered 200 with (D-80): each must be listed, and no cent paid twice. */
  payouts: Map<string, { closerId: string; amountUsd: number }>;
}

const CLOSERS = ['closer_0001', 'closer_0002'];

export function acknowledged(): Acknowledged {
  return { deals: new Set(), claims: new Map(), won: new Map(), refunds: new Map(), payouts: new Map() };
}

/**
 * Runs `clients` loops of random writes against `service` until `stop()` says so or a request
 * fails at the connection (the process is gone). Answers other than 2xx and 4xx are collected
 * in `unexpected` (a 503 while a database restarts is expected and not collected).
 */
export async function mixedLoad(
  service: Pick<TestServer, 'url'>,
  seen: Acknowledged,
  options: { seed: number; clients: number; stop: () => boolean; unexpected: string[] },
): Promise<number> {
  const next = random(options.seed);
  let sent = 0;
  const post = async (path: string, body: unknown) => {
    sent++;
    const answer = await fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    const parsed = (await answer.json()) as Record<string, any>;
    if (answer.status >= 500 && answer.status !== 503) {
      options.unexpected.push(`${path} → ${answer.status} ${JSON.stringify(parsed)}`);
    }
    return { status: answer.status, body: parsed };
  };
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
  const client = async () => {
    while (!options.stop()) {
      const roll = next();
      try {
        const open = [...seen.deals];
        if (roll < 0.3 || open.length < 4) {
          const sold = await post('/pipeline/sell', {
            account: { name: `Fictional Crash ${Math.floor(next() * 1e6)}`, industry: 'saas', actor: 'B2B' },
            listValueUsd: 10_000 + Math.floor(next() * 90_000),
            mandate: { staffing: { closer: 'human' } },
          });
          if (sold.status === 201) seen.deals.add(sold.body.deal?.id ?? sold.body.id);
        } else if (roll < 0.5) {
          // Claim an open gig (one of the last page of open gigs).
          const gigs = (await (await fetch(`${service.url}/closers/gigs?status=open&limit=20`)).json()) as any[];
          if (Array.isArray(gigs) && gigs.length > 0) {
            const gig = pick(gigs);
            const closerId = pick(CLOSERS);
            const claimed = await post(`/closers/gigs/${gig.id}/claim`, { closerId });
            if (claimed.status === 200) seen.claims.set(gig.id, closerId);
          }
        } else if (roll < 0.75) {
          // Move a claimed gig on: proposal, negotiation, then closed_won at its list value.
          const claimed = [...seen.claims].filter(([gigId]) => !seen.won.has(gigId));
          if (claimed.length > 0) {
            const [gigId, closerId] = pick(claimed);
            const gig = (await (await fetch(`${service.url}/closers/gigs/${gigId}`)).json()) as any;
            const deal = (await (await fetch(`${service.url}/pipeline/deals/${gig.dealId}`)).json()) as any;
            const stage = deal?.stage;
            const to = stage === 'meeting' ? 'proposal' : stage === 'proposal' ? 'negotiation' : 'closed_won';
            const moved = await post(`/closers/gigs/${gigId}/advance`, {
              closerId,
              advanceTo: to,
              ...(to === 'closed_won' ? { valueUsd: gig.brief.listValueUsd } : {}),
            });
            if (moved.status === 200 && to === 'closed_won') seen.won.set(gigId, { closerId, dealId: gig.dealId });
          }
        } else if (roll < 0.8) {
          // A partial refund of a won deal: some pass its final value in all, and are refused.
          const won = [...seen.won.values()];
          if (won.length > 0) {
            const { dealId } = pick(won);
            const amountUsd = 1_000 + Math.floor(next() * 30_000);
            const refunded = await post(`/pipeline/deals/${dealId}/refunds`, { amountUsd, reason: 'crash test' });
            if (refunded.status === 201) seen.refunds.set(refunded.body.id, { dealId, amountUsd });
          }
        } else if (roll < 0.84) {
          const run = await post('/payouts/runs', {});
          if (run.status === 200) for (const payout of run.body.payouts) seen.payouts.set(payout.id, payout);
        } else if (roll < 0.92) {
          const dealId = pick(open);
          await post(`/pipeline/deals/${dealId}/signals`, { signals: [pick(['budget_approved', 'champion_found'])] });
        } else {
          // Hours at a time: claims (72 h) and stalls (days) fall due now and then.
          await post('/demo/clock', { advanceHours: 1 + Math.floor(next() * 12) });
        }
      } catch {
        // The process is gone (killed) or the request timed out: this client stops.
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  return sent;
}
