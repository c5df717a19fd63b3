// The books as the simulation reads and holds them (D-79 to D-82). Every snapshot reads them from
// the store: every transfer, refund and payout, the balance of every account a transfer names (as
// of the platform's now, so a transfer dated later shows too), and each won deal's settlement as
// the service makes it (its lines and refunds); src/domain/ledger/ledger-invariants.ts checks them
// with every invariant after every step. Since the books are in the snapshot, a refused refund, a
// refused payout run and a unit the failing store broke must leave them exactly as they were
// (simulate.ts). What only a step shows is checked here: the ledger only grows (no transfer,
// refund or payout changed or gone); each refund and payout the step made was published once, in
// its unit; and a payout run left no closer with an available balance above zero that had one
// before it, each paid the whole of it, and paid no one else (D-80).
import { compareIds } from '../domain/ids.ts';
import type { Books } from '../domain/ledger/ledger-invariants.ts';
import type { Transfer } from '../domain/ledger/transfers.ts';
import type { Deal, PayoutLine } from '../domain/records.ts';
import { isRefusal } from '../domain/refusal.ts';
import { type Settlement, settle } from '../domain/settlement.ts';
import type { Store, StoredEvent } from '../store/store.ts';
import type { SimViolation } from './tenancy.ts';

const ALL = Number.MAX_SAFE_INTEGER;

/** The books of the store's state, for the deals and payout lines of the same snapshot. */
export function readBooks(
  store: Store,
  deals: readonly Deal[],
  lines: readonly PayoutLine[],
  now: number,
): Promise<Books> {
  const won = deals.filter((d) => d.stage === 'closed_won');
  const linesOf = new Map<string, PayoutLine[]>();
  for (const line of lines) linesOf.set(line.dealId, [...(linesOf.get(line.dealId) ?? []), line]);
  return store.read(async (r) => {
    const [transfers, newestFirst, refundsOf] = await Promise.all([
      r.ledger.transfers({ limit: ALL }),
      r.ledger.payouts({ limit: ALL }),
      Promise.all(won.map((d) => r.ledger.refundsOfDeal(d.id))),
    ]);
    const accounts = [...new Set(transfers.flatMap((t) => [t.debit, t.credit]))];
    const balances = await r.ledger.balances(accounts, now);
    const settlements = new Map<string, Settlement>();
    won.forEach((deal, i) => {
      const settlement = settle(deal, linesOf.get(deal.id) ?? [], refundsOf[i]);
      if (!isRefusal(settlement)) settlements.set(deal.id, settlement);
    });
    return { transfers, settlements, balances, refunds: refundsOf.flat(), payouts: newestFirst.reverse() };
  });
}

const problem = (message: string, ...ids: string[]): SimViolation => ({ invariant: 'books', message, ids });
const text = (record: unknown) => JSON.stringify(record);

/** A closer's available balance in the books (0 when no transfer named it). */
const available = (books: Books, account: string) => books.balances?.get(account) ?? 0n;

/**
 * What a step did to the books. `paid`: the step was a payout run that committed (`runPayouts`
 * answered), whose payouts are held to the available balances before it.
 */
export function checkBooksStep(
  before: Books,
  after: Books,
  events: readonly StoredEvent[],
  paid: { payouts: { closerId: string; amountCents: number }[] } | undefined,
): SimViolation[] {
  const out: SimViolation[] = [];
  // Append-only (D-79): what was there is still there, as it was.
  const grown = (kind: string, was: readonly { id: string }[], is: readonly { id: string }[]) => {
    const now = new Map(is.map((record) => [record.id, record]));
    for (const record of was)
      if (now.get(record.id) !== record && text(now.get(record.id)) !== text(record))
        out.push(problem(`${kind} ${record.id} changed or went`, record.id));
  };
  grown('transfer', before.transfers, after.transfers);
  grown('refund', before.refunds ?? [], after.refunds ?? []);
  grown('payout', before.payouts ?? [], after.payouts ?? []);
  // Each new refund and payout published once, by the unit that made it.
  const published = (type: string, id: (data: Record<string, { id: string }>) => string) =>
    events
      .filter((e) => e.event.type === type)
      .map((e) => id(e.event.data as Record<string, { id: string }>))
      .sort()
      .join(' ');
  const made = (was: readonly { id: string }[], is: readonly { id: string }[]) => {
    const earlier = new Set(was.map((record) => record.id));
    return is
      .map((record) => record.id)
      .filter((id) => !earlier.has(id))
      .sort()
      .join(' ');
  };
  const refunds = made(before.refunds ?? [], after.refunds ?? []);
  if (published('deal.refunded', (data) => data.refund?.id ?? '') !== refunds)
    out.push(problem(`the step made refunds [${refunds}] but published deal.refunded for others`));
  const payouts = made(before.payouts ?? [], after.payouts ?? []);
  if (published('payout.paid', (data) => data.payout?.id ?? '') !== payouts)
    out.push(problem(`the step made payouts [${payouts}] but published payout.paid for others`));
  if (paid !== undefined) out.push(...checkPayoutRun(before, after, paid.payouts));
  return out;
}

/**
 * D-80: a payout run pays every closer whose available balance was above zero the whole of it,
 * and nobody else: after it no such closer has any left, and each paid account grew by it.
 */
function checkPayoutRun(
  before: Books,
  after: Books,
  payouts: readonly { closerId: string; amountCents: number }[],
): SimViolation[] {
  const out: SimViolation[] = [];
  const owed = new Map<string, bigint>();
  for (const account of before.balances?.keys() ?? []) {
    const [, closerId, bucket] = account.split(':');
    if (bucket === 'available' && available(before, account) > 0n)
      owed.set(closerId as string, available(before, account));
  }
  const answered = payouts.map((p) => `${p.closerId} ${p.amountCents}`).join(', ');
  // In closer id order, as a run pays them.
  const wanted = [...owed]
    .sort(([a], [b]) => compareIds(a, b))
    .map(([closerId, cents]) => `${closerId} ${cents}`)
    .join(', ');
  if (answered !== wanted)
    out.push(problem(`a payout run paid [${answered}]; the available balances were [${wanted}]`));
  for (const [closerId, cents] of owed) {
    const [left, paidBefore, paidAfter] = [
      available(after, `closer:${closerId}:available`),
      available(before, `closer:${closerId}:paid`),
      available(after, `closer:${closerId}:paid`),
    ];
    if (left !== 0n || paidAfter !== paidBefore + cents)
      out.push(
        problem(
          `a payout run left ${closerId} ${left} cents available (it had ${cents}) and paid ${paidAfter - paidBefore}`,
          closerId,
        ),
      );
  }
  const moved = after.transfers.slice(before.transfers.length);
  if (moved.some((t: Transfer) => t.kind !== 'payout'))
    out.push(problem(`a payout run wrote ${moved.map((t) => `${t.id} (${t.kind})`).join(', ')}`));
  return out;
}
