// The ledger in words (D-228): a transfer's kind as a person reads it on a statement, a month as
// "November 2026", and a refund's refusal as a sentence that says what is left to refund and that
// nothing changed. The service's raw text stays in the notice's title.
import type { ApiError } from './api.ts';
import { errorWords } from './error-words.ts';
import type { Transfer } from './ledger-api.ts';

/** Whose statement a line is on: the words differ (a reversal is a clawback to a closer). */
export type Side = 'closer' | 'seller';

const KIND_WORDS: Record<Transfer['kind'], Record<Side, string>> = {
  commission: { closer: 'Commission earned', seller: 'Commission' },
  fee: { closer: 'Gig fee earned', seller: 'Gig fee (setter or nurturer)' },
  platform_fee: { closer: 'Platform fee', seller: 'Platform fee' },
  release: { closer: 'Released from hold', seller: 'Released from hold' },
  payout: { closer: 'Paid out', seller: 'Paid out' },
  reversal: { closer: 'Clawed back by a refund', seller: 'Given back by a refund' },
};

/**
 * A transfer on a statement, by its kind; a Seller's refund lines say which share they give back
 * (the reversal's debit: the platform's fees, or the closer's commission).
 */
export function kindWords(transfer: Pick<Transfer, 'kind' | 'debit'>, side: Side): string {
  const words = KIND_WORDS[transfer.kind]?.[side] ?? transfer.kind;
  if (transfer.kind !== 'reversal' || side !== 'seller') return words;
  return `${words}: ${transfer.debit.startsWith('platform:') ? 'platform fee' : 'commission'}`;
}

const months = new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** `2026-11` → `November 2026` (the month of platform time, in UTC). */
export function monthWords(month: string): string {
  const [year, m] = month.split('-').map(Number);
  return year && m ? months.format(new Date(Date.UTC(year, m - 1, 1))) : month;
}

/** The month before `2026-11`: `2026-10`. */
export function previousMonth(month: string): string {
  const [year, m] = month.split('-').map(Number);
  const at = new Date(Date.UTC(year, m - 2, 1));
  return at.toISOString().slice(0, 7);
}

/**
 * Why a refund was refused, in words: what is left to refund when it would pass the deal's final
 * value (the violation names the amounts: `amountUsd: at most $15,000.00 is left to refund of
 * $20,000.00 ($5,000.00 refunded)`), a deal that is not won, or the service's own refusal.
 */
export function refundRefusalWords(error: ApiError | undefined): string {
  if (error?.code === 'REFUND_EXCEEDS_VALUE') {
    const left = /at most (\S+) is left to refund of (\S+) \((\S+) refunded\)/.exec(error.violations?.[0] ?? '');
    const said = left
      ? ` At most ${left[1]} is left to refund of the deal’s ${left[2]} (${left[3]} refunded so far).`
      : '';
    return `Nothing was refunded: the deal’s refunds together may not pass its final value.${said}`;
  }
  if (error?.code === 'DEAL_NOT_CLOSED_WON')
    return 'Nothing was refunded: only a deal closed won can be refunded, and this one is not (any more).';
  return `Nothing was refunded: ${errorWords(error)}`;
}
