// The ledger's answers (D-79 to D-82) as the end-to-end tests read them, and the checks they
// share: every page of the transfers, the sum over all accounts, a statement's arithmetic and a
// refund's share to the cent. Money is compared in integer cents, never as floats added up.
import assert from 'node:assert/strict';
import type { Answer } from './http.ts';

export interface TransferView {
  id: string;
  at: string;
  debit: string;
  credit: string;
  amountUsd: number;
  kind: 'commission' | 'fee' | 'platform_fee' | 'release' | 'payout' | 'reversal';
  dealId?: string;
  gigId?: string;
  payoutId?: string;
  refundId?: string;
  reverses?: string;
  releases?: string;
}

export interface LedgerPayoutView {
  id: string;
  closerId: string;
  amountUsd: number;
  status: 'paid';
  paidAt: string;
  reference: string | null;
  transfers: TransferView[];
}

export interface PayoutRunView {
  at: string;
  reference: string | null;
  payouts: LedgerPayoutView[];
  totalUsd: number;
}

export interface RefundView {
  id: string;
  dealId: string;
  amountUsd: number;
  reason: string;
  at: string;
  transfers: TransferView[];
}

export interface BalanceView {
  account: string;
  balanceUsd: number;
  asOf: string;
  pendingUsd?: number;
  availableUsd?: number;
  paidUsd?: number;
}

interface StatementLineView {
  transfer: TransferView;
  effectUsd: number;
}

export interface CloserStatementView {
  closerId: string;
  month: string;
  openingUsd: number;
  earnedUsd: number;
  clawedBackUsd: number;
  paidUsd: number;
  closingUsd: number;
  lines: StatementLineView[];
}

export interface SellerStatementView {
  sellerId: string;
  month: string;
  openingUsd: number;
  commissionsUsd: number;
  platformFeesUsd: number;
  feesUsd: number;
  refundsUsd: number;
  closingUsd: number;
  lines: StatementLineView[];
}

/** Anything that GETs: a test server, an instance, or a keyed client. */
export interface Getter {
  get<T = any>(path: string, headers?: Record<string, string>): Promise<Answer<T>>;
}

/** USD as integer cents (an answer's amounts have at most two decimals). */
export const cents = (usd: number): number => Math.round(usd * 100);

/** round-half-up(originalUsd × refundedUsd / finalUsd) in cents: what refunds of R in all reverse of A (D-81). */
export function reversedCents(originalUsd: number, refundedUsd: number, finalUsd: number): number {
  const product = BigInt(cents(originalUsd)) * BigInt(cents(refundedUsd));
  const final = BigInt(cents(finalUsd));
  return Number((product * 2n + final) / (final * 2n));
}

/** The path of the next page, from an answer's Link header (D-39), or undefined on the last. */
export function nextPage(answer: Answer): string | undefined {
  const link = answer.headers.get('link');
  return link ? (/<[^>]*?(\/[^>]*)>; rel="next"/.exec(link)?.[1] ?? undefined) : undefined;
}

/** Every transfer the caller sees with this query, a page of `limit` at a time, in id order. */
export async function allTransfers(client: Getter, query = '', limit = 1000): Promise<TransferView[]> {
  const all: TransferView[] = [];
  let next: string | undefined = `/ledger/transfers?limit=${limit}${query ? `&${query}` : ''}`;
  while (next !== undefined) {
    const page: Answer<TransferView[]> = await client.get(next);
    assert.equal(page.status, 200, `GET ${next}: ${JSON.stringify(page.body)}`);
    all.push(...page.body);
    next = nextPage(page);
  }
  return all;
}

/** Every account's balance in cents, replayed from the transfers. */
export function replayCents(transfers: readonly TransferView[]): Map<string, number> {
  const balances = new Map<string, number>();
  for (const t of transfers) {
    balances.set(t.debit, (balances.get(t.debit) ?? 0) - cents(t.amountUsd));
    balances.set(t.credit, (balances.get(t.credit) ?? 0) + cents(t.amountUsd));
  }
  return balances;
}

/** An account's balance as the service answers it (200 expected). */
export async function balance(client: Getter, account: string, asOf?: string): Promise<BalanceView> {
  const path = `/ledger/balances?account=${encodeURIComponent(account)}${asOf ? `&asOf=${encodeURIComponent(asOf)}` : ''}`;
  const answer = await client.get<BalanceView>(path);
  assert.equal(answer.status, 200, `GET ${path}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** A closer's three buckets, in cents. */
export async function closerCents(client: Getter, closerId: string) {
  const b = await balance(client, `closer:${closerId}`);
  return {
    pending: cents(b.pendingUsd ?? NaN),
    available: cents(b.availableUsd ?? NaN),
    paid: cents(b.paidUsd ?? NaN),
  };
}

/** The months (YYYY-MM, UTC) from the first transfer's to the last's, every one between too. */
export function monthsOf(transfers: readonly TransferView[]): string[] {
  assert.ok(transfers.length > 0, 'no transfers to span');
  const first = transfers[0]?.at.slice(0, 7) as string;
  const last = transfers.at(-1)?.at.slice(0, 7) as string;
  const months: string[] = [];
  for (let [year, month] = first.split('-').map(Number) as [number, number]; ; ) {
    const text = `${year}-${String(month).padStart(2, '0')}`;
    months.push(text);
    if (text >= last) return months;
    [year, month] = month === 12 ? [year + 1, 1] : [year, month + 1];
  }
}

const linesCents = (lines: readonly StatementLineView[]) => lines.reduce((sum, l) => sum + cents(l.effectUsd), 0);

/**
 * A closer's statements of these months add up (D-82, D-280): opening + earned − clawed back −
 * paid = closing, the lines sum to closing − opening, and each month opens where the last closed.
 * Answers the last closing, in cents.
 */
export async function closerStatementsAddUp(client: Getter, closerId: string, months: readonly string[]) {
  let previous: number | undefined;
  for (const month of months) {
    const answer = await client.get<CloserStatementView>(`/closers/closers/${closerId}/statement?month=${month}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const s = answer.body;
    const [opening, closing] = [cents(s.openingUsd), cents(s.closingUsd)];
    assert.equal(
      opening + cents(s.earnedUsd) - cents(s.clawedBackUsd) - cents(s.paidUsd),
      closing,
      `${closerId} ${month}`,
    );
    assert.equal(linesCents(s.lines), closing - opening, `${closerId} ${month}: the lines`);
    if (previous !== undefined) assert.equal(opening, previous, `${closerId} ${month} opens where the last closed`);
    previous = closing;
  }
  return previous as number;
}

/** A Seller's statements add up: opening − commissions − platform fees − fees + refunds = closing. */
export async function sellerStatementsAddUp(client: Getter, sellerId: string, months: readonly string[]) {
  let previous: number | undefined;
  let refunds = 0;
  for (const month of months) {
    const answer = await client.get<SellerStatementView>(`/sellers/${sellerId}/statement?month=${month}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const s = answer.body;
    const [opening, closing] = [cents(s.openingUsd), cents(s.closingUsd)];
    const movements = -cents(s.commissionsUsd) - cents(s.platformFeesUsd) - cents(s.feesUsd) + cents(s.refundsUsd);
    assert.equal(opening + movements, closing, `${sellerId} ${month}`);
    assert.equal(linesCents(s.lines), closing - opening, `${sellerId} ${month}: the lines`);
    if (previous !== undefined) assert.equal(opening, previous, `${sellerId} ${month} opens where the last closed`);
    previous = closing;
    refunds += cents(s.refundsUsd);
  }
  return { closing: previous as number, refunds };
}
