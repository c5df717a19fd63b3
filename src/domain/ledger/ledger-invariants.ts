// What the books must show whatever happened (D-79 to D-82, D-280), as pure checks over what a
// reader sees of them: every transfer, the won deals' settlements and the balances answered. Both
// `audit` (through the public API) and the simulation (through the store) check them, so neither
// trusts the code that wrote the ledger: (a) the balances sum to zero and every transfer is a
// well-formed move; (b) every won deal's settlement equals its transfers, refunds' reversals
// included; (c) replaying the transfers gives every balance answered; (d) nothing a key guards
// was written twice, and no release or reversal took more than its earning held. The records
// that caused transfers (D-24's payout lines, refunds, payouts) must each hold theirs whole:
// ledger-records.ts. Each check answers violations (invariant `books`), never throws.
import { compareIds } from '../ids.ts';
import type { Violation } from '../invariants.ts';
import type { PayoutLine } from '../records.ts';
import type { Settlement } from '../settlement.ts';
import { type AccountName, closerAccount, PLATFORM_FEES, parseAccount } from './accounts.ts';
import { checkRecords } from './ledger-records.ts';
import type { Payout } from './payouts.ts';
import { type Refund, reversedShare } from './refunds.ts';
import { isEarning, replay, type Transfer, type TransferKind } from './transfers.ts';

export interface Books {
  /** Every transfer, in id order. */
  readonly transfers: readonly Transfer[];
  /** dealId → its settlement as answered, for every closed-won deal (`refundedCents` once refunded). */
  readonly settlements: ReadonlyMap<string, Settlement>;
  /** account → its balance as answered, for every account the transfers name; without it (a) and (c) check less. */
  readonly balances?: ReadonlyMap<string, bigint>;
  /** D-24's payout lines: each earning's line (ledger-records.ts). */
  readonly lines?: readonly PayoutLine[];
  /** The refunds and payouts, when the reader has them: each holds its transfers whole. */
  readonly refunds?: readonly Refund[];
  readonly payouts?: readonly Payout[];
}

const violation = (message: string, ...ids: string[]): Violation => ({ invariant: 'books', message, ids });

const sumOf = (transfers: readonly Transfer[]) => transfers.reduce((sum, t) => sum + t.amountCents, 0);

/** The part a refund's reversal takes, as its key names it: of the platform's fee, or of a closer's bucket. */
const partOf = (t: Pick<Transfer, 'debit'>) =>
  t.debit === PLATFORM_FEES ? 'fee' : t.debit.endsWith(':pending') ? 'pending' : 'available';

/**
 * The key D-79 gives a transfer, made of what a reader sees of it (the API never answers keys):
 * two transfers with one such key are a line written twice.
 */
export function visibleKey(t: Transfer): string {
  switch (t.kind) {
    case 'platform_fee':
      return `platform_fee:${t.dealId}`;
    case 'commission':
    case 'fee':
      return `${t.kind}:${t.gigId}`;
    case 'release':
      return `release:${t.releases}`;
    case 'payout':
      return `payout:${t.payoutId}`;
    case 'reversal':
      return `refund:${t.refundId}:${t.reverses}:${partOf(t)}`;
  }
}

const bucketOf = (a: AccountName) => (a.kind === 'closer' ? a.bucket : undefined);
const sameCloser = (a: AccountName, b: AccountName) =>
  a.kind === 'closer' && b.kind === 'closer' && a.closerId === b.closerId;

/** D-79: which account each kind of transfer moves money out of and into. */
const SHAPES: Record<TransferKind, (debit: AccountName, credit: AccountName) => boolean> = {
  platform_fee: (d, c) => d.kind === 'seller' && c.kind === 'platform',
  commission: (d, c) => d.kind === 'seller' && bucketOf(c) === 'pending',
  fee: (d, c) => d.kind === 'seller' && bucketOf(c) === 'pending',
  release: (d, c) => bucketOf(d) === 'pending' && bucketOf(c) === 'available' && sameCloser(d, c),
  payout: (d, c) => bucketOf(d) === 'available' && bucketOf(c) === 'paid' && sameCloser(d, c),
  reversal: (d, c) =>
    c.kind === 'seller' && (d.kind === 'platform' || bucketOf(d) === 'pending' || bucketOf(d) === 'available'),
};

/** A whole account: a closer's name without its bucket names three. */
const accountOf = (name: string) => {
  const account = parseAccount(name);
  return account && (account.kind !== 'closer' || account.bucket !== undefined) ? account : undefined;
};

/**
 * (a) Every transfer moves a whole, positive number of cents between two accounts in the shape
 * its kind has, in id order; and the balances answered sum to zero over all accounts (a balance
 * is a sum of transfers, each of which adds to one account what it takes from another).
 */
export function checkZeroSum(books: Books): Violation[] {
  const out: Violation[] = [];
  let previous: Transfer | undefined;
  for (const t of books.transfers) {
    if (previous !== undefined && compareIds(previous.id, t.id) >= 0)
      out.push(violation(`${t.id} follows ${previous.id}: the transfers are not in id order, once each`, t.id));
    previous = t;
    if (!Number.isSafeInteger(t.amountCents) || t.amountCents <= 0)
      out.push(violation(`${t.id} moves ${t.amountCents} cents`, t.id));
    const [debit, credit] = [accountOf(t.debit), accountOf(t.credit)];
    if (debit === undefined || credit === undefined) {
      out.push(violation(`${t.id} moves from ${t.debit} to ${t.credit}, not two accounts`, t.id));
      continue;
    }
    const shape = SHAPES[t.kind];
    if (shape === undefined || !shape(debit, credit))
      out.push(violation(`${t.id} (${t.kind}) moves from ${t.debit} to ${t.credit}`, t.id));
  }
  if (books.balances !== undefined) {
    let sum = 0n;
    for (const balance of books.balances.values()) sum += balance;
    if (sum !== 0n) out.push(violation(`the balances answered sum to ${sum} cents, not 0`));
  }
  return out;
}

/** (c) Replaying the transfers gives every balance answered (an account not answered counts 0). */
export function checkReplay(books: Books): Violation[] {
  const { balances } = books;
  if (balances === undefined) return [];
  const out: Violation[] = [];
  const replayed = replay(books.transfers);
  for (const account of new Set([...replayed.keys(), ...balances.keys()])) {
    const made = replayed.get(account) ?? 0n;
    const answered = balances.get(account) ?? 0n;
    if (made !== answered)
      out.push(violation(`${account}'s balance is ${answered} cents; its transfers make ${made}`, account));
  }
  return out;
}

/**
 * (b) Every won deal's settlement equals its transfers: the platform's fee (one transfer, none
 * when it is 0), the commission to its closer's pending account, each fee line by gig and
 * amount, and for each commission and platform fee the reversals of the deal's refunds in all:
 * round-half-up(original × refunded / final value) (D-81). A reversal gives back to the Seller
 * charged what its original took; only a won deal books a platform fee, a commission or a reversal.
 */
export function checkSettlements(books: Books): Violation[] {
  const out: Violation[] = [];
  const byDeal = new Map<string, Transfer[]>();
  const byId = new Map<string, Transfer>();
  for (const t of books.transfers) {
    byId.set(t.id, t);
    if (t.dealId === undefined) continue;
    const list = byDeal.get(t.dealId);
    if (list) list.push(t);
    else byDeal.set(t.dealId, [t]);
  }
  for (const [dealId, s] of books.settlements) {
    const transfers = byDeal.get(dealId) ?? [];
    const of = (kind: TransferKind) => transfers.filter((t) => t.kind === kind);
    const ids = (list: readonly Transfer[]) => list.map((t) => t.id);
    const [fees, commissions] = [of('platform_fee'), of('commission')];
    const wanted = s.platformFeeCents > 0 ? [s.platformFeeCents] : [];
    if (fees.length !== wanted.length || fees.some((t) => t.amountCents !== s.platformFeeCents))
      out.push(
        violation(
          `${dealId}'s platform fee is ${s.platformFeeCents} cents; its transfers book [${fees.map((t) => t.amountCents)}]`,
          dealId,
          ...ids(fees),
        ),
      );
    if (sumOf(commissions) !== s.closerCommissionCents)
      out.push(
        violation(
          `${dealId}'s commission is ${s.closerCommissionCents} cents; its transfers book ${sumOf(commissions)}`,
          dealId,
          ...ids(commissions),
        ),
      );
    const feeTransfers = of('fee');
    const feeLines = s.fees.filter((fee) => fee.amountCents > 0);
    for (const fee of feeLines) {
      const booked = feeTransfers.filter((t) => t.gigId === fee.gigId);
      const [only] = booked;
      if (
        booked.length !== 1 ||
        only?.amountCents !== fee.amountCents ||
        only.credit !== closerAccount(fee.closerId, 'pending')
      )
        out.push(
          violation(
            `${dealId}'s fee of ${fee.gigId} is ${fee.amountCents} cents to ${fee.closerId}; its transfers book [${booked.map((t) => `${t.amountCents} to ${t.credit}`)}]`,
            dealId,
            fee.gigId,
            ...ids(booked),
          ),
        );
    }
    for (const t of feeTransfers)
      if (!feeLines.some((fee) => fee.gigId === t.gigId))
        out.push(violation(`${t.id} books a fee of ${t.gigId} that ${dealId}'s settlement does not list`, t.id));
    const refunded = s.refundedCents ?? 0;
    if (refunded < 0 || refunded > s.finalValueCents)
      out.push(violation(`${dealId} is refunded ${refunded} cents of a final value of ${s.finalValueCents}`, dealId));
    for (const original of [...fees, ...commissions]) {
      const reversals = transfers.filter((t) => t.reverses === original.id);
      const due = reversedShare(original.amountCents, refunded, s.finalValueCents);
      if (sumOf(reversals) !== due)
        out.push(
          violation(
            `${original.id} (${original.kind} of ${dealId}, ${original.amountCents} cents) is reversed by ${sumOf(reversals)}; refunds of ${refunded} of ${s.finalValueCents} reverse ${due}`,
            dealId,
            original.id,
            ...ids(reversals),
          ),
        );
    }
  }
  for (const t of books.transfers) {
    if (t.kind !== 'platform_fee' && t.kind !== 'commission' && t.kind !== 'reversal') continue;
    if (t.dealId === undefined || !books.settlements.has(t.dealId))
      out.push(violation(`${t.id} (${t.kind}) is of ${t.dealId ?? 'no deal'}, which was not won`, t.id));
    if (t.kind !== 'reversal') continue;
    const original = t.reverses === undefined ? undefined : byId.get(t.reverses);
    if (
      original === undefined ||
      original.dealId !== t.dealId ||
      (original.kind !== 'commission' && original.kind !== 'platform_fee')
    ) {
      out.push(violation(`${t.id} reverses ${t.reverses}, no commission or platform fee of ${t.dealId}`, t.id));
      continue;
    }
    const closer = parseAccount(original.credit);
    const from =
      original.kind === 'platform_fee'
        ? [original.credit]
        : [original.credit, closer?.kind === 'closer' ? closerAccount(closer.closerId, 'available') : ''];
    if (t.credit !== original.debit || !from.includes(t.debit))
      out.push(
        violation(`${t.id} moves ${t.debit} → ${t.credit}, reversing ${original.debit} → ${original.credit}`, t.id),
      );
  }
  return out;
}

/**
 * (d) What the keys guard, as far as a reader sees it: no two transfers share a key (the store's
 * key, when given, is the one D-79 says); each earning is released at most once, by exactly what
 * it still held (its amount less what refunds took of it from pending, D-280); no refund takes
 * from pending what a release moved, nor from available while the earning still holds some; and
 * a payout moves the whole available balance of its closer, above zero (D-80).
 */
export function checkOnce(books: Books): Violation[] {
  const out: Violation[] = [];
  const byId = new Map<string, Transfer>();
  const keys = new Map<string, string>();
  /** Per earning: what refunds took of it from pending so far, and its release. */
  const earnings = new Map<string, { fromPending: number; released?: Transfer }>();
  const held = (earning: Transfer) => {
    const state = earnings.get(earning.id) ?? { fromPending: 0 };
    earnings.set(earning.id, state);
    return state;
  };
  const running = new Map<string, bigint>();
  for (const t of books.transfers) {
    byId.set(t.id, t);
    const key = visibleKey(t);
    const first = keys.get(key);
    if (first !== undefined)
      out.push(violation(`${first} and ${t.id} are both ${key}: a line written twice`, first, t.id));
    else keys.set(key, t.id);
    if (t.key !== '' && t.key !== key) out.push(violation(`${t.id} is keyed ${t.key}, not ${key}`, t.id));
    const earning = byId.get(t.releases ?? t.reverses ?? '');
    if (t.kind === 'release') {
      if (earning === undefined || !isEarning(earning) || t.debit !== earning.credit) {
        out.push(violation(`${t.id} releases ${t.releases}, no earning held in ${t.debit}`, t.id));
      } else {
        const state = held(earning);
        const left = earning.amountCents - state.fromPending;
        if (state.released !== undefined)
          out.push(violation(`${earning.id} is released twice: ${state.released.id}, ${t.id}`, earning.id, t.id));
        else if (t.amountCents !== left)
          out.push(
            violation(`${t.id} releases ${t.amountCents} cents of ${earning.id}, which held ${left}`, earning.id, t.id),
          );
        state.released ??= t;
      }
    } else if (t.kind === 'reversal' && earning?.kind === 'commission') {
      const state = held(earning);
      if (t.debit === earning.credit) {
        state.fromPending += t.amountCents;
        if (state.released !== undefined)
          out.push(violation(`${t.id} takes from pending what ${state.released.id} released`, earning.id, t.id));
        else if (state.fromPending > earning.amountCents)
          out.push(
            violation(`refunds took ${state.fromPending} cents of ${earning.id} from pending`, earning.id, t.id),
          );
      } else if (state.released === undefined && state.fromPending < earning.amountCents)
        out.push(
          violation(
            `${t.id} takes from available while ${earning.id} still holds ${earning.amountCents - state.fromPending} cents`,
            earning.id,
            t.id,
          ),
        );
    } else if (t.kind === 'payout') {
      const available = running.get(t.debit) ?? 0n;
      if (available !== BigInt(t.amountCents))
        out.push(violation(`${t.id} pays ${t.amountCents} cents of ${t.debit}, which held ${available}`, t.id));
    }
    running.set(t.debit, (running.get(t.debit) ?? 0n) - BigInt(t.amountCents));
    running.set(t.credit, (running.get(t.credit) ?? 0n) + BigInt(t.amountCents));
  }
  return out;
}

/** Every check of the books. */
export function checkBooks(books: Books): Violation[] {
  return [
    ...checkZeroSum(books),
    ...checkSettlements(books),
    ...checkReplay(books),
    ...checkOnce(books),
    ...checkRecords(books),
  ];
}
