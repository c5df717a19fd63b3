// The ledger's calls (D-79 to D-82) as the console makes them: an account's balance (whose `asOf`
// is also the platform clock's now, the month a statement opens at), a closer's payouts, the
// monthly statements of a closer and of a Seller, and a won deal's refunds. A refund is a write
// the service honours an Idempotency-Key on: the form sends one, the same for a retry of the same
// body, so a refund sent twice (a lost answer, a double click) is recorded once.
import { api, nextCursor, type Outcome, outcome } from './api.ts';
import type { components, paths } from './openapi.d.ts';

export type Transfer = components['schemas']['Transfer'];
export type Refund = components['schemas']['Refund'];
export type Payout = components['schemas']['Payout'];
type Answer<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer T } } } };
}
  ? T
  : never;
export type Balance = Answer<'/ledger/balances'>;
export type CloserStatement = Answer<'/closers/closers/{id}/statement'>;
export type SellerStatement = Answer<'/sellers/{id}/statement'>;
export type StatementLine = CloserStatement['lines'][number];

/** The demo's Seller: its deals have none, and book to `seller:none` (D-79). */
export const DEMO_SELLER = 'none';

/** An account's balance now (a closer's `closer:<id>`: its three buckets too). */
export const balance = async (account: string): Promise<Outcome<Balance>> =>
  outcome(await api.GET('/ledger/balances', { params: { query: { account } } }));

/** `2026-11` of an ISO time: the UTC month a statement counts (D-280). */
export const monthOf = (iso: string): string => iso.slice(0, 7);

/** A closer's payouts, newest first, every page. */
export async function payoutsOf(closerId: string): Promise<Payout[]> {
  const records: Payout[] = [];
  let cursor: string | undefined;
  do {
    const answer = await api.GET('/payouts', { params: { query: { closerId, limit: 1000, cursor } } });
    if (!answer.data) throw new Error(`listing the payouts: HTTP ${answer.response.status}`);
    records.push(...answer.data);
    cursor = nextCursor(answer.response);
  } while (cursor);
  return records;
}

export const closerStatement = async (id: string, month: string): Promise<Outcome<CloserStatement>> =>
  outcome(await api.GET('/closers/closers/{id}/statement', { params: { path: { id }, query: { month } } }));

export const sellerStatement = async (id: string, month: string): Promise<Outcome<SellerStatement>> =>
  outcome(await api.GET('/sellers/{id}/statement', { params: { path: { id }, query: { month } } }));

/** A deal's refunds, oldest first. */
export const refundsOf = async (id: string): Promise<Outcome<Refund[]>> =>
  outcome(await api.GET('/pipeline/deals/{id}/refunds', { params: { path: { id } } }));

/**
 * A fresh Idempotency-Key: 128 random bits in hex. getRandomValues, unlike randomUUID, works on
 * a page served over plain http from another host too.
 */
export function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export const recordRefund = async (
  id: string,
  body: { amountUsd: number; reason: string },
  key: string,
): Promise<Outcome<Refund>> =>
  outcome(
    await api.POST('/pipeline/deals/{id}/refunds', {
      params: { path: { id }, header: { 'Idempotency-Key': key } },
      body,
    }),
  );
