// The records a deal's page shows as they are (deal-page.tsx holds the moves): its settlement
// once won, its mandate, its gigs and its activity, in words (D-228): stage labels, closers'
// names, percentages and sentences; the raw text of each activity entry stays in its title.
import { type Deal, type Gig, type Settlement, usd } from './api.ts';
import { activityWords, gigName, money, percent, plural, staffingSentence, stageLabel } from './words.ts';

/** A won deal's settlement: where its final value went, in USD. */
export function SettlementFacts({ settlement }: { settlement: Settlement }) {
  return (
    <section aria-label="Settlement" class="settlement">
      <h2>Settlement</h2>
      <dl class="facts">
        {(
          [
            ['Final value', usd(settlement.finalValueUsd)],
            ['Closed by', settlement.closedBy === 'human' ? 'A human closer' : 'The agent'],
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
export function MandateFacts({ mandate, listValueUsd }: { mandate: Deal['mandate']; listValueUsd: number }) {
  return (
    <section aria-label="Mandate" class="mandate">
      <h2>Mandate</h2>
      <dl class="facts">
        {(['setter', 'closer', 'nurturer'] as const).map((role) => (
          <div key={role}>
            <dt>{role[0].toUpperCase() + role.slice(1)}</dt>
            <dd>{staffingSentence(role, mandate.staffing[role])}</dd>
          </div>
        ))}
        <div>
          <dt>Commission</dt>
          <dd>
            {percent(mandate.commissionPct)} (at most {percent(mandate.maxCommissionPct)})
          </dd>
        </div>
        <div>
          <dt>Floor</dt>
          <dd>
            {percent(mandate.floorPct)} of list ({money(Math.round(listValueUsd * mandate.floorPct * 100) / 100)})
          </dd>
        </div>
        <div>
          <dt>Fees</dt>
          <dd>
            Setter {money(mandate.fees.setterUsd)}, nurturer {money(mandate.fees.nurturerUsd)}
          </dd>
        </div>
        <div>
          <dt>Stall timeout</dt>
          <dd>{plural(mandate.stallTimeoutDays, 'day')} without activity</dd>
        </div>
      </dl>
    </section>
  );
}

/** A gig's status in words, naming its closer. */
function gigStatus(gig: Gig, closer: (id: string) => string): string {
  const who = gig.closerId ? ` by ${closer(gig.closerId)}` : '';
  switch (gig.status) {
    case 'open':
      return 'open, waiting for a human at the Closer desk';
    case 'claimed':
      return `claimed${who}`;
    case 'fulfilled':
      return `done${who}`;
    case 'released':
      return 'released';
    default:
      return 'expired unclaimed';
  }
}

/** The deal's gigs: role, status and closer. */
export function DealGigs({ gigs, closer }: { gigs: readonly Gig[]; closer: (id: string) => string }) {
  return (
    <section aria-label="Gigs" class="deal-gigs">
      <h2>Gigs</h2>
      {gigs.length === 0 ? <p>None: the agent has worked this deal alone.</p> : null}
      <ul>
        {gigs.map((gig) => (
          <li key={gig.id} title={gig.id}>
            <strong>{gigName(gig.id).replace('gig', 'Gig')}</strong> for the {gig.role} role, {gigStatus(gig, closer)}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The deal's activity, oldest first: when, who, what, and at which stage. */
export function DealActivity({ activity, closer }: { activity: Deal['activity']; closer: (id: string) => string }) {
  return (
    <section class="activity">
      <h2 id="activity-title">Activity</h2>
      <ol aria-labelledby="activity-title">
        {activity.map((entry, i) => {
          const { who, what } = activityWords(entry, closer);
          return (
            <li key={i} title={entry.note}>
              <time dateTime={entry.at}>{new Date(entry.at).toLocaleString()}</time> <strong>{who}</strong>{' '}
              <span class="what">{what}</span> <span class="stage">{stageLabel(entry.stage)}</span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
