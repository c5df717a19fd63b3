// Sellers and keys in memory (D-51, D-52). A wipe keeps them but for closers' keys (the closers
// go, so do their keys); their numbers are never restarted.
import { compareIds } from '../../domain/ids.ts';
import type { ApiKey } from '../../domain/keys.ts';
import type { Seller } from '../../domain/records.ts';
import type { ConsoleSession } from '../../domain/sessions.ts';
import type { AccountReader, AccountUnit, KeyFilter } from '../accounts.ts';

export class AccountTables {
  sellers = new Map<string, Seller>();
  keys = new Map<string, ApiKey>();
  keysByHash = new Map<string, string>();
  /** Each key's change mark (keysChangedSince), and the last mark given. */
  marks = new Map<string, number>();
  mark = 0;
  counters = { seller: 0, key: 0 };
  /** Console sessions by id, each with its change mark (sessionsChangedSince), and the last mark given. */
  sessions = new Map<string, ConsoleSession>();
  sessionMarks = new Map<string, number>();
  sessionMark = 0;

  /** What a wipe leaves: everything but closers' keys. */
  withoutClosers(): AccountTables {
    const kept = new AccountTables();
    kept.sellers = new Map(this.sellers);
    kept.counters = { ...this.counters };
    kept.mark = this.mark + 1;
    for (const key of this.keys.values()) {
      if (key.principal.startsWith('closer_')) continue;
      kept.keys.set(key.id, key);
      kept.keysByHash.set(key.hash, key.id);
      kept.marks.set(key.id, this.marks.get(key.id) ?? 0);
    }
    // Sessions stay as keys do (a closer's ends with its key, which the ring no longer holds).
    kept.sessions = new Map(this.sessions);
    kept.sessionMarks = new Map(this.sessionMarks);
    kept.sessionMark = this.sessionMark;
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
    const keys = [...this.tables.keys.values()].filter((key) => principal === undefined || key.principal === principal);
    return page(keys, afterId, limit);
  }
  async keyByHash(hash: string) {
    const id = this.tables.keysByHash.get(hash);
    return id === undefined ? undefined : this.tables.keys.get(id);
  }
  async keysChangedSince(since: number) {
    const keys = [...this.tables.keys.values()].filter((key) => (this.tables.marks.get(key.id) ?? 0) > since);
    return { keys, mark: this.tables.mark };
  }
  async sessionsChangedSince(since: number) {
    const { sessions, sessionMarks, sessionMark } = this.tables;
    return { sessions: [...sessions.values()].filter((s) => (sessionMarks.get(s.id) ?? 0) > since), mark: sessionMark };
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
    const tables = this.tables;
    const previous = tables.keys.get(key.id);
    const previousMark = tables.marks.get(key.id);
    const mark = tables.mark;
    tables.keys.set(key.id, key);
    tables.keysByHash.set(key.hash, key.id);
    tables.mark = mark + 1;
    tables.marks.set(key.id, tables.mark);
    this.undo.push(() => {
      tables.mark = mark;
      if (previous) tables.keys.set(key.id, previous);
      else {
        tables.keys.delete(key.id);
        tables.keysByHash.delete(key.hash);
      }
      if (previousMark === undefined) tables.marks.delete(key.id);
      else tables.marks.set(key.id, previousMark);
    });
  }
  async putSession(session: ConsoleSession) {
    const tables = this.tables;
    const previous = tables.sessions.get(session.id);
    const previousMark = tables.sessionMarks.get(session.id);
    const mark = tables.sessionMark;
    tables.sessions.set(session.id, session);
    tables.sessionMark = mark + 1;
    tables.sessionMarks.set(session.id, tables.sessionMark);
    this.undo.push(() => {
      tables.sessionMark = mark;
      if (previous) tables.sessions.set(session.id, previous);
      else tables.sessions.delete(session.id);
      if (previousMark === undefined) tables.sessionMarks.delete(session.id);
      else tables.sessionMarks.set(session.id, previousMark);
    });
  }
  async purgeSessions(before: number) {
    const { sessions, sessionMarks } = this.tables;
    for (const [id, session] of sessions) {
      if (session.expiresAt >= before) continue;
      const mark = sessionMarks.get(id);
      sessions.delete(id);
      sessionMarks.delete(id);
      this.undo.push(() => {
        sessions.set(id, session);
        if (mark !== undefined) sessionMarks.set(id, mark);
      });
    }
  }
  async touchKeys(lastUsed: ReadonlyMap<string, number>) {
    const { keys } = this.tables;
    for (const [id, at] of lastUsed) {
      const key = keys.get(id);
      if (key === undefined || (key.lastUsedAt ?? 0) >= at) continue;
      keys.set(id, { ...key, lastUsedAt: at });
      this.undo.push(() => keys.set(id, key));
    }
  }
}
