// A Seller's Statement page (#/statement, D-82, D-280): its account's monthly statement, opening
// at the platform clock's month. A Seller's session reads its own; the operator chooses a Seller
// from the Sellers it lists; the demo's deals have no Seller and book to `seller:none`. The
// account is below zero by what the Seller owes (commissions, the platform's fees, gig fees);
// a refund gives back its share. Read again when a deal closes, a gig's fee is booked or a deal
// is refunded (the event stream).
import { useCallback, useState } from 'preact/hooks';
import { useSellerNames } from './actor-names.ts';
import { usd } from './api.ts';
import { errorWords, unreachableWords } from './error-words.ts';
import { type Balance, balance, DEMO_SELLER, monthOf, type SellerStatement, sellerStatement } from './ledger-api.ts';
import { useLedgerReads } from './ledger-live.ts';
import { type Figure, StatementSection } from './ledger-statement.tsx';
import { monthWords } from './ledger-words.ts';
import { SellerSelect } from './seller-select.tsx';
import type { Session } from './session.ts';
import { when } from './words.ts';

const moves = (type: string) =>
  type === 'deal.closed' || type === 'deal.refunded' || type === 'gig.fulfilled' || type === 'demo.reset';

const sellerFigures = (s: SellerStatement): Figure[] => [
  { label: 'Opening balance', usd: s.openingUsd },
  { label: 'Commissions', usd: s.commissionsUsd, sign: '−' },
  { label: 'Platform fees', usd: s.platformFeesUsd, sign: '−' },
  { label: 'Gig fees', usd: s.feesUsd, sign: '−' },
  { label: 'Refunds given back', usd: s.refundsUsd, sign: '+' },
  { label: 'Closing balance', usd: s.closingUsd },
];

/** The Seller whose statement the page shows: the session's own, the demo's, or the operator's choice. */
function sellerOf(session: Session | undefined, chosen: string): string {
  if (session === undefined) return DEMO_SELLER;
  return session.kind === 'seller' ? session.principal : chosen;
}

function SellerLedger({ sellerId, name }: { sellerId: string; name?: string }) {
  const [now, setNow] = useState<Balance | undefined>();
  const [error, setError] = useState<string | undefined>();
  const load = useCallback(async () => {
    try {
      const read = await balance(`seller:${sellerId}`);
      if (read.ok) {
        setNow(read.data);
        setError(undefined);
      } else setError(errorWords(read.error));
    } catch (e) {
      setError(unreachableWords(e).replace(' Retrying…', ''));
    }
  }, [sellerId]);
  const again = useLedgerReads(load, moves);
  const whose = name ?? (sellerId === DEMO_SELLER ? 'The demo’s deals' : 'Your account');
  return (
    <div class="panel ledger">
      {error ? <p role="alert">{error}</p> : null}
      {now ? (
        <p>
          {whose} stood at <strong>{usd(now.balanceUsd)}</strong> as of {when(now.asOf)} (platform time)
          {now.balanceUsd < 0 ? ': below zero by what is owed through the platform.' : '.'}
        </p>
      ) : null}
      <StatementSection
        idBase="seller-statement"
        latest={now ? monthOf(now.asOf) : undefined}
        again={again}
        read={(month) => sellerStatement(sellerId, month)}
        figures={sellerFigures}
        side="seller"
        about="Opening balance − commissions − platform fees − gig fees (setter and nurturer) + refunds given back = closing balance. A refund gives back its share of the commission and of the platform fee."
        empty={(month) => `No commission, fee or refund was booked in ${monthWords(month)}.`}
        csv={{
          path: `/sellers/${encodeURIComponent(sellerId)}/statement`,
          name: (month) => `statement-${sellerId === DEMO_SELLER ? 'demo' : sellerId}-${month}.csv`,
        }}
      />
    </div>
  );
}

export function StatementPage({ session }: { session?: Session }) {
  const sellers = useSellerNames();
  const [chosen, setChosen] = useState('');
  const operator = session?.kind === 'operator';
  const sellerId = sellerOf(session, chosen);
  return (
    <section class="statement-page" aria-labelledby="statement-title">
      <h1 id="statement-title">Statement</h1>
      <p class="hint">
        What {operator ? 'a Seller’s deals' : session ? 'your deals' : 'the demo’s deals'} booked in the platform’s
        ledger, month by month (UTC): the commissions to human closers, the platform’s fees, the setters’ and nurturers’
        fees, and what refunds gave back.
      </p>
      {operator ? (
        <form class="filters" aria-label="Seller" onSubmit={(e) => e.preventDefault()}>
          <SellerSelect sellers={sellers} value={chosen} onChange={setChosen} everyLabel="Choose a Seller" />
        </form>
      ) : null}
      {sellerId ? (
        <SellerLedger key={sellerId} sellerId={sellerId} name={operator ? sellers.get(sellerId) : undefined} />
      ) : (
        <p class="empty">Choose a Seller to read its statement.</p>
      )}
    </section>
  );
}
