// What an optimistic unit of work read without locks, and the statements that check it with the
// unit's write (D-250). They are sent after BEGIN, in the lock order every unit keeps (D-46:
// deals, then their gigs, then closers), each locking what it checks, and raise
// serialization_failure (migration 016's expect_unchanged) when a row is no longer the version
// read: the store then runs the unit again, with locks. The gigs are checked in a statement of
// their own, after the deals' locks are held, so that its snapshot sees every gig a holder of
// the deal's lock committed (a statement's snapshot is taken when it starts, READ COMMITTED).
import { BY_ID } from './sql-reader.ts';

export interface Check {
  text: string;
  params: unknown[];
}

/** `$n` for each value, pushed onto `params`: scalar parameters, so that a prepared check keeps one plan. */
function placeholders(params: unknown[], values: readonly string[]): string[] {
  return values.map((value) => `$${params.push(value)}`);
}

/** `(id, version) IN (…)`, or false when nothing is expected. */
function versionsIn(params: unknown[], expected: ReadonlyMap<string, string>, id: string, version: string): string {
  if (expected.size === 0) return 'false';
  const pairs = [...expected].map(([i, v]) => `(${placeholders(params, [i, v]).join(', ')})`);
  return `(${id}, ${version}) IN (${pairs.join(', ')})`;
}

/**
 * The rows of `table` whose `column` is one of `ids`, locked in id order: every `expected` one
 * still at its version, and, when `exactly`, no other.
 */
function lockedUnchanged(
  table: string,
  column: string,
  order: string,
  params: unknown[],
  ids: readonly string[],
  expected: ReadonlyMap<string, string>,
  exactly: boolean,
): string {
  const rows = `(SELECT id, xmin::text AS v FROM ${table} WHERE ${column} IN (${placeholders(params, ids).join(', ')})
    ORDER BY ${order} FOR UPDATE) AS r`;
  const unchanged = `count(*) FILTER (WHERE ${versionsIn(params, expected, 'r.id', 'r.v')}) = ${expected.size}`;
  return `(SELECT ${exactly ? `count(*) = ${expected.size} AND ` : ''}${unchanged} FROM ${rows})`;
}

export class Expectations {
  /** Deals read: id → version. */
  readonly deals = new Map<string, string>();
  /** Whole gig sets read: deal id → (gig id → version). */
  readonly gigSets = new Map<string, Map<string, string>>();
  /** Closers read for a write (locked by the check), and read only (checked, not locked). */
  readonly lockedClosers = new Map<string, string>();
  readonly readClosers = new Map<string, string>();

  /** Whether anything is expected (what a refusal must check before it stands). */
  get any(): boolean {
    return this.deals.size + this.gigSets.size + this.lockedClosers.size + this.readClosers.size > 0;
  }

  expectDeal(id: string, version: string) {
    this.deals.set(id, version);
  }

  expectGigs(dealId: string, gigs: Map<string, string>) {
    this.gigSets.set(dealId, gigs);
  }

  expectCloser(id: string, version: string, lock: boolean) {
    if (lock) {
      this.readClosers.delete(id);
      this.lockedClosers.set(id, version);
    } else if (!this.lockedClosers.has(id)) this.readClosers.set(id, version);
  }

  /**
   * The statements that check everything expected, sent once, after BEGIN: once a unit has
   * begun it takes nothing more from the cache.
   */
  checks(): Check[] {
    const checks: Check[] = [];
    const dealIds = [...new Set([...this.deals.keys(), ...this.gigSets.keys()])];
    if (dealIds.length > 0) {
      // The deal of every gig set is locked too: its gigs are written only under its lock.
      const params: unknown[] = [];
      const deals = lockedUnchanged('deals', 'id', BY_ID, params, dealIds, this.deals, false);
      checks.push({ text: `SELECT expect_unchanged(${deals})`, params });
    }
    const parts: string[] = [];
    const params: unknown[] = [];
    if (this.gigSets.size > 0) {
      // Exactly the gigs read: none changed, none gone, none new.
      const gigs = new Map<string, string>();
      for (const set of this.gigSets.values()) for (const [id, version] of set) gigs.set(id, version);
      parts.push(lockedUnchanged('gigs', 'deal_id', BY_ID, params, [...this.gigSets.keys()], gigs, true));
    }
    if (this.lockedClosers.size > 0) {
      const ids = [...this.lockedClosers.keys()];
      parts.push(lockedUnchanged('closers', 'id', 'length(id), id', params, ids, this.lockedClosers, false));
    }
    if (this.readClosers.size > 0) {
      const unchanged = versionsIn(params, this.readClosers, 'id', 'xmin::text');
      parts.push(`(SELECT count(*) FROM closers WHERE ${unchanged}) = ${this.readClosers.size}`);
    }
    if (parts.length > 0) checks.push({ text: `SELECT expect_unchanged(${parts.join(' AND ')})`, params });
    return checks;
  }
}
