// D-28: a prefix and a number padded to four digits (more digits past 9999).
export type IdKind = 'deal' | 'gig' | 'closer';

export function formatId(kind: IdKind, n: number): string {
  return `${kind}_${String(n).padStart(4, '0')}`;
}

/** Id order is number order: gig_9999 comes before gig_10000 (plain text order would not). */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

const SHAPES: Record<IdKind, RegExp> = { deal: /^deal_\d{4,}$/, gig: /^gig_\d{4,}$/, closer: /^closer_\d{4,}$/ };

/**
 * Whether a string could be an id of this kind. Ids are only ever made by formatId, so one of
 * any other shape (too long, a NUL byte, anything) names nothing: it is unknown, never an error
 * (D-5), and no store is asked about it.
 */
export function couldBeId(kind: IdKind, id: string): boolean {
  return id.length <= 24 && SHAPES[kind].test(id);
}

/**
 * D-48: the number a dry run gives a record it would create. No id ever has it (numbers start
 * at 1), so the views can answer such an id as null.
 */
export const PENDING_NUMBER = 0;

export function isPendingId(id: string): boolean {
  return (
    id === formatId('deal', PENDING_NUMBER) ||
    id === formatId('gig', PENDING_NUMBER) ||
    id === formatId('closer', PENDING_NUMBER)
  );
}
