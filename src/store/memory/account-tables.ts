// Sellers and keys in memory (D-51, D-52). A wipe keeps them but for closers' keys (the closers
// go, so do their keys); their numbers are never restarted.
import { compareIds } from '../../domain/ids.ts';
import type { ApiKey } from '../../domain/keys.ts';
import { type DailyLimits, emptyUsage, type KeyUsage, withinDaily } from '../../domain/policy.ts';
import type { Seller } from '../../domain/records.ts';
import type { ConsoleSession } from '../../domain/sessions.ts';
import type { AccountReader, AccountUnit, KeyFilter } from '../accounts.ts';
import { UnitConflictError } from '../store.ts';
import { MailTables } from './mail-tables.ts';
import { MarkedRows } from './marked-rows.ts';
import { NotificationTables } from './notification-tables.ts';
import { PeopleTables } from './people-tables.ts';

export class AccountTables {
  sellers = new Map<string, Seller>();
  keys = new MarkedRows<ApiKey>();
  keysByHash = new Map<string, string>();
  counters = { seller: 0, key: 0 };
  /** Console sessions (D-63). */
  sessions = new MarkedRows<ConsoleSession>();
  /** Users, their tokens and failed sign-ins (D-62, D-63): kept by a wipe, as keys are. */
  people = new PeopleTables();
  /** The mail outbox (D-64): kept by a wipe (what was promised is still sent). */
  mail = new MailTables();
  /** People's notifications and settings (D-72): kept by a wipe, as the people are. */
  notifications = new NotificationTables();
  /** D-68: each key's usage by day (`<keyId> <day>`), every day kept as the SQL stores keep it. */
  usage = new Map<string, KeyUsage>();

  /** What a wipe leaves: everything but closers' keys. */
  withoutClosers(): AccountTables {
    const kept = new AccountTables();
    kept.sellers = new Map(this.sellers);
    kept.counters = { ...this.counters };
    kept.keys = this.keys.copy((key) => !key.principal.startsWith('closer_'), 1);
    for (const key of kept.keys.rows.values()) kept.keysByHash.set(key.hash, key.id);
    // Sessions stay as keys do (a closer's ends with its key, which the ring no longer holds).
    kept.sessions = this.sessions.copy(() => true);
    kept.people = this.people.withoutClosers();
    kept.mail = this.mail;
    kept.notifications = this.notifications;
    kept.usage = new Map(this.usage);
    return kept;
  }
}

function page<T extends { id: string }>(rows: Iterable<T>, afterId: string | undefined, limit: number | undefined) {
  const sorted = [...rows].sort((a, b) => compareIds(a.id, b.id));
  const after = afterId === undefined ? sorted : sorted.filter((row) => compareIds(row.id, afterId) > 0);
  return limit === undefined ? after : after.slice(0, limit);
}

export class MemoryAccountReader implements AccountReader {
  constructor(protected readonly tables: AccountTables) {}
  async getSeller(id: string) {
    return this.tables.sellers.get(id);
  }
  async listSellers({ afterId, limit }: { afterId?: string; limit?: number }) {
    return page(this.tables.sellers.values(), afterId, limit);
  }
  async getKey(id: string) {
    return this.tables.keys.get(id);
  }
  async listKeys({ principal, afterId, limit }: KeyFilter) {
    const keys = [...this.tables.keys.rows.values()].filter(
      (key) => principal === undefined || key.principal === principal,
    );
    return page(keys, afterId, limit);
  }
  async keyByHash(hash: string) {
    const id = this.tables.keysByHash.get(hash);
    return id === undefined ? undefined : this.tables.keys.get(id);
  }
  async keysChangedSince(since: number) {
    const { rows, mark } = this.tables.keys.changedSince(since);
    return { keys: rows, mark };
  }
  async sessionsChangedSince(since: number) {
    const { rows, mark } = this.tables.sessions.changedSince(since);
    return { sessions: rows, mark };
  }
  async keyUsage(keyId: string, day: string) {
    return this.tables.usage.get(`${keyId} ${day}`) ?? emptyUsage(day);
  }
}

export class MemoryAccountUnit extends MemoryAccountReader implements AccountUnit {
  constructor(
    tables: AccountTables,
    private readonly undo: (() => void)[],
  ) {
    super(tables);
  }
  async takeNumber(kind: 'seller' | 'key') {
    const counters = this.tables.counters;
    const previous = counters[kind];
    this.undo.push(() => {
      counters[kind] = previous;
    });
    counters[kind] = previous + 1;
    return counters[kind];
  }
  async putSeller(seller: Seller) {
    const { sellers } = this.tables;
    const previous = sellers.get(seller.id);
    sellers.set(seller.id, seller);
    this.undo.push(() => (previous ? sellers.set(seller.id, previous) : sellers.delete(seller.id)));
  }
  async putKey(key: ApiKey) {
    const { keys, keysByHash } = this.tables;
    const known = keysByHash.has(key.hash);
    keys.put(key, this.undo);
    keysByHash.set(key.hash, key.id);
    if (!known) this.undo.push(() => keysByHash.delete(key.hash));
  }
  async putSession(session: ConsoleSession) {
    this.tables.sessions.put(session, this.undo);
  }
  async purgeSessions(before: number) {
    const { sessions } = this.tables;
    for (const session of [...sessions.rows.values()])
      if (session.expiresAt < before) sessions.delete(session.id, this.undo);
  }
  async addKeyUsage(keyId: string, _principal: string, added: KeyUsage, within?: DailyLimits) {
    const { usage } = this.tables;
    const at = `${keyId} ${added.day}`;
    const previous = usage.get(at);
    const base = previous ?? emptyUsage(added.day);
    // Units run alone here: the usage is the day's as it is, checked now.
    if (within !== undefined && !withinDaily(base, added, within))
      throw new UnitConflictError("the key's usage of the day is over its daily limits");
    usage.set(at, {
      day: added.day,
      closes: base.closes + added.closes,
      closedValueCents: base.closedValueCents + added.closedValueCents,
    });
    this.undo.push(() => (previous ? usage.set(at, previous) : usage.delete(at)));
  }
  async touchKeys(lastUsed: ReadonlyMap<string, number>) {
    const { keys } = this.tables;
    for (const [id, at] of lastUsed) {
      const key = keys.get(id);
      if (key === undefined || (key.lastUsedAt ?? 0) >= at) continue;
      keys.replace({ ...key, lastUsedAt: at }, this.undo);
    }
  }
}
