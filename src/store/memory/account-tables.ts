// Sellers and keys in memory (D-51, D-52). A wipe keeps them but for closers' keys (the closers
// go, so do their keys); their numbers are never restarted.
import { compareIds } from '../../domain/ids.ts';
import type { ApiKey } from '../../domain/keys.ts';
import type { Seller } from '../../domain/records.ts';
import type { ConsoleSession } from '../../domain/sessions.ts';
import type { AccountReader, AccountUnit, KeyFilter } from '../accounts.ts';

/**
 * Rows by id, each with the change mark it was last stored under, and the last mark given: what
 * keysChangedSince and sessionsChangedSince read. A put inside a unit of work is undone with it.
 */
class MarkedRows<T extends { id: string }> {
  rows = new Map<string, T>();
  marks = new Map<string, number>();
  mark = 0;

  get(id: string): T | undefined {
    return this.rows.get(id);
  }

  /** Stores the row under a new mark; `undo` gets what puts the table back as it was. */
  put(row: T, undo: (() => void)[]): void {
    const previous = this.rows.get(row.id);
    const previousMark = this.marks.get(row.id);
    const mark = this.mark;
    this.rows.set(row.id, row);
    this.mark = mark + 1;
    this.marks.set(row.id, this.mark);
    undo.push(() => {
      this.mark = mark;
      if (previous) this.rows.set(row.id, previous);
      else this.rows.delete(row.id);
      if (previousMark === undefined) this.marks.delete(row.id);
      else this.marks.set(row.id, previousMark);
    });
  }

  /** Replaces a row keeping its mark: a change no other instance needs to learn of. */
  replace(row: T, undo: (() => void)[]): void {
    const previous = this.rows.get(row.id);
    if (previous === undefined) return;
    this.rows.set(row.id, row);
    undo.push(() => this.rows.set(row.id, previous));
  }

  /** Forgets a row (no mark: other instances forget it by themselves). */
  delete(id: string, undo: (() => void)[]): void {
    const row = this.rows.get(id);
    if (row === undefined) return;
    const mark = this.marks.get(id);
    this.rows.delete(id);
    this.marks.delete(id);
    undo.push(() => {
      this.rows.set(id, row);
      if (mark !== undefined) this.marks.set(id, mark);
    });
  }

  changedSince(since: number): { rows: T[]; mark: number } {
    return { rows: [...this.rows.values()].filter((row) => (this.marks.get(row.id) ?? 0) > since), mark: this.mark };
  }

  /** A copy holding the rows `keep` says, with their marks; the mark moves on by `step`. */
  copy(keep: (row: T) => boolean, step = 0): MarkedRows<T> {
    const copy = new MarkedRows<T>();
    copy.mark = this.mark + step;
    for (const row of this.rows.values()) {
      if (!keep(row)) continue;
      copy.rows.set(row.id, row);
      copy.marks.set(row.id, this.marks.get(row.id) ?? 0);
    }
    return copy;
  }
}

export class AccountTables {
  sellers = new Map<string, Seller>();
  keys = new MarkedRows<ApiKey>();
  keysByHash = new Map<string, string>();
  counters = { seller: 0, key: 0 };
  /** Console sessions (D-63). */
  sessions = new MarkedRows<ConsoleSession>();

  /** What a wipe leaves: everything but closers' keys. */
  withoutClosers(): AccountTables {
    const kept = new AccountTables();
    kept.sellers = new Map(this.sellers);
    kept.counters = { ...this.counters };
    kept.keys = this.keys.copy((key) => !key.principal.startsWith('closer_'), 1);
    for (const key of kept.keys.rows.values()) kept.keysByHash.set(key.hash, key.id);
    // Sessions stay as keys do (a closer's ends with its key, which the ring no longer holds).
    kept.sessions = this.sessions.copy(() => true);
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
  async touchKeys(lastUsed: ReadonlyMap<string, number>) {
    const { keys } = this.tables;
    for (const [id, at] of lastUsed) {
      const key = keys.get(id);
      if (key === undefined || (key.lastUsedAt ?? 0) >= at) continue;
      keys.replace({ ...key, lastUsedAt: at }, this.undo);
    }
  }
}
