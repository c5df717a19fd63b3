// A closer's money on its desk (D-80, D-82): its balances now (pending: held after it was earned;
// available: what the next payout run pays; paid out), the payouts made to it (with "Download
// CSV", as the service writes them), and its monthly statement (ledger-statement.tsx), opening at
// the platform clock's month (the balance's `asOf`). Read again when the ledger may have moved: a
// close, a gig's fee, a refund, a payout run (the event stream); a hold's release publishes
// nothing, so it shows at the next of those or when the desk is opened again.
import { useCallback, useState } from 'preact/hooks';
import { usd } from './api.ts';
import { csvName, downloadList } from './csv-download.ts';
import { DownloadCsv } from './download-button.tsx';
import { unreachableWords } from './error-words.ts';
import {
  type Balance,
  balance,
  type CloserStatement,
  closerStatement,
  monthOf,
  type Payout,
  payoutsOf,
} from './ledger-api.ts';
import { useLedgerReads } from './ledger-live.ts';
import { type Figure, StatementSection } from './ledger-statement.tsx';
import { monthWords } from './ledger-words.ts';
import { when } from './words.ts';

/** The events after which the ledger may hold something new for a closer. */
const moves = (type: string) =>
  type === 'deal.closed' ||
  type === 'deal.refunded' ||
  type === 'gig.fulfilled' ||
  type.startsWith('payout.') ||
  type === 'demo.reset';

const closerFigures = (s: CloserStatement): Figure[] => [
  { label: 'Opening balance', usd: s.openingUsd },
  { label: 'Earned', usd: s.earnedUsd, sign: '+' },
  { label: 'Clawed back', usd: s.clawedBackUsd, sign: '−' },
  { label: 'Paid out', usd: s.paidUsd, sign: '−' },
  { label: 'Closing balance', usd: s.closingUsd },
];

function Balances({ balance }: { balance: Balance }) {
  const available = balance.availableUsd ?? 0;
  return (
    <section aria-labelledby="balances-title">
      <h2 id="balances-title">Balances</h2>
      <dl class="facts">
        {(
          [
            ['Pending', balance.pendingUsd ?? 0, 'held after it was earned, until the hold ends'],
            ['Available', available, 'paid by the next payout run'],
            ['Paid out', balance.paidUsd ?? 0, 'paid to you so far'],
          ] as const
        ).map(([term, amount, about]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{usd(amount)}</dd>
            <dd class="hint">{about}</dd>
          </div>
        ))}
      </dl>
      {available < 0 ? (
        <p class="next-step">
          Available is below zero: a refund clawed back more than you had available. It is taken from your next
          earnings, and no payout is made until it is above zero again.
        </p>
      ) : null}
      <p class="hint">As of {when(balance.asOf)} (platform time).</p>
    </section>
  );
}

function PaidOut({ closerId, payouts }: { closerId: string; payouts: Payout[] }) {
  return (
    <section aria-labelledby="paid-out-title">
      <h2 id="paid-out-title">Paid out</h2>
      {payouts.length === 0 ? (
        <p class="empty">Nothing paid out yet: each payout run pays what is available.</p>
      ) : (
        <>
          <div class="table-scroll figure-table">
            <table>
              <caption>Paid out, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Paid</th>
                  <th scope="col" class="figure">
                    Amount
                  </th>
                  <th scope="col">Reference</th>
                </tr>
              </thead>
              <tbody>
                {payouts.map((p) => (
                  <tr key={p.id} title={p.id}>
                    <th scope="row">
                      <time dateTime={p.paidAt}>{when(p.paidAt)}</time>
                    </th>
                    <td class="figure">{usd(p.amountUsd)}</td>
                    <td>{p.reference ?? 'none given'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <DownloadCsv
            what="what was paid out"
            save={() => downloadList('/payouts', { closerId }, csvName(`paid-out-${closerId}`))}
          />
        </>
      )}
    </section>
  );
}

export function CloserLedger({ closerId }: { closerId: string }) {
  const [now, setNow] = useState<Balance | undefined>();
  const [payouts, setPayouts] = useState<Payout[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  const load = useCallback(async () => {
    try {
      const [read, paid] = await Promise.all([balance(`closer:${closerId}`), payoutsOf(closerId)]);
      if (!read.ok) throw new Error(`reading the balances: HTTP ${read.status}`);
      setNow(read.data);
      setPayouts(paid);
      setError(undefined);
    } catch (e) {
      setError(unreachableWords(e).replace(' Retrying…', ''));
    }
  }, [closerId]);
  const again = useLedgerReads(load, moves);

  return (
    <div class="register ledger">
      {error ? <p role="alert">{error}</p> : null}
      {now === undefined || payouts === undefined ? (
        error ? null : (
          <p>Reading your balances…</p>
        )
      ) : (
        <>
          <Balances balance={now} />
          <PaidOut closerId={closerId} payouts={payouts} />
        </>
      )}
      <StatementSection
        idBase="closer-statement"
        latest={now ? monthOf(now.asOf) : undefined}
        again={again}
        read={(month) => closerStatement(closerId, month)}
        figures={closerFigures}
        side="closer"
        about="What the platform owes you, pending and available together: opening balance + earned − clawed back − paid out = closing balance. A release from hold moves nothing here."
        empty={(month) => `Nothing was earned, clawed back or paid out in ${monthWords(month)}.`}
        csv={{
          path: `/closers/closers/${encodeURIComponent(closerId)}/statement`,
          name: (month) => `statement-${closerId}-${month}.csv`,
        }}
      />
    </div>
  );
}
