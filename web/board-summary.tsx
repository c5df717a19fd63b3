// The board's summary (D-228): a funnel of deals and list value per stage, won value, platform
// fees and commissions paid, over the deals the board shows.
import { useEffect, useState } from 'preact/hooks';
import { STAGES } from '../src/domain/stages.ts';
import { api, type Deal, usd } from './api.ts';
import { plural, STAGE_LABELS } from './words.ts';

/** Settlements never change once a deal is won: each is read once. */
const platformFees = new Map<string, number>();

export function Summary({ deals, commissions }: { deals: Deal[]; commissions: number }) {
  const [fees, setFees] = useState(0);
  const won = deals.filter((d) => d.stage === 'closed_won');
  useEffect(() => {
    let live = true;
    (async () => {
      for (const deal of won) {
        if (platformFees.has(deal.id)) continue;
        const answer = await api.GET('/pipeline/deals/{id}/settlement', { params: { path: { id: deal.id } } });
        if (answer.data) platformFees.set(deal.id, answer.data.platformFeeUsd);
      }
      if (live) setFees(won.reduce((sum, d) => sum + (platformFees.get(d.id) ?? 0), 0));
    })();
    return () => {
      live = false;
    };
  }, [won.map((d) => d.id).join()]);
  const perStage = STAGES.map((stage) => {
    const inStage = deals.filter((d) => d.stage === stage);
    return { stage, count: inStage.length, value: inStage.reduce((sum, d) => sum + d.listValueUsd, 0) };
  });
  const wonValue = won.reduce((sum, d) => sum + (d.finalValueUsd ?? 0), 0);
  const widest = Math.max(1, ...perStage.map((s) => s.value));
  return (
    <section class="summary" aria-label="Summary">
      <dl class="totals">
        <div>
          <dt>Won value</dt>
          <dd>{usd(wonValue)}</dd>
        </div>
        <div>
          <dt>Platform fees</dt>
          <dd>{usd(fees)}</dd>
        </div>
        <div>
          <dt>Commissions paid</dt>
          <dd>{usd(commissions)}</dd>
        </div>
        <div>
          <dt>Deals</dt>
          <dd>{deals.length.toLocaleString('en-US')}</dd>
        </div>
      </dl>
      <figure class="funnel" aria-label="Deals and list value per stage">
        <figcaption>Deals and list value per stage</figcaption>
        {perStage.map((s) => (
          <div class="bar" key={s.stage}>
            <span class="label">{STAGE_LABELS[s.stage]}</span>
            <span class="track">
              <span class="fill" style={{ width: `${(100 * s.value) / widest}%` }} />
            </span>
            <span class="figure">
              {plural(s.count, 'deal')} · {usd(s.value)} list
            </span>
          </div>
        ))}
      </figure>
    </section>
  );
}
