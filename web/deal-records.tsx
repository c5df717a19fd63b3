// The records a deal's page shows as they are (deal-page.tsx holds the moves): its settlement
// once won, its mandate, its gigs and its activity.
import { type Deal, type Gig, type Settlement, usd } from './api.ts';

/** A won deal's settlement: where its final value went, in USD. */
export function SettlementFacts({ settlement }: { settlement: Settlement }) {
  return (
    <section aria-label="Settlement" class="settlement">
      <h2>Settlement</h2>
      <dl class="facts">
        {(
          [
            ['Final value', usd(settlement.finalValueUsd)],
            ['Closed by', settlement.closedBy],
            ['Closer commission', usd(settlement.closerCommissionUsd)],
            ['Platform fee', usd(settlement.platformFeeUsd)],
            ['Fees settled', usd(settlement.feesSettledUsd)],
            ['Net to seller', usd(settlement.netToSellerUsd)],
          ] as const
        ).map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** The deal's mandate: who staffs each role, the commission, the floor and the stall timeout. */
export function MandateFacts({ mandate }: { mandate: Deal['mandate'] }) {
  return (
    <section aria-label="Mandate" class="mandate">
      <h2>Mandate</h2>
      <dl class="facts">
        {(['setter', 'closer', 'nurturer'] as const).map((role) => (
          <div key={role}>
            <dt>{role}</dt>
            <dd>{JSON.stringify(mandate.staffing[role]).replaceAll('"', '')}</dd>
          </div>
        ))}
        <div>
          <dt>Commission</dt>
          <dd>{Math.round(mandate.commissionPct * 10000) / 100}%</dd>
        </div>
        <div>
          <dt>Floor</dt>
          <dd>{Math.round(mandate.floorPct * 10000) / 100}% of list</dd>
        </div>
        <div>
          <dt>Stall timeout</dt>
          <dd>{mandate.stallTimeoutDays} days</dd>
        </div>
      </dl>
    </section>
  );
}

/** The deal's gigs: role, status and closer. */
export function DealGigs({ gigs }: { gigs: readonly Gig[] }) {
  return (
    <section aria-label="Gigs" class="deal-gigs">
      <h2>Gigs</h2>
      {gigs.length === 0 ? <p>None.</p> : null}
      <ul>
        {gigs.map((gig) => (
          <li key={gig.id}>
            {gig.id}: {gig.role}, {gig.status}
            {gig.closerId ? `, ${gig.closerId}` : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The deal's activity, oldest first. */
export function DealActivity({ activity }: { activity: Deal['activity'] }) {
  return (
    <section class="activity">
      <h2 id="activity-title">Activity</h2>
      <ol aria-labelledby="activity-title">
        {activity.map((entry, i) => (
          <li key={i}>
            <time dateTime={entry.at}>{new Date(entry.at).toLocaleString()}</time> <strong>{entry.by}</strong>{' '}
            <span class="stage">{entry.stage}</span> {entry.note}
          </li>
        ))}
      </ol>
    </section>
  );
}
