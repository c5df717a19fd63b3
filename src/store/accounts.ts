// The accounts part of the store port (D-51, D-52): Sellers and API keys. A key is kept as its
// SHA-256 only. Every adapter implements it and the store contract holds them to it.
import type { ApiKey } from '../domain/keys.ts';
import type { DailyLimits, KeyUsage } from '../domain/policy.ts';
import type { Seller } from '../domain/records.ts';
import type { ConsoleSession } from '../domain/sessions.ts';

/** Filters of a page of keys; `afterId` is exclusive. */
export interface KeyFilter {
  principal?: string;
  afterId?: string;
  limit?: number;
}

export interface AccountReader {
  getSeller(id: string): Promise<Seller | undefined>;
  /** Sellers in id order, a page at a time. */
  listSellers(page: { afterId?: string; limit?: number }): Promise<Seller[]>;
  getKey(id: string): Promise<ApiKey | undefined>;
  /** Keys in id order, filtered. */
  listKeys(filter: KeyFilter): Promise<ApiKey[]>;
  /** The key whose SHA-256 (hex) this is. */
  keyByHash(hash: string): Promise<ApiKey | undefined>;
  /**
   * The keys changed (created, rolled, revoked) after `since` (0: every key), and the mark to ask
   * from next time: how every instance learns of a revocation made through another (D-52).
   */
  keysChangedSince(since: number): Promise<{ keys: ApiKey[]; mark: number }>;
  /**
   * The console sessions made or ended after `since` (0: every one kept), and the mark to ask
   * from next time: how every instance learns of a sign-out made through another (D-63).
   */
  sessionsChangedSince(since: number): Promise<{ sessions: ConsoleSession[]; mark: number }>;
  /**
   * D-68: the closes won committed through a key on a UTC day of the platform clock (zeros when
   * none). A unit that reads it to weigh a daily limit takes the key's lock (`key-usage:<id>`) first.
   */
  keyUsage(keyId: string, day: string): Promise<KeyUsage>;
}

export interface AccountUnit extends AccountReader {
  /** Takes the next number of a Seller or a key; never restarted, not even by a wipe. */
  takeNumber(kind: 'seller' | 'key'): Promise<number>;
  putSeller(seller: Seller): Promise<void>;
  /** Stores a key, or replaces the stored key of that id (its change is then seen by keysChangedSince). */
  putKey(key: ApiKey): Promise<void>;
  /**
   * Writes keys' last use (machine ms) when later than the stored one. Not a change that
   * keysChangedSince reports: other instances need not learn of it.
   */
  touchKeys(lastUsed: ReadonlyMap<string, number>): Promise<void>;
  /** Stores a session, or replaces the stored session of that id (its change is then seen by sessionsChangedSince). */
  putSession(session: ConsoleSession): Promise<void>;
  /** Forgets the sessions that expired before `before` (machine ms): they sign no one in anyway. */
  purgeSessions(before: number): Promise<void>;
  /**
   * D-68: adds a close won (and its final value) to a key's usage of the day. `within` (D-278),
   * given when the key's policy counts the day: the close is written behind the key's lock, and
   * only if the day's usage, it added, stays within those limits; else the unit fails
   * (UnitConflictError, or its write raises serialization_failure) and the store runs it again.
   */
  addKeyUsage(keyId: string, principal: string, usage: KeyUsage, within?: DailyLimits): Promise<void>;
}
