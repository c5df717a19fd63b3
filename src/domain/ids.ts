// D-28: a prefix and a number padded to four digits (more digits past 9999).
export type IdKind = 'deal' | 'gig' | 'closer';

export function formatId(kind: IdKind, n: number): string {
  return `${kind}_${String(n).padStart(4, '0')}`;
}
