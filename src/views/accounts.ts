// Sellers and keys → JSON (D-51, D-52). A key's text appears only in the answer that made it.
import type { ApiKey } from '../domain/keys.ts';
import type { KeyUsage } from '../domain/policy.ts';
import type { Seller } from '../domain/records.ts';
import { policyView, usageView } from './limits.ts';
import { iso } from './records.ts';

export const sellerView = (seller: Seller) => ({ id: seller.id, name: seller.name, createdAt: iso(seller.createdAt) });

/** `text`: the key itself, in its creation's answer only; `lastUsed`: a use not yet written. */
export function keyView(key: ApiKey, text?: string, lastUsed?: number) {
  const used = Math.max(key.lastUsedAt ?? 0, lastUsed ?? 0);
  return {
    id: key.id,
    ...(text !== undefined ? { key: text } : {}),
    prefix: key.prefix,
    name: key.name,
    principal: key.principal,
    scopes: [...key.scopes],
    createdAt: iso(key.createdAt),
    expiresAt: key.expiresAt === undefined ? null : iso(key.expiresAt),
    lastUsedAt: used === 0 ? null : iso(used),
    ...(key.revokedAt !== undefined ? { revokedAt: iso(key.revokedAt) } : {}),
    ...(key.replacedBy !== undefined ? { replacedBy: key.replacedBy } : {}),
    ...(key.createdBy !== undefined ? { createdBy: key.createdBy } : {}),
    ...(key.policy !== undefined ? { policy: policyView(key.policy) } : {}),
  };
}

/** One key as `GET /keys/{id}` answers it: a Seller's key with its usage of the day (D-68). */
export const keyWithUsageView = ({ key, usage }: { key: ApiKey; usage?: KeyUsage }) => ({
  ...keyView(key),
  ...(usage !== undefined ? { usage: usageView(usage) } : {}),
});
