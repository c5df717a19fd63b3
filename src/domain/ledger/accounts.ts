// D-79: the ledger's accounts. A Seller's account goes negative by what the Seller owes; a closer
// has three (what is held, what may be paid, what was paid); the platform's fees have one. In the
// demo, deals belong to no Seller and book to `seller:none`.

export type CloserBucket = 'pending' | 'available' | 'paid';

export const PLATFORM_FEES = 'platform:fees';

/** The demo's Seller: deals made without a key belong to no one. */
export const NO_SELLER = 'none';

export const sellerAccount = (sellerId: string | undefined): string => `seller:${sellerId ?? NO_SELLER}`;

export const closerAccount = (closerId: string, bucket: CloserBucket): string => `closer:${closerId}:${bucket}`;

/** What an account name says: whose it is. `closer:<id>` alone names the closer's three. */
export type AccountName =
  | { kind: 'seller'; sellerId: string; account: string }
  | { kind: 'closer'; closerId: string; bucket?: CloserBucket; account: string }
  | { kind: 'platform'; account: string };

const SELLER = /^seller:(none|seller_(?:\d{4}|[1-9]\d{4,}))$/;
const CLOSER = /^closer:(closer_(?:\d{4}|[1-9]\d{4,}))(?::(pending|available|paid))?$/;

/** The account a name means, or undefined for a name no account has. */
export function parseAccount(name: string): AccountName | undefined {
  if (name.length > 64) return undefined;
  if (name === PLATFORM_FEES) return { kind: 'platform', account: name };
  const seller = SELLER.exec(name);
  if (seller) return { kind: 'seller', sellerId: seller[1] as string, account: name };
  const closer = CLOSER.exec(name);
  if (closer) {
    const bucket = closer[2] as CloserBucket | undefined;
    return { kind: 'closer', closerId: closer[1] as string, account: name, ...(bucket ? { bucket } : {}) };
  }
  return undefined;
}

/** The accounts a name covers: a closer's name without a bucket covers its three. */
export function accountsOf(name: AccountName): string[] {
  if (name.kind === 'closer' && name.bucket === undefined)
    return (['pending', 'available', 'paid'] as const).map((bucket) => closerAccount(name.closerId, bucket));
  return [name.account];
}
