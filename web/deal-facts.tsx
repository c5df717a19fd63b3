// The facts at the top of a deal's page: its stage (labelled `Stage`, D-43), values, account,
// who works it, signals, stall, last activity and the deal it was revived from.
import { owningRole } from '../src/domain/stages.ts';
import { stalledSince } from './activity-words.ts';
import { type Deal, usd } from './api.ts';
import { dealName, plural, signalWords, stageLabel } from './words.ts';

export function DealFacts({ deal }: { deal: Deal }) {
  const open = deal.stage !== 'closed_won' && deal.stage !== 'closed_lost';
  const since = stalledSince(deal);
  const lastActivity = deal.activity.at(-1)?.at;
  return (
    <dl class="facts">
      <div>
        <dt>
          <label for="deal-stage">Stage</label>
        </dt>
        <dd>
          <output id="deal-stage" data-stage={deal.stage}>
            {stageLabel(deal.stage)}
          </output>
        </dd>
      </div>
      <div>
        <dt>List value</dt>
        <dd>{usd(deal.listValueUsd)}</dd>
      </div>
      {deal.finalValueUsd !== undefined ? (
        <div>
          <dt>Won value</dt>
          <dd>{usd(deal.finalValueUsd)}</dd>
        </div>
      ) : null}
      <div>
        <dt>Account</dt>
        <dd>
          {deal.account.actor}
          {deal.account.industry ? `, ${deal.account.industry}` : ''}
        </dd>
      </div>
      {open ? (
        <div>
          <dt>Worked by</dt>
          <dd>{deal.humanTrack ? `A human (${owningRole(deal)} role)` : 'The agent'}</dd>
        </div>
      ) : null}
      <div>
        <dt>Signals</dt>
        <dd>{deal.signals.length === 0 ? 'None' : deal.signals.map(signalWords).join(', ')}</dd>
      </div>
      {open ? (
        <div>
          <dt>Stall</dt>
          <dd>
            {since
              ? `Stalled since ${new Date(since).toLocaleString()}`
              : `Stalls after ${plural(deal.mandate.stallTimeoutDays, 'day')} without activity`}
          </dd>
        </div>
      ) : null}
      {lastActivity ? (
        <div>
          <dt>Last activity</dt>
          <dd>
            <time dateTime={lastActivity}>{new Date(lastActivity).toLocaleString()}</time>
          </dd>
        </div>
      ) : null}
      {deal.lineage ? (
        <div>
          <dt>Revived from</dt>
          <dd>
            <a href={`#/deals/${deal.lineage.revivedFrom}`}>{dealName(deal.lineage.revivedFrom)}</a>
          </dd>
        </div>
      ) : null}
    </dl>
  );
}
