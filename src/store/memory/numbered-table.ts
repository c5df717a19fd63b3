// Records whose ids are <kind>_<number> (D-28), held in an array by their number. Ids are
// gapless, so the array is dense: a read is an index, not a hash of the id, and a growing table
// copies one array of pointers now and then instead of rehashing a map of strings (what a
// million deals in a Map cost on every resize, and in memory per deal).
import { formatId, type IdKind } from '../../domain/ids.ts';

export class NumberedTable<T extends { readonly id: string }> {
  private rows: (T | undefined)[] = [undefined]; // numbers start at 1
  private count = 0;

  constructor(private readonly kind: IdKind) {}

  /** The number of an id of this table's kind in its one written form; undefined otherwise. */
  numberOf(id: string): number | undefined {
    const prefix = this.kind.length + 1;
    if (id.length <= prefix || id.charCodeAt(prefix - 1) !== 95 /* _ */ || !id.startsWith(this.kind)) return undefined;
    const n = Number(id.slice(prefix));
    return Number.isSafeInteger(n) && n > 0 && formatId(this.kind, n) === id ? n : undefined;
  }

  get size(): number {
    return this.count;
  }

  get(id: string): T | undefined {
    const n = this.numberOf(id);
    return n === undefined ? undefined : this.rows[n];
  }

  at(n: number): T | undefined {
    return this.rows[n];
  }

  /** Stores the record under its id's number; returns what was there. */
  set(record: T): T | undefined {
    const n = this.numberOf(record.id);
    if (n === undefined) throw new Error(`not a ${this.kind} id: ${record.id}`);
    return this.put(n, record);
  }

  /** Puts back what `set` returned (undefined removes the record). */
  restore(id: string, previous: T | undefined): void {
    this.put(this.numberOf(id) as number, previous);
  }

  *values(): IterableIterator<T> {
    for (const row of this.rows) if (row !== undefined) yield row;
  }

  /** Records numbered above `after`, in number order. */
  *valuesAfter(after: number): IterableIterator<T> {
    for (let n = Math.max(1, after + 1); n < this.rows.length; n++) {
      const row = this.rows[n];
      if (row !== undefined) yield row;
    }
  }

  private put(n: number, record: T | undefined): T | undefined {
    const previous = this.rows[n];
    if (previous === undefined && record !== undefined) this.count++;
    else if (previous !== undefined && record === undefined) this.count--;
    this.rows[n] = record;
    return previous;
  }
}
