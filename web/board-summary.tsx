// The board's summary (D-228): a funnel of deals and list value per stage over the deals the board
// shows, and the money line: won value, platform fees and commissions paid, as the money insight
// adds up the caller's settlements (D-73: a Seller's commissions are its settlements', never the
// closers' ledgers it may not read), all time, of the Seller chosen when the operator chose one.
import { useEffect, useState } from 'preact/hooks';
import { STAGES } from '../src/domain/stages.ts';
import { api, type Deal, usd } from './api.ts';
import { plural, STAGE_LABELS } from './words.ts';

type Money = { wonUsd: number; platformFeesUsd: number | null; commissionsUsd: number };

export function Summary({ deals, seller }: { deals: Deal[]; seller: string }) {
  const [money, setMoney] = useState<Money | undefined>();
  // Read again when a deal closes won (the money line changes only then), or the Seller changes.
  const won = deals.filter((d) => d.stage === 'closed_won');
  useEffect(() => {
    let live = true;
    (async () => {
      const query = seller ? { sellerId: seller } : {};
      const answer = await api.GET('/insights/money', { params: { query } });
      if (!live || !answer.data) return;
      const { closedWon, platformFeesUsd, commissionsUsd } = answer.data;
      setMoney({ wonUsd: closedWon.valueUsd, platformFeesUsd, commissionsUsd });
    })();
    return () => {
      live = false;
    };
  }, [won.map((d) => d.id).join(), seller]);
  const perStage = STAGES.map((stage) => {
    const inStage = deals.filter((d) => d.stage === stage);
    return { stage, count: inStage.length, value: inStage.reduce((sum, d) => sum + d.listValueUsd, 0) };
  });
  const widest = Math.max(1, ...perStage.map((s) => s.value));
  return (
    <section class="summary" aria-label="Summary">
      <dl class="totals">
        <div>
          <dt>Won value</dt>
          <dd>{money ? usd(money.wonUsd) : '…'}</dd>
        </div>
        <div>
          <dt>Platform fees</dt>
          <dd>{money ? (money.platformFeesUsd === null ? 'not yours to see' : usd(money.platformFeesUsd)) : '…'}</dd>
        </div>
        <div>
          <dt>Commissions paid</dt>
          <dd>{money ? usd(money.commissionsUsd) : '…'}</dd>
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
