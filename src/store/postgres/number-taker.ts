// The numbers of units that commit in a group (D-281), taken outside any transaction. Those of
// the units waiting while a statement is in flight go together in the next one, as their
// commits do; with none in flight a unit's go at once.
//
// Under a load that lasts an instance also takes a few of a kind ahead (D-283): a unit that
// finds them held is numbered without a round trip, so that a create or a sell waits for one
// statement (its batch) instead of two. Load is what the periods of `holdMs` asked: at least
// `aheadFrom` of a kind in the last and half as many in this one. Below that rate, and in a
// burst shorter than a period, nothing is taken ahead and no number is skipped. A number held
// longer than `holdMs` is dropped, never handed out late: a record on one instance may then carry
// a lower number than one made on another at most that long before it, as a commit already may
// for the time from its numbers to its answer.
import type { SqlSession } from './sql-database.ts';
import { type NumberedKind, takeIds } from './sql-numbers.ts';

export interface NumberTakerOptions {
  /** How long a number taken ahead may wait for its unit, in ms; then it is a gap. */
  holdMs: number;
  /** How many of a kind asked in the last `holdMs` make the load worth taking ahead for. */
  aheadFrom: number;
  /** Most of a kind held ahead. */
  mostAhead: number;
  /** A clock in ms that only moves forward. */
  now(): number;
}

export const NUMBER_TAKER_DEFAULTS: NumberTakerOptions = {
  // 20 ms of demand at 400 or more a second: 8 to 16 numbers, used within a few round trips.
  holdMs: 20,
  aheadFrom: 8,
  mostAhead: 16,
  now: () => performance.now(),
};

/** Most numbers one statement takes (each count a prepared statement). */
const MOST_AT_ONCE = 64;

interface Waiting {
  kinds: readonly NumberedKind[];
  resolve(ids: string[]): void;
  reject(e: unknown): void;
}

export class NumberTaker {
  private readonly waiting: Waiting[] = [];
  private inFlight = false;
  /** Numbers taken ahead, lowest first, each with when its statement went. */
  private readonly held = new Map<NumberedKind, { id: string; at: number }[]>();
  /** How many of each kind were asked in the current period of `holdMs`, and in the one before. */
  private asked = new Map<NumberedKind, number>();
  private askedBefore = new Map<NumberedKind, number>();
  private periodStart = Number.NEGATIVE_INFINITY;
  /** How many resets this instance has seen (forget). */
  private resets = 0;
  /** Resets under way (quiesce), and who waits for the statement in flight to end. */
  private quiet = 0;
  private idle: (() => void)[] = [];

  constructor(
    private readonly session: <T>(work: (query: SqlSession['query']) => Promise<T>) => Promise<T>,
    private readonly options: NumberTakerOptions = NUMBER_TAKER_DEFAULTS,
  ) {}

  /** The ids of a number for each kind, in the order given. */
  take(kinds: readonly NumberedKind[]): Promise<string[]> {
    const now = this.options.now();
    this.count(kinds, now);
    this.drop(now);
    if (this.waiting.length === 0 && this.holds(kinds)) {
      const ids = kinds.map((kind) => this.shift(kind) as string);
      this.next();
      return Promise.resolve(ids);
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ kinds, resolve, reject });
      this.next();
    });
  }

  /**
   * Before a demo reset on this instance: what is held is dropped (with what the statement in
   * flight takes ahead), nothing is taken ahead until `forget`, and this settles once no
   * statement is in flight. A statement taking ahead while the reset runs would wait for its lock
   * and then take the restarted counters' first numbers, only to drop them: the first record
   * after a reset would not be number 1.
   */
  quiesce(): Promise<void> {
    this.quiet++;
    this.dropAll();
    return this.inFlight ? new Promise((resolve) => this.idle.push(resolve)) : Promise.resolve();
  }

  /**
   * After a reset's unit (committed or not): drops every number held, and those a statement in
   * flight takes ahead, since the reset restarted the counters they came from; and ends `quiesce`.
   */
  forget(): void {
    this.dropAll();
    if (this.quiet > 0) this.quiet--;
  }

  /** Drops what is held, and (by the count of resets) what the statement in flight takes ahead. */
  private dropAll(): void {
    this.held.clear();
    this.resets++;
  }

  private count(kinds: readonly NumberedKind[], now: number): void {
    if (now - this.periodStart >= this.options.holdMs) {
      this.askedBefore = now - this.periodStart >= 2 * this.options.holdMs ? new Map() : this.asked;
      this.asked = new Map();
      this.periodStart = now;
    }
    for (const kind of kinds) this.asked.set(kind, (this.asked.get(kind) ?? 0) + 1);
  }

  /**
   * How many of a kind to hold now: none but under a load that lasts (`aheadFrom` asked in the
   * last whole period and half as many in this one), so that a burst alone leaves no gap.
   */
  private target(kind: NumberedKind): number {
    const current = this.asked.get(kind) ?? 0;
    const before = this.askedBefore.get(kind) ?? 0;
    if (before < this.options.aheadFrom || current * 2 < this.options.aheadFrom) return 0;
    return Math.min(Math.max(current, before), this.options.mostAhead);
  }

  private drop(now: number): void {
    for (const numbers of this.held.values()) {
      while (numbers.length > 0 && now - numbers[0].at > this.options.holdMs) numbers.shift();
    }
  }

  private holds(kinds: readonly NumberedKind[]): boolean {
    return this.held.size > 0 && this.missing(kinds) === 0;
  }

  /** How many of these kinds' numbers those held cannot give. */
  private missing(kinds: readonly NumberedKind[]): number {
    const used = new Map<NumberedKind, number>();
    let missing = 0;
    for (const kind of kinds) {
      const n = used.get(kind) ?? 0;
      used.set(kind, n + 1);
      if (n >= (this.held.get(kind)?.length ?? 0)) missing++;
    }
    return missing;
  }

  private shift(kind: NumberedKind): string | undefined {
    return this.held.get(kind)?.shift()?.id;
  }

  private next(): void {
    if (this.inFlight) return;
    const now = this.options.now();
    this.drop(now);
    // The units waiting, in order, each numbered from those held first and from the statement
    // for the rest: every number held is lower than any the statement takes.
    const batch: { unit: Waiting; ids: (string | undefined)[] }[] = [];
    const kinds: NumberedKind[] = [];
    while (this.waiting.length > 0) {
      const unit = this.waiting[0];
      if (batch.length > 0 && kinds.length + this.missing(unit.kinds) > MOST_AT_ONCE) break;
      this.waiting.shift();
      const ids = unit.kinds.map((kind) => this.shift(kind));
      batch.push({ unit, ids });
      for (const [i, id] of ids.entries()) if (id === undefined) kinds.push(unit.kinds[i]);
    }
    const ahead = this.ahead(kinds);
    if (kinds.length + ahead.length === 0) {
      for (const { unit, ids } of batch) unit.resolve(ids as string[]);
      return;
    }
    this.inFlight = true;
    const asked = [...kinds, ...ahead];
    const resets = this.resets;
    this.session((query) => takeIds(query, asked))
      .then(
        (taken) => {
          let at = 0;
          for (const { unit, ids } of batch) unit.resolve(ids.map((id) => id ?? taken[at++]));
          if (resets !== this.resets) return;
          for (const [i, kind] of ahead.entries()) {
            const numbers = this.held.get(kind) ?? [];
            numbers.push({ id: taken[kinds.length + i], at: now });
            this.held.set(kind, numbers);
          }
        },
        (error) => {
          for (const { unit } of batch) unit.reject(error);
        },
      )
      .finally(() => {
        this.inFlight = false;
        const idle = this.idle;
        this.idle = [];
        for (const resolve of idle) resolve();
        this.next();
      });
  }

  /**
   * The kinds to take ahead with this statement: each kind the load asks for, up to its target,
   * when the statement goes anyway for it or what is held of it is down to half.
   */
  private ahead(kinds: readonly NumberedKind[]): NumberedKind[] {
    const ahead: NumberedKind[] = [];
    if (this.quiet > 0) return ahead;
    for (const kind of new Set([...this.asked.keys(), ...this.askedBefore.keys()])) {
      const target = this.target(kind);
      const held = this.held.get(kind)?.length ?? 0;
      if (target === 0 || (!kinds.includes(kind) && held * 2 > target)) continue;
      for (let n = held; n < target && kinds.length + ahead.length < MOST_AT_ONCE; n++) ahead.push(kind);
    }
    return ahead;
  }
}
