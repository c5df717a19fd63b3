// D-28: a prefix and a number padded to four digits (more digits past 9999).
export type IdKind = 'deal' | 'gig' | 'closer';

export function formatId(kind: IdKind, n: number): string {
  return `${kind}_${String(n).padStart(4, '0')}`;
}

/** Id order is number order: gig_9999 comes before gig_10000 (plain text order would not). */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
