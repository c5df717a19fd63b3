// The platform timers' index in memory: records by due time, so that a timer run
// finds what is due without reading every deal and gig (at a million deals the scan blocked the
// event loop about 40 ms on every tick). A binary min-heap of (due time, record number) in typed
// arrays, 16 bytes an entry. Entries are never updated in place: a record whose due time changes
// gets a new entry, and an entry is valid only while its record is still due at that time (the
// caller says, from the record itself). So a rolled-back put needs no undo here: the entry it
// added names a due time the record no longer has. Stale entries are dropped when they reach the
// top, and the heap is rebuilt from the valid ones when they outnumber them.

export class DueIndex {
  private dueAt = new Float64Array(1024);
  private numbers = new Float64Array(1024);
  private size = 0;

  constructor(
    /** Whether the record numbered `number` is still due at `dueAt`. */
    private readonly isDue: (number: number, dueAt: number) => boolean,
  ) {}

  /** A record is (now) due at `dueAt`. */
  add(number: number, dueAt: number): void {
    if (this.size === this.dueAt.length) this.compactOrGrow();
    let i = this.size++;
    // Sift up.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(dueAt, number, this.dueAt[parent], this.numbers[parent])) break;
      this.dueAt[i] = this.dueAt[parent];
      this.numbers[i] = this.numbers[parent];
      i = parent;
    }
    this.dueAt[i] = dueAt;
    this.numbers[i] = number;
  }

  /**
   * The numbers of the records due at or before `now`, earliest first (then by number), at most
   * `limit`. Nothing due costs a look at the top of the heap.
   */
  due(now: number, limit: number): number[] {
    const found: number[] = [];
    const kept: number[] = [];
    const seen = new Set<number>();
    while (this.size > 0 && this.dueAt[0] <= now && found.length < limit) {
      const dueAt = this.dueAt[0];
      const number = this.numbers[0];
      this.pop();
      // A record due at T, then at another time, then at T again has two valid entries: one kept.
      if (seen.has(number) || !this.isDue(number, dueAt)) continue;
      seen.add(number);
      found.push(number);
      kept.push(dueAt, number);
    }
    // What was found stays due until its record changes.
    for (let i = 0; i < kept.length; i += 2) this.add(kept[i + 1], kept[i]);
    return found;
  }

  clear(): void {
    this.dueAt = new Float64Array(1024);
    this.numbers = new Float64Array(1024);
    this.size = 0;
  }

  private before(dueA: number, numberA: number, dueB: number, numberB: number): boolean {
    return dueA < dueB || (dueA === dueB && numberA < numberB);
  }

  private pop(): void {
    const last = --this.size;
    if (last === 0) return;
    const dueAt = this.dueAt[last];
    const number = this.numbers[last];
    let i = 0;
    // Sift down.
    for (;;) {
      const left = 2 * i + 1;
      if (left >= last) break;
      const right = left + 1;
      const child =
        right < last && this.before(this.dueAt[right], this.numbers[right], this.dueAt[left], this.numbers[left])
          ? right
          : left;
      if (!this.before(this.dueAt[child], this.numbers[child], dueAt, number)) break;
      this.dueAt[i] = this.dueAt[child];
      this.numbers[i] = this.numbers[child];
      i = child;
    }
    this.dueAt[i] = dueAt;
    this.numbers[i] = number;
  }

  /** Drops the stale entries when they are at least half; otherwise doubles the arrays. */
  private compactOrGrow(): void {
    const dueAt: number[] = [];
    const numbers: number[] = [];
    const seen = new Set<number>();
    for (let i = 0; i < this.size; i++) {
      if (!seen.has(this.numbers[i]) && this.isDue(this.numbers[i], this.dueAt[i])) {
        seen.add(this.numbers[i]);
        dueAt.push(this.dueAt[i]);
        numbers.push(this.numbers[i]);
      }
    }
    const capacity = dueAt.length * 2 > this.dueAt.length ? this.dueAt.length * 2 : this.dueAt.length;
    this.dueAt = new Float64Array(capacity);
    this.numbers = new Float64Array(capacity);
    this.size = 0;
    for (let i = 0; i < dueAt.length; i++) this.add(numbers[i], dueAt[i]);
  }
}
