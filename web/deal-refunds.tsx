// A won deal's refunds (D-81) on its page: each refund recorded (when, the amount, the reason,
// and what it reversed of the commission and the platform fee), how much is left to refund, and,
// for a session that may write deals, a form to record one: `{amountUsd, reason}` sent with an
// Idempotency-Key (kept for a retry of the same refund after a lost answer, so it is recorded
// once). A refund past what is left is refused in words, saying what is left; after a refund the
// page reads the deal (its settlement then shows what was refunded) and the refunds again. Another
// person's refund arrives by the event stream (`deal.refunded`).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type Deal, type Settlement, usd } from './api.ts';
import { unreachableWords } from './error-words.ts';
import { idempotencyKey, type Refund, recordRefund, refundsOf } from './ledger-api.ts';
import { refundRefusalWords } from './ledger-words.ts';
import { dealOf, type LiveEvent, useLive } from './live.ts';
import { useNotice } from './notice.ts';
import { can } from './session.ts';
import { when } from './words.ts';

type Said = { words: string; refused: boolean; raw?: string };

const cents = (usd: number) => Math.round(usd * 100);

/** What a refund reversed in all: its share of the commission and of the platform fee. */
const reversedUsd = (refund: Refund) => refund.transfers.reduce((sum, t) => sum + cents(t.amountUsd), 0) / 100;

function RefundTable({ refunds }: { refunds: Refund[] }) {
  return (
    <div class="table-scroll figure-table">
      <table>
        <caption>Refunds recorded, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col" class="figure">
              Amount
            </th>
            <th scope="col">Reason</th>
            <th scope="col" class="figure">
              Reversed
            </th>
          </tr>
        </thead>
        <tbody>
          {refunds.map((refund) => (
            <tr key={refund.id} title={refund.id}>
              <th scope="row">
                <time dateTime={refund.at}>{when(refund.at)}</time>
              </th>
              <td class="figure">{usd(refund.amountUsd)}</td>
              <td>{refund.reason}</td>
              <td class="figure">{usd(reversedUsd(refund))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** `reload`: reads the deal and its settlement again (the page's own load). */
export function DealRefunds({
  deal,
  settlement,
  reload,
}: {
  deal: Deal;
  settlement: Settlement | undefined;
  reload: () => Promise<void>;
}) {
  const [refunds, setRefunds] = useState<Refund[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useNotice<Said>();
  /** The refund being sent and its Idempotency-Key, until the service answers it. */
  const sending = useRef<{ body: string; key: string } | undefined>(undefined);

  const read = useCallback(async () => {
    try {
      const answer = await refundsOf(deal.id);
      if (answer.ok) {
        setRefunds(answer.data);
        setError(undefined);
      } else
        setError(refundRefusalWords(answer.error).replace('Nothing was refunded: ', 'The refunds cannot be read: '));
    } catch (e) {
      setError(unreachableWords(e).replace(' Retrying…', ''));
    }
  }, [deal.id]);
  useEffect(() => {
    read();
  }, [read]);
  useLive(
    useCallback(
      (event: LiveEvent) => {
        if (event.type === 'demo.reset' || (event.type === 'deal.refunded' && dealOf(event) === deal.id)) read();
      },
      [deal.id, read],
    ),
  );

  const finalUsd = settlement?.finalValueUsd;
  const refundedUsd = (refunds ?? []).reduce((sum, r) => sum + cents(r.amountUsd), 0) / 100;
  const leftUsd = finalUsd === undefined ? undefined : (cents(finalUsd) - cents(refundedUsd)) / 100;

  const submit = async (event: Event) => {
    event.preventDefault();
    const body = { amountUsd: Number(amount), reason: reason.trim() };
    const text = JSON.stringify(body);
    // The same refund sent again (its answer was lost) goes with the same key: recorded once.
    if (sending.current?.body !== text) sending.current = { body: text, key: idempotencyKey() };
    setBusy(true);
    setSaid(undefined);
    let notice: Said;
    try {
      const answer = await recordRefund(deal.id, body, sending.current.key);
      sending.current = undefined;
      if (answer.ok) {
        const back = reversedUsd(answer.data);
        notice = {
          words: `Refunded ${usd(answer.data.amountUsd)}: ${usd(back)} of the commission and the platform fee was reversed.`,
          refused: false,
        };
        setAmount('');
        setReason('');
      } else notice = { words: refundRefusalWords(answer.error), refused: true, raw: answer.error.error };
    } catch {
      notice = {
        words: 'Cannot reach the service: the refund may not be recorded. Record it again: it is recorded once.',
        refused: true,
      };
    }
    // The notice comes with the deal and the refunds as the refund left them.
    await Promise.all([reload(), read()]);
    setSaid(notice);
    setBusy(false);
  };

  return (
    <section aria-labelledby="refunds-title" class="refunds">
      <h2 id="refunds-title">Refunds</h2>
      {error ? <p role="alert">{error}</p> : null}
      {refunds === undefined ? (
        error ? null : (
          <p>Reading the refunds…</p>
        )
      ) : refunds.length === 0 ? (
        <p class="empty">No refund recorded: the customer has got nothing back.</p>
      ) : (
        <RefundTable refunds={refunds} />
      )}
      {refunds !== undefined && finalUsd !== undefined && leftUsd !== undefined ? (
        <p class="hint">
          Refunded {usd(refundedUsd)} of the final value {usd(finalUsd)}; {usd(leftUsd)} is left to refund. A refund
          reverses the same share of the closer’s commission and of the platform fee.
        </p>
      ) : null}
      {can('deals:write') ? (
        <form class="refund-form" aria-label="Record a refund" onSubmit={submit}>
          <label>
            Amount refunded (USD){' '}
            <input
              type="number"
              min="0.01"
              step="0.01"
              required
              value={amount}
              onInput={(e) => setAmount(e.currentTarget.value)}
            />
          </label>
          <label>
            Reason <input required maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={busy}>
            {busy ? 'Recording…' : 'Record refund'}
          </button>
        </form>
      ) : null}
      {said ? (
        <p role={said.refused ? 'alert' : 'status'} class={said.refused ? 'refused' : 'done'} title={said.raw}>
          {said.words}
        </p>
      ) : null}
    </section>
  );
}
