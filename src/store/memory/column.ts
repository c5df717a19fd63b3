// A list that grows by fixed-size chunks instead of by copying itself. A JavaScript array that
// grows is copied whole into a new, larger one, so a list as long as the memory store's feed is
// copied again and again into fresh memory, and each fresh page costs a page fault, about 10 µs on
// a virtual machine (docs/performance.md: the feed's arrays took three page faults in five of a
// sell's). A chunk is made once at its full size and filled in place; nothing is ever copied.
// A column of numbers keeps them in typed arrays: unboxed, and never walked by the collector.

/** Elements per chunk: a power of two, and a chunk of references stays an ordinary heap object. */
const CHUNK_BITS = 12;
const CHUNK = 1 << CHUNK_BITS;
const IN_CHUNK = CHUNK - 1;

/** What a binary search or a merge reads of a list of seqs: an array is one too. */
export interface Indexed<T> {
  readonly length: number;
  at(i: number): T | undefined;
}

/** A chunk: an array of references, or a typed array of numbers. */
type Chunk<T> = { [i: number]: T };

/** A chunk of references; all of them are made here, so V8 gives them all one elements kind. */
const references = <T>(): Chunk<T> => new Array<T>(CHUNK);

export class Column<T> implements Indexed<T> {
  private readonly chunks: Chunk<T>[] = [];
  private size = 0;

  /** A column of numbers (times, seqs): each chunk a Float64Array. */
  static ofNumbers(): Column<number> {
    return new Column<number>(() => new Float64Array(CHUNK));
  }

  constructor(private readonly chunk: () => Chunk<T> = references) {}

  get length(): number {
    return this.size;
  }

  /** The element at index i (0 ≤ i < length). */
  at(i: number): T {
    return (this.chunks[i >>> CHUNK_BITS] as Chunk<T>)[i & IN_CHUNK] as T;
  }

  /** The last element, undefined when empty. */
  last(): T | undefined {
    return this.size === 0 ? undefined : this.at(this.size - 1);
  }

  push(value: T): void {
    const i = this.size & IN_CHUNK;
    if (i === 0 && this.size >>> CHUNK_BITS === this.chunks.length) this.chunks.push(this.chunk());
    (this.chunks[this.size >>> CHUNK_BITS] as Chunk<T>)[i] = value;
    this.size++;
  }

  /**
   * Drops the last element. A reference (an object, a string) is cleared so the column does not
   * keep what it dropped; a number is left for the next push to overwrite (a typed chunk holds
   * nothing else).
   */
  pop(): void {
    if (this.size === 0) return;
    this.size--;
    const chunk = this.chunks[this.size >>> CHUNK_BITS] as Chunk<T>;
    if (typeof chunk[this.size & IN_CHUNK] !== 'number') chunk[this.size & IN_CHUNK] = undefined as T;
  }

  /** A new column of the elements from index `start` on. */
  from(start: number): Column<T> {
    const rest = new Column<T>(this.chunk);
    for (let i = start; i < this.size; i++) rest.push(this.at(i));
    return rest;
  }
}
