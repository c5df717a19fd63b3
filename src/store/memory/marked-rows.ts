// Rows whose changes other instances learn of by a mark (keys, sessions, users): the memory
// adapter's form of a table with a change-mark column.

/**
 * Rows by id, each with the change mark it was last stored under, and the last mark given: what
 * keysChangedSince and sessionsChangedSince read. A put inside a unit of work is undone with it.
 */
export class MarkedRows<T extends { id: string }> {
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
