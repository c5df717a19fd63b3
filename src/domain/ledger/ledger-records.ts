// The records behind the books hold their transfers whole (D-79 to D-81): each of D-24's payout
// lines has its earning's transfer and each earning its line; each refund lists exactly the
// reversals that name it, as the ledger has them; each payout its one transfer. A unit of work
// writes a record and its transfers together, so a record without its transfers, or transfers
// without their record, is a unit left in part (what the simulation's failing store tries to make).
import type { Violation } from '../invariants.ts';
import { closerAccount } from './accounts.ts';
import type { Books } from './ledger-invariants.ts';
import type { Transfer } from './transfers.ts';

const v = (message: string, ...ids: string[]): Violation => ({ invariant: 'books', message, ids });

/** What a reader sees of a transfer, field by field (a record's copy against the ledger's). */
const FIELDS = ['id', 'at', 'debit', 'credit', 'amountCents', 'kind', 'dealId', 'gigId', 'payoutId', 'refundId'];
const sameTransfer = (a: Transfer, b: Transfer | undefined) =>
  b !== undefined &&
  FIELDS.every((f) => a[f as keyof Transfer] === b[f as keyof Transfer]) &&
  a.reverses === b.reverses;

/** Groups transfers by a field, leaving out those without it. */
function by(transfers: readonly Transfer[], field: 'gigId' | 'refundId' | 'payoutId'): Map<string, Transfer[]> {
  const groups = new Map<string, Transfer[]>();
  for (const t of transfers) {
    const value = t[field];
    if (value === undefined) continue;
    const group = groups.get(value);
    if (group) group.push(t);
    else groups.set(value, [t]);
  }
  return groups;
}

/** Each payout line of D-24 above zero has its one earning, and each earning its line. */
function checkLines(books: Books): Violation[] {
  if (books.lines === undefined) return [];
  const out: Violation[] = [];
  const earnings = by(
    books.transfers.filter((t) => t.kind === 'commission' || t.kind === 'fee'),
    'gigId',
  );
  const lined = new Set<string>();
  for (const line of books.lines) {
    if (line.amountCents <= 0) continue;
    lined.add(line.gigId);
    const booked = earnings.get(line.gigId) ?? [];
    const [only] = booked;
    if (
      booked.length !== 1 ||
      only?.kind !== line.kind ||
      only.amountCents !== line.amountCents ||
      only.dealId !== line.dealId ||
      only.credit !== closerAccount(line.closerId, 'pending')
    )
      out.push(
        v(
          `the ${line.kind} of ${line.gigId} (${line.amountCents} cents to ${line.closerId}) is booked as [${booked.map((t) => `${t.id} ${t.kind} ${t.amountCents} to ${t.credit}`)}]`,
          line.gigId,
          ...booked.map((t) => t.id),
        ),
      );
  }
  for (const [gigId, booked] of earnings)
    if (!lined.has(gigId))
      out.push(v(`${booked[0]?.id} books an earning of ${gigId}, which has no payout line`, gigId));
  return out;
}

/** Each refund holds exactly the reversals that name it, as the ledger has them, of its deal. */
function checkRefunds(books: Books): Violation[] {
  if (books.refunds === undefined) return [];
  const out: Violation[] = [];
  const ledger = new Map(books.transfers.map((t) => [t.id, t]));
  const naming = by(books.transfers, 'refundId');
  const refunded = new Map<string, number>();
  const seen = new Set<string>();
  for (const refund of books.refunds) {
    if (seen.has(refund.id)) out.push(v(`two refunds are ${refund.id}`, refund.id));
    seen.add(refund.id);
    refunded.set(refund.dealId, (refunded.get(refund.dealId) ?? 0) + refund.amountCents);
    const listed = refund.transfers.map((t) => t.id).join(' ');
    const named = (naming.get(refund.id) ?? []).map((t) => t.id).join(' ');
    if (listed !== named)
      out.push(v(`${refund.id} lists [${listed}] but the reversals naming it are [${named}]`, refund.id));
    for (const t of refund.transfers)
      if (!sameTransfer(t, ledger.get(t.id)) || t.kind !== 'reversal' || t.dealId !== refund.dealId)
        out.push(v(`${refund.id}'s ${t.id} is not the ledger's reversal of ${refund.dealId}`, refund.id, t.id));
  }
  for (const [refundId, transfers] of naming)
    if (!seen.has(refundId)) out.push(v(`${transfers[0]?.id} names ${refundId}, which is no refund`, refundId));
  for (const [dealId, cents] of refunded) {
    const settlement = books.settlements.get(dealId);
    if (settlement?.refundedCents !== cents)
      out.push(
        v(`${dealId}'s refunds add up to ${cents} cents; its settlement says ${settlement?.refundedCents}`, dealId),
      );
  }
  for (const [dealId, settlement] of books.settlements)
    if (settlement.refundedCents !== undefined && !refunded.has(dealId))
      out.push(
        v(`${dealId}'s settlement says ${settlement.refundedCents} cents refunded, but it has no refund`, dealId),
      );
  return out;
}

/** Each payout holds its one transfer, the ledger's, of its amount out of its closer's available account. */
function checkPayouts(books: Books): Violation[] {
  if (books.payouts === undefined) return [];
  const out: Violation[] = [];
  const naming = by(books.transfers, 'payoutId');
  const seen = new Set<string>();
  for (const payout of books.payouts) {
    if (seen.has(payout.id)) out.push(v(`two payouts are ${payout.id}`, payout.id));
    seen.add(payout.id);
    const booked = naming.get(payout.id) ?? [];
    const [only] = booked;
    if (
      booked.length !== 1 ||
      payout.transfers.length !== 1 ||
      !sameTransfer(payout.transfers[0] as Transfer, only) ||
      only?.amountCents !== payout.amountCents ||
      only.debit !== closerAccount(payout.closerId, 'available')
    )
      out.push(
        v(
          `${payout.id} pays ${payout.amountCents} cents to ${payout.closerId}; the ledger has [${booked.map((t) => `${t.id} ${t.amountCents} from ${t.debit}`)}]`,
          payout.id,
        ),
      );
  }
  for (const [payoutId, transfers] of naming)
    if (!seen.has(payoutId)) out.push(v(`${transfers[0]?.id} names ${payoutId}, which is no payout`, payoutId));
  return out;
}

/** Every record holds its transfers whole. */
export function checkRecords(books: Books): Violation[] {
  return [...checkLines(books), ...checkRefunds(books), ...checkPayouts(books)];
}
