// The records a deal's page shows as they are (deal-page.tsx holds the moves): its settlement
// once won, its mandate, its gigs and its activity, in words (D-228): stage labels, closers'
// names, percentages and sentences; the raw text of each activity entry stays in its title.
// The activity interleaves, by time, the proposals the gate refused on the deal (D-61), each
// marked Refused, with the gate's reason (its very words in the title) and code, who proposed
// and what.

import { activityWords, CONSOLE_NOTE } from './activity-words.ts';
import { type ActorNames, personOf } from './actor-names.ts';
import { type Deal, type Gig, type RefusedProposal, type Settlement, usd } from './api.ts';
import { proposedWords, refusalCodeWords } from './proposal-words.ts';
import { dealName, gigName, humanize, money, percent, plural, staffingSentence, stageLabel, when } from './words.ts';

/** A won deal's settlement: where its final value went, in USD, and what refunds gave back. */
export function SettlementFacts({ settlement }: { settlement: Settlement }) {
  return (
    <section aria-label="Settlement" class="settlement">
      <h2>Settlement</h2>
      <dl class="facts">
        {(
          [
            ['Final value', usd(settlement.finalValueUsd)],
            // D-81: once the deal has a refund, what the customer got back in all.
            ...(settlement.refundedUsd === undefined ? [] : [['Refunded', usd(settlement.refundedUsd)] as const]),
            // D-65: a human close owing no commission was the Seller's own person's.
            [
              'Closed by',
              settlement.closedBy === 'agent'
                ? 'The agent'
                : settlement.closerCommissionUsd > 0
                  ? 'A human closer'
                  : 'A person of the Seller',
            ],
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

/**
 * Who proposed a refused move, in words: the executor, and in keys mode the person by name (D-65)
 * or the principal and the key.
 */
export function proposerWords(
  record: RefusedProposal,
  closer: (id: string) => string,
  names?: Pick<ActorNames, 'principal' | 'key'>,
): { who: string; through?: string } {
  const onGig = record.gigId ? ` on ${gigName(record.gigId)}` : '';
  const person = record.actor && personOf(record.actor);
  if (person) return { who: `${person.name}${onGig}` };
  if (record.actor && 'keyId' in record.actor) {
    const { principal, keyId } = record.actor;
    const name = principal.startsWith('closer_') ? closer(principal) : (names?.principal(principal) ?? principal);
    const who = record.by === 'agent' ? `The agent of ${name}` : `${name}${onGig}`;
    return { who, through: `with the key ${names?.key(keyId) ?? keyId}` };
  }
  // D-229: in the demo a Seller's move from the console is the agent's; the note says where.
  if (record.by === 'agent')
    return { who: record.proposal.note?.startsWith(CONSOLE_NOTE) ? 'From the console' : 'The agent' };
  return { who: `A human closer${onGig}` };
}

/** One refused proposal, marked Refused: when, who, what was proposed, the gate's reason and code. */
export function RefusalEntry({
  record,
  closer,
  names,
  showDeal = false,
}: {
  record: RefusedProposal;
  closer: (id: string) => string;
  names?: Pick<ActorNames, 'principal' | 'key'>;
  /** Name the deal, linking to its page (lists over many deals). */
  showDeal?: boolean;
}) {
  const { who, through } = proposerWords(record, closer, names);
  return (
    <li class="refusal" data-code={record.code} title={record.reason}>
      <time dateTime={record.at}>{when(record.at)}</time> <span class="refused-badge">Refused</span>{' '}
      {showDeal ? (
        <>
          <a href={`#/deals/${encodeURIComponent(record.dealId)}`}>{dealName(record.dealId)}</a>:{' '}
        </>
      ) : null}
      <strong>{who}</strong> {through ? <span class="through">{through} </span> : null}proposed{' '}
      <span class="what">{proposedWords(record.proposal)}</span>.{' '}
      <span class="why">
        The gate refused: {humanize(record.reason, closer)}{' '}
        <span class="code">
          ({refusalCodeWords(record.code)}, <code>{record.code}</code>)
        </span>
      </span>{' '}
      <span class="stage">{stageLabel(record.stage)}</span>
    </li>
  );
}

type Line = { at: number; i: number; entry: Deal['activity'][number] } | { at: number; refusal: RefusedProposal };

/**
 * The deal's activity, oldest first: when, who, what, and at which stage; the refused proposals
 * among it by time (at the same instant, after the entries: a refusal follows the change it met).
 * The entries are numbered 1, 2, 3… and the refusals between them are not (D-261): a refusal
 * changed nothing, so it takes no number and the entries' numbers do not jump over it.
 */
export function DealActivity({
  activity,
  refusals = [],
  closer,
  names,
}: {
  activity: Deal['activity'];
  refusals?: readonly RefusedProposal[];
  closer: (id: string) => string;
  names?: Pick<ActorNames, 'principal' | 'key' | 'actor'>;
}) {
  const lines: Line[] = [
    ...activity.map((entry, i) => ({ at: Date.parse(entry.at), i, entry })),
    // Listed newest first: put back oldest first before the (stable) sort.
    ...[...refusals].reverse().map((refusal) => ({ at: Date.parse(refusal.at), refusal })),
  ];
  lines.sort((a, b) => a.at - b.at || ('entry' in a ? 0 : 1) - ('entry' in b ? 0 : 1));
  let committed = 0;
  return (
    <section class="activity">
      <h2 id="activity-title">Activity</h2>
      {refusals.length > 0 ? (
        <p class="hint">
          The gate refused {plural(refusals.length, 'proposal')} on this deal:{' '}
          {refusals.length === 1 ? 'it is' : 'they are'} among the activity, marked Refused.{' '}
          <a href="#/proposals">All refused proposals</a>
        </p>
      ) : null}
      <ol aria-labelledby="activity-title">
        {lines.map((line) => {
          if ('refusal' in line)
            return <RefusalEntry record={line.refusal} closer={closer} names={names} key={line.refusal.id} />;
          const { entry, i } = line;
          const { who, what } = activityWords(entry, closer, names?.actor);
          // A list item's number counts every item before it, refusals too: each entry says its own.
          committed += 1;
          return (
            <li key={i} value={committed} title={entry.note}>
              <time dateTime={entry.at}>{new Date(entry.at).toLocaleString()}</time> <strong>{who}</strong>{' '}
              <span class="what">{what}</span> <span class="stage">{stageLabel(entry.stage)}</span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
