// D-28: a prefix and a number padded to four digits (more digits past 9999).
export type IdKind = 'deal' | 'gig' | 'closer';

export function formatId(kind: ListKind, n: number): string {
  return `${kind}_${String(n).padStart(4, '0')}`;
}

/** Id order is number order: gig_9999 comes before gig_10000 (plain text order would not). */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Every kind of numbered id, those of the accounts (D-51, D-52) and refused proposals (D-61) too. */
export type ListKind = IdKind | 'seller' | 'key' | 'prop' | 'usr' | 'apr' | 'ntf' | 'txn' | 'rfd' | 'po';

const SHAPES: Record<ListKind, RegExp> = {
  deal: /^deal_(\d{4}|[1-9]\d{4,})$/,
  gig: /^gig_(\d{4}|[1-9]\d{4,})$/,
  closer: /^closer_(\d{4}|[1-9]\d{4,})$/,
  seller: /^seller_(\d{4}|[1-9]\d{4,})$/,
  key: /^key_(\d{4}|[1-9]\d{4,})$/,
  prop: /^prop_(\d{4}|[1-9]\d{4,})$/,
  usr: /^usr_(\d{4}|[1-9]\d{4,})$/,
  apr: /^apr_(\d{4}|[1-9]\d{4,})$/,
  ntf: /^ntf_(\d{4}|[1-9]\d{4,})$/,
  // D-79 to D-81: the ledger's transfers, refunds and payouts.
  txn: /^txn_(\d{4}|[1-9]\d{4,})$/,
  rfd: /^rfd_(\d{4}|[1-9]\d{4,})$/,
  po: /^po_(\d{4}|[1-9]\d{4,})$/,
};

/**
 * Whether a string could be an id of this kind. Ids are only ever made by formatId, so one of
 * any other shape (too long, a NUL byte, a number padded past four digits, anything) names
 * nothing: it is unknown, never an error (D-5), and no store is asked about it. (A store that
 * finds a record by its number would otherwise take `apr_00001` for `apr_0001`.)
 */
export function couldBeId(kind: ListKind, id: string): boolean {
  return id.length <= 24 && SHAPES[kind].test(id);
}

/**
 * D-28: a provisional id, what a decision calls a record it creates before the record has its
 * number (numbers are taken only once the gate has accepted, and never given back). `deal_9` and
 * seventeen digits: no sequence reaches that, so it is never a real id. The step that numbers a
 * unit's records puts the real ids in its place, field by field (numbering.ts, D-273: no note
 * names an id, D-272); a dry run keeps it, and its answer shows such an id as null (D-48).
 */
export function isProvisionalId(id: string): boolean {
  return PROVISIONAL.test(id);
}

const PROVISIONAL = /^(deal|gig|closer)_9\d{17}$/;
